"""Release data files read whole and their layouts written (``qlint.knowledge.releases`` reads them).

What a run needs only when a release's shipped layouts or validation do not apply (``_build``, ``_validate``)
and what ``python -m qlint.knowledge.compiled`` writes (``layouts``, ``validated_releases``): kept out of
``qlint.knowledge.releases``, which every run that checks a release imports.
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)
import os

from qlint.knowledge.base import KnowledgeError
from qlint.knowledge.releases import (_DATA_DIR, _LAID_OUT, _SEPARATOR, LAYOUT_DIR, LAYOUT_FORMAT, Option,
                                      ReleaseFacts, SubConfig, _digest, _key, _layout_name, _long_names, _option, _read_json, _spellings,
                                      known_releases, key_rows, rejected_fields)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _validate(name: str, data: Any, model_name: str) -> None:
    from pydantic import ValidationError

    from qlint.knowledge import models

    try:
        getattr(models, model_name).model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise KnowledgeError(f"{name}: {where}: {first['msg']}") from None


def _build(requested: str, release: str, ascend: dict, vllm: dict) -> ReleaseFacts:
    options: dict[str, Option] = {}
    for record in vllm["options"]:
        option = _option(record)
        options[option.name] = option
    for change in ascend.get("cli_changes", ()):
        changed = options.get(change["option"])
        if changed is not None and changed.choices:
            changed.choices = changed.choices + tuple(c for c in change["add_choices"] if c not in changed.choices)
    # argparse adds -h/--help to every parser
    options.setdefault("--help", Option(name="--help", kind="bool", source=vllm["parser"].get("class_source") or
                                        options[next(iter(options))].source, aliases=("-h",)))
    spellings = _spellings((option.name, option.aliases) for option in options.values())
    sub_configs = {}
    for record in vllm["sub_configs"]:
        sub_configs[record["option"]] = SubConfig(
            option=record["option"], cls=record["class"], closed=record["closed"], typed=record.get("typed", True),
            closed_source=record["closed_source"], source=record["source"],
            keys={item["key"]: _key(item) for item in record["keys"]},
        )
    return ReleaseFacts(
        requested=requested, release=release, vllm=vllm["version"], vllm_paired=ascend.get("vllm"),
        vllm_source=ascend.get("vllm_source"), options=options, spellings=spellings, parser=dict(vllm["parser"]),
        sub_configs=sub_configs,
        additional_config={item["key"]: _key(item) for item in ascend["additional_config"]["keys"]},
        vllm_env={item["name"]: item for item in vllm["env_vars"]},
        ascend_env={item["name"]: item for item in ascend["env_vars"]},
        validations=list(vllm["validations"]) + list(ascend["validations"]),
        unread=tuple(vllm["unread"]) + tuple(ascend["unread"]),
        long_names=_long_names(spellings),
    )


def _key_tables(sub_configs: list[Any], validations: list[Any]) -> dict[str, list[Any]]:
    """The key table of each sub-config of a vLLM data file (see ``ReleaseFacts.key_table``), with the keys
    its own validations reject left out; a sub-config given twice is the last one, as in ``_build``."""
    records = {record["option"]: record for record in sub_configs}
    tables = {}
    for option, record in records.items():
        keys = {item["key"]: _key(item) for item in record["keys"]}
        cls = record["class"]
        rejected = rejected_fields(v for v in validations if isinstance(v, dict) and v.get("class") == cls)
        tables[option] = [record["closed"], record["source"], record["closed_source"], record.get("typed", True),
                          cls, key_rows(keys, rejected)]
    return tables


def layout_of(data: bytes) -> dict[str, Any]:
    """The layout of a release data file: its size and CRC-32 (``stamp``), the byte span of each top-level
    value (``values``), of each list ``_LAID_OUT`` names the name (``labels``) and byte span (``spans``:
    start and end of each, one string of numbers of ``width`` digits, so that a record's are read alone)
    of each record (``records``), and of a file with options what ``_build`` makes of their names and aliases:
    the spellings in order (``spellings``), those that are not the name of the option they give
    (``spelled``: spelling -> name) and the sorted long names (``long_names``)."""
    from binascii import crc32
    from json.decoder import WHITESPACE, JSONDecoder  # type: ignore[attr-defined]  # WHITESPACE: not in the stubs

    text = data.decode("utf-8")
    decode = JSONDecoder().raw_decode
    ascii_only = len(text) == len(data)

    def at(index: int) -> int:  # a character offset as a byte offset
        return index if ascii_only else len(text[:index].encode("utf-8"))

    def skip(index: int) -> int:
        return WHITESPACE.match(text, index).end()

    def items(index: int, close: str, keyed: bool):  # (key or None, value, start, end) of an object or array
        index = skip(index + 1)
        if text[index] == close:
            return
        while True:
            key = None
            if keyed:
                key, index = decode(text, index)
                index = skip(index)
                if text[index] != ":":
                    raise ValueError(f"':' expected at {index}")
                index = skip(index + 1)
            value, end = decode(text, index)
            yield key, value, index, end
            index = skip(end)
            if text[index] == ",":
                index = skip(index + 1)
                continue
            if text[index] != close:
                raise ValueError(f"{close!r} expected at {index}")
            return

    def records(value_start: int, label: str) -> dict[str, Any]:
        labels: list[Any] = []
        spans: list[int] = []
        for _, value, start, end in items(value_start, "]", False):
            labels.append(value.get(label) if isinstance(value, dict) else None)
            spans += (at(start), at(end))
        width = len(str(max(spans, default=0)))
        return {"labels": _joined(labels), "spans": "".join(f"{number:0{width}d}" for number in spans),
                "width": width}

    start = skip(0)
    if text[start] != "{":
        raise ValueError("a release data file is a JSON object")
    values: dict[str, list[int]] = {}
    laid_out: dict[str, dict[str, Any]] = {}
    layout: dict[str, Any] = {"format": LAYOUT_FORMAT, "stamp": [len(data), crc32(data)], "values": values,
                              "records": laid_out}
    whole: dict[str, Any] = {}
    for key, value, begin, end in items(start, "}", True):
        whole[key] = value
        values[key] = [at(begin), at(end)]
        if key in _LAID_OUT and isinstance(value, list):
            laid_out[key] = records(begin, _LAID_OUT[key])
        if isinstance(value, dict) and f"{key}.keys" in _LAID_OUT and isinstance(value.get("keys"), list):
            for inner, inner_value, inner_begin, _ in items(begin, "}", True):
                if inner == "keys":
                    laid_out[f"{key}.keys"] = records(inner_begin, _LAID_OUT[f"{key}.keys"])
        if key == "options" and isinstance(value, list):
            names: dict[str, list[str]] = {}
            for item in value:  # as _build: a name given twice is placed first, with the last aliases
                if isinstance(item, dict):
                    names[item["name"]] = item.get("aliases") or []
            names.setdefault("--help", ["-h"])  # argparse adds -h/--help to every parser
            spellings = _spellings(names.items())
            layout.update(spellings=_joined(list(spellings)), long_names=_joined(list(_long_names(spellings))),
                          spelled={spelling: name for spelling, name in spellings.items() if spelling != name})
    if isinstance(whole.get("sub_configs"), list) and isinstance(whole.get("validations"), list):
        layout["key_tables"] = _key_tables(whole["sub_configs"], whole["validations"])
    return layout


def _layout_bytes(layout: dict[str, Any]) -> bytes:
    """A layout file: the layout as one JSON line, ``key_tables`` in it replaced by where each table is on
    the lines after it (byte offsets from the start of the second line), each table one JSON line."""
    head = dict(layout)
    tables = head.pop("key_tables", None)
    tail = b""
    if tables is not None:
        spans = head["key_tables"] = {}
        for option, table in tables.items():
            text = json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode()
            spans[option] = [len(tail), len(tail) + len(text)]
            tail += text + b"\n"
    return json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" + tail


def _joined(names: list[Any]) -> str | list[Any]:
    """Names as a layout holds them: one string, the names separated by ``_SEPARATOR`` (one JSON string scans
    faster than hundreds), unless a name is not a non-empty string without it (then the list)."""
    if all(isinstance(name, str) and name and _SEPARATOR not in name for name in names):
        return _SEPARATOR.join(names)
    return names


def layouts() -> dict[str, bytes]:
    """The layout file (name under ``knowledge/data``) of every release data file, as written."""
    out = {}
    for folder in ("ascend", "vllm"):
        for name in sorted(os.listdir(os.path.join(_DATA_DIR, folder))):
            if name.endswith(".json"):
                relative = f"{folder}/{name}"
                out[_layout_name(relative)] = _layout_bytes(layout_of(_read_json(relative)[0]))
    return out


def write_layouts(folder: str) -> list[str]:
    """Write every layout file into ``folder`` (a data folder: ``folder/layout/...``); their paths."""
    os.makedirs(os.path.join(folder, LAYOUT_DIR), exist_ok=True)
    written = []
    for name, body in layouts().items():
        path = os.path.join(folder, name)
        with open(path, "wb") as handle:
            handle.write(body)
        written.append(path)
    return written


def _pair_digest(ascend_bytes: bytes, vllm_bytes: bytes) -> str:
    """What names one release's data files (and this qlint version) in markers and the shipped list: the
    size and CRC-32 of each file (a check against edits, cheaper than hashing them on every run)."""
    from binascii import crc32

    return _digest(len(ascend_bytes), crc32(ascend_bytes), len(vllm_bytes), crc32(vllm_bytes))


def validated_releases() -> bytes:
    """Validate the data files of every known release with pydantic; the JSON of their digests (the
    content of ``SHIPPED_VALIDATED``). Raises KnowledgeError naming the first invalid file."""
    digests, checked = set(), set()
    for release in known_releases():
        ascend_name = f"ascend/{release}.json"
        ascend_bytes, ascend = _read_json(ascend_name)
        vllm_version = ascend.get("vllm_data")
        if not vllm_version:
            continue
        vllm_name = f"vllm/{vllm_version}.json"
        vllm_bytes, vllm = _read_json(vllm_name)
        for name, data, model in ((ascend_name, ascend, "AscendReleaseData"), (vllm_name, vllm, "VllmReleaseData")):
            if name not in checked:
                _validate(name, data, model)
                checked.add(name)
        digests.add(_pair_digest(ascend_bytes, vllm_bytes))
    return json.dumps({"format": 1, "digests": sorted(digests)}, indent=0).encode() + b"\n"

