"""RoPE scaling from ``--hf-overrides``: the context limit vLLM derives once YaRN (or another
scaling with a ``factor``) is switched on (the ``context_limit`` fact that QL301 and the memory
estimates read).

vLLM applies ``--hf-overrides`` to the checkpoint's config, turns a legacy ``rope_scaling``
into ``rope_parameters`` and then derives the limit: for every rope type other than
``su``/``longrope``/``llama3`` the length is multiplied by ``factor``, and for ``yarn`` the
length multiplied is ``original_max_position_embeddings``
(vllm/config/model.py ``_get_and_verify_max_len``). Both spellings are read, at the top
level or under ``text_config`` (Qwen3.5/3.6 multimodal checkpoints).
"""

from __future__ import annotations

from qlint.knowledge.base import MAIN
from qlint.knowledge.versions import Version
from qlint.record import record
from qlint.rules import kit
from qlint.rules.graph import Known, Scope, Unknown, fact

SOURCES = (
    "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L2165-L2197",
    "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/transformers_utils/config.py#L855-L864",
    "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/transformers_utils/config.py#L511-L512",
    "https://github.com/vllm-project/vllm/blob/v0.11.0/vllm/config/model.py#L1839-L1843",
    "https://github.com/vllm-project/vllm/blob/v0.11.0/vllm/config/model.py#L398-L399",
    "https://github.com/vllm-project/vllm/blob/v0.12.0/vllm/config/model.py#L2198-L2221",
)
UNSCALED_TYPES = ("su", "longrope", "llama3")  # vLLM does not multiply the length for these
# vLLM reads ``rope_parameters`` where behaviour ``vllm_reads_rope_parameters`` holds; older vLLM
# reads only ``rope_scaling`` (config, --hf-overrides or --rope-scaling), so the override is ignored.


@record(frozen=True)
class RopeOverride:
    """What ``--hf-overrides`` says about the context: the rope dict (``rope_parameters`` or
    ``rope_scaling``) and a ``max_position_embeddings`` override, either may be None."""

    rope: dict | None
    max_positions: int | None
    key: str  # the spelling found, for messages: "text_config.rope_parameters"
    ignored: str | None = None  # why the rope dict does not count at this release


def _section(overrides: dict) -> tuple[dict, str]:
    text = overrides.get("text_config")
    if isinstance(text, dict) and any(k in text for k in ("rope_parameters", "rope_scaling", "max_position_embeddings")):
        return text, "text_config."
    return overrides, ""


def _vllm_of(scope: Scope) -> Version | None:
    """The vLLM version the release in effect ships, None for main or a release not in the knowledge."""
    known = scope.known("version")
    if known is None or known.value == MAIN:
        return None
    record = scope.kb.release_record(known.value)
    try:
        return Version(record.vllm.removeprefix("v")) if record is not None else None
    except ValueError:
        return None


@fact("rope_override", requires=("version",))
def rope_override(scope: Scope):
    """The RoPE / max-position part of --hf-overrides (or the old --rope-scaling option) as a
    RopeOverride, None without one."""
    option = scope.serve.opt("--hf-overrides")
    legacy = scope.serve.opt("--rope-scaling")
    section: dict = {}
    prefix = ""
    if option is not None:
        if option.json is None or not isinstance(option.json.data, dict):
            raise Unknown("rope_override")
        section, prefix = _section(option.json.data)
    if legacy is not None and "rope_scaling" not in section:
        if legacy.json is None or not isinstance(legacy.json.data, dict):
            raise Unknown("rope_override")
        section = {**section, "rope_scaling": legacy.json.data}
        option = option or legacy
    rope, key = None, ""
    for name in ("rope_parameters", "rope_scaling"):
        if name in section:
            rope, key = section[name], prefix + name
            break
    positions = section.get("max_position_embeddings")
    if rope is None and positions is None:
        return Known(None, "--hf-overrides sets no rope scaling")
    if (rope is not None and not isinstance(rope, dict)) or (
            positions is not None and (not isinstance(positions, int) or isinstance(positions, bool))):
        raise Unknown("rope_override")
    ignored = None
    vllm = _vllm_of(scope)
    if key.endswith("rope_parameters") and vllm is not None and not kit.holds(scope, "vllm_reads_rope_parameters"):
        since = scope.kb.behaviour("vllm_reads_rope_parameters").vllm_since
        ignored = f"vLLM {vllm} reads rope_scaling, not rope_parameters (read from vLLM {since} on)"
        scaling = section.get("rope_scaling")
        rope, key = (scaling, prefix + "rope_scaling") if isinstance(scaling, dict) else (None, key)
    return Known(RopeOverride(rope, positions, key or prefix + "max_position_embeddings", ignored),
                 f"--hf-overrides {key or 'max_position_embeddings'}", kit.option_span(scope.serve, "--hf-overrides"))


@fact("context_limit", requires=("model_max_len", "rope_override"))
def context_limit(scope: Scope):
    """The longest --max-model-len vLLM accepts (tokens): the model's max_position_embeddings,
    scaled by a RoPE factor from --hf-overrides (YaRN: original_max_position_embeddings x factor).
    Unknown when the override leaves a number the script does not state."""
    known = scope.known("model_max_len")
    override = scope.get("rope_override")
    if override is None:
        if known is None or known.value is None:
            raise Unknown("context_limit")
        return Known(known.value, known.origin)
    base = known.value if known is not None else None
    if override.max_positions is not None:
        base = override.max_positions
    rope = override.rope
    if rope is None:
        if base is None:
            raise Unknown("context_limit")
        if override.ignored:
            return Known(base, f"model max_position_embeddings; {override.ignored}")
        return Known(base, f"--hf-overrides max_position_embeddings {base}")
    kind = rope.get("rope_type", rope.get("type"))
    if not isinstance(kind, str):
        raise Unknown("context_limit")
    if kind in UNSCALED_TYPES:
        if base is None:
            raise Unknown("context_limit")
        return Known(base, f"{override.key} {kind} (length not scaled)")
    factor = rope.get("factor", 1.0)
    if factor is None:
        factor = 1.0  # vLLM falls back to 1.0 for a null factor
    if not isinstance(factor, (int, float)) or isinstance(factor, bool) or factor <= 0:
        raise Unknown("context_limit")
    if kind == "yarn":
        original = rope.get("original_max_position_embeddings")
        if not isinstance(original, int) or isinstance(original, bool) or original <= 0:
            raise Unknown("context_limit")  # vLLM would take it from the checkpoint's config
        base = original
        origin = f"{override.key} yarn: original_max_position_embeddings {original} x factor {factor:g}"
    else:
        if base is None:
            raise Unknown("context_limit")
        origin = f"{override.key} {kind}: max_position_embeddings {base} x factor {factor:g}"
    return Known(int(base * factor), origin)
