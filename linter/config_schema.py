"""The pydantic schema of the ``[tool.qlint]`` / ``.qlint.toml`` table, and the reading of such a
file (``load_config_file``: TOML, this schema, where an error is).

Imported only when a configuration file is found, so that a plain lint run
does not pay for importing pydantic.
"""

from __future__ import annotations

import re
import tomllib
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from qlint.linter.catalog import find_entry, match_entries
from qlint.linter.config import KEYS, ConfigError, ConfigFile

if TYPE_CHECKING:
    from pathlib import Path

_TOML_POSITION = r"\(at line (\d+), column (\d+)\)"  # compiled on first use (re's cache): a TOML error

Severity = Literal["error", "warning", "info"]
"""``qlint.rules.base.Severity``, at run time (there it is an annotation only): pydantic reads it."""


def _check_selectors(values: list[str]) -> list[str]:
    for value in values:
        if not match_entries(value):
            raise ValueError(f"{value!r} names no rule (see `qlint rules`)")
    return values


class QlintConfig(BaseModel):
    """The ``[tool.qlint]`` table. Every key is optional; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")

    select: list[str] | None = None
    ignore: list[str] = Field(default_factory=list)
    severity: dict[str, Severity] = Field(default_factory=dict)
    hardware: Literal["a2", "a3", "310p"] | None = None
    vllm_ascend: str | None = Field(default=None, alias="vllm-ascend")
    fail_level: Severity | None = Field(default=None, alias="fail-level")
    deployments: list[str] = Field(default_factory=list)  # globs, relative to the file's folder

    @field_validator("deployments")
    @classmethod
    def _globs(cls, value: list[str]) -> list[str]:
        for pattern in value:
            if not pattern.strip() or pattern.startswith("/"):
                raise ValueError(f"{pattern!r}: a deployment is a glob relative to this file's folder")
        return value

    @field_validator("select", "ignore")
    @classmethod
    def _known_selectors(cls, value):
        return value if value is None else _check_selectors(value)

    @field_validator("severity")
    @classmethod
    def _known_rules(cls, value: dict[str, str]) -> dict[str, str]:
        out = {}
        for key, level in value.items():
            meta = find_entry(key)
            if meta is None:
                raise ValueError(f"{key!r} names no rule (see `qlint rules`)")
            out[meta.id] = level
        return out

    @field_validator("vllm_ascend")
    @classmethod
    def _release_tag(cls, value):
        from qlint.knowledge.base import release_tag

        if value is None:
            return value
        try:
            release_tag(value)
        except Exception:
            raise ValueError(f"{value!r} is not a release tag like v0.23.0") from None
        return value


def load_config_file(path: Path) -> ConfigFile:
    """Read and validate one configuration file. Raises ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read configuration: {error}", str(path)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(_TOML_POSITION, str(error))
        line, column = (int(found.group(1)), int(found.group(2))) if found else (1, 1)
        message = re.sub(_TOML_POSITION, "", str(error)).strip()
        raise ConfigError(f"invalid TOML: {message}", str(path), line, column) from None
    is_pyproject = path.name == "pyproject.toml"
    table = data.get("tool", {}).get("qlint", {}) if is_pyproject else data
    if not isinstance(table, dict):
        raise ConfigError("[tool.qlint] must be a table", str(path))
    try:
        config = QlintConfig.model_validate(table)
    except ValidationError as error:
        problem = error.errors()[0]
        location = [str(part) for part in problem["loc"]]
        line, column = _locate(text, location, is_pyproject, problem["msg"].removeprefix("Value error, "))
        key = ".".join(location) if location else "table"
        if problem["type"] == "extra_forbidden":
            message = f"unknown key {key!r}; known keys: {', '.join(KEYS.values())}"
        else:
            message = f"bad value for {key!r}: {problem['msg'].removeprefix('Value error, ')}"
        raise ConfigError(message, str(path), line, column) from None
    return ConfigFile(path, "[tool.qlint]" if is_pyproject else "", config, set(table))


def _locate(text: str, location: list[str], is_pyproject: bool, message: str = "") -> tuple[int, int]:
    """Line/column of the key an error is about inside the qlint table: ``location`` is pydantic's path
    (``["severity", "QL202"]``); a key the message quotes (``'QL999' names no rule``) is looked up in
    that table. Sub-tables are found under their own header (``[tool.qlint.severity]`` /
    ``[severity]``) or inline (``severity = {QL202 = "loud"}``); the table header otherwise."""
    lines = text.splitlines()
    prefix = r"tool\s*\.\s*qlint" if is_pyproject else ""
    names = [part for part in location if not part.isdigit()]
    quoted = re.match(r"^'([^']+)' names no rule", message)
    if quoted and names and quoted.group(1) not in names and names[-1] in ("severity",):
        names.append(quoted.group(1))

    def header(parts: list[str]) -> re.Pattern:
        dotted = r"\s*\.\s*".join([prefix] + [re.escape(p) for p in parts] if prefix else [re.escape(p) for p in parts])
        return re.compile(rf"^\s*\[\s*{dotted}\s*\]")

    def key(name: str) -> re.Pattern:
        return re.compile(rf"^(\s*)[\"']?{re.escape(name)}[\"']?\s*=|[{{,]\s*[\"']?{re.escape(name)}[\"']?\s*=")

    def section(parts: list[str]) -> tuple[int, int] | None:
        """(first line index, end index) of the lines of a table; None when it has no header."""
        start: int | None
        if not parts and not prefix:
            start = 0
        else:
            pattern = header(parts) if parts or prefix else None
            start = next((n + 1 for n, line in enumerate(lines) if pattern and pattern.match(line)), None)
            if start is None:
                return None
        end = next((n for n in range(start, len(lines)) if re.match(r"^\s*\[", lines[n])), len(lines))
        return start, end

    def find(pattern: re.Pattern, start: int, end: int) -> tuple[int, int] | None:
        for number in range(start, end):
            found = pattern.search(lines[number])
            if found:
                return number + 1, found.start() + len(found.group(1) or "") + 1
        return None

    # the deepest sub-table with its own header holds the rest of the path as keys
    for depth in range(len(names) - 1, -1, -1):
        where = section(names[:depth])
        if where is None:
            continue
        rest = names[depth:]
        if not rest:
            return where[0], 1
        hit = find(key(rest[-1]), *where) if len(rest) == 1 else None
        if hit is None and len(rest) > 1:  # inline table: the innermost key on the line of the outer one
            outer = find(key(rest[0]), *where)
            if outer is not None:
                inner = key(rest[-1]).search(lines[outer[0] - 1])
                return (outer[0], inner.start() + 2) if inner else outer
        if hit is not None:
            return hit
    top = section([])
    return (top[0] if top and prefix else 1), 1
