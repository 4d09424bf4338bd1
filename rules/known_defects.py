"""Known defects of a release (QL560-QL562): a launch that matches an entry of
``knowledge/data/defects.toml`` (release range x hardware x model x feature combination).

An entry is reported once per ``vllm serve`` command when the release in use lies in its
range, the hardware and the model match, and every condition of ``when`` holds. A condition
whose subject the script does not fix (``$1``) leaves the entry undecided: it is not
reported (never guessed). The finding is reported at the line of the blamed condition's
option (else the first condition the script writes, else the model argument), with the
entry's severity (QL560 error: the launch fails; QL561 warning: it runs wrong or slow;
QL562 info), its symptom and workaround in both languages, and its own links as sources.

Sources: the Known Issues sections of vllm-ascend's release notes at each tag, and upstream
issues and pull requests whose cause a maintainer confirmed (each entry cites its own).
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)
import re
from functools import lru_cache

from qlint.knowledge.base import DEFECT_CONDITION, checkpoint_name, defect_affects
from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Edit, Example, FactTrace, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, Unknown, check
from qlint.rules.plan import Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The facts a condition may name (the head of ``fact = "speculative.method"``). A rule may
# only read facts it declares, so the vocabulary is explicit; a test checks every entry uses it.
VOCABULARY = (
    "hardware", "model_ref", "model", "moe", "hybrid", "quantized_weights", "tp", "dp", "dp_local", "pp",
    "expert_parallel", "ep_size", "additional_config", "moe_tp", "max_model_len", "max_num_seqs",
    "max_num_batched_tokens", "speculative", "mtp_tokens", "compilation", "enforce_eager",
    "cudagraph_mode", "capture_sizes", "kv_transfer", "kv_role", "prefix_caching", "flashcomm1",
    "dtype", "chunked_prefill_flag", "gpu_memory_utilization", "mla_attention",
)

# JSON-valued facts and the option that holds them (a dotted tail is a key of that option).
JSON_FACTS = {
    "speculative": "--speculative-config",
    "additional_config": "--additional-config",
    "compilation": "--compilation-config",
    "kv_transfer": "--kv-transfer-config",
}

# Facts read from one option (a fix of a condition on them edits that option).
FLAG_FACTS = {
    "tp": "--tensor-parallel-size", "dp": "--data-parallel-size", "pp": "--pipeline-parallel-size",
    "expert_parallel": "--enable-expert-parallel", "max_model_len": "--max-model-len",
    "max_num_seqs": "--max-num-seqs", "max_num_batched_tokens": "--max-num-batched-tokens",
    "enforce_eager": "--enforce-eager", "prefix_caching": "--enable-prefix-caching", "dtype": "--dtype",
    "gpu_memory_utilization": "--gpu-memory-utilization",
}

_RAY_EP = ("vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4 --distributed-executor-backend {} "
           "--enable-expert-parallel\n")
_NEXT_EP = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size 4{}\n"

_SPEC_Q36 = "'{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'"

DEFECT_ERROR = RuleMeta(
    id="QL560",
    name="known-defect-startup",
    severity="error",
    requires=("version",),
    optional=VOCABULARY,
    groups=("known-defects", "release"),
    fix="safe",
    title=Text(en="A known defect of this release makes the launch fail",
               zh="该版本的已知缺陷会使启动失败"),
    why=Text(
        en="The release notes of vllm-ascend and upstream issues confirmed by maintainers record feature "
        "combinations that fail on some releases and work on others. qlint keeps them as data (release range, "
        "hardware, model, the options that trigger them) and reports a launch that matches one, with the "
        "workaround and the release that fixed it. This rule reports the entries whose launch fails.",
        zh="vllm-ascend 的发布说明以及经维护者确认的上游 issue 记录了在某些版本上失败、在另一些版本上正常的特性组合。"
        "qlint 将其作为数据保存（版本范围、硬件、模型、触发它的参数），当启动命令与某一条目匹配时报告，并给出规避方法"
        "以及修复它的版本。本规则报告会导致启动失败的条目。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/user_guide/release_notes.md#L24",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/docs/source/user_guide/release_notes.md#L134-L154",
    ),
    examples=(
        Example(bad=_RAY_EP.format("ray"), good=_RAY_EP.format("mp"), fixed=_RAY_EP.format("mp"),
                version="v0.11.0rc2", hardware="a2"),
        Example(bad=_NEXT_EP.format(" --enable-expert-parallel"), good=_NEXT_EP.format(""),
                fixed=_NEXT_EP.format(""), version="v0.11.0", hardware="a3"),
    ),
)

DEFECT_WARNING = RuleMeta(
    id="QL561",
    name="known-defect-runtime",
    severity="warning",
    requires=("version",),
    optional=VOCABULARY,
    groups=("known-defects", "release"),
    fix="safe",
    title=Text(en="A known defect of this release makes the server run wrong or slow",
               zh="该版本的已知缺陷会使服务运行出错或变慢"),
    why=Text(
        en="Entries of qlint's known-defect data whose launch starts but then serves wrong output, crashes under "
        "load or runs slower than it should, on the releases, hardware and models the entry names.",
        zh="qlint 已知缺陷数据中的这类条目：服务能启动，但在条目所列的版本、硬件与模型上会输出错误、在负载下崩溃或运行变慢。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/docs/source/user_guide/release_notes.md#L416-L424",
    ),
    examples=(
        Example(
            bad=f"vllm serve Qwen/Qwen3.6-35B-A3B --tensor-parallel-size 4 --speculative-config {_SPEC_Q36}\n",
            good="vllm serve Qwen/Qwen3.6-35B-A3B --tensor-parallel-size 4\n",
            version="v0.21.0rc1", hardware="a3",
        ),
        Example(
            bad="VLLM_ASCEND_ENABLE_NZ=1 vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4\n",
            good="VLLM_ASCEND_ENABLE_NZ=0 vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4\n",
            version="v0.12.0rc1", hardware="a2",
        ),
    ),
)

DEFECT_INFO = RuleMeta(
    id="QL562",
    name="known-defect-note",
    severity="info",
    requires=("version",),
    optional=VOCABULARY,
    groups=("known-defects", "release"),
    fix="safe",
    title=Text(en="A known limitation of this release applies to the launch",
               zh="该版本的已知限制适用于此启动命令"),
    why=Text(
        en="Entries of qlint's known-defect data that do not break serving but are worth knowing: a feature "
        "switched off automatically, a documented accuracy spread, a log message that looks like an error but "
        "is harmless.",
        zh="qlint 已知缺陷数据中不影响服务、但值得知道的条目：被自动关闭的特性、文档记载的精度波动、看似错误实则无害的日志。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/docs/source/user_guide/release_notes.md#L137",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.5-2B-w8a8 --max-model-len 8192\n",
            good="vllm serve Qwen/Qwen3.5-2B --max-model-len 8192\n",
            version="v0.23.0", hardware="310p",
        ),
    ),
)

META_BY_SEVERITY = {"error": DEFECT_ERROR, "warning": DEFECT_WARNING, "info": DEFECT_INFO}


# -- matching --------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _norm(text: str) -> str:
    """``text`` lower-case, letters and digits only (kept per text: the entries' names and a script's model are
    normalised again for every entry and command)."""
    found = _NORMS.get(text)
    if found is None:
        if len(_NORMS) > 4096:
            _NORMS.clear()
        found = _NORMS[text] = re.sub(r"[^a-z0-9]", "", text.lower())
    return found


_NORMS: dict[str, str] = {}


class _Undecided(Exception):
    """A condition's subject is not fixed by the script: the entry is not reported."""


_release_in = defect_affects  # whether an entry's release range holds the release


def _model_matches(scope: Scope, names: list[str]) -> bool:
    if names == ["any"]:
        return True
    ref = scope.known("model_ref")
    if ref is None:
        raise _Undecided("model_ref")
    match = scope.known("model")
    model = match.value.model if match is not None else None
    return names_match(names, ref.value, model.family if model else None, model.id if model else None)


def names_match(names: list[str], model_ref: str, family: str | None = None, model_id: str | None = None) -> bool:
    """True when one of an entry's model names is part of the model path's last component
    (letters and digits only, any case) or is the model's family or id."""
    if names == ["any"]:
        return True
    base = _norm(checkpoint_name(model_ref))
    known = tuple(_norm(item) for item in (family, model_id) if item)
    return any(_norm(name) in base or _norm(name) in known for name in names)


def defects_on(kb: Any, version: str, hardware: str, model_id: str, subjects: tuple[str, ...]) -> list:
    """Entries (error or warning) that a launch of a model at a release on a hardware hits as
    soon as it sets the given facts: every condition names one of ``subjects`` (the head of
    ``fact``). The generator uses it to leave a feature out, or to refuse a combination."""
    match = kb.match_model(model_id)
    family, ident = (match.model.family, match.model.id) if match is not None else (None, None)
    found = []
    for entry in kb.defects:
        if entry.severity == "info" or not _release_in(entry, version):
            continue
        if entry.hardware != ["any"] and hardware not in entry.hardware:
            continue
        if not names_match(entry.models, model_id, family, ident):
            continue
        if all(c.fact is not None and c.fact.split(".")[0] in subjects for c in entry.when):
            found.append(entry)
    return found


def tp_defect(entries: list, tp: int) -> Any:
    """The first error-level entry (of ``defects_on(..., ("tp",))``) whose conditions, all on the TP
    size, hold for ``tp``; None when none does. The generator refuses such a layout."""
    for entry in entries:
        if entry.severity == "error" and all(c.fact == "tp" and _compare(c.op, tp, c.value) for c in entry.when):
            return entry
    return None


def _coerce(text: str, like: Any) -> Any:
    """A script word compared with an entry's value: as a bool, number or string like it."""
    text = text.strip()
    if isinstance(like, list) and like:
        like = like[0]
    if isinstance(like, bool):
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off", ""):
            return False
        return text
    if isinstance(like, (int, float)):
        try:
            return int(text)
        except ValueError:
            try:
                return float(text)
            except ValueError:
                return text
    return text


def _compare(op: str, actual: Any, expected: Any) -> bool:
    if op == "set":
        return actual is not None and actual is not False
    if op == "unset":
        return actual is None or actual is False
    if actual is None:
        return op in ("ne", "not_in")
    if isinstance(actual, str) and isinstance(expected, str):
        actual, expected = actual.lower(), expected.lower()
    elif isinstance(actual, str) and isinstance(expected, list):
        actual, expected = actual.lower(), [e.lower() if isinstance(e, str) else e for e in expected]
    if op == "eq":
        return actual == expected
    if op == "ne":
        return actual != expected
    if op == "in":
        return actual in expected
    if op == "not_in":
        return actual not in expected
    if op == "contains":
        if isinstance(actual, str) and isinstance(expected, str):
            return expected.lower() in actual.lower()
        return isinstance(actual, (list, dict)) and expected in actual
    if op == "not_contains":
        return not _compare("contains", actual, expected)
    if isinstance(actual, bool) or not isinstance(actual, (int, float)):
        return False
    return {"gt": actual > expected, "ge": actual >= expected, "lt": actual < expected,
            "le": actual <= expected}[op]


def _subject(scope: Scope, condition: Any) -> tuple[Any, Span | None, Any]:
    """(value, span, target) of a condition's subject; target is what a fix edits."""
    serve = scope.serve
    if condition.env is not None:
        read = kit.env(serve, condition.env)  # (Unknown when symbolic: the entry is undecided)
        if read.value is None:
            return None, None, None
        return _coerce(read.value, condition.value), read.span, ("env", serve.env[condition.env])
    if condition.flag is not None:
        option = serve.opt(condition.flag)
        if option is None:
            return None, None, None
        if option.value is None:
            return (not option.negated), option.span, ("flag", option)
        if option.value.text is None:
            raise _Undecided(condition.flag)
        if option.json is not None:
            return option.json.data, option.span, ("flag", option)
        return _coerce(option.value.text, condition.value), option.span, ("flag", option)
    head, *keys = condition.fact.split(".")
    known = scope.known(head)
    if known is None:
        raise _Undecided(head)
    value = known.value
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    if head in JSON_FACTS:
        option = serve.opt(JSON_FACTS[head])
        if option is None or value is None:
            return value, None, None
        if keys:
            dotted = ".".join(keys)
            mapped = kit.key_mapped(serve, JSON_FACTS[head], dotted)
            return value, option.span, ("key", option, dotted) if mapped else ("flag", option)
        return value, option.span, ("flag", option)
    option = serve.opt(FLAG_FACTS[head]) if head in FLAG_FACTS else None
    return value, known.span, ("flag", option) if option is not None else None


def _fact_value(scope: Scope, path: str) -> Any:
    """The value of a fact path (``kv_transfer.kv_connector_extra_config.decode.tp_size``), None when missing."""
    head, *keys = path.split(".")
    known = scope.known(head)
    if known is None:
        raise _Undecided(head)
    value = known.value
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def match_entry(scope: Scope, entry: Any) -> tuple[Span | None, Any] | None:
    """(blamed span, fix target) when the entry matches this command, else None.

    Raises _Undecided when a subject the entry needs is not fixed by the script.
    """
    if not _model_matches(scope, entry.models):
        return None
    return _conditions_match(scope, entry)


def _conditions_match(scope: Scope, entry: Any) -> tuple[Span | None, Any] | None:
    """``match_entry`` once the entry's models are known to match."""
    blamed: tuple[Span | None, Any] | None = None
    first: tuple[Span | None, Any] | None = None
    for condition in entry.when:
        value, span, target = _subject(scope, condition)
        expected = condition.value
        if getattr(condition, "than", None) is not None:
            expected = _fact_value(scope, condition.than)
            if value is None or expected is None:
                return None
        if not _compare(condition.op, value, expected):
            return None
        if span is not None and condition.op != "unset":
            if condition.blame:
                blamed = (span, target)
            elif first is None:
                first = (span, target)
    return blamed or first or (None, None)


def _range_text(entry: Any) -> tuple[str, str]:
    start = entry.since or "earlier releases"
    start_zh = entry.since or "更早的版本"
    if entry.until is not None and entry.until == entry.since:
        span_en, span_zh = f"{start} only", f"仅 {start}"
    elif entry.until is not None:
        span_en, span_zh = f"{start} to {entry.until}", f"{start} 至 {entry.until}"
    else:
        span_en, span_zh = f"{start} on", f"{start} 起"
    if entry.fixed_in is not None:
        return f"{span_en}, fixed in {entry.fixed_in}", f"{span_zh}，已在 {entry.fixed_in} 修复"
    return f"{span_en}, no fixed release known", f"{span_zh}，尚无已知的修复版本"


def _condition_text(condition: Any) -> str:
    subject = condition.fact or condition.env or condition.flag
    if getattr(condition, "than", None) is not None:
        symbols = {"eq": "=", "ne": "!=", "gt": ">", "ge": ">=", "lt": "<", "le": "<="}
        return f"{subject} {symbols[condition.op]} {condition.than}"
    if condition.op == "set":
        return f"{subject} set"
    if condition.op == "unset":
        return f"{subject} unset"
    symbols = {"eq": "=", "ne": "!=", "in": "in", "not_in": "not in", "gt": ">", "ge": ">=", "lt": "<",
               "le": "<=", "contains": "contains", "not_contains": "does not contain"}
    return f"{subject} {symbols[condition.op]} {json.dumps(condition.value, ensure_ascii=False)}"


def matched_text(entry: Any) -> str:
    """What an entry matches, in one line (the same words in both languages: they are names)."""
    parts = []
    if entry.hardware != ["any"]:
        parts.append("hardware " + "/".join(entry.hardware))
    if entry.models != ["any"]:
        parts.append("model " + "/".join(entry.models))
    parts.extend(_condition_text(c) for c in entry.when)
    return "; ".join(parts)


def _fix(serve: Any, entry: Any, target: Any) -> Fix:
    """The entry's workaround, with the kit's edits when the entry has a mechanical fix."""
    edits: list[Edit] = []
    spec = entry.fix
    if spec is not None and target is not None:
        kind, item = target[0], target[1]
        if spec.action == "drop" and kind in ("flag", "key"):
            edits = kit.drop_option(item)  # (an environment variable is not dropped: its export may set others too)
        elif spec.action == "value" and kind == "key":
            edits = kit.set_key(serve, item.name, target[2], None, text=spec.value)
        elif spec.action == "value" and kind == "flag" and item.value is not None:
            edits = kit.set_value(serve, item.name, spec.value)
        elif spec.action == "value" and kind == "env":
            edits = kit.set_env(serve, item.name, spec.value)
    return Fix(entry.workaround, edits)


_ROWS: dict[tuple[int, str], tuple[Any, dict[str, list]]] = {}


def _rows_at(kb: Any, tag: str) -> dict[str, list]:
    """The rows of the entries that affect release ``tag`` by severity (``KnowledgeBase.defect_rows``: id,
    hardware, models, conditions), read once per knowledge base and tag (the entry holds its knowledge base)."""
    key = (id(kb), tag)
    cached = _ROWS.get(key)
    if cached is None or cached[0] is not kb:
        if len(_ROWS) > 512:
            _ROWS.clear()
        cached = _ROWS[key] = (kb, kb.defect_rows(tag))
    return cached[1]


# What a fact is when the option it is read from is not given (fact -> option, value): a condition on it that
# this value fails cannot hold for a command without that option (a test checks each against the fact).
_ABSENT: dict[str, tuple[str, Any]] = {
    "additional_config": ("--additional-config", {}), "compilation": ("--compilation-config", {}),
    "speculative": ("--speculative-config", None), "kv_transfer": ("--kv-transfer-config", None),
    "kv_role": ("--kv-transfer-config", None), "expert_parallel": ("--enable-expert-parallel", False),
    "enforce_eager": ("--enforce-eager", False), "prefix_caching": ("--enable-prefix-caching", None),
    "tp": ("--tensor-parallel-size", 1), "dp": ("--data-parallel-size", 1), "pp": ("--pipeline-parallel-size", 1),
}


class _Condition:
    """A condition of an entry as its row holds it (``defect_row``): what ``_conditions_match`` reads of one."""

    __slots__ = DEFECT_CONDITION

    def __init__(self, values: list) -> None:
        self.fact, self.env, self.flag, self.op, self.value, self.than, self.blame = values


class _Conditions:
    """An entry's id and conditions read from its row, as ``_conditions_match`` reads an entry (``when``)."""

    __slots__ = ("id", "when")

    def __init__(self, entry_id: str, conditions: list) -> None:
        self.id = entry_id
        self.when = [_Condition(values) for values in conditions]


def _cannot_hold(serve: Any, conditions: list) -> bool:
    """True when one of an entry's conditions (a row's, see ``defect_row``) that compares with a value fails
    for this command whatever else it says, told from the options and environment variables it gives alone:
    the option, the variable or the option of a fact in ``_ABSENT`` is not given, and what ``_subject`` reads
    then (None; the fact's value) fails the comparison. The facts such an entry names are not computed."""
    options = serve.options
    for fact, env, flag, op, value, than, _ in conditions:
        if than is not None:
            continue
        if flag is not None:
            if flag in options:
                continue
            actual = None
        elif env is not None:
            if env in serve.env:
                continue
            actual = None
        else:
            head, _, keys = fact.partition(".")
            absent = _ABSENT.get(head)
            if absent is None or absent[0] in options:
                continue
            actual = absent[1]
            if keys:
                for key in keys.split("."):
                    actual = actual.get(key) if isinstance(actual, dict) else None
        try:
            if not _compare(op, actual, value):
                return True
        except Exception:  # (a comparison _conditions_match would make only if the others held)
            continue
    return False


def _report(scope: Scope, severity: str):
    meta = META_BY_SEVERITY[severity]
    rows = _rows_at(scope.kb, scope.get("version")).get(severity)
    if not rows:
        return
    known_hardware = scope.known("hardware")
    hardware = known_hardware.value if known_hardware is not None else None
    names: tuple[str, tuple[str, ...]] | None = None  # the command's model as names_match reads it, once
    serve = scope.serve
    for entry_id, entry_hardware, models, conditions in rows:
        if entry_hardware != ["any"] and hardware not in entry_hardware:
            continue  # (hardware not known: an entry for some hardware only is undecided)
        if models != ["any"]:  # _model_matches, with the model read once for every entry
            if names is None:
                ref = scope.known("model_ref")
                if ref is None:
                    continue  # (undecided: every entry that names models)
                match = scope.known("model")
                model = match.value.model if match is not None else None
                names = (_norm(checkpoint_name(ref.value)),
                         tuple(_norm(item) for item in ((model.family, model.id) if model else ()) if item))
            base, known = names
            if not any(_norm(name) in base or _norm(name) in known for name in models):
                continue
        if _cannot_hold(serve, conditions):
            continue
        try:
            found = _conditions_match(scope, _Conditions(entry_id, conditions))  # the entry is read when it matches
        except (_Undecided, Unknown):
            continue
        if found is None:
            continue
        entry = scope.kb.defect(entry_id)
        if entry is None:
            continue
        span, target = found
        if span is None:
            span = serve.model.span if serve.model is not None else serve.span
        range_en, range_zh = _range_text(entry)
        matched = matched_text(entry)
        finding = Finding(
            meta,
            Text(
                en=f"known defect {entry.id} ({range_en}; linting {kit.at_version(scope).en}): {entry.symptom.en} "
                f"[matched: {matched}]",
                zh=f"已知缺陷 {entry.id}（{range_zh}；按 {kit.at_version(scope).zh} 检查）：{entry.symptom.zh}"
                f"［匹配：{matched}］",
            ),
            span,
            _fix(serve, entry, target),
        )
        finding.sources = tuple(entry.sources)
        finding.trace = [FactTrace("defect", entry.id, "knowledge/data/defects.toml")]
        yield finding


@check(DEFECT_ERROR)
def known_defect_startup(scope: Scope):
    """Known-defect entries of severity error that match this command."""
    yield from _report(scope, "error")


@check(DEFECT_WARNING)
def known_defect_runtime(scope: Scope):
    """Known-defect entries of severity warning that match this command."""
    yield from _report(scope, "warning")


@check(DEFECT_INFO)
def known_defect_note(scope: Scope):
    """Known-defect entries of severity info that match this command."""
    yield from _report(scope, "info")
