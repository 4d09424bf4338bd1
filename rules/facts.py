"""Facts derived from a launch plan plus the knowledge (the graph's fact nodes): the script's image,
hardware, release and served names, the model, and the parallel layout. Facts read from the
serve options' values (lengths, JSON configs, graph mode, KV transfer, dtype) are ``facts_config``;
the model's metadata ``facts_model``, memory ``facts_memory``, the scheduler ``facts_scheduling``.

Each fact is a small function. An option the script leaves out is a *known*
fact with vLLM's default (and says so in its origin); an option whose value
is symbolic (``$7``) makes the fact unknown, so rules that need it are skipped.
"""

from __future__ import annotations

from qlint.knowledge.base import ModelMatch
from qlint.knowledge.versions import InvalidVersion
from qlint.knowledge.images import parse_image
from qlint.rules import kit
from qlint.rules.graph import Known, Scope, Unknown, fact
from qlint.rules.plan import Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HARDWARE_BY_SUFFIX = {"-a3": "a3", "-310p": "310p", None: "a2"}


# -- helpers ------------------------------------------------------------------



LARGEST_NUMBER = 2**53
"""Integers above this are taken as unknown: no size or length is that large, and beyond it floats
(the memory estimate) lose precision or overflow."""


def int_fact(scope: Scope, name: str, default: Any, *, positive: bool = False) -> Known:
    """An int option as a fact: its value, or ``default`` when absent. Unknown when symbolic/invalid,
    above LARGEST_NUMBER, or (``positive``: TP, DP, PP sizes) below 1, which no rule can compute with."""
    serve = scope.serve
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


def json_fact(scope: Scope, name: str, absent: Any, absent_origin: str) -> Known:
    """A JSON option's object as a fact (``absent`` when not given); Unknown when unreadable."""
    option = scope.serve.opt(name)
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
    model = scope.serve.model
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
    match = _match_model(scope.kb, reference.value)
    if match is not None:
        return Known(match, f"{reference.value} -> {match.model.id}")
    named = _served_as_model(scope, reference.value)
    if named is None:
        raise Unknown("model")
    return named


_MATCHES: dict[tuple[int, str], tuple[Any, ModelMatch | None]] = {}
"""What ``match_model`` answers per knowledge base and model argument (a batch names the same few models
again and again, and the deployment pass reads a template once per rank); the records never change."""


def _match_model(kb: Any, reference: str) -> ModelMatch | None:
    key = (id(kb), reference)
    hit = _MATCHES.get(key)
    if hit is None or hit[0] is not kb:  # the entry holds its knowledge base: no id reuse
        if len(_MATCHES) > 1024:
            _MATCHES.clear()
        hit = _MATCHES[key] = (kb, kb.match_model(reference))
    return hit[1]


def _served_as_model(scope: Scope, reference: str) -> Known | None:
    """When the model path names no model (``/model``, ``/data/q3527bw8a8mtp``) but
    ``--served-model-name`` is exactly a model id qlint knows (``Qwen3.5-27B``, any case), that
    model, with the checkpoint read from the path; no prefix or fuzzy match is taken."""
    option = scope.serve.opt("--served-model-name")
    if option is None or option.value is None or option.value.text is None:
        return None
    name = option.value.text.strip()
    found = next((m for m in scope.kb.models if m.id.lower() == name.lower()), None)
    if found is None:
        return None
    variant = scope.kb.pick_variant(found, reference)
    return Known(ModelMatch(found, variant, name), f"--served-model-name {name} -> {found.id} "
                 f"(the model path {reference} names no model)", option.value.span)


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
    return int_fact(scope, "--tensor-parallel-size", 1, positive=True)


@fact("dp")
def dp(scope: Scope):
    """Data-parallel size over all nodes (default 1)."""
    return int_fact(scope, "--data-parallel-size", 1, positive=True)


@fact("dp_local", requires=("dp",))
def dp_local(scope: Scope):
    """DP ranks on this node: --data-parallel-size-local, 1 for an external DP rank, else DP."""
    serve = scope.serve
    if serve.opt("--data-parallel-size-local") is not None:
        local = int_fact(scope, "--data-parallel-size-local", None, positive=True)
        if local.value is None:  # the flag without a value: nothing to count with
            raise Unknown("dp_local")
        return local
    if serve.opt("--data-parallel-rank") is not None:
        return Known(1, "external DP rank: one engine per process")
    return Known(scope.get("dp"), "equals --data-parallel-size on a single node")


@fact("pp")
def pp(scope: Scope):
    """Pipeline-parallel size (default 1)."""
    return int_fact(scope, "--pipeline-parallel-size", 1, positive=True)


@fact("expert_parallel")
def expert_parallel(scope: Scope):
    """True when --enable-expert-parallel is given."""
    option = scope.serve.opt("--enable-expert-parallel")
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
    return json_fact(scope, "--additional-config", {}, "absent")


@fact("moe_tp", requires=("additional_config",))
def moe_tp(scope: Scope):
    """MoE tensor-parallel size asked for via additional-config expert_tensor_parallel_size."""
    value = scope.get("additional_config").get("expert_tensor_parallel_size")
    if value is None:
        return Known(None, "not set")
    if not isinstance(value, int):
        raise Unknown("moe_tp")
    return Known(value, "additional-config expert_tensor_parallel_size")


@fact("etp_read", requires=("version", "moe_tp"))
def etp_read(scope: Scope):
    """Whether the release's ascend_config.py reads additional-config expert_tensor_parallel_size (by its
    extracted reader: v0.9.0rc1-v0.9.1rc1 and v0.9.2rc1 do); None when the key is not set or there is no data."""
    if scope.get("moe_tp") is None:
        return Known(None, "not set")
    from qlint.rules.kit import options as option_facts  # only when the key is written

    release = option_facts.facts(scope)
    if release is None or release.additional_config is None:
        return Known(None, "no extracted reader")
    return Known("expert_tensor_parallel_size" in release.additional_config, option_facts.where(release))


@fact("visible_devices")
def visible_devices(scope: Scope):
    """Device ids in ASCEND_RT_VISIBLE_DEVICES (None when unset)."""
    setting = scope.serve.env.get("ASCEND_RT_VISIBLE_DEVICES")
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
    devices = scope.serve.devices
    if not devices:
        return Known(None, "no container device list")
    if any(value.text is None for value in devices):
        raise Unknown("container_devices")
    return Known([value.text for value in devices], f"--device x {len(devices)}", devices[0].span)
