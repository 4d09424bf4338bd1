"""Release rules: the image's hardware build, the first release that supports a model,
environment variables that a release no longer reads.

Sources: image suffixes (the installation guide's image table and the tutorials' Docker
sections), model support (``first_vllm_ascend`` / ``first_vllm_ascend_310p`` in models.toml) and
the env-var history in env_vars.toml, each with pinned URLs.
"""

from __future__ import annotations

import re

from qlint.knowledge.base import MAIN, parse_version
from qlint.knowledge.images import parse_image
from qlint.knowledge.text import Text
from qlint.knowledge.versions import InvalidVersion, Version
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Known, Scope, check, fact
from qlint.rules.plan import DockerRun

SUFFIX_HARDWARE = {"-a3": "a3", "-310p": "310p", None: "a2"}
HARDWARE_SUFFIX = {"a3": "-a3", "310p": "-310p", "a2": ""}
_DAVINCI = r"^/dev/davinci(\d+)$"  # compiled on first use (re's cache): only with --device

IMAGE_HARDWARE = RuleMeta(
    id="QL510",
    name="image-hardware-mismatch",
    groups=("release",),
    severity="error",
    scope="script",
    fix="unsafe",
    faq="devices-supported",
    title=Text(en="The image is built for other hardware than the script targets",
               zh="镜像对应的硬件与脚本的目标硬件不一致"),
    why=Text(
        en="vllm-ascend ships one image per hardware family: no suffix for Atlas A2, -a3 for Atlas A3 and "
        "-310p for Atlas inference products. The wrong build loads kernels for another chip and fails at "
        "startup. The target comes from --hardware or a '# qlint: hardware=' directive. An A2 node has 8 "
        "NPUs, so an A2 image that maps /dev/davinci8 or higher is meant for an A3 node.",
        zh="vllm-ascend 为每类硬件提供单独的镜像：Atlas A2 无后缀，Atlas A3 为 -a3，Atlas 推理产品为 -310p。"
        "用错镜像会加载面向其他芯片的算子，启动即失败。目标硬件取自 --hardware 或 “# qlint: hardware=” 指令。"
        "A2 节点只有 8 张 NPU，A2 镜像却映射 /dev/davinci8 及以上设备，说明它本应运行在 A3 节点上。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/5500e45c4c4f3e160ce705a9c477d8de27611aa5/docs/source/tutorials/models/Qwen3.6-35B-A3B.md?plain=1#L28-L73",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L39-L145",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/installation.md?plain=1#L284-L294",
    ),
    examples=(
        Example(
            bad="# qlint: hardware=a3\nexport IMAGE=quay.io/ascend/vllm-ascend:v0.23.0\n",
            good="# qlint: hardware=a3\nexport IMAGE=quay.io/ascend/vllm-ascend:v0.23.0-a3\n",
            fixed="# qlint: hardware=a3\nexport IMAGE=quay.io/ascend/vllm-ascend:v0.23.0-a3\n",
        ),
        Example(
            bad="docker run --rm --device /dev/davinci0 --device /dev/davinci15 -it "
            "quay.io/ascend/vllm-ascend:v0.23.0 bash\n",
            good="docker run --rm --device /dev/davinci0 --device /dev/davinci15 -it "
            "quay.io/ascend/vllm-ascend:v0.23.0-a3 bash\n",
        ),
    ),
)


def _stated_hardware(scope: Scope) -> str | None:
    """The hardware the user stated (--hardware, then a directive), never the one inferred from the image."""
    if scope.settings.hardware:
        return scope.settings.hardware.lower()
    for directive in scope.plan.directives:
        if "hardware" in directive.settings:
            return directive.settings["hardware"].lower()
    return None


def _retagged(reference: str, tag: str, suffix: str | None, hardware: str) -> str:
    """The same image reference with the hardware suffix for ``hardware``."""
    old = f":{tag}{suffix or ''}"
    return reference.replace(old, f":{tag}{HARDWARE_SUFFIX[hardware]}", 1)


@check(IMAGE_HARDWARE)
def image_hardware(scope: Scope):
    stated = _stated_hardware(scope)
    if stated in HARDWARE_SUFFIX:
        for value in scope.plan.image_tags:
            parsed = parse_image(value.text or "")
            if parsed is None:
                continue
            tag, suffix = parsed
            built_for = SUFFIX_HARDWARE[suffix]
            if built_for == stated:
                continue
            new = _retagged(value.text or "", tag, suffix, stated)
            edits = kit.set_word(value, new)
            yield Finding(
                IMAGE_HARDWARE,
                Text(
                    en=f"image {value.text} is the {built_for.upper()} build ({suffix or 'no suffix'}), but the script "
                    f"targets {stated.upper()}",
                    zh=f"镜像 {value.text} 是 {built_for.upper()} 版本（{suffix or '无后缀'}），"
                    f"但脚本的目标硬件是 {stated.upper()}",
                ),
                value.span,
                Fix(Text(en=f"use the {stated.upper()} image {new}", zh=f"改用 {stated.upper()} 镜像 {new}"),
                    edits, safety="unsafe"),
            )
    for command in scope.plan.commands:
        if not isinstance(command, DockerRun) or command.image is None:
            continue
        parsed = parse_image(command.image.text or "")
        if parsed is None or parsed[1] is not None:
            continue
        high = [(int(m.group(1)), device) for device in command.devices
                if device.text and (m := re.match(_DAVINCI, device.text)) and int(m.group(1)) >= 8]
        if high:
            index, device = max(high, key=lambda item: item[0])
            yield Finding(
                IMAGE_HARDWARE,
                Text(
                    en=f"docker run maps /dev/davinci{index} with the A2 image {command.image.text}; an A2 node has "
                    "NPUs 0-7 only, so this looks like an A3 node",
                    zh=f"docker run 在使用 A2 镜像 {command.image.text} 时映射了 /dev/davinci{index}；A2 节点只有 "
                    "0-7 号 NPU，因此这看起来是 A3 节点",
                ),
                device.span,
                Fix(Text(en=f"on an A3 node use {_retagged(command.image.text or '', parsed[0], None, 'a3')}",
                         zh=f"在 A3 节点上请使用 {_retagged(command.image.text or '', parsed[0], None, 'a3')}"),
                    safety="unsafe"),
            )


MODEL_SUPPORT = RuleMeta(
    id="QL511",
    name="version-below-model-support",
    behaviours=("gdn_attention_on_310p",),
    groups=("release",),
    severity="error",
    requires=("model", "version", "hardware_if_known"),
    faq="version-pairing",
    title=Text(en="The release is older than the first one that supports the model",
               zh="所用版本早于首个支持该模型的版本"),
    why=Text(
        en="Each model (and the Atlas inference products for it) is supported from a given vllm-ascend "
        "release on; an older image lacks the model code or its 310P kernels and fails to load it. The "
        "first releases come from the tutorials' version notes.",
        zh="每个模型（以及它在 Atlas 推理产品上的运行）都从某个 vllm-ascend 版本开始支持；更旧的镜像缺少模型"
        "代码或对应的 310P 算子，无法加载。首个支持版本取自教程中的版本说明。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L3-L9",
        "https://github.com/vllm-project/vllm-ascend/blob/5500e45c4c4f3e160ce705a9c477d8de27611aa5/docs/source/tutorials/models/Qwen3.6-35B-A3B.md?plain=1#L3-L9",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L3-L9",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n",
            good="vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --tensor-parallel-size 2\n",
            version="v0.17.0rc1",
        ),
    ),
)


@fact("hardware_if_known", requires=("hardware",), scope="script")
def hardware_if_known(scope: Scope):
    """The hardware id, or None when neither the user nor the image says it."""
    known = scope.known("hardware")
    return Known(None, "hardware not given") if known is None else Known(known.value, known.origin, known.span)


@check(MODEL_SUPPORT)
def model_support(scope: Scope):
    model = scope.get("model").model
    kit.release(scope)  # Unknown (rule skipped) when the version is not a release tag
    hardware = scope.get("hardware_if_known")
    first, where, where_zh = kit.model_first_release(scope.kb, model, hardware), "", ""
    if hardware == "310p" and model.first_vllm_ascend_310p is not None:
        where, where_zh = " on Atlas inference products (310P)", "在 Atlas 推理产品（310P）上"
    if first is None or kit.since(scope, first):
        return
    serve = scope.serve
    yield Finding(
        MODEL_SUPPORT,
        Text(
            en=f"{model.id} is supported{where} from vllm-ascend {first}; the script runs {kit.at_version(scope).en}",
            zh=f"{model.id} {where_zh}从 vllm-ascend {first} 起才受支持；脚本使用的是 {kit.at_version(scope).zh}",
        ),
        serve.model.span if serve.model is not None else serve.span,
        Fix(Text(en=f"use a {first} (or later) image; latest stable is {scope.kb.latest_stable.tag}",
                 zh=f"使用 {first} 或更新版本的镜像；最新稳定版为 {scope.kb.latest_stable.tag}")),
    )


STALE_ENV = RuleMeta(
    id="QL512",
    name="stale-env-var",
    groups=("release", "env"),
    severity="warning",
    scope="script",
    requires=("version",),
    title=Text(en="An exported environment variable is removed or deprecated", zh="导出的环境变量已被移除或弃用"),
    why=Text(
        en="vLLM and vllm-ascend drop environment switches over time. A removed variable does nothing (vLLM "
        "only logs it as unknown), so the behaviour the script asks for silently does not happen: a warning. "
        "A deprecated one still works but has a replacement, usually an --additional-config key: info. "
        "vLLM-owned variables are compared with the vLLM release the vllm-ascend release pairs with.",
        zh="vLLM 与 vllm-ascend 会逐步删除环境变量开关。已删除的变量不起任何作用（vLLM 只记录为未知变量），"
        "脚本想要的行为会悄无声息地落空：报警告。已弃用的变量仍然生效，但已有替代项（通常是 --additional-config "
        "的某个键）：报提示。vLLM 自己的变量按该 vllm-ascend 版本所配对的 vLLM 版本比较。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/envs.py#L2082-L2088",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L264-L541",
    ),
    examples=(
        Example(
            bad="export VLLM_USE_V1=1\nvllm serve Qwen/Qwen3.6-27B\n",
            good="export VLLM_USE_MODELSCOPE=True\nvllm serve Qwen/Qwen3.6-27B\n",
            version="v0.23.0",
        ),
    ),
)


def _paired_vllm(scope: Scope, tag: str) -> Version:
    """The vLLM version a vllm-ascend release pairs with (same X.Y.Z; ``main`` is above all)."""
    if tag == MAIN:
        return parse_version(MAIN)
    item = scope.kb.release_record(tag)
    if item is not None:
        return parse_version(item.vllm)
    return Version(parse_version(tag).base_version)


def _bound(text: str | None) -> Version | None:
    if text is None:
        return None
    try:
        return parse_version(text)
    except InvalidVersion:
        return None


@check(STALE_ENV)
def stale_env(scope: Scope):
    kit.release(scope)  # skip when the version is not a release tag
    tag = scope.get("version")
    where, where_zh = kit.at_version(scope).en, kit.at_version(scope).zh
    seen: set[tuple[str, int, int]] = set()
    for command in scope.plan.commands:
        for setting in command.env.values():
            key = (setting.name, setting.span.line, setting.span.column)
            if not setting.exported or key in seen:
                continue
            seen.add(key)
            record = scope.kb.env_var(setting.name)
            if record is None or (record.removed_in is None and record.deprecated_in is None):
                continue  # (most variables were neither removed nor deprecated)
            current = _paired_vllm(scope, tag) if record.owner == "vllm" else parse_version(tag)
            owner = "vLLM" if record.owner == "vllm" else record.owner
            removed, deprecated = _bound(record.removed_in), _bound(record.deprecated_in)
            instead = f"; use {record.replacement} instead" if record.replacement else ""
            instead_zh = f"；请改用 {record.replacement}" if record.replacement else ""
            paired = f" (vLLM {current.base_version})" if record.owner == "vllm" and tag != MAIN else ""
            paired_zh = f"（vLLM {current.base_version}）" if paired else ""
            gap = "" if (where_zh + paired_zh).endswith("）") else " "
            if removed is not None and current >= removed:
                yield Finding(
                    STALE_ENV,
                    Text(
                        en=f"{setting.name} was removed in {owner} {record.removed_in}: at {where}{paired} it has no "
                        f"effect{instead}",
                        zh=f"{setting.name} 已在 {owner} {record.removed_in} 中移除：在 {where_zh}{paired_zh}{gap}中"
                        f"不再起任何作用{instead_zh}",
                    ),
                    setting.span,
                    Fix(Text(en=f"stop setting {setting.name}{instead}",
                             zh=f"不再设置 {setting.name}{instead_zh}")),
                    sources=tuple(record.sources),  # the variable's own history
                )
            elif deprecated is not None and current >= deprecated:
                yield Finding(
                    STALE_ENV,
                    Text(
                        en=f"{setting.name} is deprecated since {owner} {record.deprecated_in} (still read at "
                        f"{where}{paired}){instead}",
                        zh=f"{setting.name} 自 {owner} {record.deprecated_in} 起已弃用，{where_zh}{paired_zh}{gap}"
                        f"仍会读取它{instead_zh}",
                    ),
                    setting.span,
                    Fix(Text(en=f"replace {setting.name}{instead}", zh=f"替换 {setting.name}{instead_zh}") if instead
                        else Text(en=f"stop setting {setting.name}", zh=f"不再设置 {setting.name}")),
                    severity="info",
                    sources=tuple(record.sources),
                )
