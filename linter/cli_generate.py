"""``qlint generate``: write a launch script (or a 1P1D deployment) from the knowledge."""

from __future__ import annotations

from pathlib import Path

import click

from qlint.linter.cli_args import HARDWARE, check_version, fail


@click.command("generate")
@click.option("--model", "model_id", required=True, help="Model id or checkpoint name, e.g. Qwen3.6-27B.")
@click.option("--hardware", type=HARDWARE, required=True)
@click.option("--scenario", type=click.Choice(["high-throughput", "low-latency", "long-context"]),
              default="high-throughput", show_default=True)
@click.option("--quantized/--bf16", default=True, show_default=True, help="W8A8 checkpoint (default) or BF16.")
@click.option("--vllm-ascend-version", "version", metavar="TAG", help="Release to target (default: latest stable).")
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
@click.option("--pd", type=click.Choice(["1P1D"]), default=None,
              help="Generate a prefill/decode disaggregated deployment (P and D scripts and the proxy).")
@click.option("-o", "--output", type=click.Path(writable=True),
              help="Write the script here (with --pd: a folder for run_p.sh, run_d.sh and proxy.sh).")
def generate_command(model_id, hardware, scenario, quantized, version, port, output_format, pd, output):
    """Write a complete, commented launch script from the knowledge (it lints clean)."""
    from qlint.knowledge.base import load
    from qlint.linter.generate import GenerationError, generate

    check_version(version)
    if version is not None:
        version, note = load().resolve_release(version)
        if note is not None:
            click.echo(f"note: {note.en}", err=True)
    if pd is not None:
        write_pd_deployment(model_id, hardware.lower(), quantized, version, output_format, output)
        return
    try:
        deployment = generate(load(), model_id, hardware.lower(), scenario, quantized, version, port=port)
    except GenerationError as error:
        fail(f"qlint generate: not supported: {error}")
    text = deployment.to_json() if output_format == "json" else deployment.script
    if output:
        from qlint.linter.fixer import write_atomic

        Path(output).touch(exist_ok=True)
        write_atomic(output, text.encode("utf-8"))
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=not text.endswith("\n"))


def write_pd_deployment(model_id, hardware, quantized, version, output_format, output):
    """``--pd 1P1D``: the prefill and decode scripts and the proxy command."""
    from qlint.knowledge.base import load
    from qlint.linter.fixer import write_atomic
    from qlint.linter.generate import GenerationError, generate_pd

    try:
        deployment = generate_pd(load(), model_id, hardware, quantized, version)
    except GenerationError as error:
        fail(f"qlint generate: not supported: {error}")
    files = {"run_p.sh": deployment.prefill.script, "run_d.sh": deployment.decode.script, "proxy.sh": deployment.proxy}
    if output_format == "json":
        click.echo(deployment.to_json())
        return
    if output:
        folder = Path(output)
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            target = folder / name
            target.touch(exist_ok=True)
            write_atomic(str(target), text.encode("utf-8"))
        click.echo(f"wrote {', '.join(str(folder / n) for n in files)}", err=True)
        return
    for name, text in files.items():
        click.echo(f"# ===== {name} =====")
        click.echo(text, nl=False)
