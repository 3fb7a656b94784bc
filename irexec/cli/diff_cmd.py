"""`irexec diff`: the first layer where an OpenVINO device plugin, a second IR or the source model the IR
was converted from departs from irexec."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import click

from ..base.errors import IRExecError
from ..base.table_text import one_line
from .base import EXIT_FINDINGS, TensorFileHints, cli, fail
from .option_groups import Modes, input_options, memory_options, model_options, modes, option, output_options


def _diff_mode(params: Mapping[str, Any]) -> tuple[str, ...]:
    """A device comparison, a comparison of two IRs on one input, or over a data set; and whether inputs are generated."""
    from ..api.diff.sides import source_kind
    from ..base.errors import UsageError

    kind = source_kind(params["model"])
    if kind is not None:  # a source model and the IR converted from it (its own options: the kind's mode)
        if params["other_model"] is None:
            raise UsageError(f"a {kind.name} source model is compared with the IR converted from it: "
                             f"irexec diff {params['model']} MODEL.xml [--device DEVICE]", code="diff-usage")
        main = "chain" if params["device"] is not None else "source"  # with a device: the three links
        return (main, kind.mode, *(["generated"] if not params["inputs_path"] else []))
    if params["other_model"] is None and params["device"] is None:
        raise UsageError("give a second IR (irexec diff A.xml B.xml), --device, or both (B on the device against A)",
                         code="diff-usage")
    if params["other_model"] is not None and params["device"] is not None and params["steps"]:
        raise UsageError("`steps` with a second IR and --device: give one of them", code="diff-usage")
    mode = "device" if params["device"] is not None else "dataset" if params["inputs_dir"] else "ab"
    return (mode, *(["generated"] if not (params["inputs_path"] or params["inputs_dir"]) else []))


DIFF_MODES = Modes(
    decide=_diff_mode,
    needs={"device": "--device (irexec diff A.xml --device CPU)", "ab": "a second IR (irexec diff A.xml B.xml)",
           "dataset": "--inputs-dir DIR and a second IR (irexec diff A.xml B.xml --inputs-dir DIR)",
           "generated": "generated inputs (no --inputs or --inputs-dir)",
           "source": "a source model and its IR (irexec diff model.onnx model.xml)",
           "chain": "--device with a source model and its IR (irexec diff model.onnx model.xml --device CPU)"},
    named={"device": "this compares {model} with the {device} plugin", "ab": "this compares {model} with {other_model}",
           "dataset": "this compares {model} with {other_model} over the samples in {inputs_dir}",
           "source": "this compares {other_model} with the source model {model}",
           "chain": "this runs the chain {model} -> {other_model} -> the {device} plugin"},
    code="diff-usage")
_ONE_RUN = ["device", "ab"]  # the modes that diff one input (or its greedy steps)
_ONE_INPUT = [*_ONE_RUN, "source"]  # and a source model against its IR
_PLUGIN = ["device", "chain"]  # the modes with a plugin link: a device alone, or the whole chain


@cli.command(cls=TensorFileHints)
@click.argument("model")
@click.argument("other_model", metavar="[B.xml|MODEL.xml]", required=False)
@click.option("--device", metavar="DEVICE",
              help="The OpenVINO device plugin to compare with irexec, e.g. CPU (needs irexec[openvino]).")
@option("--config", "configs", multiple=True, metavar="KEY=VALUE|FILE.json", modes=_PLUGIN,
        help="A property of the plugin, e.g. INFERENCE_PRECISION_HINT=f32 (repeatable), or a JSON file of them "
             "(default: the plugin's own defaults).")
@input_options(inputs_modes=[*_ONE_INPUT, "chain"], generated=["generated"],
               input_shape="Shape of a generated input whose declared dims are not static (repeatable).")
@model_options(follow_symlinks=False)
@option("--inputs-dir", metavar="DIR", modes=["dataset"],
        help="With B.xml: a data set, one .npz per sample; per-layer figures are aggregated over the samples.")
@option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, metavar="N", modes=["dataset"],
        help="With --inputs-dir: samples run on N local processes.")
@option("--scheduler", metavar="tcp://HOST:PORT", modes=["dataset"],
        help="With --inputs-dir: run the samples on a Dask distributed cluster (needs irexec[dask]).")
@option("--scheduler-timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
        metavar="SECONDS", modes=["dataset"],
        help="With --scheduler: how long to wait for the scheduler to answer, for a worker to join, and with no "
             "worker left, before giving up.")
@option("--layers", type=click.Choice(["bisect", "all"]), default="bisect", show_default=True, modes=_PLUGIN,
        help="bisect: keep the deployed graph, expose --expose layers at a time and bisect to the first that "
             "departs; all: expose every layer at once (the plugin then fuses less).")
@option("--expose", "k", type=click.IntRange(min=1), default=8, show_default=True, metavar="K", modes=_PLUGIN,
        help="With --layers bisect: layers exposed per compilation.")
@option("--extract", "extract_dir", metavar="DIR", modes=["device", "source"],
        help="Write the first kernel origin as a reproducer to DIR: the layer alone as an IR, the plugin's own "
             "input tensors, and a README with the commands that show the departure with OpenVINO alone.  With a "
             "source model: the origin layer as an IR, the source's tensors for its inputs and its output, and a "
             "README that shows the IR's departure from the source.")
@option("--suggest", is_flag=True, modes=["device"],
        help="Try the plugin's settings that change numbers (INFERENCE_PRECISION_HINT, KV_CACHE_PRECISION, "
             "DYNAMIC_QUANTIZATION_GROUP_SIZE, EXECUTION_MODE_HINT and the device's other precision and group-size "
             "properties) alone and combined; report every minimal set that brings the outputs within their "
             "accuracy, the fastest as the suggestion, with the latency each costs.")
@option("--steps", type=click.IntRange(min=0), default=0, show_default=True, metavar="N", modes=[*_ONE_RUN, "dataset"],
        help="A stateful causal LM: the prefill, then N decode steps fed irexec's greedy token (with --inputs-dir: "
             "after each sample's prefill).")
@option("--ablate", type=click.IntRange(min=0), default=32, show_default=True, metavar="K", modes=["ab", "dataset"],
        help="With B.xml: run A again with each of the top K compressed weights alone replaced by B's, and rank "
             "them by the outputs' error (0: rank by the layer's own error only); with --inputs-dir, on every "
             "sample, and the keep-K curve over them.")
@click.option("--top", type=click.IntRange(min=0), default=10, show_default=True, metavar="N",
              help="Layers listed in the text report (0: all).")
@output_options(json="Write the report as JSON (schemas/diff-report.schema.json; with a source model and --device, "
                     "schemas/diff-chain.schema.json).",
                html="Write a self-contained HTML page with an interactive plot (needs irexec[html]).",
                html_modes=[*_ONE_INPUT, "dataset"])
@option("--fail-on", type=click.Choice(["origin", "never"]), default="never", show_default=True,
        modes=[*_ONE_INPUT, "chain"], help="origin: exit 1 when an origin is found (with a source and --device: in any "
                                            "link).")
@memory_options()
@modes(DIFF_MODES)
def diff(model: str, other_model: str | None, device: str | None, configs: tuple[str, ...], inputs_path: str | None,
         weights: str | None, inputs_dir: str | None, jobs: int, scheduler: str | None, scheduler_timeout: float, seed: int,
         input_shapes: tuple[str, ...], layers: str, k: int, steps: int, ablate: int, top: int, json_path: str | None,
         html_path: str | None, fail_on: str, max_memory: int | None, extract_dir: str | None,
         suggest: bool) -> None:
    """Find the first layer where an OpenVINO device plugin's result, a second IR's, or the source model's
    (MODEL is then an .onnx file, run by ONNX Runtime as the reference, and B the IR converted from it)
    departs from irexec. With a source model, its IR and --device, the whole chain: the converter's link,
    the plugin's and the outputs end to end, with the link to blame.

    Both run the same inputs; layer outputs are compared against each op's stated
    accuracy (docs/accuracy.md), and the ORIGIN is the first layer beyond it while its
    inputs are within theirs (see docs/diff.md).

    \b
    Examples:
      irexec diff model.xml --device CPU
      irexec diff model.xml --device CPU --config INFERENCE_PRECISION_HINT=f32
      irexec diff model.xml --device CPU --layers all --html report.html
      irexec diff llm.xml --device CPU --inputs prefill.npz --steps 8
      irexec diff f32.xml int4.xml --inputs sample.npz --json weights.json
      irexec diff f32.xml int4.xml --inputs-dir samples/ -j 2
      irexec diff f32.xml int4.xml --device CPU --inputs sample.npz
      irexec diff model.onnx model.xml --fail-on origin
      irexec diff model.onnx model.xml --device CPU --config INFERENCE_PRECISION_HINT=f32
    """
    from .option_groups import parse_seed
    from .options import parse_device_config, parse_input_shapes
    from .paths import require_inputs

    try:
        shapes = parse_input_shapes(input_shapes)
        config = parse_device_config(configs)
        parse_seed(seed)
        if device is not None:
            from ..api.diff.device import import_openvino

            import_openvino()  # before any work: a missing extra is the one error
        source = _source_kind(model)
        if source is not None and source.extra:
            _require_extra(source.extra)  # before any work: a missing extra is the one error
        require_inputs((model, "model file"), (other_model, "model file"), (weights, "weights file"),
                       (inputs_path, "inputs file"))
    except IRExecError as e:
        fail(e)
    if source is not None and device is not None:
        _chain(model, str(other_model), device, config, weights, inputs_path, seed, shapes, layers, k, top, json_path,
               fail_on, max_memory)
        return
    if inputs_dir:
        _dataset(model, other_model, weights, inputs_dir, jobs, scheduler, scheduler_timeout, json_path, top, max_memory,
                 ablate, html_path, steps)
        return
    try:
        if source is not None:
            report = source.opener()(model, str(other_model), weights=weights, inputs=inputs_path, seed=seed,
                                     shapes=shapes, max_memory=max_memory,
                                     **({"extract": extract_dir} if extract_dir else {}))
        elif other_model is not None and device is not None:
            from ..api.diff.ab_device import ab_device_diff

            report = ab_device_diff(model, other_model, device, config, inputs_path, seed, shapes, layers, k,
                                    max_memory=max_memory)
        elif other_model is not None:
            from ..api.diff.ab import diff_ab

            report = diff_ab(model, other_model, weights, None, inputs_path, seed, shapes, steps, ablate,
                             max_memory=max_memory)
        else:
            from ..api.diff.ab import device_diff

            report = device_diff(model, weights, str(device), config, inputs_path, seed, shapes, layers, k, steps,
                                 max_memory=max_memory, extract=extract_dir, suggest=suggest)
        _write_reports(report, json_path, html_path)
    except IRExecError as e:
        fail(e)
    _print_report(report, other_model is not None and device is None and source is None, top, json_path, html_path)
    if fail_on == "origin" and report.origins:
        sys.exit(EXIT_FINDINGS)


def _chain(source: str, model: str, device: str, config: dict[str, str], weights: str | None, inputs_path: str | None,
           seed: int, shapes: dict[str, tuple[int, ...]], layers: str, k: int, top: int, json_path: str | None,
           fail_on: str, max_memory: int | None) -> None:
    """The source, its IR and the device: the converter's link, the plugin's and the outputs end to end."""
    from ..api.diff.chain import chain_diff
    from ..api.diff.render_chain import render_chain

    try:
        report = chain_diff(source, model, device, config, weights=weights, inputs=inputs_path, seed=seed,
                            shapes=shapes, layers=layers, k=k, max_memory=max_memory)
        if json_path:
            import json

            from ..system.atomic import write_atomically

            write_atomically(json_path, json.dumps(report.as_dict(), indent=1, allow_nan=False) + "\n")
    except IRExecError as e:
        fail(e)
    click.echo(render_chain(report, top))
    if json_path:
        click.echo(one_line(f"wrote the JSON report to {json_path}"))
    if fail_on == "origin" and report.origins:
        sys.exit(EXIT_FINDINGS)


def _require_extra(extra: str) -> None:
    if extra == "onnx":
        from ..api.diff.onnx_side import import_onnxruntime

        import_onnxruntime()
    elif extra == "torch":
        from ..api.diff.torch_side import import_torch

        import_torch()


def _source_kind(model: str) -> Any:
    from ..api.diff.sides import source_kind

    return source_kind(model)


def _write_reports(report: Any, json_path: str | None, html_path: str | None) -> None:
    from ..system.atomic import write_atomically

    if json_path:
        from ..api.diff.render_json import render_json

        write_atomically(json_path, render_json(report))
    if html_path:
        from ..api.diff.render_html import render_html

        write_atomically(html_path, render_html(report))


def _print_report(report: Any, ab: bool, top: int, json_path: str | None, html_path: str | None) -> None:
    from ..api.diff.render_text import render_text

    click.echo(render_text(report, top))
    if ab:
        from ..api.diff.render_ab import render_ab

        click.echo(render_ab(report, top))
    if json_path:
        click.echo(one_line(f"wrote the JSON report to {json_path}"))
    if html_path:
        click.echo(one_line(f"wrote the HTML report to {html_path}"))


def _dataset(model: str, other_model: str | None, weights: str | None, inputs_dir: str, jobs: int,
             scheduler: str | None, scheduler_timeout: float, json_path: str | None, top: int,
             max_memory: int | None, ablate: int = 32, html_path: str | None = None, steps: int = 0) -> None:
    from ..api.diff.ab import diff_dataset
    from ..api.diff.render_dataset import render_dataset

    try:
        summary = diff_dataset(model, str(other_model), weights, None, inputs_dir, jobs, scheduler, scheduler_timeout,
                               max_memory=max_memory, ablate=ablate, steps=steps)
        if json_path:
            import json

            from ..system.atomic import write_atomically

            write_atomically(json_path, json.dumps({"format": 1, "model": model, "other": other_model,
                                                    "dataset": summary.as_dict()}, indent=1) + "\n")
        if html_path:
            from ..api.diff.render_html import render_dataset_html
            from ..system.atomic import write_atomically

            write_atomically(html_path, render_dataset_html(summary, model, str(other_model)))
    except IRExecError as e:
        fail(e)
    click.echo(render_dataset(summary, top))
    if json_path:
        click.echo(one_line(f"wrote the JSON report to {json_path}"))
    if html_path:
        click.echo(one_line(f"wrote the HTML report to {html_path}"))
