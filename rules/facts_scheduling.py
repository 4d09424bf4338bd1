"""Scheduler facts: the max_model_len in effect, vLLM's chunked-prefill switch, the ascend
scheduler of older releases, and the tokens of one scheduler step (vLLM's NPU defaults).
"""

from __future__ import annotations

from qlint.rules import kit
from qlint.rules.graph import Known, Scope, Unknown, fact

# -- facts ----------------------------------------------------------------------

@fact("model_len_limit", requires=("max_model_len", "context_limit"))
def model_len_limit(scope: Scope):
    """max_model_len in effect (tokens): --max-model-len, else the model's own maximum
    (scaled by a RoPE factor from --hf-overrides)."""
    given = scope.known("max_model_len")
    if given is not None and given.value is not None:
        return given
    limit = scope.known("context_limit")
    if limit is None:
        raise Unknown("model_len_limit")
    return Known(limit.value, limit.origin)


@fact("chunked_prefill_flag")
def chunked_prefill_flag(scope: Scope):
    """vLLM's chunked prefill switch: False with --no-enable-chunked-prefill, else True (default)."""
    option = scope.serve.opt("--enable-chunked-prefill")
    if option is None:
        return Known(True, "vLLM default for generative models")
    return Known(not option.negated, option.spelled, option.span)


def ascend_scheduler_removed_in(scope: Scope) -> str:
    """Release that dropped additional-config ascend_scheduler_config: the first one after
    behaviour ``ascend_scheduler_config_read`` ends."""
    last = kit.last_release(scope.kb, "ascend_scheduler_config_read")
    tags = [r.tag for r in scope.kb.tagged_releases]
    return tags[tags.index(last) + 1] if last in tags[:-1] else "main"


@fact("ascend_scheduler_unchunked", requires=("additional_config", "version"))
def ascend_scheduler_unchunked(scope: Scope):
    """True when additional-config ascend_scheduler_config.enabled is true without its own
    enable_chunked_prefill, on a release that still reads it (it then turns chunked prefill off)."""
    section = scope.get("additional_config").get("ascend_scheduler_config")
    if not isinstance(section, dict) or section.get("enabled") is not True:
        return Known(False, "ascend scheduler not enabled")
    if section.get("enable_chunked_prefill") is True:
        return Known(False, "ascend scheduler with enable_chunked_prefill")
    if not kit.holds(scope, "ascend_scheduler_config_read"):
        return Known(False, "ascend_scheduler_config no longer read")
    return Known(True, "additional-config ascend_scheduler_config.enabled=true")


@fact("batched_tokens", requires=("max_num_batched_tokens", "chunked_prefill_flag", "model_len_limit"))
def batched_tokens(scope: Scope):
    """Tokens per scheduler step: --max-num-batched-tokens, else vLLM's NPU default (2048, raised
    to max_model_len when chunked prefill is off)."""
    given = scope.known("max_num_batched_tokens")
    if given is None:
        raise Unknown("batched_tokens")
    if given.value is not None:
        return given
    if scope.get("chunked_prefill_flag"):
        return Known(kit.NPU_DEFAULT_BATCHED_TOKENS, "vLLM serve default on NPU (2048)")
    limit = scope.known("model_len_limit")
    if limit is None:
        raise Unknown("batched_tokens")
    return Known(max(limit.value, kit.NPU_DEFAULT_BATCHED_TOKENS), "vLLM default without chunked prefill")
