

@pytest.mark.skipif(not (MODELS / "smollm_int4_stateful").is_dir(), reason="the shared models are not here")
def test_stateful_steps_compare_every_step(tmp_path: Path, run_cli) -> None:
    model = MODELS / "smollm_int4_stateful"
    out = tmp_path / "r.json"
    r = run_cli("diff", model / "model.xml", "--device", "CPU", "--inputs", model / "inputs_step0.npz", "--steps", "2",
                "--json", out)
    assert r.exit_code == 0, r.output
    doc = _report(out)
    steps = doc["steps"]
    assert [s["step"] for s in steps] == [0, 1, 2]
    greedy = np.load(model / "greedy_tokens.npy")[0, 32:35].tolist()  # irexec's tokens are the reference's greedy path
    assert [s["reference_token"][0] for s in steps] == greedy
    assert all(s["other_token"] is not None for s in steps)
    first = next((s["step"] for s in steps if s["reference_token"] != s["other_token"]), None)
    assert doc["first_token_step"] == first
    assert doc["analysed_step"] == next((s["step"] for s in steps if not s["within"]), 2)
    if not all(s["within"] for s in steps):
        assert doc["origins"]  # the layers are compared at the first step that departs


def test_steps_need_a_stateful_model(tmp_path: Path, run_cli) -> None:
    xml, inputs = _planted(tmp_path)
    r = run_cli("diff", xml, "--device", "CPU", "--inputs", inputs, "--steps", "2")
    assert r.exit_code == 1 and "not-stateful" in r.output
