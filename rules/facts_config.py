"""Facts read from the serve options' values: --max-model-len, --max-num-seqs,
--max-num-batched-tokens, the JSON configs (speculative, compilation, KV transfer) and what they
imply (MTP tokens, graph mode, capture sizes, kv_role), prefix caching, the mamba cache mode, FlashComm1
and --dtype.
An option the script leaves out is vLLM's default; a symbolic value makes the fact unknown.
"""

from __future__ import annotations



from qlint.rules import kit
from qlint.rules.graph import Known, Scope, Unknown, fact
from qlint.rules.facts import int_fact, json_fact

# -- serve facts: scheduling and graphs --------------------------------------

@fact("max_model_len")
def max_model_len(scope: Scope):
    """--max-model-len in tokens (None: the model's own maximum)."""
    return int_fact(scope, "--max-model-len", None)


@fact("max_num_seqs")
def max_num_seqs(scope: Scope):
    """--max-num-seqs per DP group (vLLM default on NPU: 256)."""
    return int_fact(scope, "--max-num-seqs", 256)


@fact("max_num_batched_tokens")
def max_num_batched_tokens(scope: Scope):
    """--max-num-batched-tokens (vLLM default on NPU: 2048 with chunked prefill)."""
    return int_fact(scope, "--max-num-batched-tokens", None)


@fact("speculative")
def speculative(scope: Scope):
    """The --speculative-config object, or None."""
    return json_fact(scope, "--speculative-config", None, "no speculative decoding")


@fact("mtp_tokens", requires=("speculative",))
def mtp_tokens(scope: Scope):
    """num_speculative_tokens k (0 without speculative decoding)."""
    config = scope.get("speculative")
    if config is None:
        return Known(0, "no speculative decoding")
    value = config.get("num_speculative_tokens")
    if not isinstance(value, int):
        raise Unknown("mtp_tokens")
    return Known(value, "num_speculative_tokens")


@fact("compilation")
def compilation(scope: Scope):
    """The --compilation-config object ({} when absent)."""
    return json_fact(scope, "--compilation-config", {}, "absent")


@fact("enforce_eager")
def enforce_eager(scope: Scope):
    """True with --enforce-eager."""
    return scope.serve.has("--enforce-eager")


@fact("cudagraph_mode", requires=("compilation", "enforce_eager"))
def cudagraph_mode(scope: Scope):
    """The ACLGraph mode in effect: NONE under --enforce-eager, else the configured one,
    else vLLM's default FULL_AND_PIECEWISE."""
    if scope.get("enforce_eager"):
        return Known("NONE", "--enforce-eager")
    config = scope.get("compilation")
    mode = config.get("cudagraph_mode")
    if mode is None:
        return Known("FULL_AND_PIECEWISE", "vLLM default")
    if not isinstance(mode, str):
        raise Unknown("cudagraph_mode")
    return Known(mode.upper(), "cudagraph_mode")


@fact("capture_sizes", requires=("compilation",))
def capture_sizes(scope: Scope):
    """Explicit cudagraph_capture_sizes (list of ints), or None for the default list."""
    value = scope.get("compilation").get("cudagraph_capture_sizes")
    if value is None:
        return Known(None, "default capture sizes")
    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
        raise Unknown("capture_sizes")
    return Known(value, "cudagraph_capture_sizes")


@fact("kv_transfer")
def kv_transfer(scope: Scope):
    """The --kv-transfer-config object, or None (not a PD deployment)."""
    return json_fact(scope, "--kv-transfer-config", None, "no kv transfer")


@fact("kv_role", requires=("kv_transfer",))
def kv_role(scope: Scope):
    """kv_role of a PD engine (kv_producer = prefill, kv_consumer = decode), None otherwise."""
    config = scope.get("kv_transfer")
    return None if config is None else config.get("kv_role")


@fact("prefix_caching")
def prefix_caching(scope: Scope):
    """True/False when --(no-)enable-prefix-caching is given, None for vLLM's default."""
    option = scope.serve.opt("--enable-prefix-caching")
    if option is None:
        return Known(None, "default")
    return Known(not option.negated, option.spelled, option.span)


@fact("flashcomm1", requires=("additional_config", "version"))
def flashcomm1(scope: Scope):
    """True when FlashComm1 is switched on (additional-config wins over the env var;
    both ignored on main). Sources: ``ascend_config.py`` / ``envs.py`` at each release."""
    if kit.holds(scope, "flashcomm1_removed"):
        return Known(False, "FlashComm1 removed at this release")
    config = scope.get("additional_config")
    # the additional-config key is read from v0.20.2rc1 on (vllm-ascend v0.20.2rc1 ascend_config.py L83-87)
    if "enable_flashcomm1" in config and kit.holds(scope, "flashcomm1_key_read"):
        return Known(bool(config["enable_flashcomm1"]), "additional-config enable_flashcomm1")
    text, span = kit.env(scope.serve, "VLLM_ASCEND_ENABLE_FLASHCOMM1")
    if text is None:
        return Known(False, "not enabled")
    return Known(text.lower() in ("1", "true"), "VLLM_ASCEND_ENABLE_FLASHCOMM1", span)


@fact("mamba_cache_mode")
def mamba_cache_mode(scope: Scope):
    """--mamba-cache-mode as written (lower case), None when absent (vLLM default ``none``)."""
    option = scope.serve.opt("--mamba-cache-mode")
    if option is None or option.value is None:
        return Known(None, "--mamba-cache-mode absent")
    if option.value.text is None:
        raise Unknown("mamba_cache_mode")
    return Known(option.value.text.strip().lower(), option.spelled, option.value.span)


@fact("dtype")
def dtype(scope: Scope):
    """--dtype (``auto`` when absent)."""
    option = scope.serve.opt("--dtype")
    if option is None or option.value is None:
        return Known("auto", "default")
    if option.value.text is None:
        raise Unknown("dtype")
    return Known(option.value.text.lower(), option.spelled, option.value.span)


@fact("off_release_options", requires=("version",))
def off_release_options(scope: Scope):
    """The options of the command its release may lack (QL550 says which): by the release's extracted
    parser, those it does not have; without that data, those the hand-kept table dates."""
    from qlint.rules.kit import options as option_facts  # (the option rules import it: no cost of its own)

    release = option_facts.facts(scope)
    if release is not None:
        return Known([option for option in scope.serve.all_options if option_facts.resolve(release, option) is None],
                     f"options of {option_facts.where(release)}")
    flag = scope.kb.flag
    return Known([option for option in scope.serve.all_options
                  if option.known and (spec := flag(option.name)) is not None and (spec.added_in or spec.removed_in)],
                 "added_in / removed_in of the flag table")
