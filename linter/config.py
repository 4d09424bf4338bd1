"""Configuration: ``[tool.qlint]`` in ``pyproject.toml`` or a ``.qlint.toml``.

The file is found by walking up from each linted file's folder (from the
current folder for stdin); in one folder ``.qlint.toml`` wins over
``pyproject.toml``, and a ``pyproject.toml`` without ``[tool.qlint]`` is
passed over. Keys (TOML, all optional)::

    select = ["QL2", "memory", "tp-divides-heads"]   # ids, names, groups or id prefixes; default: every rule
    ignore = ["QL513"]
    hardware = "a3"                          # used when the script states no hardware
    vllm-ascend = "v0.23.0"                  # used when the script states no release
    fail-level = "error"                     # error | warning | info
    deployments = ["deploy/pd/**", "deploy/dp-*"]   # globs: the files each one matches are one deployment
    [severity]                               # [tool.qlint.severity] in pyproject.toml
    QL513 = "warning"

Command-line options win over the file: ``--select`` replaces ``select`` and
drops the file's ``ignore``; ``--ignore`` adds to ``ignore``. Unknown keys and bad values raise ConfigError
with the file, line and column.
"""

from __future__ import annotations

import os

from qlint.linter.catalog import match_entries, rule_ids
from qlint.record import field, record
from qlint.rules.base import SEVERITY_RANK

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path  # imported where a configuration file is found (not on every run)
    from typing import Literal

    from qlint.linter.config_schema import QlintConfig
    from qlint.rules.base import Severity

DEFAULT_FAIL_LEVEL = "warning"


class ConfigError(Exception):
    """A configuration file (or option) is wrong: ``path:line:col`` says where."""

    def __init__(self, message: str, path: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: error: {self.message}"


KEYS = {"select": "select", "ignore": "ignore", "severity": "severity", "hardware": "hardware",
        "vllm_ascend": "vllm-ascend", "fail_level": "fail-level", "deployments": "deployments"}
"""Model field -> key as written in TOML."""


@record
class ConfigFile:
    """A configuration file that was found and validated."""

    path: Path
    table: str  # "[tool.qlint]" or "" for .qlint.toml
    config: QlintConfig
    keys: set[str]  # TOML keys the file sets

    @property
    def label(self) -> str:
        return f"{self.path} {self.table}".rstrip()


def _absolute(path: Path) -> Path:
    """``path`` resolved, or made absolute when resolving fails (a symlink loop raises RuntimeError)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return type(path)(os.path.abspath(path))


def _resolved(path: str) -> str:
    """``os.fspath(_absolute(Path(path)))`` without pathlib (not imported on the check path): the path
    with symlinks resolved, or made absolute when it is a symlink loop."""
    from qlint.linter.cli_inputs import real_path  # (os.path.realpath, each folder resolved once)

    real = real_path(path)
    try:
        os.stat(real)
    except OSError as error:
        import errno  # (a builtin module, but its import is not free)

        if error.errno == errno.ELOOP:
            return os.path.abspath(path)
    return real


def find_config_file(start: str | os.PathLike[str]) -> Path | None:
    """The nearest ``.qlint.toml`` or ``pyproject.toml`` with ``[tool.qlint]``, walking up."""
    folder = _resolved(os.fspath(start))
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    while True:
        for name in (".qlint.toml", "pyproject.toml"):
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate) and (name == ".qlint.toml" or _has_qlint_table(candidate)):
                from pathlib import Path  # a configuration file exists: the rest of this module uses Path

                return Path(candidate)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _has_qlint_table(path: str) -> bool:
    """A ``pyproject.toml`` counts when it has ``[tool.qlint]``, or is not valid TOML but may have it
    (so that its error is reported rather than silently passed over, as ruff does). One that cannot
    have it is passed over unparsed (most do not: reading TOML costs every run milliseconds)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return False
    if not _may_have_qlint_table(text):
        return False
    import tomllib  # only when a configuration file may exist

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return True  # a broken pyproject.toml that may configure qlint is reported (load_config_file)
    tool = data.get("tool")
    return isinstance(tool, dict) and "qlint" in tool


_KEY_NOISE = str.maketrans("", "", " \t\r\"'")


def _may_have_qlint_table(text: str) -> bool:
    """False when TOML ``text`` cannot define ``tool.qlint``, looking at lines only (quotes and blanks
    dropped): a ``[tool.qlint...]`` header, a ``tool.qlint...`` key, ``tool = {...qlint...}``, a
    ``qlint...`` key in a file with a ``[tool]`` header, or a key spelled with escapes. Never False
    for a file that has the table."""
    if "\\u" in text or "\\U" in text:
        return True  # a quoted key may spell tool or qlint with escapes
    if "qlint" not in text:
        return False
    # the lines, quotes and blanks dropped, between newlines (one translate: a call per line built its
    # character cache each time); only a line naming qlint can say yes, so only those are looked at
    lines = f"\n{text.translate(_KEY_NOISE)}\n"
    under_tool = "\n[tool]\n" in lines or "\n[tool]#" in lines
    at = lines.find("qlint")
    while at >= 0:
        end = lines.find("\n", at)
        line = lines[lines.rfind("\n", 0, at) + 1 : end]
        if line.startswith(("[tool.qlint", "[[tool.qlint", "tool.qlint")):
            return True
        if line.startswith("tool="):
            return True  # (it names qlint)
        if under_tool and line.startswith("qlint") and line[5:6] in (".", "="):
            return True
        at = lines.find("qlint", end)
    return False


@record
class Effective:
    """The configuration in force for one file, and where each value came from."""

    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    hardware: str | None = None
    vllm_ascend: str | None = None
    fail_level: str = DEFAULT_FAIL_LEVEL
    deployments: list[str] = field(default_factory=list)
    deployments_root: str | None = None  # the folder the deployment globs are relative to
    origins: dict[str, str] = field(default_factory=dict)

    def enabled_ids(self) -> frozenset[str]:
        """Ids of the rules that run: ``select`` (default all) minus ``ignore``."""
        chosen = set(rule_ids()) if self.select is None else {
            m.id for selector in self.select for m in match_entries(selector)}
        dropped = {m.id for selector in self.ignore for m in match_entries(selector)}
        return frozenset(chosen - dropped)

    def is_failure(self, level: str) -> bool:
        """Whether a finding of this severity makes the exit code 1."""
        return SEVERITY_RANK[level] >= SEVERITY_RANK[self.fail_level]


@record
class Overrides:
    """What the command line says (None / empty: not given)."""

    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    fail_level: str | None = None
    hardware: str | None = None
    vllm_ascend: str | None = None


def resolve(found: ConfigFile | None, cli: Overrides) -> Effective:
    """Merge defaults, a configuration file and the command line (in rising priority)."""
    effective = Effective()
    for name in KEYS:
        effective.origins[name] = "default"
    if found is not None:
        for name, key in KEYS.items():
            if key in found.keys:
                setattr(effective, name, getattr(found.config, name))
                effective.origins[name] = found.label
        if found.config.deployments:
            effective.deployments_root = str(_absolute(found.path).parent)
    if cli.select is not None:  # the command line's choice is the whole choice: the file's ignore goes too
        effective.select, effective.origins["select"] = list(cli.select), "command line"
        effective.ignore, effective.origins["ignore"] = [], "default"
    if cli.ignore:
        effective.ignore = [*effective.ignore, *cli.ignore]
        effective.origins["ignore"] = (f"{effective.origins['ignore']} + command line"
                                       if effective.origins["ignore"] != "default" else "command line")
    for name in ("fail_level", "hardware", "vllm_ascend"):
        value = getattr(cli, name)
        if value is not None:
            setattr(effective, name, value)
            effective.origins[name] = "command line"
    return effective


def empty_selection(effective: Effective) -> str:
    """The error for a selection that leaves no rule to run (``--select QL201 --ignore QL201``)."""
    chosen = "every rule" if effective.select is None else "select " + ", ".join(effective.select) + \
        f" (from: {effective.origins.get('select', 'default')})"
    dropped = ", ".join(effective.ignore) + f" (from: {effective.origins.get('ignore', 'default')})"
    return (f"qlint: no rule selected: {chosen} minus ignore {dropped} leaves no rule to run; nothing was "
            "checked (see `qlint rules`)")


def check_selectors(values: list[str], option: str) -> list[str]:
    """Validate ``--select``/``--ignore`` values (comma lists allowed). Raises ConfigError."""
    out = [part.strip() for value in values for part in value.split(",") if part.strip()]
    for value in out:
        if not match_entries(value):
            raise ConfigError(f"{option} {value!r} names no rule (see `qlint rules`)", "<command line>")
    return out


class ConfigCache:
    """Finds and loads each folder's configuration once (or one fixed file for ``--config``)."""

    def __init__(self, fixed: Path | None = None):
        self.fixed = _load(fixed) if fixed is not None else None
        self._by_folder: dict[str, ConfigFile | None] = {}
        self._by_file: dict[Path, ConfigFile] = {}
        self.prepared: dict[tuple, tuple] = {}  # qlint check: (Effective, Policy) per configuration, shared by its files

    def for_path(self, path: str) -> ConfigFile | None:
        """The configuration that applies to a linted path (``-``: the current folder)."""
        if self.fixed is not None:
            return self.fixed
        folder = os.getcwd() if path == "-" else os.path.dirname(_resolved(path))
        if folder not in self._by_folder:
            found = find_config_file(folder)
            if found is not None and found not in self._by_file:
                self._by_file[found] = _load(found)
            self._by_folder[folder] = self._by_file[found] if found is not None else None
        return self._by_folder[folder]


def _load(path: Path) -> ConfigFile:
    """``config_schema.load_config_file``: pydantic and the TOML reader are imported when a file exists."""
    from qlint.linter.config_schema import load_config_file

    return load_config_file(path)
