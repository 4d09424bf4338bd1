"""Load and query the knowledge base (the TOML files in ``knowledge/data``).

``load()`` returns one cached :class:`KnowledgeBase`. A data file that does not
validate raises :class:`KnowledgeError` naming the file and the path of the bad
field (``models.toml: model[3].variants[0].weights_gb: ...``).
"""

from __future__ import annotations

import os
import re
import sys
from functools import cached_property, lru_cache
from types import SimpleNamespace

from qlint import __version__
from qlint.knowledge import compiled
from qlint.knowledge.compiled import Damaged  # one name: an import statement costs ~8 K instructions a call
from qlint.knowledge.text import Text
from qlint.knowledge.versions import InvalidVersion, Version
from qlint.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: the pydantic models are imported to validate (see load()), pathlib
    from pathlib import Path  # where a cache folder is used (the shipped knowledge needs none)
    from typing import Any, Callable

    from qlint.knowledge.models import (
        Architecture,
        Behaviour,
        EnvVar,
        FaqEntry,
        FlagSpec,
        Hardware,
        KnownDefect,
        LogSignature,
        Model,
        ModelVariant,
        Recipe,
        RedundantSetting,
        Release,
        SubConfig,
        WeightFormat,
    )

# (KnowledgeBase field, data file, top-level TOML key, pydantic model in qlint.knowledge.models)
DATA_FILES = (
    ("hardware", "hardware.toml", "hardware", "Hardware"),
    ("models", "models.toml", "model", "Model"),
    ("releases", "releases.toml", "release", "Release"),
    ("flags", "serve_flags.toml", "flag", "FlagSpec"),
    ("sub_configs", "sub_configs.toml", "sub_config", "SubConfig"),
    ("env_vars", "env_vars.toml", "env", "EnvVar"),
    ("faqs", "faq.toml", "faq", "FaqEntry"),
    ("recipes", "recipes.toml", "recipe", "Recipe"),
    ("redundant", "redundant.toml", "redundant", "RedundantSetting"),
    ("architectures", "architectures.toml", "architecture", "Architecture"),
    ("log_signatures", "log_signatures.toml", "signature", "LogSignature"),
    ("weight_formats", "weight_formats.toml", "format", "WeightFormat"),
    ("defects", "defects.toml", "defect", "KnownDefect"),
    ("behaviours", "behaviours.toml", "behaviour", "Behaviour"),
)


KEYED = {"behaviours": "name", "defects": "id", "env_vars": "name", "faqs": "id", "flags": "name", "models": "id"}
"""The fields the compiled form can read one record of (field -> the attribute naming a record):
``KnowledgeBase.behaviour``, ``env_var``, ``faq``, ``flag``, ``defects_where`` and the models a name resolves
to (``_alias``)."""

FIRST_KEYED = {"architectures": "model", "hardware": "id", "releases": "tag", "weight_formats": "id"}
"""The fields looked up by the first record of a name (``KnowledgeBase._first``: ``hardware_by_id``,
``weight_format``, ``release``, ``architecture``...), which the compiled form can read one record of when
their names are unique (then the first is the one a table of names gives; see ``_keyed``)."""


class Record(SimpleNamespace):
    """A validated knowledge record: the pydantic model's fields as plain attributes.

    Records are what the rest of qlint reads at run time, so that linting does
    not import pydantic; validation happens when the data files change.
    """

MAIN = "main"
"""The development branch; compares above every release."""


class KnowledgeError(Exception):
    """A knowledge data file is missing or invalid. The message names file and field."""


@lru_cache(maxsize=1024)
def parse_version(tag: str) -> Version:
    """``v0.23.0rc1`` -> Version('0.23.0rc1'); ``main`` -> a version above all releases.

    Raises InvalidVersion for anything else. Cached: rules compare the same few
    tags many times per script, and a Version is immutable.
    """
    if tag == MAIN:
        return Version("9999")
    return Version(tag.removeprefix("v"))


_RELEASE_TEXT = (r"^v?(?P<number>\d+\.\d+\.\d+(?:\.\d+)?(?:rc\d+|\.post\d+)?)"
                 r"(?P<suffix>(?:-(?:a2|a3|310p|openeuler|ubuntu[\w.]*|dev))*)$")


@lru_cache(maxsize=None)
def _pattern(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)`` on first use: a module's patterns are not all needed by a lint."""
    return re.compile(source, flags)


def _plain_tag(stripped: str) -> str | None:
    """``release_tag`` of an ASCII tag without a suffix (``v0.23.0``, ``0.10.1.1``, ``V0.11.0RC3``), told with
    string operations: ``"v"`` and the number, lower-cased, as ``_RELEASE_TEXT`` reads it; None for any other
    text (the pattern decides; a test checks the two agree)."""
    if not stripped.isascii():
        return None
    number = (stripped[1:] if stripped[:1] in ("v", "V") else stripped).lower()
    release, marker, tail = number.partition("rc")
    if not marker:
        release, marker, tail = number.partition(".post")
    if marker and not (tail.isdigit() and tail.isascii()):
        return None
    parts = release.split(".")
    if len(parts) not in (3, 4) or not all(part.isdigit() for part in parts):
        return None
    Version(number)  # as release_tag (plain numbers always read)
    return "v" + number


def release_tag(text: str) -> str:
    """A release as a user writes it -> its vllm-ascend tag.

    ``v0.23.0`` and ``0.23.0`` -> ``v0.23.0``; image-style tags drop the hardware and OS
    suffix: ``v0.23.0-a3`` -> ``v0.23.0``, ``v0.23.0rc1-310p-openeuler`` -> ``v0.23.0rc1``;
    ``main`` stays ``main``. Raises InvalidVersion for anything else (``0.23.0-a3`` is not
    read as the alpha pre-release packaging would make of it).
    """
    if not isinstance(text, str):
        raise InvalidVersion(repr(text))
    stripped = text.strip()
    if stripped.lower() == MAIN:
        return MAIN
    plain = _plain_tag(stripped)
    if plain is not None:  # the pattern's answer, told without compiling it (~1.5 M instructions a run)
        return plain
    match = _pattern(_RELEASE_TEXT, re.IGNORECASE).match(stripped)
    if match is None:
        raise InvalidVersion(f"{text!r} is not a vllm-ascend release tag like v0.23.0")
    number = match.group("number").lower()
    Version(number)  # raises InvalidVersion for what packaging cannot read
    return "v" + number


def defect_affects(entry: Any, tag: str) -> bool:
    """True when known defect ``entry`` (its ``since``, ``until``, ``fixed_in``) affects release ``tag``."""
    version = parse_version(tag)
    if entry.since is not None and version < parse_version(entry.since):
        return False
    if entry.until is not None and version > parse_version(entry.until):
        return False
    if entry.fixed_in is not None and version >= parse_version(entry.fixed_in):
        return False
    return True


DEFECT_CONDITION = ("fact", "env", "flag", "op", "value", "than", "blame")


def defect_row(entry: Any) -> list[Any]:
    """What picks the known defects a command hits, of one defect: ``[id, hardware, models, conditions]``, each
    condition the values of the attributes ``DEFECT_CONDITION`` names, in order (``KnowledgeBase.defect_rows``)."""
    return [entry.id, list(entry.hardware), list(entry.models),
            [[getattr(condition, name, None) for name in DEFECT_CONDITION] for condition in entry.when]]


def version_in(tag: str, since: str | None = None, until: str | None = None) -> bool:
    """True when ``since <= tag < until`` (either bound may be None)."""
    version = parse_version(tag)
    if since is not None and version < parse_version(since):
        return False
    if until is not None and version >= parse_version(until):
        return False
    return True


_DATA_DIR = os.path.join(os.path.dirname(__file__), "data")


def __getattr__(name: str) -> Any:
    """``resources`` (importlib.resources) is imported on first use: it costs a few ms at start-up."""
    if name == "resources":
        from importlib import resources

        globals()["resources"] = resources
        return resources
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _direct() -> bool:
    """Whether the data files are read straight from the package's data folder, which is what
    importlib.resources reads for an installed package, unless its ``files`` was replaced (tests do)."""
    module = sys.modules.get("importlib.resources")
    common = sys.modules.get("importlib.resources._common")
    return module is None or (common is not None and module.files is getattr(common, "files", None))


def _read(filename: str) -> bytes:
    if _direct():
        try:
            with open(os.path.join(_DATA_DIR, filename), "rb") as handle:
                return handle.read()
        except OSError:
            pass
    try:
        return __getattr__("resources").files("qlint.knowledge.data").joinpath(filename).read_bytes()
    except FileNotFoundError as error:
        raise KnowledgeError(f"{filename}: missing knowledge file") from error


def _plain(value: Any) -> Any:
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return Record(**{name: _plain(getattr(value, name)) for name in type(value).model_fields})
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _validate(filename: str, key: str, model_name: str, data: bytes) -> list[Record]:
    """Validate one data file with its pydantic model; records come back as plain Records."""
    from pydantic import ValidationError

    from qlint.knowledge import models

    import tomllib  # only when the data files changed: validation is off the lint path

    model = getattr(models, model_name)
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise KnowledgeError(f"{filename}: {error}") from error
    records = []
    for index, item in enumerate(raw.get(key, [])):
        try:
            records.append(_plain(model.model_validate(item)))
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise KnowledgeError(f"{filename}: {key}[{index}].{where}: {first['msg']}") from None
    return records


# A Hugging Face hub cache holds a checkpoint as .../models--ORG--NAME/snapshots/<revision>; the last
# component is a commit hash, the name is in the folder above (huggingface_hub's cache layout).
_HUB_CACHE = r"(?:^|/)models--[^/]+?--([^/]+)/snapshots/[^/]+/?$"


def _basename(reference: str) -> str:
    """The checkpoint's name in a model reference, lower-case: the last path component, or the
    model name of a Hugging Face cache snapshot path; ModelScope's cache spells a ``.`` of the
    name as ``___`` (``Qwen3___5-27B``), read back as ``.``."""
    hub = _pattern(_HUB_CACHE).search(reference) if "/snapshots/" in reference else None
    name = hub.group(1) if hub else reference.rstrip("/").rsplit("/", 1)[-1]
    return name.replace("___", ".").lower()


def checkpoint_name(reference: str) -> str:
    """The checkpoint's name in a model path or hub id, lower-case (see ``_basename``)."""
    return _basename(reference)


_WORD_SPLIT = r"[^a-z0-9]+"


def _squeeze(name: str) -> str:
    """A name without dashes and with ``_`` read as ``.``, lower-case: ``GLM-5.1`` -> ``glm5.1``,
    ``InternVL3_5`` -> ``internvl3.5`` (a dot is kept: ``Qwen3-52B`` is not ``Qwen3.5-2B``)."""
    return name.lower().replace("-", "").replace("_", ".")


def name_words(reference: str) -> list[str]:
    """The lower-case words of a checkpoint name's last path component (split at -, _, ., ...)."""
    return [word for word in _pattern(_WORD_SPLIT).split(_basename(reference)) if word]


@record
class ModelMatch:
    """A model named in a script, resolved against the knowledge."""

    model: Model
    variant: ModelVariant | None
    matched: str  # the spelling that matched


@record
class KnowledgeBase:
    """All knowledge records, with lookups used by rules, generator and docs."""

    hardware: list[Hardware]
    models: list[Model]
    releases: list[Release]
    flags: list[FlagSpec]
    sub_configs: list[SubConfig]
    env_vars: list[EnvVar]
    faqs: list[FaqEntry]
    recipes: list[Recipe]
    redundant: list[RedundantSetting]
    log_signatures: list[LogSignature]  # a normal field: the ones with defaults must come last
    architectures: list[Architecture] = field(default_factory=list)
    weight_formats: list[WeightFormat] = field(default_factory=list)
    defects: list[KnownDefect] = field(default_factory=list)
    behaviours: list[Behaviour] = field(default_factory=list)
    _alias_index: dict[str, tuple[Model, ModelVariant | None]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        _index_aliases(self.models, self._alias_index)

    def __getattr__(self, name: str) -> Any:
        """A field of a knowledge base read from the shipped compiled form (see ``_lazy``), decoded when
        first used, and the alias index built from the models then."""
        source = self.__dict__.get("_source")
        if source is not None:
            if name in _FIELD_NAMES:
                value = self.__dict__[name] = source.field(name)
                return value
            if name == "_alias_index":
                value = self.__dict__[name] = {}
                _index_aliases(self.models, value)
                return value
        raise AttributeError(f"'KnowledgeBase' object has no attribute {name!r}")

    # -- models ----------------------------------------------------------
    def match_model(self, reference: str) -> ModelMatch | None:
        """Resolve a model id, ModelScope/HF id or local path to a known model.

        Exact alias matches win; otherwise the longest model id that prefixes the
        path's last component (``Qwen3.6-27B-w8a8-foo`` -> Qwen3.6-27B), else the longest
        one that does once dashes are dropped and ``_`` read as ``.`` (``GLM5-w8a8`` -> GLM-5).
        """
        lowered = reference.lower()
        base = _basename(reference)
        for key in (lowered, base):
            found = self._alias(key)
            if found is not None:
                return ModelMatch(found[0], found[1], reference)
        candidates = [m for m in self.models if base.startswith(m.id.lower())]
        if not candidates:  # spelled without dashes or with _ for .: GLM5-w8a8, Qwen3_6-27B
            squeezed = _squeeze(base)
            candidates = [m for m in self.models if squeezed.startswith(_squeeze(m.id))]
        if not candidates:
            return None
        model = max(candidates, key=lambda m: len(m.id))
        return ModelMatch(model, self.pick_variant(model, reference), reference)

    def model_by_name(self, name: str) -> ModelMatch | None:
        """A model named exactly: a model id or a checkpoint name / alias (case-insensitive), no prefixes."""
        found = self._alias(name.strip().lower())
        return ModelMatch(found[0], found[1], name) if found is not None else None

    def _alias(self, key: str) -> tuple[Model, ModelVariant | None] | None:
        """``_alias_index.get(key)``; while the models are not decoded, the one model read alone from the
        compiled form (a script names one or two)."""
        state = self.__dict__
        source = state.get("_source")
        if source is not None and "models" not in state and "_alias_index" not in state:
            try:
                return source.alias(key)
            except Damaged:
                pass  # the whole field, then
        return self._alias_index.get(key)

    def pick_variant(self, model: Model, reference: str) -> ModelVariant | None:
        """The variant of ``model`` whose weight format (from the name, BF16 without a
        mark) and MTP head match ``reference``; None when no record fits."""
        words = name_words(reference)
        found = self.format_from_name(reference)
        wanted = found.id if found is not None else "bf16"
        tail = _basename(reference).removeprefix(model.id.lower())
        mtp = "mtp" in _pattern(_WORD_SPLIT).split(tail)
        fitting = [v for v in model.variants if v.quantization == wanted]
        for candidate in fitting:
            if candidate.mtp_head == mtp:
                return candidate
        # a name without "mtp" may still be the one checkpoint of its format (which carries the head)
        return fitting[0] if len(fitting) == 1 and not mtp and "mtp" not in words else None

    # -- weight formats ---------------------------------------------------
    def weight_format(self, format_id: str) -> WeightFormat:
        found = self._first("weight_formats", format_id)
        if found is None:
            raise KeyError(format_id)
        return found

    def _first(self, field: str, key: str) -> Any:
        """The first record of ``field`` (one of ``FIRST_KEYED``) whose naming attribute is ``key``, None for
        none; while the field is not decoded, the record read alone from the compiled form (a lint asks for
        one hardware, release, weight format, architecture)."""
        state = self.__dict__
        source = state.get("_source")
        if source is not None and field not in state:
            try:
                return source.record(field, key)
            except Damaged:
                pass  # the whole field, then (no table: names held twice)
        attribute = FIRST_KEYED[field]
        return next((item for item in getattr(self, field) if getattr(item, attribute) == key), None)

    @cached_property
    def _format_marks(self) -> dict[str, WeightFormat]:
        return {mark: item for item in self.weight_formats for mark in item.name_marks}

    def format_from_name(self, reference: str) -> WeightFormat | None:
        """The weight format a checkpoint name states (highest priority mark), None without a mark.

        A word carries a mark when it is the mark or the mark followed by letters only
        (``w8a8mix``, ``w8a8dynamic``); ``w8a8c8`` is its own mark, not W8A8 plus ``c8``.
        """
        marks = self._format_marks
        found = []
        for word in name_words(reference):
            if word in marks:
                found.append(marks[word])
                continue
            head = word.rstrip("abcdefghijklmnopqrstuvwxyz")
            if head != word and head in marks:
                found.append(marks[head])
        return max(found, key=lambda item: item.priority) if found else None

    def format_from_modelslim(self, quant_type: str) -> WeightFormat | None:
        """The format of a ModelSlim ``model_quant_type`` (``W4A8_DYNAMIC`` -> w4a8)."""
        wanted = quant_type.upper()
        for item in self.weight_formats:
            if wanted in item.modelslim_types:
                return item
        return None

    def format_from_config_method(self, method: str) -> WeightFormat | None:
        """The format of a config.json ``quantization_config.quant_method`` (``fp8``)."""
        for item in self.weight_formats:
            if method.lower() in item.config_methods:
                return item
        return None

    def model(self, model_id: str) -> Model:
        for model in self.models:
            if model.id == model_id:
                return model
        raise KeyError(model_id)

    # -- hardware and versions ------------------------------------------
    def hardware_by_id(self, hardware_id: str) -> Hardware:
        found = self._first("hardware", hardware_id)
        if found is None:
            raise KeyError(hardware_id)
        return found

    @cached_property
    def hardware_ids(self) -> list[str]:
        """``[item.id for item in self.hardware]``: from the hardware's table of records (in file order)
        while the hardware is not decoded."""
        state = self.__dict__
        source = state.get("_source")
        if source is not None and "hardware" not in state:
            try:
                return source.shipped.names("hardware", ordered=True)
            except Damaged:
                pass  # the whole field, then
        return [item.id for item in self.hardware]

    def architecture(self, model_id: str) -> Architecture | None:
        """The (first) architecture record of model ``model_id``; None when there is none."""
        return self._first("architectures", model_id)

    @cached_property
    def latest_stable(self) -> Release:
        stable = [r for r in self.releases if r.stable]
        return max(stable, key=lambda r: parse_version(r.tag))

    def known_release(self, tag: str) -> bool:
        return tag == MAIN or any(r.tag == tag for r in self.releases)

    @cached_property
    def release_index(self) -> dict[str, Release]:
        return {r.tag: r for r in self.releases}

    def release(self, tag: str) -> Release:
        """The release record of a known tag (``main`` included). KeyError otherwise."""
        found = self._keyed("releases", "release_index", tag)
        if found is None:
            raise KeyError(tag)
        return found

    def release_record(self, tag: str) -> Release | None:
        """The (first) release record of ``tag``, None for an unknown tag."""
        return self._first("releases", tag)

    @cached_property
    def tagged_releases(self) -> list[Release]:
        """The releases with a tag (not ``main``), oldest first."""
        return sorted((r for r in self.releases if r.tag != MAIN), key=lambda r: parse_version(r.tag))

    def resolve_release(self, text: str) -> tuple[str, Text | None]:
        """The known release to check ``text`` as, and a note when it is not a known one.

        A known tag (image-style spellings included) is itself. A tag newer than the
        newest known one is checked as that one, older than the oldest as the oldest, and
        one in between as the nearest older known release; the note says which, in both
        languages. Raises InvalidVersion when ``text`` is not a release tag at all.
        """
        tag = release_tag(text)
        if self._keyed("releases", "release_index", tag) is not None:
            return tag, None
        version, known = parse_version(tag), self.tagged_releases
        newest, oldest = known[-1].tag, known[0].tag
        if version > parse_version(newest):
            return newest, Text(
                en=f"{text} is newer than the newest release qlint knows, {newest}; checking as {newest}",
                zh=f"{text} 比 qlint 已知的最新版本 {newest} 更新；按 {newest} 检查",
            )
        if version < parse_version(oldest):
            return oldest, Text(
                en=f"{text} is older than the oldest release qlint knows, {oldest}; checking as {oldest}",
                zh=f"{text} 比 qlint 已知的最旧版本 {oldest} 更旧；按 {oldest} 检查",
            )
        nearest = max((r for r in known if parse_version(r.tag) <= version), key=lambda r: parse_version(r.tag)).tag
        return nearest, Text(
            en=f"{text} is not a release qlint knows; checking as the nearest older known release, {nearest}",
            zh=f"{text} 不是 qlint 已知的版本；按比它旧的最近一个已知版本 {nearest} 检查",
        )

    # -- release behaviour ------------------------------------------------
    @cached_property
    def behaviour_index(self) -> dict[str, Behaviour]:
        return {b.name: b for b in self.behaviours}

    def behaviour(self, name: str) -> Behaviour:
        """The behaviour record called ``name``; KeyError (naming it) for an unknown name."""
        found = self._keyed("behaviours", "behaviour_index", name)
        if found is None:
            raise KeyError(f"no behaviour {name!r} in behaviours.toml")
        return found

    def _keyed(self, field: str, index: str, key: str) -> Any:
        """``getattr(self, index).get(key)``; while ``field`` is not decoded, the one record read alone
        from the compiled form (a lint asks for a few of the behaviours, environment variables, FAQs)."""
        state = self.__dict__
        source = state.get("_source")
        if source is not None and field not in state and index not in state:
            try:
                return source.record(field, key)
            except Damaged:
                pass  # the whole field, then
        return getattr(self, index).get(key)

    def holds(self, name: str, tag: str) -> bool:
        """True when behaviour ``name`` holds at the known release ``tag``.

        vllm-ascend bounds (``since``/``until``) compare the tag, ``main`` above every
        tag unless ``on_main`` says otherwise; vLLM bounds (``vllm_since``/``vllm_until``)
        compare the vLLM version the release ships (releases.toml). ``until`` is the first
        release without the behaviour.
        """
        record = self.behaviour(name)
        release = self.release(tag)
        if tag in record.except_at:
            return False
        if tag == MAIN and record.on_main is not None:
            ascend = record.on_main
        else:
            ascend = _between(parse_version(tag), record.since, record.until)
        return ascend and _between(parse_version(release.vllm), record.vllm_since, record.vllm_until)

    # -- known defects ----------------------------------------------------
    @cached_property
    def defect_heads(self) -> list[Any]:
        """Of each known defect, in file order, what picks the ones a launch may hit: a record of the
        attributes ``DEFECT_HEAD`` names (id, severity, release range, hardware), read from the compiled
        form's table while the defects are not decoded; else the defects themselves."""
        state = self.__dict__
        source = state.get("_source")
        if source is not None and "defects" not in state:
            try:
                return source.defect_heads()
            except Damaged:
                pass  # the whole field, then
        return self.defects

    @cached_property
    def defect_index(self) -> dict[str, KnownDefect]:
        return {item.id: item for item in self.defects}

    def defect(self, defect_id: str) -> KnownDefect | None:
        """The known defect ``defect_id``, read alone from the compiled form while the defects are not decoded."""
        found = self._keyed("defects", "defect_index", defect_id)
        return found if found is not None else self.defect_index.get(defect_id)

    def defect_rows(self, tag: str) -> dict[str, list[list[Any]]]:
        """The known defects that affect release ``tag``, by severity, in file order, each the row
        ``defect_row`` makes of it: the compiled form's table of the release (``DEFECTS_AT``) while the
        defects are not decoded, else made from the defects (those a release range keeps decoded alone)."""
        state = self.__dict__
        source = state.get("_source")
        if source is not None and "defects" not in state:
            try:
                rows = source.shipped.table(DEFECTS_AT + tag)
            except Damaged:
                rows = None  # (a tag without a table: not a release of releases.toml)
            if isinstance(rows, dict) and all(isinstance(found, list) and all(
                    isinstance(row, list) and len(row) == 4 for row in found) for found in rows.values()):
                return rows
        kept: dict[str, list[list[Any]]] = {}
        for entry in self.defects_where(lambda head: defect_affects(head, tag)):
            kept.setdefault(entry.severity, []).append(defect_row(entry))
        return kept

    def defects_where(self, keep: Callable[[Any], bool]) -> list[KnownDefect]:
        """``[entry for entry in self.defects if keep(entry)]``, where ``keep`` reads only the attributes
        ``DEFECT_HEAD`` names: it is given the heads (``defect_heads``), and the defects it keeps are read
        alone from the compiled form (a launch hits a few)."""
        heads = self.defect_heads
        kept = [head for head in heads if keep(head)]
        if heads is self.__dict__.get("defects"):
            return kept
        found = [self._keyed("defects", "defect_index", head.id) for head in kept]
        if None in found:  # a table that does not match the other: the whole field, then
            return [entry for entry in self.defects if keep(entry)]
        return found

    # -- flags -----------------------------------------------------------
    @cached_property
    def flag_index(self) -> dict[str, FlagSpec]:
        """Every spelling (long name, aliases) -> spec; names use dashes."""
        return _flag_index(self.flags)

    @cached_property
    def flag_names(self) -> list[str]:
        """The canonical long name of every flag, sorted."""
        state = self.__dict__
        source = state.get("_source")
        if source is not None and "flags" not in state:
            try:
                return source.shipped.names("flags")  # the names of the flags' table of records
            except Damaged:
                pass  # the whole field, then
        return sorted({spec.name for spec in self.flags})

    def flag(self, spelling: str) -> FlagSpec | None:
        """The spec of an option spelling (long name or alias, with dashes): ``flag_index.get(spelling)``;
        while the index is not built, the one spec read alone from the compiled form (a script names a few
        of the flags)."""
        state = self.__dict__
        source = state.get("_source")
        if source is not None and "flag_index" not in state:
            found = source.spelled.get(spelling, False)  # False: not looked up yet
            if found is not False:
                return found
            try:
                return source.flag(spelling)
            except Damaged:
                pass  # the whole field, then
        return self.flag_index.get(spelling)

    def sub_config(self, flag: str) -> SubConfig | None:
        for item in self.sub_configs:
            if item.flag == flag:
                return item
        return None

    @cached_property
    def env_index(self) -> dict[str, EnvVar]:
        return {item.name: item for item in self.env_vars}

    def env_var(self, name: str) -> EnvVar | None:
        """The record of environment variable ``name`` (``env_index.get(name)``), None for an unknown one."""
        return self._keyed("env_vars", "env_index", name)

    @cached_property
    def faq_index(self) -> dict[str, FaqEntry]:
        return {item.id: item for item in self.faqs}

    def faq(self, faq_id: str) -> FaqEntry | None:
        """The FAQ entry ``faq_id`` (``faq_index.get(faq_id)``), None for an unknown id."""
        return self._keyed("faqs", "faq_index", faq_id)

    def recipes_for(self, model_id: str, hardware_id: str) -> list[Recipe]:
        return [r for r in self.recipes if r.model == model_id and r.hardware == hardware_id]


def unique_prefix(names: "list[str] | tuple[str, ...]", prefix: str) -> str | None:
    """The one name of ``names`` (sorted) that starts with ``prefix``; None for none or several.

    What ``[name for name in names if name.startswith(prefix)]`` tells when it has one element
    (argparse's unambiguous abbreviation), by a binary search: in sorted order the names starting
    with ``prefix`` follow one another from the first name not less than ``prefix``."""
    low, high = 0, len(names)
    while low < high:
        middle = (low + high) // 2
        if names[middle] < prefix:
            low = middle + 1
        else:
            high = middle
    if low == len(names) or not names[low].startswith(prefix):
        return None
    if low + 1 < len(names) and names[low + 1].startswith(prefix):
        return None
    return names[low]


_FIELD_NAMES = frozenset(name for name, _, _, _ in DATA_FILES)


def _flag_index(flags: list[FlagSpec]) -> dict[str, FlagSpec]:
    index: dict[str, FlagSpec] = {}
    for spec in flags:
        index[spec.name] = spec
        for alias in spec.aliases:
            index[alias.replace("_", "-") if alias.startswith("--") else alias] = spec
    return index


def _index_aliases(models: list[Model], index: dict[str, tuple[Model, ModelVariant | None]]) -> None:
    for model in models:
        index.setdefault(model.id.lower(), (model, None))
        for variant in model.variants:
            for alias in [variant.name, *variant.aliases]:
                index[_basename(alias)] = (model, variant)
                index[alias.lower()] = (model, variant)


def _between(version: Version, since: str | None, until: str | None) -> bool:
    if since is not None and version < parse_version(since):
        return False
    return until is None or version < parse_version(until)


def _blake2b(data: bytes, digest_size: int):
    """hashlib.blake2b without importing hashlib (and OpenSSL) on every run."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - an interpreter built without _blake2
        from hashlib import blake2b
    return blake2b(data, digest_size=digest_size)


def _cache_dir() -> Path | None:
    from pathlib import Path

    configured = os.environ.get("QLINT_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "qlint"


SHIPPED = "compiled.json"
"""The compiled knowledge shipped in the package (``python -m qlint.knowledge.compiled`` writes it)."""


def _validated_fields(blobs: dict[str, bytes]) -> dict[str, list[Record]]:
    return {name: _validate(filename, key, model, blobs[filename]) for name, filename, key, model in DATA_FILES}


def _assemble(fields: dict[str, list[Record]]) -> "KnowledgeBase":
    values: dict[str, Any] = {name: fields[name] for name, _, _, _ in DATA_FILES}  # each a list of its own model
    base = KnowledgeBase(**values)
    for release in base.releases:
        try:
            parse_version(release.tag)
            parse_version(release.vllm)
        except InvalidVersion as error:
            raise KnowledgeError(f"releases.toml: bad tag {release.tag!r}") from error
    _check_links(base)
    return base


def _check_links(base: "KnowledgeBase") -> None:
    """Cross-file references: behaviour bounds are releases of releases.toml, redundant settings
    name a behaviour, behaviour names are unique. Raises KnowledgeError naming the record."""
    names = [record.name for record in base.behaviours]
    if len(set(names)) != len(names):
        raise KnowledgeError("behaviours.toml: two behaviours share a name")
    tags = {release.tag for release in base.releases}
    for record in base.behaviours:
        for bound in (record.since, record.until, record.verified, *record.except_at):
            if bound is not None and bound not in tags:
                raise KnowledgeError(f"behaviours.toml: {record.name}: {bound!r} is not a release in releases.toml")
    for entry in base.redundant:
        if entry.behaviour not in names:
            raise KnowledgeError(f"redundant.toml: {entry.setting}: no behaviour {entry.behaviour!r} in behaviours.toml")


def _build(blobs: dict[str, bytes]) -> "KnowledgeBase":
    return _assemble(_validated_fields(blobs))


def _blobs_and_digest() -> tuple[dict[str, bytes], str]:
    blobs = {filename: _read(filename) for _, filename, _, _ in DATA_FILES}
    digest = _blake2b(__version__.encode(), digest_size=16)
    for filename in sorted(blobs):
        digest.update(filename.encode() + b"\0" + blobs[filename] + b"\0")
    return blobs, digest.hexdigest()


def _stamp(blob: bytes) -> list[int]:
    """A data file's size and CRC-32, as the shipped compiled form records each file it was built from."""
    from binascii import crc32  # a checksum of what was compiled, against edits (not a security digest)

    return [len(blob), crc32(blob)]


def _shipped() -> compiled.Compiled | None:
    """The compiled form shipped in the package, its head read (``compiled.open_compiled``); None without one."""
    try:
        with open(os.path.join(_DATA_DIR, SHIPPED), "rb") as handle:
            return compiled.open_compiled(handle.read(), Record)
    except OSError:
        return None


def _current(shipped: compiled.Compiled | None) -> compiled.Compiled | None:
    """The shipped compiled form when it was built from the data files as they are now: this qlint version,
    and every data file of the size and CRC-32 it records. Cheaper than the digest of the data files
    (``_blobs_and_digest``), which is only computed when this says no."""
    if shipped is None or shipped.version != __version__ or not _direct():
        return None
    stamps = shipped.stamps
    if not isinstance(stamps, dict) or len(stamps) != len(DATA_FILES):
        return None
    for _, filename, _, _ in DATA_FILES:
        try:
            with open(os.path.join(_DATA_DIR, filename), "rb") as handle:
                blob = handle.read()
        except OSError:
            return None
        if stamps.get(filename) != _stamp(blob):
            return None
    return shipped


class _Lazy:
    """The fields of a knowledge base read from a current compiled form (``KnowledgeBase.__getattr__``):
    each decoded when first used; a damaged part is read from the validated data files instead, which
    the form was built from (their stamps matched), so a run never fails on it."""

    def __init__(self, shipped: compiled.Compiled) -> None:
        self.shipped = shipped
        self.validated: dict[str, list[Record]] | None = None
        self.records: dict[str, dict[str, tuple[int, Record]]] = {}  # field -> key -> (position, record)
        self.spelled: dict[str, Record | None] = {}  # option spelling -> its flag spec (None: no flag's)
        self.flag_tables: tuple[dict[str, Any], dict[str, Any]] | None = None  # see _flag_tables
        shipped.fallback = self.from_data_files

    def field(self, name: str) -> list[Record]:
        try:
            records = self.shipped.field(name)
        except Damaged:
            return self.from_data_files()[name]
        for position, record in self.records.get(name, {}).values():
            records[position] = record  # the one already handed out
        return records

    def record(self, name: str, key: str) -> Record | None:
        """The record of field ``name`` named ``key``, decoded alone (``compiled.Compiled.record``); None
        when there is none. Raises compiled.Damaged."""
        known = self.records.setdefault(name, {})
        found = known.get(key) if isinstance(key, str) else None
        if found is None:
            found = self.shipped.record(name, key)
            if found is None:
                return None
            known[key] = found
        return found[1]

    def alias(self, key: str) -> tuple[Record, Record | None] | None:
        """``(model, variant)`` a lower-case model name resolves to (``_alias_index``), the model decoded
        alone; None for a name of none. Raises compiled.Damaged."""
        found = self.shipped.table(ALIASES).get(key) if isinstance(key, str) else None
        if found is None:
            return None
        try:
            model_id, position = found
            model = self.record("models", model_id)
            if model is None:
                raise TypeError(f"no model {model_id!r}")
            return model, (model.variants[position] if position >= 0 else None)
        except (TypeError, ValueError, AttributeError, IndexError) as error:
            raise Damaged(f"compiled knowledge: model alias {key!r}: {error}") from None

    def flag(self, spelling: str) -> Record | None:
        """The spec ``flag_index`` gives an option spelling, decoded alone; None for a spelling of none
        (told by the two tables alone: a script's unknown options). Raises compiled.Damaged."""
        spellings, names = self.flag_tables or self._flag_tables()
        name = spellings.get(spelling, spelling)
        if not isinstance(name, str):
            raise Damaged(f"compiled knowledge: the spellings of the flags ({spelling!r})")
        if name is spelling and spelling not in names:
            found = None
        else:
            found = self.record("flags", name)
            if found is None and name != spelling:
                raise Damaged(f"compiled knowledge: no flag {name!r} (spelled {spelling!r})")
        self.spelled[spelling] = found
        return found

    def _flag_tables(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The option spellings that are not a flag's name (spelling -> name) and the flags' table of
        records (name -> where), each checked to be a dict. Raises compiled.Damaged."""
        spellings = self.shipped.table(FLAG_SPELLINGS)
        if not isinstance(spellings, dict):
            raise Damaged("compiled knowledge: the spellings of the flags")
        self.flag_tables = spellings, self.shipped.record_table("flags")
        return self.flag_tables

    def defect_heads(self) -> list[Record]:
        """The heads of the known defects (``KnowledgeBase.defect_heads``) from the compiled form's table.
        Raises compiled.Damaged."""
        rows = self.shipped.table(DEFECT_HEADS)
        if not isinstance(rows, list) or not all(isinstance(row, list) and len(row) == len(DEFECT_HEAD)
                                                 for row in rows):
            raise Damaged("compiled knowledge: the heads of the known defects")
        return [Record(**dict(zip(DEFECT_HEAD, row))) for row in rows]

    def from_data_files(self) -> dict[str, list[Record]]:
        if self.validated is None:
            self.validated = _validated_fields(_blobs_and_digest()[0])
        return self.validated


ALIASES = "model_aliases"
"""The compiled form's table of the model names (``_alias_index``): lower-case name -> [model id, the
position of the variant among the model's, -1 for none]."""


FLAG_SPELLINGS = "flag_spellings"
"""The compiled form's table of the option spellings (``flag_index``) that are not the name of the flag
they give: spelling -> that flag's name."""

DEFECT_HEADS = "defect_heads"
"""The compiled form's table of the heads of the known defects (``KnowledgeBase.defect_heads``): per
defect, in file order, the values of the attributes ``DEFECT_HEAD`` names."""

DEFECT_HEAD = ("id", "severity", "since", "until", "fixed_in", "hardware")

DEFECTS_AT = "defects_at:"
"""The compiled form's tables of the known defects that affect each release (``KnowledgeBase.defect_rows``),
one per tag of releases.toml (``defects_at:v0.23.0``): severity -> the ``defect_row`` of each, in file order."""


def _unique(records: list[Record], attribute: str) -> bool:
    return len({getattr(item, attribute) for item in records}) == len(records)


def _keyed(fields: dict[str, list[Record]]) -> dict[str, str]:
    """The fields a compiled form has a table of records of (field -> the attribute naming a record):
    ``KEYED``, and those of ``FIRST_KEYED`` whose records have unique names."""
    return {**KEYED, **{name: attribute for name, attribute in FIRST_KEYED.items()
                        if _unique(fields[name], attribute)}}


def _tables(fields: dict[str, list[Record]]) -> dict[str, Any]:
    """The tables a compiled form carries beside the fields (``compiled.dumps``): the model names, the
    option spellings and the heads of the known defects, each when the records it names have unique
    names (else a run reads the whole field)."""
    tables: dict[str, Any] = {}
    models = fields["models"]
    if _unique(models, "id"):
        index: dict[str, tuple[Model, ModelVariant | None]] = {}
        _index_aliases(models, index)  # type: ignore[arg-type]  # the records are Models
        tables[ALIASES] = {key: [model.id, -1 if variant is None else
                                 next(at for at, item in enumerate(model.variants) if item is variant)]
                           for key, (model, variant) in index.items()}
    if _unique(fields["flags"], "name"):
        spellings = _flag_index(fields["flags"])  # type: ignore[arg-type]  # the records are FlagSpecs
        tables[FLAG_SPELLINGS] = {spelling: spec.name for spelling, spec in spellings.items()
                                  if spelling != spec.name}
    if _unique(fields["defects"], "id"):
        tables[DEFECT_HEADS] = [[getattr(entry, name) for name in DEFECT_HEAD] for entry in fields["defects"]]
        for release in fields["releases"]:
            rows: dict[str, list[list[Any]]] = {}
            for entry in fields["defects"]:
                if defect_affects(entry, release.tag):
                    rows.setdefault(entry.severity, []).append(defect_row(entry))
            tables[DEFECTS_AT + release.tag] = rows
    return tables


def _lazy(shipped: compiled.Compiled) -> KnowledgeBase:
    """A knowledge base whose fields are read from ``shipped`` when first used. The cross-file checks of
    ``_assemble`` ran when it was written (``write_shipped``) on the data files it was built from."""
    base = KnowledgeBase.__new__(KnowledgeBase)
    base.__dict__["_source"] = _Lazy(shipped)  # not a field: KnowledgeBase.__getattr__ reads it
    return base


def _cached_fields(digest: str) -> dict[str, list[Record]] | None:
    """The records from the user's cache built from data with ``digest``; None when there is none."""
    directory = _cache_dir()
    cache = directory / f"knowledge-{digest}.json" if directory else None
    if cache is None or not compiled.trusted_cache_file(cache):
        return None  # another user's or a world-writable file is never read
    try:
        return compiled.loads(cache.read_bytes(), digest, Record)
    except OSError:
        return None


def _write_cache(digest: str, fields: dict[str, list[Record]]) -> None:
    directory = _cache_dir()
    if directory is None:
        return
    import tempfile

    try:
        blob = compiled.dumps(digest, fields, Record, keyed=_keyed(fields), tables=_tables(fields))
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".knowledge-", suffix=".tmp",
                                         delete=False) as handle:  # created with mode 0600
            try:
                handle.write(blob)
            except OSError:
                os.unlink(handle.name)
                raise
        os.replace(handle.name, directory / f"knowledge-{digest}.json")
    except (OSError, TypeError):
        pass  # a read-only home (or a full disk) only costs the validation time


def write_shipped(folder: Path | None = None) -> list[Path]:
    """Validate the data files and write what the package ships precompiled into ``folder`` (default:
    ``knowledge/data``): the compiled knowledge (``SHIPPED``) and the digests of the validated release
    data files (``releases.SHIPPED_VALIDATED``). Returns their paths."""
    from pathlib import Path

    from qlint.knowledge import release_data, releases

    blobs, digest = _blobs_and_digest()
    folder = folder or Path(_DATA_DIR)
    fields = _validated_fields(blobs)
    _assemble(fields)  # the same checks as a load
    knowledge = folder / SHIPPED
    stamps = {filename: _stamp(blobs[filename]) for _, filename, _, _ in DATA_FILES}
    blob = compiled.dumps(digest, fields, Record, stamps, __version__, _keyed(fields), _tables(fields))
    knowledge.write_bytes(blob + b"\n")
    validated = folder / releases.SHIPPED_VALIDATED
    validated.write_bytes(release_data.validated_releases())
    release_data.write_layouts(str(folder))  # knowledge/data/layout/ (tests/test_release_facts.py checks them)
    return [knowledge, validated]


@lru_cache(maxsize=1)
def load() -> KnowledgeBase:
    """Load the knowledge base: from the compiled form shipped in the package when it was
    built from these data files (each of the size and CRC-32 it records, checked without hashing
    them; else the digest of the data files decides), else from the user's cache (``$QLINT_CACHE_DIR``, default
    ``~/.cache/qlint``; ``QLINT_CACHE_DIR=off`` disables it), else validated with pydantic
    (and then cached). Compiled forms are JSON (see ``qlint.knowledge.compiled``).

    Raises KnowledgeError when a file is missing or a field is invalid (the
    message names the file and the field path).
    """
    shipped = _shipped()
    current = _current(shipped)
    if current is not None:
        return _lazy(current)
    # a data file changed since the shipped form was built (or none is shipped, or it is damaged)
    blobs, digest = _blobs_and_digest()
    fields: dict[str, list[Record]] | None = None
    if shipped is not None and shipped.digest == digest:
        try:
            fields = shipped.fields()
        except Damaged:
            pass
    else:
        fields = _cached_fields(digest)
    if fields is not None:
        try:
            return _assemble(fields)
        except (TypeError, KeyError, AttributeError, KnowledgeError):
            pass  # a damaged compiled form is rebuilt from the data files
    fields = _validated_fields(blobs)
    base = _assemble(fields)
    _write_cache(digest, fields)
    return base
