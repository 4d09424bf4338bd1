"""Kit: the release's own ``vllm serve`` facts for the option rules (QL102, QL105, QL106, QL550).

Options, spellings, choices, ranges and JSON keys come from ``knowledge/data/vllm/<version>.json``
and ``knowledge/data/ascend/<tag>.json`` (extracted from the sources by ``qlint.knowledge.extract``)
for the release being linted; :func:`facts` returns None when the version is unknown or not a
release, and the rules then fall back to the hand-kept tables.
"""

from __future__ import annotations

import re
from functools import lru_cache

from qlint.knowledge.base import MAIN, parse_version
from qlint.knowledge.releases import Option as OptionFact
from qlint.knowledge.releases import (_SET_AT_ALL, ReleaseFacts, facts_for, key_rows,  # noqa: F401  (_SET_AT_ALL,
                                      rejected_fields, release_index, set_at_all)  # set_at_all: the kit's names)
from qlint.rules.graph import Scope
from qlint.rules.plan import Option


def facts(scope: Scope, declared: bool = True) -> ReleaseFacts | None:
    """The release facts of the version in effect. Rules declare ``version`` (requires/optional);
    ``declared=False`` is for the integer readers of the facts layer, which read how the release
    parses a value without depending on the version fact."""
    if declared:
        known = scope.known("version")
    else:
        saved = scope._allowed
        scope._allowed = None
        try:
            known = scope.known("version")
        finally:
            scope._allowed = saved
    tag = known.value if known is not None else None
    if not tag:
        return None
    try:
        parse_version(tag)
    except Exception:
        return None
    try:
        return facts_for(tag)
    except Exception:  # missing or invalid data: the hand-kept tables still apply
        return None


def head(option: Option) -> str:
    """What the script wrote before ``=value`` and ``.key`` (``--compilation_config``, ``-O3``)."""
    written = option.spelled.partition("=")[0]
    if written.startswith("--") or "." not in written:
        return written.split(".", 1)[0]
    return written.split(".", 1)[0]


_RESOLVED: dict[int, tuple[ReleaseFacts, dict[str, OptionFact | None]]] = {}


def resolve(release: ReleaseFacts, option: Option) -> OptionFact | None:
    """The release's option a written option resolves to (None: the release has none), looked up once
    per release and spelling."""
    held = _RESOLVED.get(id(release))
    if held is None or held[0] is not release:  # the entry holds the release: no id reuse
        held = _RESOLVED[id(release)] = (release, {})
    resolved = held[1]
    spelled = option.spelled  # what head() reads: the answer is kept under it
    if spelled in resolved:
        return resolved[spelled]
    written = head(option)
    name, _, _ = release.resolve(written)
    found = resolved[spelled] = release.options.get(name) if name else None
    return found


def where(release: ReleaseFacts) -> str:
    """``vLLM 0.25.1 (vllm-ascend v0.25.1rc1)``; says when the data of another release is used."""
    tag = release.requested
    text = f"vLLM {release.vllm} (vllm-ascend {tag})"
    if not release.exact:
        text += f", checked with the data of {release.release}"
    return text


def where_zh(release: ReleaseFacts) -> str:
    tag = release.requested
    text = f"vLLM {release.vllm}（vllm-ascend {tag}）"
    if not release.exact:
        text += f"，按 {release.release} 的数据检查"
    return text


def versions_with(name: str) -> list[str]:
    """The vLLM versions (of the data) whose parser has option ``name``."""
    return list(release_index().get("options", {}).get(name, ()))


@lru_cache(maxsize=64)
def releases_reading(key: str) -> tuple[str, ...]:
    """The vllm-ascend releases (of the data, in order; not main) whose extracted ascend_config.py reads the
    top-level ``--additional-config`` key ``key``. Reads every release's data: for messages, not checks."""
    from qlint.knowledge.releases import known_releases

    reading = []
    for tag in known_releases():
        release = facts_for(tag) if tag != "main" else None
        if release is not None and release.additional_config is not None and key in release.additional_config:
            reading.append(tag)
    return tuple(reading)


def ascend_tags_with_vllm() -> dict[str, str]:
    return {item["release"]: item.get("vllm_data") or "" for item in release_index()["releases"]}


_HUMAN = r"(\d+(?:\.\d+)?)([kKmMgGtT])"  # compiled on first use (re's cache)
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def human_readable_int(text: str, or_auto: bool = False) -> int | None:
    """vLLM's ``human_readable_int`` (``8k`` = 8000, ``8K`` = 8192, ``25.6k`` = 25600; no decimals with
    binary suffixes) and ``human_readable_int_or_auto`` (``-1`` / ``auto`` = -1). None when vLLM
    would reject the text. Source: vllm/utils/argparse_utils.py (the URL is in the release data's
    ``parser.human_readable_int``)."""
    value = text.strip()
    if or_auto and (value == "-1" or value.lower() == "auto"):
        return -1
    match = re.fullmatch(_HUMAN, value)
    if match:
        number, suffix = match.groups()
        if suffix in _DECIMAL:
            scaled = float(number) * _DECIMAL[suffix]
            return int(scaled) if scaled < float(2**63) else None  # 1e309k is no length
        if "." in number:
            return None
        return int(number) * _BINARY[suffix]
    try:
        return int(value)
    except ValueError:
        return None


def option_int_value(release: ReleaseFacts | None, name: str, text: str) -> int | None:
    """An int option's value as the release's parser reads it (human-readable suffixes where it uses them)."""
    try:
        return int(text.strip())
    except ValueError:
        pass
    if release is None:
        return None
    spec = release.options.get(name)
    if spec is None or spec.parser is None:
        return None
    return human_readable_int(text, or_auto=spec.parser == "human_readable_int_or_auto")


def in_range(spec_range: dict[str, float], value: float) -> bool:
    for op, bound in spec_range.items():
        if op == "gt" and not value > bound:
            return False
        if op == "ge" and not value >= bound:
            return False
        if op == "lt" and not value < bound:
            return False
        if op == "le" and not value <= bound:
            return False
    return True


def range_text(spec_range: dict[str, float]) -> str:
    """``(0, 1]``, ``>= 1``, ``[0, 1)``."""
    low = [(op, v) for op, v in spec_range.items() if op in ("gt", "ge")]
    high = [(op, v) for op, v in spec_range.items() if op in ("lt", "le")]

    def show(v: float) -> str:
        return str(int(v)) if float(v).is_integer() else str(v)

    if low and high:
        return f"{'(' if low[0][0] == 'gt' else '['}{show(low[0][1])}, {show(high[0][1])}{')' if high[0][0] == 'lt' else ']'}"
    if low:
        return f"{'>' if low[0][0] == 'gt' else '>='} {show(low[0][1])}"
    return f"{'<' if high[0][0] == 'lt' else '<='} {show(high[0][1])}"


def is_main(release: ReleaseFacts) -> bool:
    return release.release == MAIN


class KeySpec:
    """A sub-config key as QL105/QL106 read it (the shape of the hand-kept SubConfigKey records), from a row
    of ``qlint.knowledge.releases.key_rows``."""

    __slots__ = ("key", "type", "choices", "enum", "range", "source", "removed_in", "added_in", "upper", "sources")

    def __init__(self, row: list) -> None:
        self.key, self.type, self.choices, self.enum, self.range, self.source, self.upper, range_sources = row
        self.removed_in = None
        self.added_in = None
        self.sources = (self.source, *range_sources)


class SubConfigSpec:
    __slots__ = ("flag", "closed", "keys", "source", "release", "sources", "typed")

    def __init__(self, flag: str, closed: bool, keys: list[KeySpec], source: str, release: ReleaseFacts,
                 closed_source: str | None = None, typed: bool = True):
        self.flag, self.closed, self.keys, self.source, self.release = flag, closed, keys, source, release
        self.typed = typed
        # the config class, and the line that makes unknown keys an error
        self.sources = (source,) + ((closed_source,) if closed_source and closed_source != source else ())


def rejected_keys(release: ReleaseFacts, cls: str) -> set[str]:
    """Fields of ``cls`` whose every value is refused by a startup check, e.g. SpeculativeConfig's
    ``if self.tensor_parallel_size is not None: raise ValueError("... is not a valid argument ...")``."""
    return rejected_fields(release.validations_of(cls))


_MEMO: dict[tuple, tuple[tuple, object]] = {}
"""Key tables built from a release's facts, by the objects they are built from and the option: they are
read, never changed, and QL105 and QL106 ask for them for every JSON option of every script."""


def _memo(name: str, owners: tuple, build):
    key = (name, *map(id, owners))
    hit = _MEMO.get(key)
    if hit is None or any(a is not b for a, b in zip(hit[0], owners)):  # the entry holds its owners: no id reuse
        hit = _MEMO[key] = (owners, build())
    return hit[1]


def sub_config(release: ReleaseFacts, name: str) -> SubConfigSpec | None:
    """The release's JSON sub-config of option ``name`` with dotted keys (``pass_config.fuse_norm_quant``),
    built once per release and option."""
    return _memo(name, (release,), lambda: _build_sub_config(release, name))


def _build_sub_config(release: ReleaseFacts, name: str) -> SubConfigSpec | None:
    table = release.key_table(name)  # made when the layout was written
    if table is not None:
        closed, source, closed_source, typed, _, rows = table
        return SubConfigSpec(name, closed, [KeySpec(row) for row in rows], source, release, closed_source, typed)
    sub = release.sub_configs.get(name)
    if sub is None:
        return None
    keys = [KeySpec(row) for row in key_rows(sub.keys, rejected_keys(release, sub.cls))]
    return SubConfigSpec(name, sub.closed, keys, sub.source, release, sub.closed_source, getattr(sub, "typed", True))


_TRUE = {"1", "true", "t", "yes", "y", "on"}
_FALSE = {"0", "false", "f", "no", "n", "off"}


def pydantic_accepts(kind: str, value) -> bool:
    """Whether pydantic's lax mode takes a JSON value for a field of this kind (bool from "False" or 0/1,
    int from "3" or 3.0, float from "0.5"), as vLLM's config dataclasses validate them."""
    if kind == "bool":
        if isinstance(value, bool):
            return True
        if isinstance(value, (int, float)):
            return value in (0, 1)
        return isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE
    if kind == "int":
        if isinstance(value, bool) or isinstance(value, int):
            return True
        if isinstance(value, float):
            return value.is_integer()
        if isinstance(value, str):
            try:
                int(value.strip())
            except ValueError:
                return False
            return True
        return False
    if kind == "float":
        if isinstance(value, (int, float)):
            return True
        if isinstance(value, str):
            try:
                float(value.strip())
            except ValueError:
                return False
            return True
        return False
    if kind == "str":
        return isinstance(value, str)
    if kind == "dict":
        return isinstance(value, dict)
    if kind == "list":
        return isinstance(value, list)
    return True


class _TypedKey:
    """A hand-kept additional-config key with the type the release's own reader gives it."""

    __slots__ = ("key", "type", "choices", "removed_in", "added_in", "sources", "source")

    def __init__(self, record, kind: str):
        self.key, self.type = record.key, kind
        self.choices = list(record.choices)
        self.removed_in, self.added_in = record.removed_in, record.added_in
        self.sources = tuple(record.sources)
        self.source = self.sources[0] if self.sources else None


class _ReleaseAdditional:
    __slots__ = ("flag", "closed", "keys", "sources")

    def __init__(self, table, keys):
        self.flag, self.closed, self.sources = table.flag, table.closed, tuple(table.sources)
        self.keys = keys


def additional_config_spec(release: ReleaseFacts, table):
    """The hand-kept ``--additional-config`` table (``sub_configs.toml``, written for v0.23.0) with each key's
    type taken from what the release being linted reads: ``dump_config`` is a path string at v0.12.0rc1
    and a dict at v0.23.0. A key the release does not read is not type-checked; one it reads without a
    typed default keeps the hand-kept type. Built once per release and table."""
    return _memo(table.flag, (release, table), lambda: _build_additional(release, table))


def _build_additional(release: ReleaseFacts, table):
    keys = []
    for record in table.keys:
        fact = None
        level: dict | None = release.additional_config
        for part in record.key.split("."):
            fact = level.get(part) if level is not None else None
            level = fact.keys if fact is not None else None
        if fact is None:
            kind = "any"  # not read by this release: nothing to type-check (QL105 says it is not read)
        elif fact.keys:
            kind = "dict"
        elif fact.type in ("int", "float", "str", "bool", "dict", "list"):
            kind = fact.type  # the release's own typed default
        else:
            kind = record.type  # read through a helper or without a default: the hand-kept type
        keys.append(_TypedKey(record, kind))
    return _ReleaseAdditional(table, keys)


def option_source(name: str, version: str) -> str | None:
    """Where vLLM ``version`` defines option ``name`` (its field, else the add_argument call)."""
    from qlint.knowledge.releases import vllm_option_sources

    return vllm_option_sources(version).get(name)


def parser_source(release: ReleaseFacts) -> str | None:
    """The release's FlexibleArgumentParser (what rejects an unknown option)."""
    return release.parser.get("class_source")

def key_table(scope: Scope, release, fact, option):
    """The key table of a JSON option: the release's own (vLLM sub-configs), else the hand-kept one
    (--additional-config: with the key types of the release's own reader)."""
    if release is not None:
        name = fact.name if fact is not None else option.name
        sub = sub_config(release, name)
        if sub is not None:
            return sub
    table = scope.kb.sub_config(option.name)
    if table is not None and release is not None and option.name == "--additional-config":
        return additional_config_spec(release, table)
    return table
