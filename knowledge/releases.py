"""Per-release facts extracted from the sources (``knowledge/data/vllm``, ``knowledge/data/ascend``).

``facts_for("v0.25.1rc1")`` loads only that vllm-ascend release and the vLLM release its Dockerfile
names: the ``vllm serve`` options with their spellings, types, choices, ranges and defaults, the JSON
sub-config keys, the additional-config keys, environment variables and startup validations, each with
a pinned URL. The files are written by ``python -m qlint.knowledge.extract`` and validated with the
pydantic models of :mod:`qlint.knowledge.models` when they change (then served from the compiled
cache, as :func:`qlint.knowledge.base.load` does), so linting does not import pydantic.

A release without data (``v0.8.5rc1``, ``v0.26.0``) is checked as the nearest known release at or
below it (the oldest known one when it is older than all); ``ReleaseFacts.requested`` keeps the
asked tag and ``ReleaseFacts.release`` names the one used.
"""

from __future__ import annotations

import os
from functools import lru_cache

from qlint import __version__
from qlint.knowledge.base import KnowledgeError, _cache_dir, parse_version, release_tag, unique_prefix
from qlint.knowledge.compiled import read_json
from qlint.record import field, record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_DATA_DIR = os.path.join(os.path.dirname(__file__), "data")


@record
class Option:
    """One option of ``vllm serve`` at a release (see ExtractedOption for the fields)."""

    name: str
    kind: str
    source: str
    aliases: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    choices_open: bool = False
    enum: tuple[str, ...] = ()
    default: Any = None
    negatable: bool = False
    parser: str | None = None
    range: dict[str, float] = field(default_factory=dict)
    range_sources: tuple[str, ...] = ()
    field: str | None = None
    field_source: str | None = None
    sub_config: str | None = None
    deprecated: bool = False
    optional_value: bool = False

    def __init__(self, name: str, kind: str, source: str, aliases: tuple[str, ...] = (), choices: tuple[str, ...] = (),
                 choices_open: bool = False, enum: tuple[str, ...] = (), default: Any = None, negatable: bool = False,
                 parser: str | None = None, range: dict[str, float] | None = None, range_sources: tuple[str, ...] = (),
                 field: str | None = None, field_source: str | None = None, sub_config: str | None = None,
                 deprecated: bool = False, optional_value: bool = False) -> None:  # a few hundred per release
        self.name = name
        self.kind = kind
        self.source = source
        self.aliases = aliases
        self.choices = choices
        self.choices_open = choices_open
        self.enum = enum
        self.default = default
        self.negatable = negatable
        self.parser = parser
        self.range = {} if range is None else range
        self.range_sources = range_sources
        self.field = field
        self.field_source = field_source
        self.sub_config = sub_config
        self.deprecated = deprecated
        self.optional_value = optional_value

    @property
    def takes_value(self) -> bool:
        return self.kind != "bool"


@record
class Key:
    """A key of a JSON sub-config or of an additional-config section; ``keys`` when it is a section."""

    key: str
    type: str
    source: str
    choices: tuple[str, ...] = ()
    enum: tuple[str, ...] = ()
    enum_by_name: bool = False
    default: Any = None
    range: dict[str, float] = field(default_factory=dict)
    range_sources: tuple[str, ...] = ()
    keys: dict[str, "Key"] = field(default_factory=dict)
    closed: bool | None = None
    closed_source: str | None = None

    def __init__(self, key: str, type: str, source: str, choices: tuple[str, ...] = (), enum: tuple[str, ...] = (),
                 enum_by_name: bool = False, default: Any = None, range: dict[str, float] | None = None,
                 range_sources: tuple[str, ...] = (), keys: dict[str, "Key"] | None = None, closed: bool | None = None,
                 closed_source: str | None = None) -> None:  # a few hundred per release
        self.key = key
        self.type = type
        self.source = source
        self.choices = choices
        self.enum = enum
        self.enum_by_name = enum_by_name
        self.default = default
        self.range = {} if range is None else range
        self.range_sources = range_sources
        self.keys = {} if keys is None else keys
        self.closed = closed
        self.closed_source = closed_source


@record
class SubConfig:
    option: str
    cls: str
    closed: bool
    typed: bool
    closed_source: str
    source: str
    keys: dict[str, Key]


@record
class ReleaseFacts:
    """What one vllm-ascend release (and its vLLM) accepts. Built by :func:`facts_for`."""

    requested: str
    release: str  # the vllm-ascend release whose data is used
    vllm: str  # the vLLM version of that data (``0.25.1``)
    vllm_paired: str | None  # the VLLM_TAG its Dockerfile names (``v0.25.1``; may lack an sdist)
    vllm_source: str | None
    options: dict[str, Option]
    spellings: dict[str, str]  # every spelling (aliases included, long names dashed) -> option name
    parser: dict[str, Any]
    sub_configs: dict[str, SubConfig]
    additional_config: dict[str, Key]
    vllm_env: dict[str, dict]
    ascend_env: dict[str, dict]
    validations: list[dict]
    unread: tuple[str, ...]
    long_names: tuple[str, ...] = ()
    key_tables: Any = field(default=None, repr=False, compare=False)
    """The sub-configs' key tables as the layout holds them, made when it was written (``_KeyTables``), or
    None: ``key_table`` answers None and the rules build them from ``sub_configs``."""

    @property
    def exact(self) -> bool:
        return self.requested == self.release

    def resolve(self, spelled: str) -> tuple[str | None, bool, str | None]:
        """A written option head (no ``=value``, no ``.key``) -> (option name, negated, inline value).

        Follows FlexibleArgumentParser of this release: ``_`` and ``-`` are one in long names,
        ``--no-x`` negates a boolean, unambiguous prefixes are accepted when argparse's
        ``allow_abbrev`` is on, ``-O3`` / ``-O=3`` (a two-character short option glued to its
        value). Returns (None, False, None) for an option this release does not have.
        """
        if spelled.startswith("--"):
            name = "--" + spelled[2:].replace("_", "-") if self.parser.get("underscores") else spelled
            if name in self.spellings:
                return self.spellings[name], False, None
            if name.startswith("--no-"):
                positive = self.spellings.get("--" + name[5:])
                if positive is not None and self.options[positive].negatable:
                    return positive, True, None
            if self.parser.get("allow_abbrev", True) and len(name) > 3:
                match = unique_prefix(self.long_names, name)  # sorted
                if match is not None:
                    return self.spellings[match], False, None
            return None, False, None
        if spelled in self.spellings:
            return self.spellings[spelled], False, None
        if spelled == "-O" and self.parser.get("o_concat"):  # -O 3 -> --optimization-level 3
            target = self.parser.get("o_concat_target") or "--optimization-level"
            return (target, False, None) if target in self.options else (None, False, None)
        if spelled.startswith("-O") and len(spelled) > 2 and self.parser.get("o_concat"):
            target = self.parser.get("o_concat_target") or "--optimization-level"
            if target in self.options:
                return target, False, spelled[3:] if spelled[2] == "=" else spelled[2:]
        short = spelled[:2]
        if len(spelled) > 2 and short in self.spellings and self.options[self.spellings[short]].takes_value:
            # argparse reads -q8 as -q 8 for a one-letter short option that takes a value
            rest = spelled[2:]
            return self.spellings[short], False, rest[1:] if rest.startswith("=") else rest
        return None, False, None

    def option(self, name: str) -> Option | None:
        return self.options.get(name)

    def key_table(self, option: str) -> list[Any] | None:
        """The key table of sub-config ``option`` made when the layout was written: ``[closed, source,
        closed_source, typed, class, rows]`` with the ``key_rows`` of its keys less those ``rejected_fields``
        finds in the validations of its class; None when the layout holds none for it (then it is built from
        ``sub_configs``: what ``key_rows`` makes of them is the same)."""
        tables = self.key_tables
        return tables.get(option) if tables is not None else None

    def validations_of(self, cls: str) -> list[dict]:
        """The startup validations of config class ``cls`` (vLLM's, then vllm-ascend's)."""
        of_class = getattr(self.validations, "of_class", None)  # a _Records reads only those
        if of_class is not None:
            return of_class(cls)
        return [record for record in self.validations if record.get("class") == cls]

    def dotted_ok(self, spelled: str) -> bool:
        """Whether ``spelled.key`` (``--x.key`` / ``-cc.key``) is read as a JSON sub-key in this release."""
        if spelled.startswith("--"):
            return bool(self.parser.get("dotted_long") or self.parser.get("dotted_any"))
        return bool(self.parser.get("dotted_any"))

    def vllm_url(self, path: str, line: int | None = None) -> str:
        anchor = f"#L{line}" if line else ""
        return f"https://github.com/vllm-project/vllm/blob/v{self.vllm}/{path}{anchor}"


def _read_bytes(relative: str) -> bytes:
    try:
        with open(os.path.join(_DATA_DIR, relative), "rb") as handle:
            return handle.read()
    except OSError as error:
        raise KnowledgeError(f"{relative}: missing knowledge file") from error


def _decode(relative: str, data: bytes) -> Any:
    try:
        return read_json(data)
    except ValueError as error:
        raise KnowledgeError(f"{relative}: {error}") from error


def _read_json(relative: str) -> tuple[bytes, Any]:
    data = _read_bytes(relative)
    return data, _decode(relative, data)


@lru_cache(maxsize=1)
def release_index() -> dict[str, Any]:
    """``release_index.json``: the releases with data (oldest first) and the vLLM versions."""
    return _read_json("release_index.json")[1]


@lru_cache(maxsize=32)
def vllm_option_sources(version: str) -> dict[str, str]:
    """Option name -> where vLLM ``version`` defines it (field, else add_argument); {} without data.
    Read for a finding about an option of another release, so the JSON is not validated here."""
    try:
        options = _read_json(f"vllm/{version}.json")[1]["options"]
    except (KnowledgeError, KeyError, TypeError):
        return {}
    return {item["name"]: item.get("field_source") or item["source"] for item in options}


def known_releases() -> list[str]:
    return [item["release"] for item in release_index()["releases"]]


@lru_cache(maxsize=1)
def _release_files() -> frozenset[str]:
    """The names in ``ascend/``: a release has data there exactly when the index lists it (a test says so)."""
    try:
        return frozenset(os.listdir(os.path.join(_DATA_DIR, "ascend")))
    except OSError:
        return frozenset()


def nearest_release(tag: str) -> str | None:
    """The release whose data checks ``tag``: itself, else the newest known one not above it."""
    if isinstance(tag, str) and f"{tag}.json" in _release_files():
        return tag  # a known release, told without reading the index
    releases = known_releases()
    if tag in releases:
        return tag
    try:
        tag = release_tag(tag)  # v0.23.0-a3 is v0.23.0, not the alpha pre-release 0.23.0a3
        if tag in releases:
            return tag
        wanted = parse_version(tag)
    except Exception:
        return None
    below = [r for r in releases if parse_version(r) <= wanted]
    if below:
        return max(below, key=parse_version)
    return min(releases, key=parse_version) if releases else None


_KEY_DEFAULTS: dict[str, Any] = {"key": None, "type": "any", "source": None, "choices": (), "enum": (),
                                 "enum_by_name": False, "default": None, "range": None, "range_sources": (),
                                 "keys": (), "closed": None, "closed_source": None}
_OPTION_DEFAULTS: dict[str, Any] = {"name": None, "kind": None, "source": None, "aliases": (), "choices": (),
                                    "choices_open": False, "enum": (), "default": None, "negatable": False,
                                    "parser": None, "range": None, "range_sources": (), "field": None,
                                    "field_source": None, "sub_config": None, "deprecated": False,
                                    "optional_value": False}


def _fields(record: dict, defaults: dict[str, Any]) -> dict[str, Any]:
    """A data record's values of the fields ``defaults`` names, in that order, defaults filled in; the
    values the data writes as lists are tuples, and ``range`` keeps only the bounds that are set."""
    values = {**defaults, **record}
    if len(values) != len(defaults):  # keys the class has no field for (nargs, class, ...)
        for key in values.keys() - defaults.keys():
            del values[key]
    for key in ("choices", "enum", "range_sources"):
        values[key] = tuple(values[key])
    bounds = values["range"]
    values["range"] = {k: v for k, v in bounds.items() if v is not None} if bounds else {}
    return values


def _key(record: dict) -> Key:
    record["key"], record["source"]  # required (KeyError otherwise, as the keyword arguments were)
    values = _fields(record, _KEY_DEFAULTS)
    values["keys"] = {item["key"]: _key(item) for item in values["keys"]}
    key = object.__new__(Key)  # what Key(**values) sets, without its keyword call (a few hundred a release)
    key.__dict__.update(values)
    return key


def _option(record: dict) -> Option:
    record["name"], record["kind"], record["source"]
    values = _fields(record, _OPTION_DEFAULTS)
    values["aliases"] = tuple(values["aliases"])
    option = object.__new__(Option)  # as in _key
    option.__dict__.update(values)
    return option


def _spellings(options: Any) -> dict[str, str]:
    """Every spelling of the options (``(name, aliases)`` pairs, in order) -> option name: each name, then
    its aliases, long ones dashed."""
    spellings: dict[str, str] = {}
    for name, aliases in options:
        spellings[name] = name
        for alias in aliases:
            spellings[alias.replace("_", "-") if alias.startswith("--") else alias] = name
    return spellings


def _long_names(spellings: dict[str, str]) -> tuple[str, ...]:
    return tuple(sorted(name for name in spellings if name.startswith("--")))


# -- sub-config key tables: what the option rules read of a JSON sub-config (QL105, QL106) ----------------

_SET_AT_ALL = r"^self\.(\w+) is not None$"
"""A condition true for any value of a field: read by :func:`set_at_all` (a test checks they agree)."""


def set_at_all(condition: str) -> str | None:
    """The field of ``re.match(_SET_AT_ALL, condition)``, told with string operations, or None."""
    if condition.endswith("\n"):
        condition = condition[:-1]  # ``$`` also matches before a final newline
    if not condition.startswith("self.") or not condition.endswith(" is not None"):
        return None
    name = condition[5:-12]
    return name if name and name.replace("_", "a").isalnum() else None  # \w+


def rejected_fields(validations: Any) -> set[str]:
    """Fields whose every value a startup check of ``validations`` (records of one config class) refuses,
    e.g. SpeculativeConfig's ``if self.tensor_parallel_size is not None: raise ValueError("... is not a
    valid argument ...")``."""
    found = set()
    for record in validations:
        if "not a valid" not in record.get("message", ""):
            continue
        name = set_at_all(record.get("condition") or "")
        if name:
            found.add(name)
    return found


_KEY_TYPES = ("int", "float", "str", "bool", "dict", "list")


def key_rows(keys: dict[str, Key], rejected: set[str]) -> list[list[Any]]:
    """A sub-config's keys (``SubConfig.keys``) as the option rules read them, nested ones dotted
    (``pass_config.fuse_norm_quant``) after their parent, each ``[key, type, choices, enum, range, source,
    upper, range_sources]`` (``qlint.rules.kit.options.KeySpec``); a key in ``rejected`` is left out with
    what it nests (any value of it is a startup error: as good as unknown)."""
    rows: list[list[Any]] = []

    def walk(table: dict[str, Key], prefix: str) -> None:
        for key, fact in table.items():
            dotted = prefix + key
            if dotted in rejected:
                continue
            kind = fact.type if fact.type in _KEY_TYPES else "any"
            if fact.keys:
                kind = "dict"
            elif fact.type == "dict" or (fact.type == "any" and not fact.choices):
                kind = "any" if fact.type == "any" else "dict"
            # an enum read by name (CompilationConfig.validate_cudagraph_mode_before: CUDAGraphMode[value.upper()])
            upper = bool(fact.enum and getattr(fact, "enum_by_name", False))
            choices = list(fact.choices) if fact.choices or not upper else list(fact.enum)
            rows.append([dotted, kind, choices, list(fact.enum), dict(fact.range), fact.source, upper,
                         list(fact.range_sources)])
            if fact.keys:
                walk(fact.keys, dotted + ".")

    walk(keys, "")
    return rows


class _KeyTables:
    """The key tables a vLLM layout holds (``layout_of``), each decoded when asked for; None for one the
    release's vllm-ascend data also has startup checks of (they may reject more keys: then the table is
    built from the records, as without a layout)."""

    __slots__ = ("_tail", "_spans", "_ascend", "_ascend_classes")

    def __init__(self, tail: bytes, spans: dict[str, list[int]], ascend: dict[str, Any]) -> None:
        self._tail, self._spans, self._ascend = tail, spans, ascend
        self._ascend_classes: set[Any] | None = None

    def get(self, option: str) -> list[Any] | None:
        span = self._spans.get(option)
        if span is None:
            return None
        table = read_json(self._tail[span[0]:span[1]])
        classes = self._ascend_classes
        if classes is None:
            classes = self._ascend_classes = set(_split(self._ascend["labels"]))
        return None if table[4] in classes else table


# -- layouts: where each record of a release data file sits, so a run decodes only what it reads --------

LAYOUT_DIR = "layout"
"""``knowledge/data/layout/<vllm|ascend>-<name>.json``: the layout of each release data file, written by
``python -m qlint.knowledge.compiled`` with the compiled knowledge (a test checks they are current)."""
LAYOUT_FORMAT = 4
_LAID_OUT = {"options": "name", "sub_configs": "option", "validations": "class", "additional_config.keys": "key"}
"""The lists whose records a layout places one by one, and the field that names each record."""


def _span(laid: dict[str, Any], at: int) -> tuple[int, int]:
    """The byte span of record ``at`` of a list a layout places (see ``layout_of``)."""
    spans, width = laid["spans"], laid["width"]
    start = 2 * at * width
    return int(spans[start:start + width]), int(spans[start + width:start + 2 * width])


_SEPARATOR = " "
"""What separates the names of a layout's string of names (``_joined``): a character JSON writes as itself,
so that the string scans without escapes."""


def _split(names: str | list[Any]) -> list[Any]:
    """The names ``_joined`` gave."""
    if isinstance(names, str):
        return names.split(_SEPARATOR) if names else []
    return names


def _layout_name(relative: str) -> str:
    """``vllm/0.23.0.json`` -> ``layout/vllm-0.23.0.json``."""
    return f"{LAYOUT_DIR}/{relative.replace('/', '-')}"


def _layout(relative: str, data: bytes, crc: int) -> dict[str, Any] | None:
    """The shipped layout of data file ``relative`` when it was made from these very bytes, else None; the
    lines after its first (the key tables, see ``_layout_bytes``) are its ``tail``."""
    try:
        with open(os.path.join(_DATA_DIR, _layout_name(relative)), "rb") as handle:
            head, _, tail = handle.read().partition(b"\n")
        body = read_json(head)
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict) or body.get("format") != LAYOUT_FORMAT or body.get("stamp") != [len(data), crc]:
        return None
    body["tail"] = tail
    return body


class _Table:
    """A read-only name -> object mapping over records of a data file, each decoded (from its byte span)
    and built (``build``) when it is first read; ``laid``: the labels and spans of the records (see
    ``layout_of``). ``whole``: the span of the entire list, for a table whose records are not laid out one
    by one (decoded, named by ``label``, on first use)."""

    __slots__ = ("_data", "_names_at", "_spans", "_build", "_made", "_whole", "_label")

    def __init__(self, data: bytes, laid: dict[str, Any] | None, build,
                 whole: tuple[int, int] | None = None, label: str = "name") -> None:
        self._names_at: dict[str, Any] | None = None  # name -> the position of its record
        self._spans: Any = None
        if laid is not None:
            names = _split(laid["labels"])
            self._names_at = dict(zip(names, range(len(names))))
            self._spans = laid
        self._made: dict[str, Any] = {}
        self._data, self._build = data, build
        self._whole, self._label = whole, label

    def _names(self) -> dict[str, Any]:
        names = self._names_at
        if names is None:  # the whole list at once
            start, end = self._whole  # type: ignore[misc]
            made = self._made
            for record in read_json(self._data[start:end]):
                made[record[self._label]] = self._build(record)
            names = self._names_at = dict.fromkeys(made, None)
        return names

    def _item(self, name: str) -> Any:
        made = self._made
        if name in made:
            return made[name]
        at = self._names()[name]  # KeyError for a name the table has not
        start, end = _span(self._spans, at)
        built = made[name] = self._build(read_json(self._data[start:end]))
        return built

    def add(self, name: str, value: Any) -> None:
        """A record that is not in the data (``--help``), after the others."""
        self._names()[name] = None
        self._made[name] = value

    def get(self, name: str, default: Any = None) -> Any:
        return self._item(name) if name in self._names() else default

    def __getitem__(self, name: str) -> Any:
        return self._item(name)

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self):
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def keys(self):
        return self._names().keys()

    def values(self) -> list[Any]:
        return [self._item(name) for name in self._names()]

    def items(self) -> list[tuple[str, Any]]:
        return [(name, self._item(name)) for name in self._names()]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Table):
            other = dict(other.items())
        return isinstance(other, dict) and dict(self.items()) == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class _Records:
    """A read-only list of the records of several data files (vLLM's validations, then vllm-ascend's), each
    decoded when first read; ``of_class`` decodes only the records of one config class. ``parts``: each
    file's bytes and the labels and spans of its records (see ``layout_of``)."""

    __slots__ = ("_parts", "_all", "_by_class", "_labels")

    def __init__(self, parts: list[tuple[bytes, dict[str, Any]]]) -> None:
        self._parts = parts
        self._all: list[dict] | None = None
        self._by_class: dict[str, list[dict]] = {}
        self._labels: list[tuple[bytes, list[Any], dict[str, Any]]] | None = None  # each part's labels

    def _where(self, cls: str | None, every: bool = False) -> list[dict]:
        if self._labels is None:
            self._labels = [(data, _split(laid["labels"]), laid) for data, laid in self._parts]
        found = []
        for data, labels, laid in self._labels:
            for at, label in enumerate(labels):
                if every or label == cls:
                    start, end = _span(laid, at)
                    found.append(read_json(data[start:end]))
        return found

    def _records(self) -> list[dict]:
        if self._all is None:
            self._all = self._where(None, every=True)
        return self._all

    def of_class(self, cls: str) -> list[dict]:
        found = self._by_class.get(cls)
        if found is None:
            found = self._by_class[cls] = self._where(cls)
        return found

    def __iter__(self):
        return iter(self._records())

    def __len__(self) -> int:
        return len(self._records())

    def __getitem__(self, index):
        return self._records()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Records):
            other = other._records()
        return isinstance(other, list) and self._records() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._records())


def _build_laid_out(requested: str, release: str, ascend_bytes: bytes, ascend_layout: dict[str, Any],
                    vllm_bytes: bytes, vllm_layout: dict[str, Any]) -> ReleaseFacts | None:
    """What ``_build`` makes of the two files, read through their layouts: the few top-level values every
    run reads are decoded now, each option, sub-config, additional-config key and validation when read.
    None when a layout lacks a part (then ``_build`` reads the whole files)."""
    ascend_values, vllm_values = ascend_layout["values"], vllm_layout["values"]
    ascend_records, vllm_records = ascend_layout["records"], vllm_layout["records"]

    def value(data: bytes, values: dict[str, list[int]], key: str, default: Any = None) -> Any:
        span = values.get(key)
        return read_json(data[span[0]:span[1]]) if span is not None else default

    needed = (("options" in vllm_records, "sub_configs" in vllm_records, "validations" in vllm_records,
               "env_vars" in vllm_values, "validations" in ascend_records, "env_vars" in ascend_values,
               "additional_config.keys" in ascend_records, "spellings" in vllm_layout))
    if not all(needed):
        return None
    parser = value(vllm_bytes, vllm_values, "parser")
    changes: dict[str, list[list[str]]] = {}
    for change in value(ascend_bytes, ascend_values, "cli_changes", ()):
        changes.setdefault(change["option"], []).append(change["add_choices"])

    def option(record: dict) -> Option:
        built = _option(record)
        for added in changes.get(built.name, ()):
            if built.choices:
                built.choices = built.choices + tuple(c for c in added if c not in built.choices)
        return built

    options = _Table(vllm_bytes, vllm_records["options"], option)
    if "--help" not in options:  # argparse adds -h/--help to every parser
        options.add("--help", Option(name="--help", kind="bool", source=parser.get("class_source") or
                                     options[next(iter(options))].source, aliases=("-h",)))
    spelled = _split(vllm_layout["spellings"])  # what _build makes of the names and aliases (see layout_of)
    spellings = dict(zip(spelled, spelled))
    spellings.update(vllm_layout["spelled"])

    def sub_config(record: dict) -> SubConfig:
        return SubConfig(option=record["option"], cls=record["class"], closed=record["closed"],
                         typed=record.get("typed", True), closed_source=record["closed_source"],
                         source=record["source"], keys={item["key"]: _key(item) for item in record["keys"]})

    def env(record: dict) -> dict:
        return record

    spans = vllm_layout.get("key_tables")
    key_tables = _KeyTables(vllm_layout["tail"], spans, ascend_records["validations"]) \
        if isinstance(spans, dict) else None

    return ReleaseFacts(
        requested=requested, release=release, vllm=value(vllm_bytes, vllm_values, "version"),
        vllm_paired=value(ascend_bytes, ascend_values, "vllm"),
        vllm_source=value(ascend_bytes, ascend_values, "vllm_source"), options=options, spellings=spellings,  # type: ignore[arg-type]
        parser=parser,
        sub_configs=_Table(vllm_bytes, vllm_records["sub_configs"], sub_config),  # type: ignore[arg-type]
        additional_config=_Table(ascend_bytes, ascend_records["additional_config.keys"], _key),  # type: ignore[arg-type]
        vllm_env=_Table(vllm_bytes, None, env, whole=tuple(vllm_values["env_vars"])),  # type: ignore[arg-type]
        ascend_env=_Table(ascend_bytes, None, env, whole=tuple(ascend_values["env_vars"])),  # type: ignore[arg-type]
        validations=_Records([(vllm_bytes, vllm_records["validations"]),  # type: ignore[arg-type]
                              (ascend_bytes, ascend_records["validations"])]),
        unread=tuple(value(vllm_bytes, vllm_values, "unread")) + tuple(value(ascend_bytes, ascend_values, "unread")),
        long_names=tuple(_split(vllm_layout["long_names"])), key_tables=key_tables,
    )


@lru_cache(maxsize=64)
def facts_for(tag: str) -> ReleaseFacts | None:
    """The facts of vllm-ascend ``tag`` (or of the nearest known release); None when no data exists."""
    release = nearest_release(tag)
    if release is None:
        return None
    facts = _release_facts(release)
    if facts is None or facts.requested == tag:
        return facts
    return replace(facts, requested=tag)  # shares the (read-only) tables of the release


SHIPPED_VALIDATED = "validated_releases.json"
"""The digests of the release data files that were validated when the package was built, shipped in
``knowledge/data`` (``python -m qlint.knowledge.compiled`` writes it, with the compiled knowledge)."""


def _digest(ascend_size: int, ascend_crc: int, vllm_size: int, vllm_crc: int) -> str:
    return f"{__version__}-{ascend_size:x}-{ascend_crc:08x}-{vllm_size:x}-{vllm_crc:08x}"


@lru_cache(maxsize=1)
def _shipped_validated() -> frozenset[str]:
    """The digests in the shipped list; empty when it is missing or not the expected JSON."""
    try:
        with open(os.path.join(_DATA_DIR, SHIPPED_VALIDATED), "rb") as handle:
            body = read_json(handle.read())
    except (OSError, ValueError):
        return frozenset()
    digests = body.get("digests") if isinstance(body, dict) and body.get("format") == 1 else None
    return frozenset(item for item in digests if isinstance(item, str)) if isinstance(digests, list) else frozenset()


@lru_cache(maxsize=None)
def _release_facts(release: str) -> ReleaseFacts | None:
    """The facts of one known release, built once per process from its data files.

    The files are validated with pydantic unless the package says it validated these very files
    (their digest is in ``SHIPPED_VALIDATED``) or this user already did: a private marker file named by
    their digest (``release-<digest>.validated`` in the cache directory) records that, so later runs
    only parse the JSON. The marker holds nothing that is read back: no cached object is ever loaded (a
    pickle here once let a planted cache file run code).
    """
    from binascii import crc32

    ascend_name = f"ascend/{release}.json"
    ascend_bytes = _read_bytes(ascend_name)
    ascend_crc = crc32(ascend_bytes)
    ascend_layout = _layout(ascend_name, ascend_bytes, ascend_crc)
    if ascend_layout is not None:  # the file is the one laid out: the one value is read from its span
        span = ascend_layout["values"].get("vllm_data")
        vllm_version = read_json(ascend_bytes[span[0]:span[1]]) if span is not None else None
        ascend = None
    else:
        ascend = _decode(ascend_name, ascend_bytes)
        vllm_version = ascend.get("vllm_data")
    if not vllm_version:
        return None
    vllm_name = f"vllm/{vllm_version}.json"
    vllm_bytes = _read_bytes(vllm_name)
    vllm_crc = crc32(vllm_bytes)
    digest = _digest(len(ascend_bytes), ascend_crc, len(vllm_bytes), vllm_crc)
    if digest in _shipped_validated():
        vllm_layout = _layout(vllm_name, vllm_bytes, vllm_crc) if ascend_layout is not None else None
        if ascend_layout is not None and vllm_layout is not None:
            facts = _build_laid_out(release, release, ascend_bytes, ascend_layout, vllm_bytes, vllm_layout)
            if facts is not None:
                return facts
        from qlint.knowledge.release_data import _build  # the whole files: not the layouts' (rare)

        return _build(release, release, ascend if ascend is not None else _decode(ascend_name, ascend_bytes),
                      _decode(vllm_name, vllm_bytes))
    if ascend is None:
        ascend = _decode(ascend_name, ascend_bytes)
    vllm = _decode(vllm_name, vllm_bytes)
    directory = _cache_dir()
    marker = directory / f"release-{digest}.validated" if directory else None
    from qlint.knowledge.compiled import trusted_cache_file

    from qlint.knowledge.release_data import _build, _validate

    if marker is None or not trusted_cache_file(marker):
        _validate(ascend_name, ascend, "AscendReleaseData")
        _validate(vllm_name, vllm, "VllmReleaseData")
        if marker is not None:
            try:
                marker.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                descriptor = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.close(descriptor)
            except OSError:
                pass  # a read-only home only costs the validation time
    return _build(release, release, ascend, vllm)
