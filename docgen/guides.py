"""Deployment guides: one page per in-scope model x hardware the knowledge supports.

A model is supported on a hardware when the knowledge records a first
vllm-ascend release for it there (``first_vllm_ascend`` for A2/A3,
``first_vllm_ascend_310p`` for the Atlas inference products). Launch scripts
come from ``qlint.linter.generate.generate`` at the latest stable release;
its refusals are shown as "not supported: reason".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qlint.docgen import citations
from qlint.docgen.i18n import (
    QUANT_NAME,
    colon,
    hardware_name,
    pick,
    say,
    scenario_name,
    scenario_text,
    sentence_gap,
    text_of,
)
from qlint.docgen.writer import Flavor, Page, code, escape
from qlint.knowledge.base import KnowledgeBase
from qlint.linter.generate import SCENARIOS, Deployment, GenerationError, generate

if TYPE_CHECKING:  # records are plain namespaces at run time
    from qlint.knowledge.models import FaqEntry, Hardware, Model, ModelVariant

QUANTIZATIONS = ("w8a8", "bf16")
PORT = 8000
BASE_URL = f"http://127.0.0.1:{PORT}"
DRIVER_MOUNTS = (
    "/usr/local/dcmi:/usr/local/dcmi",
    "/usr/local/bin/npu-smi:/usr/local/bin/npu-smi",
    "/usr/local/Ascend/driver/lib64/:/usr/local/Ascend/driver/lib64/",
    "/usr/local/Ascend/driver/version.info:/usr/local/Ascend/driver/version.info",
    "/etc/ascend_install.info:/etc/ascend_install.info",
    "/root/.cache:/root/.cache",
)
"""Host paths the container needs: driver tools and libraries, and the download cache."""

PD_GROUP = "pd"
"""The rule group a guide's PD section lists (``RuleMeta.groups``)."""


@dataclass(frozen=True)
class Guide:
    model: Model
    hardware: Hardware

    @property
    def docname(self) -> str:
        return f"guides/{self.model.id.lower()}-{self.hardware.id}"


def first_release(model: Model, hardware: Hardware) -> str | None:
    """The first vllm-ascend release that runs ``model`` on ``hardware`` (None: none recorded)."""
    return model.first_vllm_ascend_310p if hardware.id == "310p" else model.first_vllm_ascend


def guides(kb: KnowledgeBase) -> list[Guide]:
    """Every guide page, in knowledge order (models, then hardware)."""
    return [
        Guide(model, hardware)
        for model in kb.models
        if model.in_scope
        for hardware in kb.hardware
        if first_release(model, hardware) is not None
    ]


Outcome = Deployment | GenerationError


def deployments(kb: KnowledgeBase, guide: Guide, version: str) -> dict[tuple[str, str], Outcome]:
    """(scenario, quantization) -> the generated deployment, or the generator's refusal."""
    out: dict[tuple[str, str], Outcome] = {}
    for scenario in SCENARIOS:
        for quantization in QUANTIZATIONS:
            try:
                out[(scenario, quantization)] = generate(kb, guide.model.id, guide.hardware.id, scenario,
                                                         quantization == "w8a8", version, port=PORT)
            except GenerationError as error:
                out[(scenario, quantization)] = error
    return out


def served_model(script: str) -> str:
    """The model reference of a script's ``vllm serve`` line."""
    match = re.search(r"^vllm serve (\S+)", script, re.MULTILINE)
    if match is None:
        raise ValueError("generated script has no vllm serve line")
    return match.group(1)


def download_id(variant: ModelVariant) -> str:
    """The id a script uses for a checkpoint: its ModelScope (``Eco-Tech/``) or ``Qwen/`` id."""
    return next((a for a in variant.aliases if a.startswith(("Eco-Tech/", "Qwen/"))), variant.name)


def hub_tokenizer(model: Model) -> str | None:
    """A Hugging Face id that carries the model's tokenizer (the official ``Qwen/`` checkpoint)."""
    for variant in model.variants:
        for alias in variant.aliases:
            if alias.startswith("Qwen/"):
                return alias
    return None


# -- refusals ----------------------------------------------------------------------

def _hardware_by_name(kb: KnowledgeBase, name: str) -> Hardware | None:
    return next((h for h in kb.hardware if name in h.names), None)


_REFUSALS_ZH = (
    (re.compile(r"^(?P<model>\S+) is not supported on (?P<hw>.+) in any release qlint knows$"),
     "在 qlint 已知的任何版本中，{hw} 都不支持 {model}"),
    (re.compile(r"^(?P<variant>\S+) \(~(?P<gb>[\d.]+) GB of weights\) does not fit one (?P<hw>.+) node "
                r"\((?P<npus>\d+) x (?P<hbm>\d+) GB\)$"),
     "{variant} 的权重约 {gb} GB，单台 {hw}（{npus} x {hbm} GB）放不下"),
    (re.compile(r"^(?P<model>\S+) needs vllm-ascend (?P<first>\S+) or later on (?P<hw>.+), not (?P<version>\S+)$"),
     "{hw} 上运行 {model} 需要 vllm-ascend {first} 或更新版本，而不是 {version}"),
    (re.compile(r"^TP (?P<tp>\d+) x DP (?P<dp>\d+) needs more than one (?P<hw>.+) node$"),
     "TP {tp} x DP {dp} 需要不止一台 {hw}"),
    (re.compile(r"^(?P<variant>\S+) needs (?P<need>\d+) NPUs by its tutorial, one (?P<hw>.+) node has (?P<npus>\d+)$"),
     "按教程，{variant} 需要 {need} 张 NPU，而单台 {hw} 只有 {npus} 张"),
    (re.compile(r"^the knowledge has no (?P<quant>\S+) checkpoint of (?P<model>\S+)$"),
     "知识库中没有 {model} 的 {quant} 权重"),
)


def refusal(kb: KnowledgeBase, error: GenerationError, lang: str) -> str:
    """The generator's reason in the page's language (hardware names as the site spells them)."""
    message = str(error)
    if lang == "en":
        return escape(message)
    for pattern, template in _REFUSALS_ZH:
        match = pattern.match(message)
        if match is None:
            continue
        values = dict(match.groupdict())
        if "hw" in values:
            hardware = _hardware_by_name(kb, values["hw"])
            values["hw"] = hardware_name(hardware.id, lang) if hardware else values["hw"]
        return escape(template.format(**values))
    return "生成器拒绝了这一组合：" + code(message)


# -- FAQ selection --------------------------------------------------------------------

def faq_for(kb: KnowledgeBase, guide: Guide) -> list[FaqEntry]:
    """FAQ entries worth linking from a guide, from what each entry says it is about:
    entries about this model, and general entries marked for guides (``guides``), both
    only where their hardware, PD and hybrid-model conditions hold."""
    wanted = []
    for entry in kb.faqs:
        if entry.hardware and guide.hardware.id not in entry.hardware:
            continue
        if PD_GROUP in entry.groups and not guide.hardware.supports_pd:
            continue
        if entry.hybrid_only and not guide.model.hybrid:
            continue
        if guide.model.id in entry.models or (not entry.models and entry.guides):
            wanted.append(entry)
    return wanted


# -- commands -----------------------------------------------------------------------------

def _device_range(hardware: Hardware) -> list[str]:
    match = re.fullmatch(r"(?P<prefix>.+)\[(?P<first>\d+)-(?P<last>\d+)\]", hardware.device_nodes)
    if match is None:
        return [hardware.device_nodes]
    return [f"{match['prefix']}{n}" for n in range(int(match["first"]), int(match["last"]) + 1)]


def image_ref(hardware: Hardware, version: str) -> str:
    return f"quay.io/ascend/vllm-ascend:{version}{hardware.image_suffix}"


def docker_command(hardware: Hardware, version: str) -> str:
    devices = [*_device_range(hardware), "/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"]
    parts = ["docker run --rm -it --name vllm-ascend", "--shm-size=1g", "--net=host"]
    parts += [f"--device {device}" for device in devices]
    parts += [f"-v {mount}" for mount in DRIVER_MOUNTS]
    parts.append(f"{image_ref(hardware, version)} bash")
    return " \\\n  ".join(parts) + "\n"


def weights_command(ids: list[str]) -> str:
    lines = ["pip install modelscope"]
    lines += [f"modelscope download --model {identifier}" for identifier in ids]
    lines.append("export VLLM_USE_MODELSCOPE=True")
    return "\n".join(lines) + "\n"


def _body(data: dict) -> str:
    """A JSON request body laid out over lines, indented under ``-d``."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    return "\n".join(["  " + line if index else line for index, line in enumerate(text.splitlines())])


def _json_body(data: str) -> str:
    return "'" + data + "'"


def curl_commands(served: str, lang: str) -> str:
    completion = _body({"model": served, "prompt": say(lang, "guide.verify.prompt"), "max_tokens": 64,
                        "temperature": 0})
    chat = _body({"model": served, "messages": [{"role": "user", "content": say(lang, "guide.verify.chat")}],
                  "max_tokens": 256})
    return "\n".join([
        f"curl {BASE_URL}/v1/models",
        f"curl {BASE_URL}/v1/completions \\",
        '  -H "Content-Type: application/json" \\',
        f"  -d {_json_body(completion)}",
        f"curl {BASE_URL}/v1/chat/completions \\",
        '  -H "Content-Type: application/json" \\',
        f"  -d {_json_body(chat)}",
    ]) + "\n"


def lm_eval_command(served: str, tokenizer: str | None) -> str:
    arguments = [f"model={served}", f"base_url={BASE_URL}/v1/completions"]
    if tokenizer:
        arguments.append(f"tokenizer={tokenizer}")
    arguments += ["tokenized_requests=False", "num_concurrent=8"]
    return "\n".join([
        'pip install "lm-eval[api]"',
        "lm_eval \\",
        "  --model local-completions \\",
        f"  --model_args {','.join(arguments)} \\",
        "  --tasks gsm8k \\",
        "  --output_path ./lm_eval_results",
    ]) + "\n"


def bench_command(model_ref: str, served: str) -> str:
    lines = []
    if model_ref.startswith("Eco-Tech/"):
        lines.append("export VLLM_USE_MODELSCOPE=True")
    options = [
        f"--model {model_ref}", f"--served-model-name {served}", f"--base-url {BASE_URL}",
        "--dataset-name random", "--random-input-len 1024", "--random-output-len 256",
        "--num-prompts 200", "--request-rate 4", "--save-result", "--result-dir ./bench_results",
    ]
    lines.append("vllm bench serve \\\n  " + " \\\n  ".join(options))
    return "\n".join(lines) + "\n"


# -- page -----------------------------------------------------------------------------------

def _fmt(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "✓" if value else "✗"
    return str(value)


def _disagreements(kb: KnowledgeBase, guide: Guide, version: str, lang: str) -> list[str]:
    records = [guide.model, *guide.model.variants, guide.hardware, *kb.recipes_for(guide.model.id, guide.hardware.id)]
    records += [r for r in kb.releases if r.tag == version]
    texts = []
    for record in records:
        if record.disagreement is not None:
            text = escape(text_of(record.disagreement, lang))
            if text not in texts:
                texts.append(text)
    return texts


def render_guide(kb: KnowledgeBase, guide: Guide, lang: str, flavor: Flavor, version: str) -> str:
    """The Markdown of one guide page."""
    model, hardware = guide.model, guide.hardware
    hw_name = hardware_name(hardware.id, lang)
    page = Page(guide.docname, flavor)
    page.heading(1, say(lang, "guide.title", model=model.id, hardware=hw_name))
    page.para(say(lang, "guide.intro"))

    first = first_release(model, hardware)
    if first is None:
        raise ValueError(f"no release supports {model.id} on {hardware.id}: it has no guide")
    page.heading(2, say(lang, "guide.facts"))
    kind = say(lang, "guide.kind.moe", experts=model.num_experts) if model.moe else say(lang, "guide.kind.dense")
    if model.hybrid:
        kind += ("; " if lang == "en" else "；") + say(lang, "guide.kind.hybrid")
    rows = [[say(lang, "guide.fact.kind"), kind]]
    if model.num_hidden_layers:
        rows.append([say(lang, "guide.fact.layers"),
                     f"{model.num_hidden_layers} / {model.num_attention_heads}, {model.num_key_value_heads}"])
    rows.append([say(lang, "guide.fact.context"), str(model.max_model_len)])
    rows.append([say(lang, "guide.fact.mtp"), code(model.mtp_method) if model.mtp_method else say(lang, "guide.fact.none")])
    rows.append([say(lang, "guide.fact.first"), code(first)])
    page.table([say(lang, "guide.fact"), say(lang, "guide.value")], rows)

    page.heading(2, say(lang, "guide.prereq"))
    page.bullets([
        say(lang, "guide.prereq.node", hardware=hw_name, npus=hardware.npus_per_node, hbm=hardware.hbm_gb,
            total=hardware.npus_per_node * hardware.hbm_gb),
        say(lang, "guide.prereq.driver"),
        say(lang, "guide.prereq.docker"),
        say(lang, "guide.prereq.release", first=code(first)),
    ])

    page.heading(2, say(lang, "guide.image"))
    suffixes = []
    for other in kb.hardware:
        name = hardware_name(other.id, lang)
        if other.image_suffix:
            suffixes.append(say(lang, "guide.image.suffix", suffix=code(other.image_suffix), hardware=name))
        else:
            suffixes.append(say(lang, "guide.image.nosuffix", hardware=name))
    separator = ", " if lang == "en" else "，"
    page.para(say(lang, "guide.image.text", image=code(image_ref(hardware, version)), suffixes=separator.join(suffixes)))
    page.para(say(lang, "guide.image.run"))
    page.code_block("bash", docker_command(hardware, version))

    outcomes = deployments(kb, guide, version)
    generated = [o for o in outcomes.values() if isinstance(o, Deployment)]
    page.heading(2, say(lang, "guide.weights"))
    page.table(
        [say(lang, f"guide.weights.col.{c}") for c in ("name", "id", "quant", "size", "mtp")],
        [[code(v.name), code(download_id(v)), pick(QUANT_NAME[v.quantization], lang), f"~{v.weights_gb:g} GB",
          say(lang, "guide.yes" if v.mtp_head else "guide.no")] for v in model.variants],
    )
    used = list(dict.fromkeys(served_model(d.script) for d in generated))
    if used:
        page.para(say(lang, "guide.weights.text"))
        page.code_block("bash", weights_command(used))

    page.heading(2, say(lang, "guide.single"))
    if not generated:
        page.para(say(lang, "guide.single.none", hardware=hw_name))
        page.table(
            [say(lang, "guide.col.scenario"), say(lang, "guide.col.weights"), say(lang, "guide.col.reason")],
            [[scenario_name(scenario, lang), pick(QUANT_NAME[quantization], lang),
              say(lang, "guide.refused", reason=refusal(kb, outcome, lang))]
             for (scenario, quantization), outcome in outcomes.items() if isinstance(outcome, GenerationError)],
        )
    else:
        page.para(say(lang, "guide.single.text", version=code(version)))
    for scenario in SCENARIOS if generated else ():
        page.heading(3, scenario_name(scenario, lang))
        page.para(scenario_text(scenario, lang))
        for quantization in QUANTIZATIONS:
            outcome = outcomes[(scenario, quantization)]
            quant = pick(QUANT_NAME[quantization], lang)
            if isinstance(outcome, GenerationError):
                page.heading(4, quant)
                page.para(say(lang, "guide.refused", reason=refusal(kb, outcome, lang)))
                continue
            page.heading(4, say(lang, "guide.variant", quant=quant, variant=outcome.variant))
            on, off = say(lang, "guide.on"), say(lang, "guide.off")
            page.para(say(lang, "guide.layout", tp=outcome.tp, dp=outcome.dp, npus=outcome.tp * outcome.dp,
                          total=hardware.npus_per_node, ep=on if outcome.enable_expert_parallel else off,
                          len=outcome.max_model_len, seqs=outcome.max_num_seqs,
                          batched=outcome.max_num_batched_tokens, mtp=outcome.mtp_tokens)
                      + sentence_gap(lang) + say(lang, "guide.sized.recipe" if _has_recipe(kb, guide, scenario, quantization)
                                  else "guide.sized.derived"))
            page.code_block("bash", outcome.script)

    from qlint.docgen.guide_nodes import multi_node_section

    multi_node_section(kb, page, guide.model.id, guide.hardware.id, version, lang)
    _pd_section(kb, page, guide, lang, version)

    if generated:
        reference = generated[0]
        model_ref = served_model(reference.script)
        served = reference.served_model_name
        page.heading(2, say(lang, "guide.verify"))
        page.para(say(lang, "guide.verify.text", served=served))
        page.code_block("bash", curl_commands(served, lang))
        page.heading(2, say(lang, "guide.accuracy"))
        page.para(say(lang, "guide.accuracy.text"))
        page.code_block("bash", lm_eval_command(served, hub_tokenizer(model)))
        page.heading(2, say(lang, "guide.perf"))
        page.para(say(lang, "guide.perf.text"))
        page.code_block("bash", bench_command(model_ref, served))

    _tuning_section(kb, page, guide, lang)

    conflicts = _disagreements(kb, guide, version, lang)
    if conflicts:
        page.heading(2, say(lang, "guide.disagree"))
        page.para(say(lang, "guide.disagree.text"))
        for text in conflicts:
            page.admonition("warning", say(lang, "rule.disagree"), [text])

    entries = faq_for(kb, guide)
    if entries:
        page.heading(2, say(lang, "guide.faq"))
        page.bullets([page.link(text_of(e.title, lang), "faq", e.id) for e in entries])

    page.heading(2, say(lang, "guide.references"))
    sources = list(dict.fromkeys([*model.sources, *[s for v in model.variants for s in v.sources]]))
    page.bullets([citations.render(s, lang) for s in sources])
    return page.render()


def _has_recipe(kb: KnowledgeBase, guide: Guide, scenario: str, quantization: str) -> bool:
    return any(r.scenario == scenario and r.quantization == quantization and r.nodes == 1 and r.deployment is None
               for r in kb.recipes_for(guide.model.id, guide.hardware.id))


def _pd_section(kb: KnowledgeBase, page: Page, guide: Guide, lang: str, version: str) -> None:
    from qlint.linter.catalog import all_rules

    hw_name = hardware_name(guide.hardware.id, lang)
    page.heading(2, say(lang, "guide.pd"))
    if not guide.hardware.supports_pd:
        page.para(say(lang, "guide.pd.none", reason=say(lang, "guide.pd.reason", hardware=hw_name)))
    else:
        page.para(say(lang, "guide.pd.text", hardware=hw_name))
        from qlint.docgen.guide_nodes import pd_plan

        if not pd_plan(kb, page, guide.model.id, guide.hardware.id, version, lang):
            page.code_block("bash", "qlint run_p.sh run_d.sh proxy.sh\n")
    # the PD rules that apply to this hardware: the 310P ones only on the 310P, and vice versa
    on_310p = guide.hardware.id == "310p"
    rules = [m for m in all_rules() if PD_GROUP in m.groups and ("310p" in m.groups) == on_310p]
    page.para(say(lang, "guide.pd.rules"))
    page.bullets([f"{page.link(m.id, f'rules/{m.id}')} {code(m.name)}{colon(lang)}{escape(text_of(m.title, lang))}"
                  for m in rules])
    pd_faq = [e for e in faq_for(kb, guide) if PD_GROUP in e.groups]
    if pd_faq and guide.hardware.supports_pd:
        page.para(say(lang, "guide.pd.faq"))
        page.bullets([page.link(text_of(e.title, lang), "faq", e.id) for e in pd_faq])


def _tuning_section(kb: KnowledgeBase, page: Page, guide: Guide, lang: str) -> None:
    hw_name = hardware_name(guide.hardware.id, lang)
    page.heading(2, say(lang, "guide.tuning"))
    recipes = kb.recipes_for(guide.model.id, guide.hardware.id)
    if not recipes:
        page.para(say(lang, "guide.tuning.none", model=guide.model.id, hardware=hw_name))
        return
    page.para(say(lang, "guide.tuning.text", model=guide.model.id, hardware=hw_name))
    order = {s: i for i, s in enumerate(SCENARIOS)}
    recipes = sorted(recipes, key=lambda r: (order[r.scenario], r.quantization, r.nodes))
    header = [say(lang, "guide.col.scenario"), say(lang, "guide.col.weights"), say(lang, "guide.col.nodes"), "TP",
              "DP", code("--max-num-seqs"), code("--max-model-len"), code("--max-num-batched-tokens"),
              say(lang, "guide.col.mtp"), say(lang, "guide.col.prefix"), say(lang, "guide.col.ep")]
    rows = [[scenario_name(r.scenario, lang), pick(QUANT_NAME[r.quantization], lang), _fmt(r.nodes), _fmt(r.tp),
             _fmt(r.dp), _fmt(r.max_num_seqs), _fmt(r.max_model_len), _fmt(r.max_num_batched_tokens),
             _fmt(r.mtp_tokens), _fmt(r.prefix_caching), _fmt(r.enable_expert_parallel)] for r in recipes]
    page.table(header, rows)
    sources = list(dict.fromkeys(s for r in recipes for s in r.sources))
    page.para(say(lang, "guide.tuning.sources"))
    page.bullets([citations.render(s, lang) for s in sources])
