"""Pydantic models for qlint's knowledge base.

Every record that states a fact carries ``sources``: a non-empty list of
citations, each a public https URL pinned to a release tag or a 40-hex commit
(``qlint.knowledge.text.check_sources``), optionally followed by a parenthesised
note for reviewers:

* a source file at a release, with line anchors:
  ``https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L1860``
  (vllm-ascend ``main`` is cited at its commit, never as ``main``);
* an upstream tutorial at the revision qlint follows, with ``?plain=1#Lx-Ly`` line anchors;
* a public report: ``https://github.com/vllm-project/vllm-ascend/issues/7944`` or ``.../pull/N``;
* a docs.vllm.ai page under a version path (``/en/v0.23.0/``).

Where two sources disagree the record says so in ``disagreement`` (both
languages) and names the one the rules follow.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from qlint.knowledge.text import CITATION, Text, check_sources, pin_problem

_CITATION = CITATION


def _check_sources(sources: list[str]) -> list[str]:
    return check_sources(sources)


class Strict(BaseModel):
    """Base for knowledge records: unknown keys are errors, values are frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Cited(Strict):
    """A record that states a fact and so must cite where it comes from."""

    sources: list[str]
    disagreement: Text | None = None

    @field_validator("sources")
    @classmethod
    def _sources_are_citations(cls, value: list[str]) -> list[str]:
        return _check_sources(value)


class Hardware(Cited):
    """An Ascend server or card family.

    ``hbm_gb`` is the HBM of one NPU in GB (10^9 bytes) as the vendor states it.
    """

    id: Literal["a2", "a3", "310p"]
    names: list[str] = Field(min_length=1)
    npus_per_node: int = Field(gt=0)
    hbm_gb: int = Field(gt=0)
    dtypes: list[Literal["bfloat16", "float16", "float32"]]
    image_suffix: str  # "" for A2, "-a3", "-310p"
    device_nodes: str  # e.g. "/dev/davinci[0-7]"
    supports_pd: bool
    supports_dp: bool


FORMAT_IDS = ("bf16", "int8", "w8a8", "w8a8c8", "w8a16", "w4a8", "w4a4", "w4a16", "fp8", "mxfp8", "mxfp4")
FormatId = Literal["bf16", "int8", "w8a8", "w8a8c8", "w8a16", "w4a8", "w4a4", "w4a16", "fp8", "mxfp8", "mxfp4"]


class WeightFormat(Cited):
    """A checkpoint weight format (``weight_formats.toml``).

    ``name_marks`` are lower-case words of a checkpoint name that say the format
    (``w4a8`` in ``Qwen3.5-397B-A17B-w4a8-mtp``); of several marks the highest
    ``priority`` wins. ``modelslim_types`` are the ``model_quant_type`` values of a
    ModelSlim ``quant_model_description.json``; ``config_methods`` the
    ``quantization_config.quant_method`` values of config.json. ``tool`` is the
    quantizer that writes the format by default (``modelslim`` checkpoints are read
    by ``--quantization ascend``). ``bytes_per_param`` is the storage of the linear
    weights, a lower bound of the checkpoint size. ``hardware`` lists the Ascend
    products vllm-ascend has kernels for (``950``: Ascend 950, not a qlint target).
    ``group_size`` is the default quantization group of the format's weights.
    """

    id: FormatId
    label: str
    quantized: bool
    priority: int = Field(ge=0)
    bytes_per_param: float = Field(gt=0, le=2)
    name_marks: list[str] = Field(default_factory=list)
    modelslim_types: list[str] = Field(default_factory=list)
    config_methods: list[str] = Field(default_factory=list)
    tool: Literal["none", "modelslim", "native"]
    hardware: list[Literal["a2", "a3", "310p", "950"]] = Field(min_length=1)
    kv_int8: bool = False
    group_size: int | None = Field(default=None, ge=0)
    note: Text

    @field_validator("name_marks")
    @classmethod
    def _lower_words(cls, value: list[str]) -> list[str]:
        for mark in value:
            if not re.fullmatch(r"[a-z0-9]+", mark):
                raise ValueError(f"name mark {mark!r} must be one lower-case word (letters and digits)")
        return value


class ModelVariant(Cited):
    """One downloadable checkpoint of a model (BF16, W8A8, W4A8, ..., with or without MTP head).

    ``weights_gb`` is the approximate size of the weight files in GB (10^9 bytes).
    ``aliases`` are the spellings a script may use: ModelScope ids
    (``Eco-Tech/...``), HF-style ids and local directory basenames; matching is
    case-insensitive on the last path component.
    """

    name: str
    quantization: FormatId
    weights_gb: float | None = Field(default=None, gt=0)
    mtp_head: bool
    min_npus: int | None = Field(default=None, gt=0)
    """The fewest 64 GB NPUs (TP x DP x PP of one instance) the model's tutorial says the checkpoint needs."""
    aliases: list[str] = Field(default_factory=list)


class Model(Cited):
    """A model architecture and its facts.

    ``max_model_len`` is in tokens (the checkpoint's max_position_embeddings; None:
    no public source states it, so the context rules skip the model). ``num_experts``
    is the number of routed experts (0 for dense models; None: unknown). ``hybrid`` means GDN (linear attention) layers
    mixed with full-attention layers, as in Qwen3.5/3.6 and Qwen3-Next.
    ``first_vllm_ascend`` / ``first_vllm_ascend_310p`` are the first releases
    that support the model (None: not supported there / unknown).
    """

    id: str
    family: str
    moe: bool
    hybrid: bool
    max_model_len: int | None = Field(default=None, gt=0)
    num_attention_heads: int | None = Field(default=None, gt=0)
    num_key_value_heads: int | None = Field(default=None, gt=0)
    num_hidden_layers: int | None = Field(default=None, gt=0)
    num_experts: int | None = Field(default=0, ge=0)
    mtp_method: str | None = None
    first_vllm_ascend: str | None = None
    first_vllm_ascend_310p: str | None = None
    in_scope: bool = True  # False: known only so rules about other models stay correct
    variants: list[ModelVariant] = Field(default_factory=list)
    ray_plan: list[str] = Field(default_factory=list)
    """The model tutorial's Ray multi-node section (pinned URLs with lines) and ``ray_plan_since``, the first
    release whose tutorial has it; empty: the tutorial gives no Ray plan (the guides show none)."""
    ray_plan_since: str | None = None

    @field_validator("ray_plan")
    @classmethod
    def _ray_plan_cited(cls, value: list[str]) -> list[str]:
        return _check_sources(value) if value else value

    @model_validator(mode="before")
    @classmethod
    def _experts_unknown_for_moe(cls, data):
        # a MoE record that leaves num_experts out does not know it: None, not the dense default 0
        if isinstance(data, dict) and data.get("moe") and "num_experts" not in data:
            data = {**data, "num_experts": None}
        return data

    @model_validator(mode="after")
    def _moe_has_experts(self) -> "Model":
        if self.moe and self.num_experts == 0:
            raise ValueError(f"MoE model {self.id} needs num_experts (leave it out when unknown)")
        if not self.moe and self.num_experts:
            raise ValueError(f"dense model {self.id} cannot have experts")
        return self


class Release(Cited):
    """A vllm-ascend release (tag) and the vLLM version it pairs with.

    ``vllm`` is the ``ARG VLLM_TAG=`` of the tag's Dockerfile (what the image ships).
    ``commit`` is the 40-hex commit the tag (or, for ``main``, the pin) points at;
    ``date`` the ISO date of that commit.
    """

    tag: str
    date: str  # ISO date of the tag
    vllm: str
    stable: bool
    commit: str | None = Field(default=None, pattern=r"^[0-9a-f]{40}$")


_PINNED_URL = re.compile(
    r"^https://github\.com/vllm-project/(vllm|vllm-ascend)/"
    r"(blob/(v[0-9][\w.]*|[0-9a-f]{40})/\S+?(#L\d+(-L\d+)?)?|(issues|pull)/\d+|releases/tag/v[\w.]+)$"
)


class Behaviour(Strict):
    """A release behaviour of vllm-ascend or vLLM that rules ask by name.

    ``since`` / ``until`` are vllm-ascend release tags (``until`` is the first release
    without the behaviour; None: open). ``vllm_since`` / ``vllm_until`` are vLLM versions,
    compared with the vLLM a release ships (releases.toml), for behaviours that are vLLM's.
    ``on_main`` overrides the range on ``main`` (e.g. a check main has but the last tags
    were cut without); ``except_at`` lists releases inside the range without it (a revert). ``verified`` is the newest release tag, and ``verified_main`` the
    main commit, at which a person checked the boundaries against the source; when
    releases.toml gains a newer release, ``python -m qlint.knowledge.review_release``
    lists the open behaviours to review. Every source is an https URL pinned to a tag or
    a commit. Where the docs and the code disagree, ``disagreement`` says both and
    ``follows`` which one the rules take.
    """

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    what: Text
    owner: Literal["vllm-ascend", "vllm"]
    since: str | None = None
    until: str | None = None
    vllm_since: str | None = None
    vllm_until: str | None = None
    on_main: bool | None = None
    except_at: list[str] = Field(default_factory=list)  # releases inside the range without it (a revert)
    verified: str
    verified_main: str | None = Field(default=None, pattern=r"^[0-9a-f]{40}$")
    sources: list[str] = Field(min_length=1)
    disagreement: Text | None = None
    follows: Literal["code", "docs"] | None = None
    note: Text | None = None

    @field_validator("sources")
    @classmethod
    def _pinned_urls(cls, value: list[str]) -> list[str]:
        for url in value:
            if not _PINNED_URL.match(url):
                raise ValueError(f"source {url!r} is not an https URL pinned to a tag or commit")
        return value

    @field_validator("vllm_since", "vllm_until")
    @classmethod
    def _vllm_version(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\d+\.\d+\.\d+(\.\d+)?", value):
            raise ValueError(f"vLLM version {value!r} must look like 0.21.0")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "Behaviour":
        if self.disagreement is not None and self.follows is None:
            raise ValueError(f"{self.name}: a disagreement must say which source the rules follow")
        return self


class FlagSpec(Cited):
    """A command-line option of ``vllm serve`` (vLLM ``EngineArgs`` / frontend args).

    ``type``: ``int``, ``float``, ``str``, ``bool`` (a store-true switch, with a
    ``--no-`` form when ``negatable``), ``json`` (a JSON object or dotted
    sub-keys) or ``choice`` (one of ``choices``). Underscores in names are
    accepted as dashes by vLLM, so names are stored with dashes only.
    """

    name: str
    aliases: list[str] = Field(default_factory=list)
    type: Literal["int", "float", "str", "bool", "json", "choice", "list"]
    choices: list[str] = Field(default_factory=list)
    negatable: bool = False
    removed_in: str | None = None
    added_in: str | None = None

    @field_validator("name")
    @classmethod
    def _dashed(cls, value: str) -> str:
        if not value.startswith("--") or "_" in value:
            raise ValueError(f"flag name {value!r} must start with -- and use dashes only")
        return value


class SubConfigKey(Cited):
    """A key of a JSON sub-config (``--speculative-config`` etc.)."""

    key: str
    type: Literal["int", "float", "str", "bool", "dict", "list", "any"]
    choices: list[str] = Field(default_factory=list)
    removed_in: str | None = None
    added_in: str | None = None


class SubConfig(Cited):
    """A JSON-valued flag and the keys vLLM / vllm-ascend read from it.

    ``closed`` is True when unknown keys are a startup error (pydantic
    ``extra="forbid"`` in vLLM); False when they are silently ignored.
    """

    flag: str
    closed: bool
    keys: list[SubConfigKey]


class EnvVar(Cited):
    """An environment variable read by vLLM, vllm-ascend, HCCL or CANN."""

    name: str
    owner: Literal["vllm", "vllm-ascend", "hccl", "cann", "torch-npu", "system", "mooncake"]
    meaning: Text
    removed_in: str | None = None
    deprecated_in: str | None = None
    replacement: str | None = None


class FaqEntry(Cited):
    """A FAQ entry that findings link to. ``id`` is qlint's stable anchor.

    What it is about, for the docs to pick entries without reading titles: ``models``
    (model ids; empty: no particular model), ``hardware`` (empty: any), ``groups``
    (rule groups such as ``pd`` or ``memory``, as in ``RuleMeta.groups``),
    ``hybrid_only`` (only about hybrid-attention models) and ``guides`` (a general
    entry that every deployment guide it applies to links). ``answer`` is the site's
    answer in qlint's own words; ``url`` and ``sources`` are where to read more.
    """

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: Text
    answer: Text  # qlint's own answer (cause, what to change), written from the sources, both languages
    url: str
    models: list[str] = Field(default_factory=list)
    hardware: list[Literal["a2", "a3", "310p"]] = Field(default_factory=list)
    groups: list[str] = Field(default_factory=list)
    hybrid_only: bool = False
    guides: bool = False

    @field_validator("url")
    @classmethod
    def _url_is_pinned(cls, value: str) -> str:
        problem = pin_problem(value)
        if problem:
            raise ValueError(f"FAQ url {value!r} is not pinned: {problem}")
        return value


class Recipe(Cited):
    """A recommended configuration from a tutorial's tuning table.

    Lengths are in tokens; ``max_num_seqs`` is per DP group.
    """

    model: str
    hardware: Literal["a2", "a3", "310p"]
    scenario: Literal["high-throughput", "low-latency", "long-context"]
    quantization: Literal["bf16", "w8a8"]
    nodes: int = 1
    tp: int = Field(gt=0)
    dp: int = Field(gt=0)
    max_num_seqs: int | None = None
    max_model_len: int | None = None
    max_num_batched_tokens: int | None = None
    mtp_tokens: int = 0
    prefix_caching: bool | None = None
    enable_expert_parallel: bool = False
    deployment: str | None = None
    """``1P1D`` etc.: the row is one side of a prefill/decode deployment (``role``); None: one instance."""
    role: Literal["mixed", "prefill", "decode"] = "mixed"
    dp_local: int | None = Field(default=None, gt=0)
    """DP ranks per node when the instance spans nodes (``nodes * dp_local == dp``)."""
    kv_connector: str | None = None
    recompute_scheduler: bool | None = None
    """The tutorial turns ``recompute_scheduler_enable`` on (True) or off for this side; None: decode engines
    only (the Qwen3.5-27B/Qwen3.6-27B tutorial's PD section). The release decides where it is written
    (``behaviours.toml``: ``recompute_scheduler_ignored_on_prefill``, ``recompute_scheduler_rejects_mixed``)."""
    gpu_memory_utilization: float | None = Field(default=None, gt=0, le=1)
    optimisations: list[Literal["flashcomm1", "shared_expert_overlap", "cpu_binding", "async_scheduling"]] = []
    """The table's optimisation column (full-decode graphs are always on)."""
    note: Text | None = None
    """Why the generator does not take a value the table gives (a range, a choice, a release change)."""


class RedundantSetting(Cited):
    """A setting that only repeats what the engine already does by default.

    ``kind``: ``flag`` (``setting`` is the canonical flag, ``negated`` True for
    its ``--no-`` form), ``additional-config`` (``setting`` is a dotted key and
    ``value`` the JSON value) or ``env``. It holds where the release ``behaviour``
    (behaviours.toml) holds; ``hybrid_only`` limits it to hybrid models.
    """

    kind: Literal["flag", "additional-config", "env"]
    setting: str
    value: bool | int | str | None = None
    negated: bool = False
    behaviour: str
    hybrid_only: bool = False
    note: Text


class Architecture(Cited):
    """Architecture numbers of a model used for memory estimates (``architectures.toml``).

    ``model`` is a Model id of models.toml. Sizes are config.json values of the
    language model: ``head_dim`` and ``num_key_value_heads`` of the full-attention
    layers; ``full_attention_layers`` + ``linear_attention_layers`` = all decoder
    layers (hybrid GDN models have linear ones). ``linear_*`` give the Gated
    DeltaNet state shape. ``mla_kv_dim`` is the latent KV width per token and
    layer of MLA models (kv_lora_rank + qk_rope_head_dim), replicated on every
    TP rank. ``expert_fraction`` is the share of all weights held by routed
    experts (0 for dense models); a field left out is unknown and estimates that
    need it are skipped.
    """

    model: str
    hidden_size: int | None = Field(default=None, gt=0)
    head_dim: int | None = Field(default=None, gt=0)
    num_key_value_heads: int | None = Field(default=None, gt=0)
    full_attention_layers: int = Field(gt=0)
    linear_attention_layers: int = Field(default=0, ge=0)
    linear_num_key_heads: int | None = Field(default=None, gt=0)
    linear_num_value_heads: int | None = Field(default=None, gt=0)
    linear_key_head_dim: int | None = Field(default=None, gt=0)
    linear_value_head_dim: int | None = Field(default=None, gt=0)
    linear_conv_kernel_dim: int | None = Field(default=None, gt=0)
    mla_kv_dim: int | None = Field(default=None, gt=0)
    expert_fraction: float | None = Field(default=None, ge=0, lt=1)


_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)\}")


class LogSignature(Cited):
    """A vLLM / vllm-ascend error message that ``qlint explain --log`` recognises (``log_signatures.toml``).

    ``pattern`` is a Python regex searched in one log line (after ANSI colour codes
    and ``(EngineCore_DP0 pid=...)`` prefixes are removed); named groups capture the
    numbers of the message (``(?P<expected>\\d+)``) and may be used as ``{expected}``
    in ``cause`` and ``fix``. ``stage`` is when the message is normally raised.
    ``phase`` limits the match to the part of the log before (``starting``) or after
    (``serving``) the API server reported ``Application startup complete``; the same
    message can mean different things there (an NPU OOM in the profile run versus at
    the first request). ``rules`` are the qlint rules that catch the cause in a script;
    ``faq`` a FaqEntry id. ``sources`` cite the file, lines and release that produce
    the message text (or the public report quoting it when the text comes from CANN
    or torch_npu, which are not in the cited repositories).
    """

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    pattern: str
    stage: Literal["startup", "profile-run", "graph-capture", "first-request", "runtime"]
    phase: Literal["any", "starting", "serving"] = "any"
    rules: list[str] = Field(default_factory=list)
    faq: str | None = Field(default=None, pattern=r"^[a-z0-9][a-z0-9-]*$")
    cause: Text
    fix: Text

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        if "(?P=" in value:
            raise ValueError("named back-references are not allowed (patterns are combined into one prefilter)")
        try:
            re.compile(value)
        except re.error as error:
            raise ValueError(f"pattern does not compile: {error}") from None
        return value

    @field_validator("rules")
    @classmethod
    def _rule_ids(cls, value: list[str]) -> list[str]:
        for rule in value:
            if not re.fullmatch(r"QL\d{3}", rule):
                raise ValueError(f"rule {rule!r} is not a rule id like QL201")
        return value

    @model_validator(mode="after")
    def _placeholders_are_groups(self) -> "LogSignature":
        groups = set(re.compile(self.pattern).groupindex)
        for text in (self.cause.en, self.cause.zh, self.fix.en, self.fix.zh):
            for name in _PLACEHOLDER.findall(text):
                if name not in groups:
                    raise ValueError(f"placeholder {{{name}}} is not a named group of the pattern")
        return self


_DEFECT_OPS = ("eq", "ne", "in", "not_in", "gt", "ge", "lt", "le", "set", "unset", "contains", "not_contains")


class DefectCondition(Strict):
    """One condition of a known defect's trigger (``defects.toml``), over what a launch states.

    Exactly one subject: ``fact`` names a fact the rules derive (``tp``, ``expert_parallel``,
    ``kv_role``, ``cudagraph_mode`` ...); a dotted tail reads a key of a JSON-valued fact
    (``speculative.method``, ``additional_config.enable_reduce_sample``,
    ``compilation.cudagraph_mode``); ``env`` names an environment variable of the command;
    ``flag`` names a ``vllm serve`` option (dashes, long form). ``op`` compares the subject's
    value with ``value``: ``eq ne in not_in gt ge lt le contains not_contains`` or ``set`` / ``unset``
    (present or absent; for a flag, ``set`` means given and not negated); ``than`` names a second
    fact path to compare the first with, instead of ``value`` (both must be known). A condition whose
    subject is not fixed by the script (``$1``) makes the entry undecided: it is not reported.
    ``blame`` marks the condition whose option is the line to report (else the first one
    the script writes).
    """

    fact: str | None = Field(default=None, pattern=r"^[a-z_][a-z0-9_]*(\.[A-Za-z0-9_]+)*$")
    env: str | None = Field(default=None, pattern=r"^[A-Z][A-Z0-9_]*$")
    flag: str | None = Field(default=None, pattern=r"^--[a-z0-9][a-z0-9-]*$")
    op: Literal["eq", "ne", "in", "not_in", "gt", "ge", "lt", "le", "set", "unset", "contains", "not_contains"] = "eq"
    value: bool | int | float | str | list[bool | int | float | str] | None = None
    than: str | None = Field(default=None, pattern=r"^[a-z_][a-z0-9_]*(\.[A-Za-z0-9_]+)*$")
    blame: bool = False

    @model_validator(mode="after")
    def _one_subject(self) -> "DefectCondition":
        subjects = [s for s in (self.fact, self.env, self.flag) if s is not None]
        if len(subjects) != 1:
            raise ValueError("a condition names exactly one of fact, env or flag")
        if self.than is not None:  # compare with another fact (same path syntax as ``fact``)
            if self.fact is None or self.value is not None or self.op not in ("eq", "ne", "gt", "ge", "lt", "le"):
                raise ValueError("than compares a fact with another fact: give fact and a comparison op, no value")
            return self
        if self.op in ("set", "unset"):
            if self.value is not None:
                raise ValueError(f"op {self.op} takes no value")
        elif self.value is None:
            raise ValueError(f"op {self.op} needs a value")
        if self.op in ("in", "not_in") and not isinstance(self.value, list):
            raise ValueError(f"op {self.op} needs a list value")
        if self.op in ("gt", "ge", "lt", "le") and (isinstance(self.value, bool) or not isinstance(self.value, (int, float))):
            raise ValueError(f"op {self.op} needs a number")
        return self


class DefectFix(Strict):
    """A mechanical edit that works around a defect, applied to the blamed condition's option:
    ``drop`` removes the option (or the environment variable's assignment); ``value``
    replaces the option's value (or the JSON key's value) with ``value`` (written as is)."""

    action: Literal["drop", "value"]
    value: str | None = None

    @model_validator(mode="after")
    def _value_for_value(self) -> "DefectFix":
        if (self.action == "value") != (self.value is not None):
            raise ValueError("a 'value' fix needs value; a 'drop' fix takes none")
        return self


DefectHardware = Literal["a2", "a3", "310p", "any"]
"""Hardware a known defect names (``any``: every one)."""

_DEFECT_LINK = re.compile(
    r"^https://github\.com/vllm-project/(vllm-ascend|vllm)/("
    r"(issues|pull)/\d+(#\S*)?"
    r"|blob/(v[\w.]+|[0-9a-f]{40})/\S+#L\d+(-L\d+)?"
    r")$"
)


class KnownDefect(Cited):
    """A known defect of vllm-ascend / vLLM on Ascend (``defects.toml``).

    Affects releases ``since`` (inclusive; None: every release qlint knows before the end)
    up to ``until`` (the last affected release, inclusive) or before ``fixed_in`` (the release
    that fixed it); at least one end is given. ``hardware`` lists ``a2 a3 310p`` (or ``any``).
    ``models``: ``any``, or names matched against the served model: a model's family or id in
    models.toml, or a part of the model path's last component; letters and digits only are
    compared, case-insensitively (``glm5`` matches ``GLM-5.1-w4a8``). ``when`` are the conditions
    (all must hold). ``severity``: error when the launch fails, warning when it runs wrong
    or slow, info otherwise. ``log_patterns`` are regexes of the messages the defect prints
    (``qlint explain --log``). ``sources`` are https links: the pinned release-notes line
    and/or the issue or pull request; ``origin`` says which kind the entry was taken from.
    """

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    origin: Literal["release-notes", "issue"]
    since: str | None = None
    until: str | None = None
    fixed_in: str | None = None
    hardware: list[DefectHardware] = Field(default_factory=lambda: list[DefectHardware](["any"]), min_length=1)
    models: list[str] = Field(default_factory=lambda: ["any"], min_length=1)
    when: list[DefectCondition] = Field(min_length=1)
    severity: Literal["error", "warning", "info"]
    symptom: Text
    workaround: Text
    fix: DefectFix | None = None
    log_patterns: list[str] = Field(default_factory=list)

    @field_validator("sources")
    @classmethod
    def _links(cls, value: list[str]) -> list[str]:
        for link in value:
            if not _DEFECT_LINK.match(link):
                raise ValueError(f"link {link!r} is not a pinned vllm/vllm-ascend file line, issue or PR URL")
        return value

    @field_validator("log_patterns")
    @classmethod
    def _patterns_compile(cls, value: list[str]) -> list[str]:
        for pattern in value:
            if "(?P" in pattern:
                raise ValueError("log patterns take no named groups")
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"log pattern {pattern!r} does not compile: {error}") from None
        return value

    @model_validator(mode="after")
    def _range(self) -> "KnownDefect":
        from packaging.version import Version

        def version(tag: str) -> Version:
            return Version("9999") if tag == "main" else Version(tag.removeprefix("v"))

        if self.until is None and self.fixed_in is None:
            raise ValueError("give until (last affected release) or fixed_in")
        bounds = [t for t in (self.since, self.until, self.fixed_in) if t is not None]
        try:
            parsed = [version(t) for t in bounds]
        except Exception:
            raise ValueError(f"bad release tag in {bounds}") from None
        if self.since is not None and self.until is not None and version(self.since) > version(self.until):
            raise ValueError("since is after until")
        if self.fixed_in is not None and any(v >= version(self.fixed_in) for v in parsed[:-1]):
            raise ValueError("fixed_in must be after since and until")
        if "any" in self.hardware and len(self.hardware) > 1:
            raise ValueError("hardware 'any' stands alone")
        if "any" in self.models and len(self.models) > 1:
            raise ValueError("models 'any' stands alone")
        if sum(c.blame for c in self.when) > 1:
            raise ValueError("at most one condition is blamed")
        kinds = {"release-notes" if "release_notes.md" in s else "issue" for s in self.sources}
        if self.origin not in kinds:
            raise ValueError(f"origin {self.origin} but no such link in sources")
        return self


# -- per-release data written by qlint.knowledge.extract (knowledge/data/vllm/*.json, ascend/*.json) -----

_PINNED = re.compile(
    r"^https://github\.com/vllm-project/(vllm|vllm-ascend)/blob/(v[\w.]+|[0-9a-f]{40})/[\w./\-]+(#L\d+(-L\d+)?)?$"
)


def _pinned(value: str) -> str:
    if not _PINNED.match(value):
        raise ValueError(f"{value!r} is not a GitHub URL pinned to a tag or a 40-hex commit")
    return value


class Loose(BaseModel):
    """Extracted records: unknown keys are errors; the values are what the reader found."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Range(Loose):
    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None


class ExtractedOption(Loose):
    """One ``vllm serve`` option: the ``add_argument`` call (``source``) and the dataclass field behind it."""

    name: str = Field(pattern=r"^--?[A-Za-z0-9][\w.-]*$")
    aliases: list[str] = Field(default_factory=list)
    kind: Literal["bool", "int", "float", "str", "json", "list", "choice"]
    source: str
    choices: list[str] = Field(default_factory=list)
    choices_open: bool = False
    enum: list[str] = Field(default_factory=list)
    default: object = None
    negatable: bool = False
    nargs: str | None = None
    parser: Literal["human_readable_int", "human_readable_int_or_auto"] | None = None
    range: Range | None = None
    range_sources: list[str] = Field(default_factory=list)
    field: str | None = None
    field_source: str | None = None
    sub_config: str | None = None
    deprecated: bool = False
    optional_value: bool = False

    @field_validator("source", "field_source")
    @classmethod
    def _pinned_source(cls, value: str | None) -> str | None:
        return value if value is None else _pinned(value)


class ExtractedKey(Loose):
    """A key of a JSON sub-config (a dataclass field) or of an additional-config section."""

    key: str
    type: Literal["int", "float", "str", "bool", "dict", "list", "any"] = "any"
    source: str
    choices: list[str] = Field(default_factory=list)
    enum: list[str] = Field(default_factory=list)
    enum_by_name: bool = False  # a before-validator maps a string to Enum[value.upper()]
    enum_source: str | None = None
    default: object = None
    range: Range | None = None
    range_sources: list[str] = Field(default_factory=list)
    keys: list["ExtractedKey"] = Field(default_factory=list)
    closed: bool | None = None
    closed_source: str | None = None
    # additional-config sections read by a class
    class_: str | None = Field(default=None, alias="class")
    class_source: str | None = None
    also_read: list[str] = Field(default_factory=list)
    validations: list[dict] = Field(default_factory=list)

    @field_validator("source")
    @classmethod
    def _pinned_source(cls, value: str) -> str:
        return _pinned(value)


class ExtractedSubConfig(Loose):
    option: str
    class_: str = Field(alias="class")
    closed: bool
    closed_source: str
    typed: bool = True  # pydantic validates the values (lax mode); False: a plain dataclass takes anything
    source: str
    keys: list[ExtractedKey]


class ExtractedEnv(Loose):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    source: str
    default: str | None = None
    deprecated: bool = False
    deprecated_source: str | None = None
    direct: bool = False  # read with os.getenv outside envs.py

    @field_validator("source")
    @classmethod
    def _pinned_source(cls, value: str) -> str:
        return _pinned(value)


class Bound(Loose):
    field: str
    op: Literal["gt", "ge", "lt", "le"]
    value: float


class ExtractedValidation(Loose):
    """A startup check: ``raise ValueError(message)`` at ``source`` (file:line), with its guard."""

    class_: str = Field(alias="class")
    function: str
    error: str
    message: str
    source: str
    condition: str | None = None
    bounds: list[Bound] = Field(default_factory=list)

    @field_validator("source")
    @classmethod
    def _pinned_source(cls, value: str) -> str:
        return _pinned(value)


class ParserFeatures(Loose):
    """How FlexibleArgumentParser rewrites spellings in one vLLM release (each value: the line doing it)."""

    underscores: str | None = None
    dotted_long: str | None = None
    dotted_any: str | None = None
    dotted_list_append: str | None = None
    o_concat: str | None = None
    o_concat_target: str | None = None
    dotted_human_readable: str | None = None
    allow_abbrev: bool = True
    class_source: str | None = None
    human_readable_int: str | None = None
    human_readable_int_or_auto: str | None = None


class VllmReleaseData(Loose):
    """``knowledge/data/vllm/X.Y.Z.json``: what one vLLM sdist's sources say."""

    schema_: int = Field(alias="schema")
    project: Literal["vllm"]
    version: str
    ref: str
    archive: str
    parser: ParserFeatures
    options: list[ExtractedOption] = Field(min_length=1)
    sub_configs: list[ExtractedSubConfig]
    env_vars: list[ExtractedEnv]
    validations: list[ExtractedValidation]
    unread: list[str]


class AdditionalConfig(Loose):
    closed: bool
    source: str | None
    keys: list[ExtractedKey]


class CliChange(Loose):
    option: str
    add_choices: list[str]
    source: str


class AscendReleaseData(Loose):
    """``knowledge/data/ascend/<tag>.json``: one vllm-ascend revision and the vLLM data it pairs with."""

    schema_: int = Field(alias="schema")
    project: Literal["vllm-ascend"]
    release: str
    ref: str
    commit: str = Field(pattern=r"^[0-9a-f]{40}$")
    vllm: str | None
    vllm_source: str | None
    vllm_data: str | None
    additional_config: AdditionalConfig
    cli_changes: list[CliChange]
    env_vars: list[ExtractedEnv]
    validations: list[ExtractedValidation]
    unread: list[str]
