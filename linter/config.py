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
import re

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
_TOML_POSITION = r"\(at line (\d+), column (\d+)\)"  # compiled on first use (re's cache): a TOML error


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
    real = os.path.realpath(path)
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


def load_config_file(path: Path) -> ConfigFile:
    """Read and validate one configuration file. Raises ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read configuration: {error}", str(path)) from None
    import tomllib

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
    from pydantic import ValidationError  # validation only when a configuration file exists

    from qlint.linter.config_schema import QlintConfig

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
        self.fixed = load_config_file(fixed) if fixed is not None else None
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
                self._by_file[found] = load_config_file(found)
            self._by_folder[folder] = self._by_file[found] if found is not None else None
        return self._by_folder[folder]


_UNSET = {
    "select": "every rule",
    "ignore": "nothing",
    "severity": "each rule's own",
    "hardware": "from the script (directive or image tag)",
    "vllm_ascend": "from the script (directive or image tag), else the latest stable release",
    "deployments": "each directory argument, and named files that reference each other",
}


def _toml(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(f'"{item}"' for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f'{key} = "{item}"' for key, item in sorted(value.items())) + " }"
    return f'"{value}"'


def for_script(effective: Effective, plan, display: str, kb=None) -> Effective:
    """The settings in force for one script: the command line wins, then the script's ``# qlint:``
    directive, then its vllm-ascend image tag (last one), then the configuration file (the order
    ``rules/facts.py`` reads hardware and release in). Returns a copy with values and origins
    replaced; ``plan`` is the script's LaunchPlan."""
    from qlint.record import replace as copy

    from qlint.knowledge.images import parse_image

    out = copy(effective, origins=dict(effective.origins))
    image = None
    for value in reversed(plan.image_tags):
        parsed = parse_image(value.text or "")
        if parsed is not None:
            image = (value, parsed)
            break
    suffixes = {"-a3": "a3", "-310p": "310p", None: "a2"}
    for name, key in (("hardware", "hardware"), ("vllm_ascend", "vllm-ascend")):
        if out.origins.get(name) == "command line":
            continue
        directive = next((d for d in plan.directives if key in d.settings), None)
        if directive is not None:
            out.__setattr__(name, directive.settings[key].lower() if name == "hardware" else directive.settings[key])
            out.origins[name] = f"directive '# qlint: {key}=' at {display}:{directive.span.line}"
        elif image is not None:
            value, (tag, suffix) = image
            out.__setattr__(name, suffixes[suffix] if name == "hardware" else tag)
            out.origins[name] = f"image tag {value.text} at {display}:{value.span.line}"
        elif getattr(out, name) is None and name == "vllm_ascend" and kb is not None:
            out.vllm_ascend = kb.latest_stable.tag
            out.origins[name] = "assumed: the latest stable release (nothing states one)"
    if out.vllm_ascend and kb is not None:
        try:
            tag, note = kb.resolve_release(out.vllm_ascend)
        except Exception:  # not a release tag: the lint run says so
            note = None
        else:
            if note is not None:
                out.origins["vllm_ascend"] += f"; checked as {tag}"
    return out


_UNSET_ZH = {
    "select": "全部规则",
    "ignore": "无",
    "severity": "各规则自身的级别",
    "hardware": "取自脚本（注释或镜像标签）",
    "vllm_ascend": "取自脚本（注释或镜像标签），否则为最新稳定版",
    "deployments": "每个目录参数，以及相互引用的指定文件",
}
_ORIGIN_ZH = (  # origin phrases, longest first
    ("assumed: the latest stable release (nothing states one)", "假定为最新稳定版（没有任何地方指定）"),
    ("command line", "命令行"), ("default", "默认"), ("image tag ", "镜像标签 "), ("directive ", "注释 "),
    ("; checked as ", "；按此版本检查："), (" at ", " 位于 "),
)


def _origin(origin: str, lang: str) -> str:
    if not lang.startswith("zh"):
        return origin
    for english, chinese in _ORIGIN_ZH:
        origin = origin.replace(english, chinese)
    return origin


def describe(effective: Effective, where: str, lang: str = "en") -> str:
    """``qlint config --show``: the effective values as TOML, each with its origin (comments in ``lang``).

    Unset values are comments saying what applies instead; the output can be
    saved as a ``.qlint.toml``.
    """
    zh = lang.startswith("zh")
    lines = [f"# 对 {where} 生效的 qlint 配置" if zh else f"# effective qlint configuration for {where}"]
    for name, key in KEYS.items():
        value = getattr(effective, name)
        origin = _origin(effective.origins[name], lang)
        if value in (None, [], {}):
            unset = _UNSET_ZH[name] if zh else _UNSET[name]
            lines.append(f"# {key}: {unset}（来源：{origin}）" if zh else f"# {key}: {unset}  (from: {origin})")
        else:
            lines.append(f"{key} = {_toml(value)}  # {'来源：' if zh else 'from: '}{origin}")
    return "\n".join(lines)
