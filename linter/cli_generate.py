"""``qlint generate``: write a launch script, a multi-node or a PD deployment from the knowledge."""

from __future__ import annotations

import os
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
@click.option("--pd", metavar="xPyD", default=None,
              help="A prefill/decode disaggregated deployment, e.g. 1P1D: one script per node, the proxy, a README.")
@click.option("--nodes", type=click.IntRange(1, 64), default=None,
              help="One instance over N nodes: one script per node and a README.")
@click.option("--executor", type=click.Choice(["mp", "ray"]), default="mp", show_default=True,
              help="How --nodes spreads the instance: mp (one engine per node, DP over the nodes) or ray "
              "(a Ray cluster: the head runs one engine with TP over every node's NPUs).")
@click.option("--prefill-nodes", type=click.IntRange(1, 64), default=None, help="Nodes per prefill instance (--pd).")
@click.option("--decode-nodes", type=click.IntRange(1, 64), default=None, help="Nodes per decode instance (--pd).")
@click.option("-o", "--output", type=click.Path(writable=True),
              help="Write the script here (with --pd or --nodes: a folder for the scripts and the README).")
def generate_command(model_id, hardware, scenario, quantized, version, port, output_format, pd, nodes,
                     executor, prefill_nodes, decode_nodes, output):
    """Write a complete, commented launch script from the knowledge (it lints clean)."""
    from qlint.knowledge.base import load
    from qlint.linter.generate import GenerationError, generate

    check_version(version)
    if version is not None:
        version, note = load().resolve_release(version)
        if note is not None:
            click.echo(f"note: {note.en}", err=True)
    if (prefill_nodes or decode_nodes) and pd is None:
        fail("qlint generate: --prefill-nodes / --decode-nodes need --pd")
    if pd is not None and nodes is not None:
        fail("qlint generate: use --pd or --nodes, not both (--prefill-nodes / --decode-nodes size a PD deployment)")
    if executor == "ray" and (pd is not None or (nodes or 1) < 2):
        fail("qlint generate: --executor ray needs --nodes 2 or more (and no --pd)")
    if pd is not None or (nodes or 1) > 1:
        write_tree(model_id, hardware.lower(), scenario, quantized, version, output_format, output,
                   pd, nodes, prefill_nodes, decode_nodes, executor)
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
        if output_format != "json":
            os.chmod(output, 0o755)
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=not text.endswith("\n"))


def write_tree(model_id, hardware, scenario, quantized, version, output_format, output, pd, nodes,
               prefill_nodes, decode_nodes, executor="mp"):
    """``--pd xPyD`` / ``--nodes N`` (``--executor ray``: a Ray cluster): one script per node, the proxy,
    the README (scripts mode 0755)."""
    from qlint.knowledge.base import load
    from qlint.linter.fixer import write_atomic
    from qlint.linter.generate import GenerationError
    from qlint.linter.generate_nodes import NodesDeployment, generate_nodes, generate_pd

    from qlint.linter.generate_ray import RayDeployment, generate_ray

    deployment: NodesDeployment | RayDeployment
    try:
        if executor == "ray":
            deployment = generate_ray(load(), model_id, hardware, nodes, scenario, quantized, version)
        elif pd is not None:
            deployment = generate_pd(load(), model_id, hardware, quantized, version, pd, prefill_nodes, decode_nodes)
        else:
            deployment = generate_nodes(load(), model_id, hardware, nodes, scenario, quantized, version)
    except GenerationError as error:
        fail(f"qlint generate: not supported: {error}")
    if output_format == "json":
        click.echo(deployment.to_json())
        return
    if output:
        folder = Path(output)
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in deployment.files.items():
            target = folder / name
            target.touch(exist_ok=True)
            write_atomic(str(target), text.encode("utf-8"))
            if name.endswith(".sh"):
                os.chmod(target, 0o755)
        click.echo(f"wrote {', '.join(str(folder / n) for n in deployment.files)}", err=True)
        return
    for name, text in deployment.files.items():
        click.echo(f"# ===== {name} =====")
        click.echo(text, nl=False)
