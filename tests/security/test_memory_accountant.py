"""One accountant: every byte a command holds is charged before it is allocated,
whatever made it.  String payloads count by their bytes (a string Const by the
offsets in its blob, before it is unpacked); outputs only the data sizes
(ragged strings, tokens, NonZero...) are charged as they grow; shape inference
allocates nothing from input values; the audio pre-processing of ``generate``
is charged before its windows are made.

The hostile models run the real command line in a child whose address space
is capped (RLIMIT_AS): they used to take 1.4 to 2.6 GB under ``--max-memory
64MiB``, so they can only pass by being refused with ``memory-limit`` before
allocating.  The walk at the end takes every registered op whose output
inference cannot size from static input shapes and shows the limit holds for it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from capped_child import run_capped

from irexec.model.builder import IRBuilder

pytest.importorskip("resource")

ROOT = Path(__file__).resolve().parents[2]
MiB = 1 << 20
# The child's address space: the interpreter, NumPy and one BLAS thread take about
# 300 MiB of it (tokenizer ops import more); the models below used to need 1.4 to 2.6 GB.
CAP = 1000 * MiB


def irexec(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_capped(CAP, *args, env=env)


def refused(proc: subprocess.CompletedProcess[str], *what: str) -> None:
    """Exit 1 with a memory-limit finding naming each of ``what``, no traceback."""
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "error[memory-limit]" in proc.stderr, proc.stderr
    for w in what:
        assert w in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


# ------------------------------------------------------------------ string payloads


def _string_const_model(folder: Path, each: int, count: int = 2, unpack: bool = False) -> Path:
    """A string Const of ``count`` elements of ``each`` bytes (zeros: a sparse .bin) into a
    Result, or (``unpack``) through StringTensorUnpack into three."""
    head = np.array([count, *range(0, (count + 1) * each, each)], "<i4").tobytes()
    size = len(head) + count * each
    with open(folder / "s.bin", "wb") as f:
        f.write(head)
        f.truncate(size)
    dims = f"<dim>{count}</dim>"
    if unpack:
        outs = (f'<port id="1" precision="I32">{dims}</port><port id="2" precision="I32">{dims}</port>'
                '<port id="3" precision="U8"><dim>-1</dim></port>')
        tail = (f'<layer id="1" name="unpack" type="StringTensorUnpack" version="opset15"><input><port id="0" '
                f'precision="STRING">{dims}</port></input><output>{outs}</output></layer>'
                + "".join(f'<layer id="{2 + k}" name="out{k}" type="Result" version="opset1"><input><port id="0">'
                          f'{"<dim>-1</dim>" if k == 2 else dims}</port></input></layer>' for k in range(3))
                + '</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'
                + "".join(f'<edge from-layer="1" from-port="{1 + k}" to-layer="{2 + k}" to-port="0"/>' for k in range(3)))
    else:
        tail = (f'<layer id="1" name="out" type="Result" version="opset1"><input><port id="0" precision="STRING">{dims}'
                '</port></input></layer></layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>')
    (folder / "s.xml").write_text(f'''<?xml version="1.0"?>
<net name="s" version="11"><layers>
<layer id="0" name="text" type="Const" version="opset1"><data element_type="string" shape="{count}" offset="0" size="{size}"/>
<output><port id="0" precision="STRING">{dims}</port></output></layer>
{tail}</edges></net>''')
    return folder / "s.xml"


@pytest.mark.parametrize("how", ["option", "environment"])
def test_a_string_const_counts_by_its_bytes(tmp_path: Path, how: str) -> None:
    """2 x 256 MiB of characters in a 500-byte XML: 2.6 GB of RSS under 64 MiB, exit 0."""
    xml = _string_const_model(tmp_path, 256 * MiB)
    args, env = (["--max-memory", "64MiB"], None) if how == "option" else ([], {"IREXEC_MAX_MEMORY": "64MiB"})
    refused(irexec("run", xml, *args, "-o", tmp_path / "out.npz", env=env), '"text"', "536870912 bytes of characters")
    assert not (tmp_path / "out.npz").exists()


@pytest.mark.parametrize("unpack", [False, True])
def test_check_reads_a_string_const_s_offsets_not_its_characters(tmp_path: Path, unpack: bool) -> None:
    """Validating the Const unpacked it (1.1 GB); so did inferring a StringTensorUnpack of it."""
    xml = _string_const_model(tmp_path, 256 * MiB, unpack=unpack)
    proc = irexec("check", xml)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_string_const_unpacked_in_a_run_is_charged(tmp_path: Path) -> None:
    xml = _string_const_model(tmp_path, 256 * MiB, unpack=True)
    refused(irexec("run", xml, "--max-memory", "64MiB"), '"text"')
    small = _string_const_model(tmp_path, MiB, unpack=True)
    out = tmp_path / "out.npz"
    proc = irexec("run", small, "--max-memory", "64MiB", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert np.load(out)["out2"].size == 2 * MiB


def test_a_string_const_within_the_limit_runs(tmp_path: Path) -> None:
    xml = _string_const_model(tmp_path, 4 * MiB)
    out = tmp_path / "out.npz"
    proc = irexec("run", xml, "--max-memory", "64MiB", "-o", out)
    assert proc.returncode == 0, proc.stderr
    (value,) = np.load(out).values()
    assert value.shape == (2,)


def test_string_outputs_count_by_their_bytes_in_the_run_s_accounting(tmp_path: Path) -> None:
    """Two 12 MiB strings, and their 24 MiB of characters unpacked next to them:
    the string tensor is charged 48 MiB and more, not 2 x 32 bytes."""
    from irexec.api.load import load
    from irexec.base.errors import IRExecError
    from irexec.executor.engine import run_model

    b = IRBuilder()
    text = b.const(np.array([b"a" * (12 * MiB), b"b" * (12 * MiB)], object), "string")
    parts = b.layer("StringTensorUnpack", "opset15", [text])
    b.result(b.outputs_of(parts)[2], name="chars")
    xml, _ = b.write(tmp_path / "unpack.xml")
    model = load(xml, max_memory=64 * MiB)
    assert run_model(model, {}, max_memory=64 * MiB).outputs["chars"].nbytes == 24 * MiB
    with pytest.raises(IRExecError) as info:
        run_model(model, {}, max_memory=40 * MiB)
    assert info.value.diagnostics[0].code == "memory-limit"


# ------------------------------------------------------------------ shape inference's temporaries


def _sparse_fill_model(tmp_path: Path, rows: int) -> Path:
    b = IRBuilder()
    values = b.parameter("values", [1], "f32")
    dense = b.const(np.array([rows, 4], np.int64))
    indices = b.const(np.array([[0, 0]], np.int64))
    default = b.const(np.array(0, np.float32))
    first = b.layer("SparseFillEmptyRows", "opset16", [values, dense, indices, default])
    for k, out in enumerate(b.outputs_of(first)):
        b.result(out, name=f"out{k}")
    xml, _ = b.write(tmp_path / f"sparse{rows}.xml")
    return Path(xml)


@pytest.mark.parametrize("rows", [1 << 31, 1 << 40])
def test_sparse_fill_empty_rows_infers_without_a_dense_temporary(tmp_path: Path, rows: int) -> None:
    """dense_shape[0] of 2^31: check took 1.6 GB; 2^40 ended check in an internal
    error and run in out-of-memory."""
    xml = _sparse_fill_model(tmp_path, rows)
    proc = irexec("check", xml)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr
    inputs = tmp_path / "in.npz"
    np.savez(inputs, values=np.ones(1, np.float32))
    refused(irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB"), "SparseFillEmptyRows")


def test_sparse_fill_empty_rows_still_fills_the_empty_rows(tmp_path: Path) -> None:
    xml = _sparse_fill_model(tmp_path, 3)
    inputs, out = tmp_path / "in.npz", tmp_path / "out.npz"
    np.savez(inputs, values=np.full(1, 7, np.float32))
    proc = irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB", "-o", out)
    assert proc.returncode == 0, proc.stderr
    got = np.load(out)
    np.testing.assert_array_equal(got["out0"], [[0, 0], [1, 0], [2, 0]])
    np.testing.assert_array_equal(got["out1"], [7, 0, 0])
    np.testing.assert_array_equal(got["out2"], [False, True, True])


# ------------------------------------------------------------------ outputs the data sizes


def _u8(text: bytes) -> np.ndarray:
    return np.frombuffer(text, np.uint8).copy()


def _strings(b: IRBuilder, items: list[bytes]) -> list:
    ends = np.cumsum([len(x) for x in items]).astype(np.int32)
    begins = (ends - np.array([len(x) for x in items], np.int32)).astype(np.int32)
    return [b.const(begins), b.const(ends), b.const(_u8(b"".join(items)))]


def _results(b: IRBuilder, first, tmp_path: Path, name: str) -> Path:
    for k, out in enumerate(b.outputs_of(first)):
        b.result(out, name=f"out{k}")
    xml, _ = b.write(tmp_path / f"{name}.xml")
    return Path(xml)


def _regex_normalization(tmp_path: Path, text: int, replacement: int) -> Path:
    """Every character of ``text`` bytes replaced by ``replacement`` bytes."""
    b = IRBuilder()
    first = b.layer("RegexNormalization", "extension",
                    [*_strings(b, [b"a" * text]), b.const(_u8(b"a")), b.const(_u8(b"x" * replacement))],
                    {"global_replace": "true"}, name="rewrite")
    return _results(b, first, tmp_path, "regex")


def test_a_regex_normalization_is_charged_as_its_text_grows(tmp_path: Path) -> None:
    """10 KB of text, each byte replaced by 64 KB, in an 80 KB model: 640 MiB built
    under --max-memory 64MiB (1.9 GB of RSS, exit 0)."""
    pytest.importorskip("pcre2")
    xml = _regex_normalization(tmp_path, 10_000, 64 << 10)
    refused(irexec("run", xml, "--max-memory", "64MiB"), '"rewrite"', "RegexNormalization's rewritten strings")


def test_a_regex_normalization_within_the_limit_runs(tmp_path: Path) -> None:
    pytest.importorskip("pcre2")
    xml = _regex_normalization(tmp_path, 100, 64 << 10)
    out = tmp_path / "out.npz"
    proc = irexec("run", xml, "--max-memory", "64MiB", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert np.load(out)["out2"].size == 100 * (64 << 10)


def test_a_vocab_decoder_is_charged_as_its_text_grows(tmp_path: Path) -> None:
    """10,000 ids of one 64 KB vocabulary entry: 640 MiB of text."""
    b = IRBuilder()
    ids = b.const(np.zeros((1, 10_000), np.int32))
    first = b.layer("VocabDecoder", "extension", [ids, *_strings(b, [b"v" * (64 << 10)])], name="decode")
    refused(irexec("run", _results(b, first, tmp_path, "decode"), "--max-memory", "64MiB"), '"decode"',
            "VocabDecoder's strings")


def test_combine_segments_is_charged_as_its_rows_add_up(tmp_path: Path) -> None:
    """A one-row segment of 64 Ki ids repeated in each of 10,000 rows: 5 GB of ids and segment ids."""
    b = IRBuilder()
    rows = 10_000
    first = b.layer("CombineSegments", "extension", [
        b.const(np.zeros(rows, np.int32)), b.const(np.zeros(rows, np.int32)), b.const(np.zeros(0, np.int32)),
        b.const(np.array(0, np.int32)), b.const(np.array(1 << 16, np.int32)), b.const(np.ones(1 << 16, np.int32)),
        b.const(np.array([0, 1], np.int32))], name="combine")
    refused(irexec("run", _results(b, first, tmp_path, "combine"), "--max-memory", "64MiB"), '"combine"',
            "CombineSegments' joined rows")


def test_ragged_to_dense_is_charged_before_it_pads(tmp_path: Path) -> None:
    """A length of 2^30 from an input: 1 GiB of padding and as much mask for one row."""
    b = IRBuilder()
    length = b.parameter("length", [], "i32")
    first = b.layer("RaggedToDense", "extension", [b.const(np.zeros(1, np.int32)), b.const(np.ones(1, np.int32)),
                                                   b.const(np.ones(1, np.int32)), length, b.const(np.array(0, np.int32))],
                    name="dense")
    xml = _results(b, first, tmp_path, "dense")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, length=np.array(1 << 30, np.int32))
    refused(irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB"), '"dense"', "RaggedToDense's output")


def test_ragged_to_sparse_is_charged_before_it_lists_the_elements(tmp_path: Path) -> None:
    """Three rows of 2^31 - 1 elements each from an input: 6 Gi (row, position) pairs."""
    b = IRBuilder()
    ends = b.parameter("ends", [3], "i32")
    first = b.layer("RaggedToSparse", "extension", [b.const(np.zeros(3, np.int32)), ends], name="sparse")
    xml = _results(b, first, tmp_path, "sparse")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, ends=np.full(3, np.iinfo(np.int32).max, np.int32))
    refused(irexec("run", xml, "--inputs", inputs, "--max-memory", "64MiB"), '"sparse"', "RaggedToSparse's indices")


# ------------------------------------------------------------------ generate's pre-processing

WHISPER = ROOT / "tests" / "data" / "whisper_export"


def _whisper_folder(tmp_path: Path, **settings: int) -> Path:
    """The test Whisper export with its preprocessor_config.json's settings replaced."""
    folder = tmp_path / "whisper"
    folder.mkdir()
    for f in WHISPER.iterdir():
        if f.is_file() and f.name != "preprocessor_config.json":
            shutil.copyfile(f, folder / f.name)
    config = {"feature_extractor_type": "WhisperFeatureExtractor", "feature_size": 80, "sampling_rate": 16000,
              "hop_length": 160, "n_fft": 400, "n_samples": 16000, **settings}
    (folder / "preprocessor_config.json").write_text(json.dumps(config))
    return folder


@pytest.mark.parametrize("settings", [{"hop_length": 1, "n_samples": 480_000},  # 1.4 GB of windows
                                      {"hop_length": 1, "n_fft": 1 << 20, "n_samples": 1 << 26}])  # internal error
def test_the_audio_features_are_charged_before_their_windows_are_made(tmp_path: Path, settings: dict[str, int]) -> None:
    folder = _whisper_folder(tmp_path, **settings)
    wave = tmp_path / "wave.npy"
    np.save(wave, np.zeros(16000, np.float32))
    refused(irexec("generate", folder, "--audio", wave, "-n", "2", "--max-memory", "64MiB"),
            "log-mel features", f"hop_length={settings['hop_length']}")


def test_audio_features_within_the_limit_are_made(tmp_path: Path) -> None:
    folder = _whisper_folder(tmp_path)
    wave = tmp_path / "wave.npy"
    with np.load(WHISPER / "features.npz") as f:
        np.save(wave, f["audio_one"])
    proc = irexec("generate", folder, "--audio", wave, "-n", "2", "--max-memory", "64MiB")
    assert proc.returncode == 0, proc.stderr


def test_merging_image_features_is_charged_before_the_copy() -> None:
    """The embeddings with the image features merged in are a copy: charged beside what they are made from."""
    from irexec.api.generate.vision_language import merge_image_features
    from irexec.base.errors import IRExecError

    ids = np.array([[5, 9, 9, 6]], np.int64)
    embeds, features = np.zeros((1, 4, 1024), np.float32), np.ones((1, 2, 1024), np.float32)
    merged = merge_image_features(embeds, ids, features, 9, "vlm", max_memory=64 * MiB)
    assert merged[0, 1:3].min() == 1 and merged[0, [0, 3]].max() == 0
    with pytest.raises(IRExecError) as info:
        merge_image_features(embeds, ids, features, 9, "vlm", max_memory=32 << 10)
    assert info.value.diagnostics[0].code == "memory-limit"
