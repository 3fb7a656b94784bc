"""Hostile model files: each is refused with its own code, exit 1, no traceback,
by `irexec check`, `irexec run` and the API; no entity is expanded, no URL
fetched, no file outside the model read."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_files import ATTACKS, Attack

import irexec
from irexec.base.errors import ModelError

_built: dict[str, Path] = {}


@pytest.fixture
def built(tmp_path_factory: pytest.TempPathFactory, attack_env):  # type: ignore[no-untyped-def]
    """The attack's files, written once per session and worker (one is 100 MB)."""

    def get(attack: Attack) -> Path:
        if attack.name not in _built:
            _built[attack.name] = attack.build(tmp_path_factory.mktemp(attack.name), attack_env)
        return _built[attack.name]

    return get


def _assert_clean(output: str, secret, tripwire) -> None:  # type: ignore[no-untyped-def]
    assert "Traceback" not in output
    assert secret.text not in output and secret.opened == []
    assert "FETCHED-FROM-NETWORK" not in output
    assert tripwire.requests == []


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_check_refuses(attack: Attack, built, run_cli, secret, tripwire) -> None:  # type: ignore[no-untyped-def]
    xml = built(attack)
    r = run_cli("check", xml)
    assert r.exit_code == 1, r.output
    assert f"error[{attack.code}]" in r.output, r.output
    assert str(xml) in r.output  # every finding names the file
    _assert_clean(r.output, secret, tripwire)


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_run_refuses(attack: Attack, built, run_cli, secret, tripwire) -> None:  # type: ignore[no-untyped-def]
    xml = built(attack)
    out = xml.parent / "out.npz"
    r = run_cli("run", xml, "--inputs", xml.parent / "inputs.npz", "--output", out)
    assert r.exit_code == 1, r.output
    assert f"error[{attack.code}]" in r.output, r.output
    _assert_clean(r.output, secret, tripwire)
    assert not out.exists()


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_api_refuses_with_irexec_errors_only(attack: Attack, built, tripwire) -> None:  # type: ignore[no-untyped-def]
    xml = built(attack)
    result = irexec.check(str(xml))
    codes = [d.code for d in result.errors]
    assert attack.code in codes
    with pytest.raises(ModelError) as info:
        irexec.load(str(xml))
    assert attack.code in [d.code for d in info.value.diagnostics]
    assert tripwire.requests == []


XML_LEVEL = [a for a in ATTACKS if a.code in ("unsafe-xml", "xml-limit", "xml-syntax", "xml-encoding")]


@pytest.mark.parametrize("attack", XML_LEVEL, ids=lambda a: a.name)
def test_xml_findings_carry_a_line(attack: Attack, built) -> None:  # type: ignore[no-untyped-def]
    xml = built(attack)
    [d] = irexec.check(str(xml)).errors
    if attack.name != "empty-xml":
        assert d.line is not None and d.line >= 1, d
    assert d.file == str(xml)


def test_model_level_findings_name_layer_and_port(built) -> None:  # type: ignore[no-untyped-def]
    from hostile_files import BY_NAME

    [d] = [d for d in irexec.check(str(built(BY_NAME["dim-negative"]))).errors if d.code == "bad-dim"]
    assert (d.layer_id, d.layer_name, d.port, d.port_kind) == (0, "x", 0, "output")
    assert d.line is not None and "<dim>-5</dim>" in d.message
    [d] = [d for d in irexec.check(str(built(BY_NAME["const-offset-near-2^63"]))).errors if d.code == "weights-out-of-bounds"]
    assert (d.layer_id, d.op, d.line) == (1, "Const-1", 14)  # the line of its <data>
    assert "9223372036854775800" in d.message


def test_subprocess_sample_has_no_traceback(built, secret, tripwire, run_cli) -> None:  # type: ignore[no-untyped-def]
    """The real entry point (python -m irexec), not only click's test runner."""
    from hostile_files import BY_NAME

    for name in ("xxe-local-file-late-doctype", "billion-laughs", "dim-5000-digits"):
        attack = BY_NAME[name]
        xml = built(attack)
        for args in (("check", xml), ("run", xml, "--inputs", xml.parent / "inputs.npz")):
            p = run_cli.subprocess(*args)
            assert p.returncode == 1, (name, p.stdout, p.stderr)
            assert f"error[{attack.code}]" in p.stdout + p.stderr
            _assert_clean(p.stdout + p.stderr, secret, tripwire)


def test_control_the_traps_catch_an_unsafe_parser(tmp_path: Path) -> None:
    """The same files through a parser that resolves entities do read the
    secret, and the tripwire does record a fetch: the traps can spring."""
    import threading
    import urllib.request

    from hostile_files import BY_NAME, Env
    from lxml import etree
    from traps import Secret, Tripwire

    trap, server = Secret(tmp_path), Tripwire()
    try:
        xml = BY_NAME["xxe-local-file-in-text"].build(tmp_path, Env(trap.path, server.url))
        unsafe = etree.XMLParser(resolve_entities=True, load_dtd=True)
        tree = etree.parse(str(xml), unsafe)
        assert tree.find(".//note").text.strip() == trap.text
        assert len(trap.opened) >= 1
        threading.Thread(target=server.handle_request, daemon=True).start()
        urllib.request.urlopen(server.url + "/probe", timeout=5).read()
        assert server.requests == ["/probe"]
    finally:
        trap.close()
        server.server_close()
