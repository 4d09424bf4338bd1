"""The multi-node and PD sections of a guide: the generated trees, linted as one deployment at build time.

``qlint generate --nodes N`` / ``--pd 1P1D`` write these trees (``linter/generate_nodes.py``); a
guide shows each script under the node that runs it. A tree that does not lint clean stops the
build (``NodesPlanError``), so no guide shows a plan qlint itself would flag.
"""

from __future__ import annotations

from qlint.docgen.i18n import QUANT_NAME, hardware_name, pick, say
from qlint.docgen.writer import Page, code
from qlint.knowledge.base import KnowledgeBase
from qlint.linter.generate import GenerationError
from qlint.linter.generate_nodes import NodesDeployment, generate_nodes, generate_pd
from qlint.linter.generate_ray import RayDeployment, generate_ray

MAX_NODES = 4


class NodesPlanError(Exception):
    """A generated multi-node or PD tree does not lint clean as one deployment."""


def lint_tree(tree: NodesDeployment | RayDeployment, what: str) -> None:
    from qlint.linter.deployment import lint_deployment

    results = lint_deployment([(name, text.encode()) for name, text in tree.scripts_in_order])
    found = [f"{r.path}: {f.rule.id} {f.message}" for r in results for f in r.findings if f.level != "info"]
    found += [f"{r.path}: {r.error}" for r in results if r.error is not None]
    if found:
        raise NodesPlanError(f"{what} does not lint clean: " + "; ".join(found))


def multi_node_plans(kb: KnowledgeBase, model_id: str, hardware_id: str, version: str) -> list[tuple[str, NodesDeployment]]:
    """(weights, tree) for each weight type: the recipe's node count, else the fewest nodes (2..4) that
    hold it when one node does not, else none."""
    out: list[tuple[str, NodesDeployment]] = []
    hardware = kb.hardware_by_id(hardware_id)
    if not hardware.supports_dp:
        return out
    for quantization in ("w8a8", "bf16"):
        rows = [r for r in kb.recipes_for(model_id, hardware_id)
                if r.nodes > 1 and r.deployment is None and r.quantization == quantization]
        counts = [rows[0].nodes] if rows else list(range(1, MAX_NODES + 1))
        for nodes in counts:
            try:
                tree = generate_nodes(kb, model_id, hardware_id, nodes, quantized=quantization == "w8a8",
                                      version=version)
            except GenerationError:
                continue
            if nodes > 1:
                out.append((quantization, tree))
            break
    return out


def _show(page: Page, tree: NodesDeployment | RayDeployment, lang: str) -> None:
    readme = tree.files["README.md"]
    english, chinese = readme.split("\n## 中文\n", 1)
    steps = [line for line in (english if lang == "en" else chinese).splitlines() if line[:1].isdigit()]
    page.para(say(lang, "guide.nodes.order"))
    page.bullets([step.split(". ", 1)[1] for step in steps])
    for name, text in tree.scripts_in_order:
        page.para(code(name))
        page.code_block("bash", text)


def multi_node_section(kb: KnowledgeBase, page: Page, model_id: str, hardware_id: str, version: str,
                       lang: str) -> None:
    plans = multi_node_plans(kb, model_id, hardware_id, version)
    if not plans:
        return
    page.heading(2, say(lang, "guide.nodes"))
    page.para(say(lang, "guide.nodes.text", hardware=hardware_name(hardware_id, lang)))
    for quantization, tree in plans:
        lint_tree(tree, f"{model_id} {quantization} on {len(tree.topology.nodes)} x {hardware_id}")
        instance = tree.topology.instances[0]
        page.heading(3, say(lang, "guide.nodes.plan", quant=pick(QUANT_NAME[quantization], lang),
                            nodes=len(tree.topology.nodes), tp=instance.tp, dp=instance.dp))
        page.code_block("bash", f"qlint generate --model {model_id} --hardware {hardware_id} --nodes "
                                f"{len(tree.topology.nodes)}{'' if quantization == 'w8a8' else ' --bf16'} -o deploy/\n")
        _show(page, tree, lang)
    _ray_section(kb, page, model_id, hardware_id, version, lang)


def ray_plans(kb: KnowledgeBase, model_id: str, hardware_id: str, version: str) -> list[tuple[str, RayDeployment]]:
    """(weights, tree) of the Ray plan for each weight type, where the model's tutorial has a Ray section at
    ``version``: the fewest nodes (2..4) the generator accepts."""
    from qlint.knowledge.base import parse_version

    match = kb.match_model(model_id)
    model = match.model if match is not None else None
    if model is None or not model.ray_plan or model.ray_plan_since is None:
        return []
    if parse_version(version) < parse_version(model.ray_plan_since):
        return []
    out: list[tuple[str, RayDeployment]] = []
    for quantization in ("w8a8", "bf16"):
        for nodes in range(2, MAX_NODES + 1):
            try:
                tree = generate_ray(kb, model_id, hardware_id, nodes, quantized=quantization == "w8a8", version=version)
            except GenerationError:
                continue
            out.append((quantization, tree))
            break
    return out


def _ray_section(kb: KnowledgeBase, page: Page, model_id: str, hardware_id: str, version: str, lang: str) -> None:
    plans = ray_plans(kb, model_id, hardware_id, version)
    if not plans:
        return
    page.para(say(lang, "guide.nodes.ray"))
    for quantization, tree in plans:
        lint_tree(tree, f"{model_id} {quantization} on {len(tree.nodes)} x {hardware_id} (Ray)")
        page.heading(3, say(lang, "guide.nodes.ray.plan", quant=pick(QUANT_NAME[quantization], lang),
                            nodes=len(tree.nodes), tp=tree.tp))
        page.code_block("bash", f"qlint generate --model {model_id} --hardware {hardware_id} --nodes {len(tree.nodes)}"
                                f"{'' if quantization == 'w8a8' else ' --bf16'} --executor ray -o ray/\n")
        _show(page, tree, lang)


def pd_plan(kb: KnowledgeBase, page: Page, model_id: str, hardware_id: str, version: str, lang: str) -> bool:
    """The generated 1P1D tree (W8A8, else BF16) under the PD heading; False when none can be generated."""
    for quantized in (True, False):
        try:
            tree = generate_pd(kb, model_id, hardware_id, quantized, version)
        except GenerationError:
            continue
        lint_tree(tree, f"{model_id} 1P1D on {hardware_id}")
        prefill, decode = (i for i in (tree.topology.instances[0], tree.topology.instances[-1]))
        page.para(say(lang, "guide.pd.plan", nodes=len(tree.topology.nodes), ptp=prefill.tp, pdp=prefill.dp,
                      dtp=decode.tp, ddp=decode.dp, dnodes=len(decode.shares)))
        page.code_block("bash", f"qlint generate --model {model_id} --hardware {hardware_id} --pd 1P1D"
                                f"{'' if quantized else ' --bf16'} -o pd/\nqlint pd/\n")
        _show(page, tree, lang)
        return True
    return False
