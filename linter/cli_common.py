"""The click-free part of the ``qlint`` command line: output, usage errors, turning the selection
options into configuration overrides, the configuration files to use and the message language.

Importing click costs a cold ``qlint FILE`` tens of milliseconds; the check path only needs
to print and to say "bad usage". ``echo`` behaves as ``click.echo`` does (it *is*
``click.echo`` whenever click is loaded, as under the click command group or click's test
runner); :class:`Usage` is what the click-free code raises where a click command raises
``click.UsageError`` / ``click.BadParameter``: the click commands turn it into those
(:class:`click_errors`), the fast path of ``qlint.linter.cli.entry`` hands the invocation
to click, which then reports it exactly as before. ``fail`` is the exit-2 path for bad usage.
``cli_args`` adds the click option declarations on top.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

__all__ = ["Usage", "check_version", "click_errors", "config_cache", "default_lang", "echo", "fail", "overrides"]

_ANSI = None  # click's ANSI pattern, compiled on first use


class Usage(Exception):
    """Bad usage found by click-free code: ``param_hint`` names the option for a bad value."""

    def __init__(self, message: str, param_hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param_hint = param_hint


class click_errors:
    """``with click_errors():`` inside a click command: :class:`Usage` becomes ``click.BadParameter`` or
    ``click.UsageError``. (A class rather than ``contextlib.contextmanager``: contextlib is not
    imported on the check path.)"""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        if not isinstance(error, Usage):
            return  # anything else propagates as it is
        import click

        if error.param_hint is not None:
            raise click.BadParameter(error.message, param_hint=error.param_hint) from None
        raise click.UsageError(error.message) from None


def _ascii(stream: Any) -> bool:
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii"
    except LookupError:
        return False


def echo(message: str | None = None, err: bool = False, nl: bool = True, color: bool | None = None) -> None:
    """``click.echo(message, err=err, nl=nl, color=color)`` for text messages."""
    loaded = sys.modules.get("click")
    stream = sys.stderr if err else sys.stdout
    if loaded is not None or stream is None or _ascii(stream) or not hasattr(stream, "write"):
        import click  # an ASCII stream is re-wrapped by click (errors="replace"): let click do it

        click.echo(message, err=err, nl=nl, color=color)
        return
    out = "" if message is None else message
    if nl:
        out += "\n"
    if not out:
        stream.flush()
        return
    if "\033" in out and _strip_ansi(stream, color):  # (the escapes all start with ESC)
        global _ANSI
        if _ANSI is None:
            import re

            _ANSI = re.compile(r"\033\[[0-?]*[ -/]*[@-~]")
        out = _ANSI.sub("", out)
    stream.write(out)
    stream.flush()


def _strip_ansi(stream: Any, color: bool | None) -> bool:
    if color is not None:
        return not color
    try:
        tty = stream.isatty()
    except Exception:
        tty = False
    return not tty and not type(stream).__module__.startswith("ipykernel.")


def fail(message: str) -> NoReturn:
    """Print ``message`` on stderr and exit 2 (bad usage, configuration or input)."""
    echo(message, err=True)
    sys.exit(2)


def check_version(version: str | None) -> None:
    """Reject a ``--vllm-ascend-version`` that is not a release tag (:class:`Usage` naming the option)."""
    from qlint.knowledge.base import release_tag

    if version is not None:
        try:
            release_tag(version)
        except Exception:
            raise Usage(f"{version!r} is not a release tag like v0.23.0", param_hint="--vllm-ascend-version")


def check_workers() -> None:
    """Reject a ``QLINT_WORKERS`` that is set but neither a count of processes nor ``auto`` (empty: unset)."""
    chosen = os.environ.get("QLINT_WORKERS", "")
    if chosen and chosen != "auto" and not (chosen.isascii() and chosen.isdigit() and int(chosen) > 0):
        raise Usage(f"QLINT_WORKERS={chosen!r} is not a number of processes (1 or more; 1: one process) or auto")


def overrides(hardware, version, select, ignore, fail_level):
    """The command-line part of the configuration (``linter.config.Overrides``)."""
    from qlint.linter.config import ConfigError, Overrides, check_selectors

    check_version(version)
    check_workers()
    try:
        return Overrides(
            select=check_selectors(list(select), "--select") if select else None,
            ignore=check_selectors(list(ignore), "--ignore"),
            fail_level=fail_level,
            hardware=hardware.lower() if hardware else None,
            vllm_ascend=version,
        )
    except ConfigError as error:
        fail(f"qlint: {error.message}")


def config_cache(config_path):
    """The configuration files to use: ``--config`` or the ones found upwards from each input."""
    from qlint.linter.config import ConfigCache, ConfigError

    try:
        if config_path:
            from pathlib import Path  # only with --config: pathlib is not imported on every run

            return ConfigCache(Path(config_path))
        return ConfigCache(None)
    except ConfigError as error:
        fail(str(error))


def default_lang() -> str:
    """``zh`` when the locale is Chinese (LC_ALL, LC_MESSAGES, LANG), else ``en``."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"
