"""Release rules: options a release's parser does not know (QL550) and features that reached
Atlas 300I (310P) late (QL551). Which FlashComm1 switch a release reads is ``flashcomm1_switch``
(QL552).
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)

from qlint.knowledge.base import parse_version
from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.kit import options as option_facts
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

NGRAM_METHODS = ("ngram", "ngram_gpu", "suffix")  # proposers that need no draft model


def _vllm_of(tag: str) -> str:
    """The vLLM version named by an ``added_in`` / ``removed_in`` release tag."""
    return parse_version(tag).base_version


# -- QL550 --------------------------------------------------------------------

FLAG_RELEASE = RuleMeta(
    id="QL550",
    name="serve-flag-not-in-release",
    groups=("release", "flags"),
    severity="error",
    requires=("version", "off_release_options"),
    fix="unsafe",
    faq="version-pairing",
    title=Text(en="The release's vllm serve does not have this option yet, or any more",
               zh="该版本的 vllm serve 还没有（或已不再有）这个参数"),
    why=Text(
        en="vllm-ascend vX.Y.Z ships vLLM vX.Y.Z, and vllm serve only accepts the options of that vLLM. An "
        "option copied from newer documentation stops an older image with 'unrecognized arguments'; an option "
        "vLLM dropped stops a newer image the same way. The first and last releases come from comparing the "
        "option lists of the vLLM 0.17.0 to 0.23.0 parsers; options older than 0.17.0 are not dated.",
        zh="vllm-ascend vX.Y.Z 搭配 vLLM vX.Y.Z，vllm serve 只接受该 vLLM 版本的参数。照着较新文档写的参数，"
        "在旧镜像上会以 “unrecognized arguments” 退出；vLLM 已删除的参数在新镜像上同样会退出。参数出现与"
        "消失的版本来自对 vLLM 0.17.0 到 0.23.0 各版本参数列表的比对；早于 0.17.0 的参数不标注版本。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L914",
        "https://github.com/vllm-project/vllm/blob/v0.20.2/vllm/engine/arg_utils.py#L868",
        "https://github.com/vllm-project/vllm/blob/v0.17.0/vllm/engine/arg_utils.py#L951",
    ),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --mamba-backend triton --tensor-parallel-size 2\n",
            good="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2\n",
            fixed="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2\n",
            version="v0.18.0",
        ),
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --swap-space 16\n",
            good="vllm serve Qwen/Qwen3.6-27B\n",
            fixed="vllm serve Qwen/Qwen3.6-27B\n",
            version="v0.23.0",
        ),
    ),
)


def _first_tag_with(vllm_version: str) -> str | None:
    """The oldest vllm-ascend release whose data is vLLM ``vllm_version``."""
    for tag, paired in option_facts.ascend_tags_with_vllm().items():
        if paired == vllm_version:
            return tag
    return None


def _from_release_data(scope: Scope, facts):
    """QL550 from the extracted parsers: an option of other vLLM releases that this release lacks."""
    for option in scope.serve.all_options:
        if option_facts.resolve(facts, option) is not None:
            continue
        versions = option_facts.versions_with(option.name)
        if not versions:
            continue  # not an option of any release: QL102's
        current = parse_version(facts.vllm)  # (here: most commands pass only options of their release)
        at = kit.at_version(scope)
        where, where_zh = f"{at.en} (vLLM {facts.vllm})", f"{at.zh}（vLLM {facts.vllm}）"
        name = option.spelled.split(".", 1)[0]
        newer = [v for v in versions if parse_version(v) > current]
        older = [v for v in versions if parse_version(v) < current]
        if newer and not older:
            tag = _first_tag_with(newer[0])
            since = f" (vllm-ascend {tag})" if tag else ""
            since_zh = f"（vllm-ascend {tag}）" if tag else ""
            message = Text(en=f"{name} arrived with vLLM {newer[0]}{since}; {where} stops with 'unrecognized arguments'",
                           zh=f"{name} 自 vLLM {newer[0]}{since_zh} 起才有；{where_zh} 会以 “unrecognized arguments” 退出")
            advice = Text(en=f"remove {name}, or use a {tag} or later image" if tag else f"remove {name}",
                          zh=f"删除 {name}，或使用 {tag} 及以后的镜像" if tag else f"删除 {name}")
        elif older and not newer:
            known = option_facts.release_index()["vllm"]
            later = [v for v in known if parse_version(v) > parse_version(older[-1])]
            gone = later[0] if later else facts.vllm
            tag = _first_tag_with(gone)
            since = f" (vllm-ascend {tag})" if tag else ""
            since_zh = f"（vllm-ascend {tag}）" if tag else ""
            message = Text(en=f"{name} was removed in vLLM {gone}{since}; {where} stops with 'unrecognized arguments'",
                           zh=f"{name} 已在 vLLM {gone}{since_zh} 中删除；{where_zh} 会以 “unrecognized arguments” 退出")
            advice = Text(en=f"remove {name}", zh=f"删除 {name}")
        else:
            message = Text(en=f"{name} is not an option of {where} (vLLM {', '.join(versions[-3:])} have it); "
                           "it stops with 'unrecognized arguments'",
                           zh=f"{name} 不是 {where_zh} 的参数（vLLM {', '.join(versions[-3:])} 有该参数）；"
                           "会以 “unrecognized arguments” 退出")
            advice = Text(en=f"remove {name}", zh=f"删除 {name}")
        defined = option_facts.option_source(option.name, newer[0] if newer else older[-1])
        cited = tuple(s for s in (defined, option_facts.parser_source(facts), facts.vllm_source) if s)
        yield Finding(FLAG_RELEASE, message, option.name_span, Fix(advice, kit.drop_option(option), "unsafe"),
                      sources=cited or None)


@check(FLAG_RELEASE, when=("off_release_options",))
def flag_release(scope: Scope):
    """Options the release's own parser lacks (extracted data), else the ``added_in`` / ``removed_in`` table."""
    facts = option_facts.facts(scope)
    if facts is not None:
        yield from _from_release_data(scope, facts)
        return
    kit.release(scope)  # Unknown (rule skipped) when the version is not a release tag
    tag = scope.get("version")
    vllm = kit.paired_vllm(scope, tag)
    where, where_zh = f"{kit.at_version(scope).en} (vLLM {vllm})", f"{kit.at_version(scope).zh}（vLLM {vllm}）"
    for option in scope.serve.all_options:
        spec = scope.kb.flag(option.name) if option.known else None
        if spec is None:
            continue
        name = option.spelled
        if spec.added_in and kit.before(scope, spec.added_in):
            first = _vllm_of(spec.added_in)
            message = Text(en=f"{name} arrived with vLLM {first} (vllm-ascend {spec.added_in}); {where} stops with "
                           "'unrecognized arguments'",
                           zh=f"{name} 自 vLLM {first}（vllm-ascend {spec.added_in}）起才有；{where_zh} 会以 "
                           "“unrecognized arguments” 退出")
            advice = Text(en=f"remove {name}, or use a {spec.added_in} or later image",
                          zh=f"删除 {name}，或使用 {spec.added_in} 及以后的镜像")
        elif spec.removed_in and kit.since(scope, spec.removed_in):
            gone = _vllm_of(spec.removed_in)
            message = Text(en=f"{name} was removed in vLLM {gone} (vllm-ascend {spec.removed_in}); {where} stops with "
                           "'unrecognized arguments'",
                           zh=f"{name} 已在 vLLM {gone}（vllm-ascend {spec.removed_in}）中删除；{where_zh} 会以 "
                           "“unrecognized arguments” 退出")
            advice = Text(en=f"remove {name}", zh=f"删除 {name}")
        else:
            continue
        yield Finding(FLAG_RELEASE, message, option.name_span, Fix(advice, kit.drop_option(option), "unsafe"),
                      sources=tuple(spec.sources))  # the option's definition lines, per vLLM release


# -- QL551 --------------------------------------------------------------------

LATE_ON_310P = RuleMeta(
    id="QL551",
    name="feature-late-on-310p",
    behaviours=("moe_on_310p", "draft_spec_on_310p"),
    groups=("release", "310p"),
    severity="error",
    requires=("hardware", "version", "speculative"),
    optional=("moe", "model"),
    fix="none",
    faq="atlas-300i-duo-deployment",
    title=Text(en="The feature reached Atlas 300I (310P) in a later release",
               zh="该特性在更晚的版本才支持 Atlas 300I（310P）"),
    why=Text(
        en="Atlas inference products (310P) run their own worker, attention and MoE code in vllm-ascend, and "
        "features arrive there later than on Atlas A2/A3: MoE models from v0.15.0rc1 (vllm-ascend#6530, "
        "release notes of v0.15.0rc1) and speculative decoding with a draft model (MTP, EAGLE) from "
        "v0.21.0rc1, which added the 310P proposer (vllm-ascend#10309). n-gram proposers need no draft "
        "model and are not reported. A model that itself reached 310P later is reported by QL511 instead.",
        zh="Atlas 推理产品（310P）在 vllm-ascend 中使用独立的 worker、注意力与 MoE 实现，特性到达时间晚于 "
        "Atlas A2/A3：MoE 模型自 v0.15.0rc1 起支持（vllm-ascend#6530，见 v0.15.0rc1 发布说明），带草稿模型的"
        "投机解码（MTP、EAGLE）自 v0.21.0rc1 起支持，该版本加入了 310P 的 proposer（vllm-ascend#10309）。"
        "n-gram 不需要草稿模型，不在此报告。若模型本身在 310P 上更晚才支持，由 QL511 报告。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/pull/6530",
        "https://github.com/vllm-project/vllm-ascend/pull/10309",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/docs/source/user_guide/release_notes.md?plain=1#L1005",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/docs/source/user_guide/release_notes.md?plain=1#L324",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.21.0rc1/vllm_ascend/_310p/spec_decode/llm_base_proposer_310.py",
    ),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-32B --dtype float16 --speculative-config "
            "'{\"method\": \"eagle3\", \"model\": \"/models/eagle3\", \"num_speculative_tokens\": 2}'\n",
            good="vllm serve /models/Qwen3-32B --dtype float16 --speculative-config "
            "'{\"method\": \"ngram\", \"num_speculative_tokens\": 2, \"prompt_lookup_max\": 4}'\n",
            hardware="310p",
            version="v0.18.0",
        ),
        Example(
            bad="vllm serve Qwen/Qwen3-30B-A3B --dtype float16 --tensor-parallel-size 2\n",
            good="vllm serve Qwen/Qwen3-32B --dtype float16 --tensor-parallel-size 2\n",
            hardware="310p",
            version="v0.13.0",
        ),
    ),
)


def _model_reported_by_ql511(scope: Scope) -> bool:
    """True when the model itself reaches 310P after this release (QL511 says so)."""
    match = scope.known("model")
    if match is None or match.value.model.first_vllm_ascend_310p is None:
        return False
    first = kit.model_first_release(scope.kb, match.value.model, "310p")
    return first is not None and kit.before(scope, first)


@check(LATE_ON_310P, when=("hardware=310p",))
def late_on_310p(scope: Scope):
    """MoE models before v0.15.0rc1 and draft-model speculative decoding before v0.21.0rc1 on 310P."""
    if scope.get("hardware") != "310p" or _model_reported_by_ql511(scope):
        return
    where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
    MOE_ON_310P_SINCE = kit.first_release(scope.kb, "moe_on_310p")
    DRAFT_SPEC_ON_310P_SINCE = kit.first_release(scope.kb, "draft_spec_on_310p")
    serve = scope.serve
    moe = scope.known("moe")
    match = scope.known("model")
    if moe is not None and moe.value and match is not None and not kit.holds(scope, "moe_on_310p"):
        model, latest = match.value.model.id, scope.kb.latest_stable.tag
        yield Finding(
            LATE_ON_310P,
            Text(en=f"{model} is a MoE model; MoE models run on Atlas 300I (310P) from vllm-ascend {MOE_ON_310P_SINCE} "
                 f"on, the script runs {where}",
                 zh=f"{model} 是 MoE 模型；MoE 模型自 vllm-ascend {MOE_ON_310P_SINCE} 起才能在 Atlas 300I（310P）上运行，"
                 f"脚本使用的是 {where_zh}"),
            serve.model.span if serve.model is not None else serve.span,
            Fix(Text(en=f"use a {MOE_ON_310P_SINCE} or later -310p image (latest stable {latest})",
                     zh=f"使用 {MOE_ON_310P_SINCE} 及以后的 -310p 镜像（最新稳定版 {latest}）")),
        )
    config = scope.get("speculative")
    if not config or kit.holds(scope, "draft_spec_on_310p"):
        return
    method = config.get("method")
    if not isinstance(method, str) or method in NGRAM_METHODS:
        return
    span = kit.span_of(serve, "--speculative-config", "method")
    yield Finding(
        LATE_ON_310P,
        Text(en=f"speculative decoding with method {json.dumps(method)} on Atlas 300I (310P): the 310P draft proposer "
             f"arrived in vllm-ascend {DRAFT_SPEC_ON_310P_SINCE}, the script runs {where}",
             zh=f"在 Atlas 300I（310P）上使用方法 {json.dumps(method)} 的投机解码：310P 的草稿 proposer 自 vllm-ascend "
             f"{DRAFT_SPEC_ON_310P_SINCE} 起才有，脚本使用的是 {where_zh}"),
        span,
        Fix(Text(en=f"drop --speculative-config on this release, or use a {DRAFT_SPEC_ON_310P_SINCE} or later -310p image",
                 zh=f"在该版本上删除 --speculative-config，或使用 {DRAFT_SPEC_ON_310P_SINCE} 及以后的 -310p 镜像")),
    )
