"""JSON sub-configs, startup validations and environment variables of a vLLM release, read statically."""

from __future__ import annotations

import ast
import re
from typing import Any

from qlint.knowledge.extract.pyast import (
    ClassInfo,
    Index,
    class_fields,
    failing_bounds,
    functions,
    is_literal,
    jsonable,
    literal,
    raises_in,
)

# JSON options whose value vLLM builds a config class from, by class name (older releases type
# some of them as a plain dict and build the class later, e.g. SpeculativeConfig.from_dict)
SUB_CONFIG_CLASSES = {
    "--speculative-config": "SpeculativeConfig",
    "--compilation-config": "CompilationConfig",
    "--kv-transfer-config": "KVTransferConfig",
    "--kv-events-config": "KVEventsConfig",
    "--ec-transfer-config": "ECTransferConfig",
    "--structured-outputs-config": "StructuredOutputsConfig",
    "--attention-config": "AttentionConfig",
    "--kernel-config": "KernelConfig",
    "--weight-transfer-config": "WeightTransferConfig",
    "--profiler-config": "ProfilerConfig",
}

_VALIDATING = re.compile(r"^(__post_init__|_?verify|_?validate|_?check|__init__|model_post_init)")


def key_kind(names: set[str], has_dataclass: bool, literals: list) -> str:
    names = names - {"None"}
    if has_dataclass:
        return "dict"
    if literals:
        return "str" if all(isinstance(v, str) for v in literals) else "any"
    if not names:
        return "any"
    if names <= {"bool"}:
        return "bool"
    if names <= {"int"}:
        return "int"
    if names <= {"float", "int"}:
        return "float"
    if names <= {"str"}:
        return "str"
    if names <= {"dict"}:
        return "dict"
    if names <= {"list", "tuple", "set"}:
        return "list"
    return "any"


PYDANTIC_PARSE = {"value": False}  # set per release: get_kwargs validates JSON with TypeAdapter(cls)


def closed_of(cls: ClassInfo, index: Index, tree) -> tuple[bool, str]:
    """Whether unknown keys are an error, and the line that makes it so.

    ``extra="forbid"`` (on the class or in the ``@config`` decorator) rejects them. Without it, a
    class that vLLM's CLI builds with ``Cls(**json.loads(value))`` (vLLM 0.9-0.10) rejects them
    too (TypeError), while ``TypeAdapter(Cls).validate_json`` and a plain pydantic BaseModel
    ignore them.
    """
    decorators = cls.decorators
    if "BaseModel" in cls.bases:
        for node in cls.node.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "model_config" for t in node.targets):
                if "forbid" in ast.unparse(node.value):
                    return True, tree.url(cls.path, node.lineno)
        return False, tree.url(cls.path, cls.line)
    for decorator, written in zip(decorators, cls.node.decorator_list):
        if "forbid" in decorator:
            return True, tree.url(cls.path, written.lineno)
        if decorator.split("(")[0].split(".")[-1] == "config":
            for module in index.modules.values():
                for item in module.tree.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "config" and "forbid" in module.segment(item):
                        line = item.lineno + module.segment(item)[: module.segment(item).index("forbid")].count("\n")
                        return True, tree.url(module.path, line)
    # no forbid: Cls(**data) raises TypeError on an unknown key; pydantic validation drops it
    return not PYDANTIC_PARSE["value"], tree.url(cls.path, cls.line)


def read_keys(cls: ClassInfo, index: Index, tree, depth: int = 0) -> list[dict[str, Any]]:
    keys = []
    for item in class_fields(cls, index):
        info = item.type
        record: dict[str, Any] = {
            "key": item.name,
            "type": key_kind(info.names, bool(info.dataclasses), info.literals),
            "source": tree.url(item.path, item.line),
        }
        if info.literals:
            record["choices"] = [str(v) for v in info.literals]
        enums = [member for members in info.enums.values() for member in members]
        if enums:
            record["enum"] = enums
        if item.has_default and is_literal(item.default):
            record["default"] = jsonable(item.default)
        if item.ranges:
            record["range"] = dict(sorted(item.ranges.items()))
        by_name = _enum_by_name(cls, item.name) if enums else None
        if by_name:
            record["enum_by_name"] = True
            record["enum_source"] = tree.url(cls.path, by_name)
        if info.dataclasses and depth < 3:
            nested = info.dataclasses[0]
            closed, closed_source = closed_of(nested, index, tree)
            record["keys"] = read_keys(nested, index, tree, depth + 1)
            record["closed"] = closed
            record["closed_source"] = closed_source
            record["class"] = nested.name
        keys.append(record)
    return keys


def _enum_by_name(cls: ClassInfo, name: str) -> int | None:
    """The line of a ``field_validator(name, mode="before")`` that maps a string to ``Enum[value.upper()]``."""
    for function in functions(cls):
        for decorator in function.decorator_list:
            text = ast.unparse(decorator)
            if "field_validator" in text and (f"'{name}'" in text or f'"{name}"' in text):
                body = ast.unparse(function)
                if ".upper()]" in body:
                    return function.lineno
    return None


def read_sub_configs(options: list[dict], index: Index, tree, unread: list[str]) -> list[dict]:
    result = []
    for option in options:
        if option["kind"] != "json":
            continue
        name = option.get("sub_config") or SUB_CONFIG_CLASSES.get(option["name"])
        if name is None:
            continue
        cls = index.find_class(name)
        if cls is None:
            unread.append(f"{option['name']}: class {name} not found")
            continue
        closed, closed_source = closed_of(cls, index, tree)
        keys = read_keys(cls, index, tree)
        apply_bounds(keys, validations_of(cls, index, tree))
        typed = PYDANTIC_PARSE["value"] or "pydantic" in (cls.module.text[:4000] if cls.module else "")
        result.append({
            "option": option["name"],
            "class": name,
            "closed": closed,
            "closed_source": closed_source,
            "typed": bool(typed),
            "source": tree.url(cls.path, cls.line),
            "keys": keys,
        })
    return result


def validations_of(cls: ClassInfo, index: Index, tree) -> list[dict]:
    found = []
    for function in functions(cls):
        decorated = any("validator" in ast.unparse(d) for d in function.decorator_list)
        if not (decorated or _VALIDATING.match(function.name)):
            continue
        module = cls.module
        for item in raises_in(function, module):
            record = {
                "class": cls.name,
                "function": function.name,
                "error": item.kind,
                "message": item.message,
                "source": tree.url(cls.path, item.line),
            }
            if item.condition:
                record["condition"] = item.condition[:300]
                try:
                    test = ast.parse(item.condition, mode="eval").body
                except SyntaxError:
                    test = None
                if test is not None and item.kind != "AssertionError" and not item.nested:
                    bounds = failing_bounds(test)
                    if bounds:
                        record["bounds"] = [{"field": f, "op": op, "value": v} for f, op, v in bounds]
            found.append(record)
    return found


def all_validations(index: Index, tree, prefixes: tuple[str, ...]) -> list[dict]:
    result = []
    for path in sorted(index.modules):
        if not path.startswith(prefixes):
            continue
        for cls in index.modules[path].classes.values():
            result.extend(validations_of(cls, index, tree))
    return result


def apply_bounds(keys: list[dict], validations: list[dict]) -> None:
    """Ranges that a validator enforces (``if self.x > 1: raise``) added to the key or option."""
    by_field: dict[str, dict] = {}
    for record in validations:
        for bound in record.get("bounds", []):
            by_field.setdefault(bound["field"], {}).setdefault(bound["op"], (bound["value"], record["source"]))
    for key in keys:
        name = key.get("key") or (key.get("field", "").split(".")[-1])
        if name in by_field:
            found = by_field[name]
            ranges = dict(key.get("range", {}))
            for op, (value, source) in found.items():
                ranges.setdefault(op, value)
                key.setdefault("range_sources", []).append(source)
            key["range"] = dict(sorted(ranges.items()))


# -- environment variables ---------------------------------------------------------------

_GETENV = re.compile(r"""os\.(?:getenv|environ\.get)\(\s*["']([A-Z0-9_]+)["']\s*(?:,\s*(.+?))?\)""", re.S)


def read_env_vars(tree, path: str, unread: list[str]) -> list[dict]:
    """Keys of the ``environment_variables`` / ``env_variables`` dict of an envs.py, with line and default."""
    text = tree.text(path)
    if text is None:
        unread.append(f"{path}: missing")
        return []
    try:
        module = ast.parse(text)
    except SyntaxError:
        unread.append(f"{path}: does not parse")
        return []
    found: list[dict] = []
    for node in module.body:
        value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        else:
            continue
        if target not in ("environment_variables", "env_variables") or not isinstance(value, ast.Dict):
            continue
        for key, item in zip(value.keys, value.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue
            record: dict[str, Any] = {"name": key.value, "source": tree.url(path, key.lineno)}
            segment = ast.get_source_segment(text, item) or ""
            match = _GETENV.search(segment)
            if match and match.group(2):
                default = match.group(2).strip().rstrip(",")
                if len(default) < 80:
                    record["default"] = default
            lowered = segment.lower()
            if "deprecat" in lowered:
                record["deprecated"] = True
            found.append(record)
    if not found:
        unread.append(f"{path}: no environment_variables dict")
    # deprecation notes: names listed near the word deprecated, outside the dict
    return found


def deprecated_env_names(tree, path: str) -> dict[str, str]:
    text = tree.text(path) or ""
    names: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if "deprecat" in line.lower():
            for name in re.findall(r"\b(VLLM_[A-Z0-9_]+)\b", line):
                names.setdefault(name, tree.url(path, number))
    return names


def literal_or_none(node):
    value = literal(node)
    return value if is_literal(value) else None
