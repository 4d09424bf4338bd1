"""Facts derived from a launch plan plus the knowledge (the graph's fact nodes).

Each fact is a small function. An option the script leaves out is a *known*
fact with vLLM's default (and says so in its origin); an option whose value
is symbolic (``$7``) makes the fact unknown, so rules that need it are skipped.
Defaults cited: vLLM 0.23.0 serve defaults (``vllm/engine/arg_utils.py``, ``vllm/config/cache.py``).
"""

from __future__ import annotations

from typing import Any

from packaging.version import InvalidVersion

from qlint.knowledge.base import ModelMatch
from qlint.knowledge.images import parse_image
from qlint.rules import kit
from qlint.rules.graph import Known, Scope, Unknown, fact
from qlint.rules.plan import Span, ServeCommand

HARDWARE_BY_SUFFIX = {"-a3": "a3", "-310p": "310p", None: "a2"}


# -- helpers ------------------------------------------------------------------

def _serve(scope: Scope) -> ServeCommand:
    return scope.serve


LARGEST_NUMBER = 2**53
"""Integers above this are taken as unknown: no size or length is that large, and beyond it floats
(the memory estimate) lose precision or overflow."""


def _int_fact(scope: Scope, name: str, default: Any, *, positive: bool = False) -> Known:
    """An int option as a fact: its value, or ``default`` when absent. Unknown when symbolic/invalid,
    above LARGEST_NUMBER, or (``positive``: TP, DP, PP sizes) below 1, which no rule can compute with."""
    serve = _serve(scope)
    number, span = kit.integer(serve, name, strict=False)
    option = serve.options.get(name)
    if number is None and option is not None and option.value is not None:
        if option.value.text is None:
            raise Unknown(name)
        # 300k / 32K: vLLM's human_readable_int, for the options this release parses with it
        from qlint.rules.kit import options as option_facts

        number = option_facts.option_int_value(option_facts.facts(scope, declared=False), name, option.value.text)
        if number is None:
            raise Unknown(name)
        if number == -1 and name == "--max-model-len":  # -1 / auto: the model's own maximum
            return Known(default, f"{option.spelled} {option.value.text}", span)
    if number is None:
        return Known(default, f"default of {name}")
    if abs(number) > LARGEST_NUMBER or (positive and number < 1):
        raise Unknown(name)
    return Known(number, f"{serve.options[name].spelled} {number}", span)


def _json_fact(scope: Scope, name: str, absent: Any, absent_origin: str) -> Known:
    """A JSON option's object as a fact (``absent`` when not given); Unknown when unreadable."""
    option = _serve(scope).opt(name)
    if option is None:
        return Known(absent, absent_origin)
    if option.json is None or not isinstance(option.json.data, dict):
        raise Unknown(name)
    return Known(option.json.data, name, option.span)


# -- script facts -------------------------------------------------------------

@fact("image_tag", scope="script")
def image_tag(scope: Scope):
    """The vllm-ascend image (tag, suffix) the script names, last one wins."""
    for value in reversed(scope.plan.image_tags):
        parsed = parse_image(value.text or "")
        if parsed is not None:
            return Known(parsed, f"image {value.text}", value.span)
    return Known(None, "no vllm-ascend image in the script")


@fact("hardware", requires=("image_tag",), scope="script")
def hardware(scope: Scope):
    """Hardware id: --hardware, a ``# qlint: hardware=`` directive, or the image suffix."""
    if scope.settings.hardware:
        return Known(scope.settings.hardware, "--hardware option")
    for directive in scope.plan.directives:
        if "hardware" in directive.settings:
            return Known(directive.settings["hardware"].lower(), "qlint directive", directive.span)
    image = scope.get("image_tag")
    if image is not None:
        tag, suffix = image
        return Known(HARDWARE_BY_SUFFIX[suffix], f"image suffix {suffix or '(none: A2 image)'}")
    raise Unknown("hardware")


def stated_release(plan, settings) -> tuple[str, str, Span | None] | None:
    """The release the user states: (text, origin, span) from --vllm-ascend-version (or the
    configuration), a ``# qlint: vllm-ascend=`` directive, else the last vllm-ascend image tag;
    None when nothing states one."""
    if settings.version:
        return settings.version, "--vllm-ascend-version option", None
    for directive in plan.directives:
        if "vllm-ascend" in directive.settings:
            return directive.settings["vllm-ascend"], "qlint directive", directive.span
    for value in reversed(plan.image_tags):
        parsed = parse_image(value.text or "")
        if parsed is not None:
            return parsed[0], "image tag", value.span
    return None


@fact("version", requires=("image_tag",), scope="script")
def version(scope: Scope):
    """vllm-ascend release: --vllm-ascend-version, directive, image tag, else latest stable.

    Always a release qlint knows: one it does not know is checked as the nearest known one
    (``KnowledgeBase.resolve_release``; the linter says so once per run).
    """
    stated = stated_release(scope.plan, scope.settings)
    if stated is None:
        return Known(scope.kb.latest_stable.tag, "assumed: latest stable release")
    text, origin, span = stated
    try:
        tag, note = scope.kb.resolve_release(text)
    except InvalidVersion:
        raise Unknown("version") from None
    if note is not None:
        origin = f"{origin} {text}, checked as {tag}"
    return Known(tag, origin, span)


@fact("served_names", scope="script")
def served_names(scope: Scope):
    """Every model name the script's servers answer to (--served-model-name or model path)."""
    names: list[str] = []
    for command in scope.plan.serve_commands():
        option = command.opt("--served-model-name")
        if option is not None and option.value is not None:
            if option.value.text is None:
                raise Unknown("served_names")
            names.append(option.value.text)
            names.extend(v.text for v in command.positionals[1:] if v.text)
        elif command.model is not None:
            if command.model.text is None:
                raise Unknown("served_names")
            names.append(command.model.text)
    return names


# -- serve facts: model -------------------------------------------------------

@fact("model_ref")
def model_ref(scope: Scope):
    """The model argument as written (path or hub id)."""
    model = _serve(scope).model
    if model is None or model.text is None:
        raise Unknown("model_ref")
    return Known(model.text, "model argument", model.span)


def model_directive(scope: Scope):
    """The ``# qlint: model=<id>`` directive that applies to this command: the last one above it,
    else the first in the script; (name, span) or None."""
    named = [d for d in scope.plan.directives if d.settings.get("model")]
    if not named:
        return None
    line = scope.command.span.line if scope.command is not None else 0
    above = [d for d in named if d.span.line <= line]
    directive = above[-1] if above else named[0]
    return directive.settings["model"], directive.span


@fact("model", requires=("model_ref",))
def model(scope: Scope):
    """The knowledge record of the served model (ModelMatch): a ``# qlint: model=`` directive, else
    the model argument resolved against the knowledge; unknown if neither names a known model."""
    reference = scope.known("model_ref")
    directive = model_directive(scope)
    if directive is not None:
        name, span = directive
        match = scope.kb.model_by_name(name)
        if match is None:  # the linter refuses such a directive before the rules run
            raise Unknown("model")
        variant = match.variant
        if name.strip().lower() == match.model.id.lower():  # a model id: the checkpoint comes from the path
            variant = scope.kb.pick_variant(match.model, reference.value) if reference is not None else None
        return Known(ModelMatch(match.model, variant, name), f"qlint directive model={name}", span)
    if reference is None:
        raise Unknown("model")
    match = scope.kb.match_model(reference.value)
    if match is None:
        raise Unknown("model")
    return Known(match, f"{reference.value} -> {match.model.id}")


@fact("moe", requires=("model",))
def moe(scope: Scope):
    """True for MoE models."""
    return scope.get("model").model.moe


@fact("local_model")
def local_model(scope: Scope):
    """Metadata of the model directory's config.json (LocalModel), None when not a local directory."""
    found = getattr(scope.serve, "local_model", None)
    if found is None:
        return Known(None, "model argument is not a readable local directory")
    return Known(found, f"config.json of {found.path}")


@fact("hybrid", requires=("local_model", "model"))
def hybrid(scope: Scope):
    """True for hybrid GDN + full-attention models (Qwen3.5/3.6, Qwen3-Next): the layer layout
    in a local directory's config.json first, else the knowledge."""
    local = scope.get("local_model")
    if local is not None and local.full_attention_layers is not None:
        return Known(local.hybrid, f"layer layout in config.json of {local.name}")
    match = scope.get("model")
    return Known(match.model.hybrid, f"knowledge of {match.model.id}")


# -- serve facts: parallelism -------------------------------------------------

@fact("tp")
def tp(scope: Scope):
    """Tensor-parallel size (default 1)."""
    return _int_fact(scope, "--tensor-parallel-size", 1, positive=True)


@fact("dp")
def dp(scope: Scope):
    """Data-parallel size over all nodes (default 1)."""
    return _int_fact(scope, "--data-parallel-size", 1, positive=True)


@fact("dp_local", requires=("dp",))
def dp_local(scope: Scope):
    """DP ranks on this node: --data-parallel-size-local, 1 for an external DP rank, else DP."""
    serve = _serve(scope)
    if serve.opt("--data-parallel-size-local") is not None:
        local = _int_fact(scope, "--data-parallel-size-local", None, positive=True)
        if local.value is None:  # the flag without a value: nothing to count with
            raise Unknown("dp_local")
        return local
    if serve.opt("--data-parallel-rank") is not None:
        return Known(1, "external DP rank: one engine per process")
    return Known(scope.get("dp"), "equals --data-parallel-size on a single node")


@fact("pp")
def pp(scope: Scope):
    """Pipeline-parallel size (default 1)."""
    return _int_fact(scope, "--pipeline-parallel-size", 1, positive=True)


@fact("expert_parallel")
def expert_parallel(scope: Scope):
    """True when --enable-expert-parallel is given."""
    option = _serve(scope).opt("--enable-expert-parallel")
    if option is None or option.negated:
        return Known(False, "--enable-expert-parallel absent")
    return Known(True, option.spelled, option.span)


@fact("ep_size", requires=("expert_parallel", "tp", "dp"))
def ep_size(scope: Scope):
    """Expert-parallel size = TP x DP when EP is on, else None (vLLM FusedMoE sharding)."""
    if not scope.get("expert_parallel"):
        return Known(None, "expert parallel off")
    return Known(scope.get("tp") * scope.get("dp"), "TP x DP with --enable-expert-parallel")


@fact("additional_config")
def additional_config(scope: Scope):
    """The --additional-config object ({} when absent)."""
    return _json_fact(scope, "--additional-config", {}, "absent")


@fact("moe_tp", requires=("additional_config",))
def moe_tp(scope: Scope):
    """MoE tensor-parallel size asked for via additional-config expert_tensor_parallel_size."""
    value = scope.get("additional_config").get("expert_tensor_parallel_size")
    if value is None:
        return Known(None, "not set")
    if not isinstance(value, int):
        raise Unknown("moe_tp")
    return Known(value, "additional-config expert_tensor_parallel_size")


@fact("visible_devices")
def visible_devices(scope: Scope):
    """Device ids in ASCEND_RT_VISIBLE_DEVICES (None when unset)."""
    setting = _serve(scope).env.get("ASCEND_RT_VISIBLE_DEVICES")
    if setting is None or setting.value is None:
        return Known(None, "ASCEND_RT_VISIBLE_DEVICES not set")
    text = setting.value.text
    if text is None:
        raise Unknown("visible_devices")
    ids = [part.strip() for part in text.split(",") if part.strip()]
    return Known(ids, f"ASCEND_RT_VISIBLE_DEVICES={text}", setting.span)


@fact("container_devices")
def container_devices(scope: Scope):
    """NPU device nodes a container maps for the engine (docker/podman ``--device /dev/davinciN``);
    None when the engine runs outside a container or the container maps none."""
    devices = _serve(scope).devices
    if not devices:
        return Known(None, "no container device list")
    if any(value.text is None for value in devices):
        raise Unknown("container_devices")
    return Known([value.text for value in devices], f"--device x {len(devices)}", devices[0].span)


# -- serve facts: scheduling and graphs --------------------------------------

@fact("max_model_len")
def max_model_len(scope: Scope):
    """--max-model-len in tokens (None: the model's own maximum)."""
    return _int_fact(scope, "--max-model-len", None)


@fact("max_num_seqs")
def max_num_seqs(scope: Scope):
    """--max-num-seqs per DP group (vLLM default on NPU: 256)."""
    return _int_fact(scope, "--max-num-seqs", 256)


@fact("max_num_batched_tokens")
def max_num_batched_tokens(scope: Scope):
    """--max-num-batched-tokens (vLLM default on NPU: 2048 with chunked prefill)."""
    return _int_fact(scope, "--max-num-batched-tokens", None)


@fact("speculative")
def speculative(scope: Scope):
    """The --speculative-config object, or None."""
    return _json_fact(scope, "--speculative-config", None, "no speculative decoding")


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
    return _json_fact(scope, "--compilation-config", {}, "absent")


@fact("enforce_eager")
def enforce_eager(scope: Scope):
    """True with --enforce-eager."""
    return _serve(scope).has("--enforce-eager")


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
    return _json_fact(scope, "--kv-transfer-config", None, "no kv transfer")


@fact("kv_role", requires=("kv_transfer",))
def kv_role(scope: Scope):
    """kv_role of a PD engine (kv_producer = prefill, kv_consumer = decode), None otherwise."""
    config = scope.get("kv_transfer")
    return None if config is None else config.get("kv_role")


@fact("prefix_caching")
def prefix_caching(scope: Scope):
    """True/False when --(no-)enable-prefix-caching is given, None for vLLM's default."""
    option = _serve(scope).opt("--enable-prefix-caching")
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
    text, span = kit.env(_serve(scope), "VLLM_ASCEND_ENABLE_FLASHCOMM1")
    if text is None:
        return Known(False, "not enabled")
    return Known(text.lower() in ("1", "true"), "VLLM_ASCEND_ENABLE_FLASHCOMM1", span)


@fact("dtype")
def dtype(scope: Scope):
    """--dtype (``auto`` when absent)."""
    option = _serve(scope).opt("--dtype")
    if option is None or option.value is None:
        return Known("auto", "default")
    if option.value.text is None:
        raise Unknown("dtype")
    return Known(option.value.text.lower(), option.spelled, option.value.span)
