"""Output and usage errors of the ``qlint check`` path without importing click.

Importing click costs a cold ``qlint FILE`` tens of milliseconds; the check path only needs
to print and to say "bad usage". ``echo`` behaves as ``click.echo`` does (it *is*
``click.echo`` whenever click is loaded, as under the click command group or click's test
runner); :class:`Usage` is what the click-free code raises where a click command raises
``click.UsageError`` / ``click.BadParameter``: the click commands turn it into those
(:class:`click_errors`), the fast path of ``qlint.linter.cli.entry`` hands the invocation
to click, which then reports it exactly as before.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

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
