"""The ``qlint`` command line.

``qlint [OPTIONS] PATH...`` lints files, directories (``*.sh``/``*.bash`` and
files with a shell shebang) or ``-`` (stdin). ``qlint rules`` lists the rules,
``qlint explain QLnnn`` documents one, ``qlint config --show`` prints the
effective configuration. Exit codes: 0 no finding at or above the fail level,
1 findings, 2 bad usage, bad configuration or unreadable input.

This module holds the console entry point: the common check invocation is read without
click (``parse``, below), anything else goes to the click group (``cli_group``, also
importable here as ``main``). The commands live in ``cli_check`` (lint and report),
``cli_commands`` (config, rules, explain) and ``cli_generate``, sharing
``cli_args`` (options), ``cli_common`` (their click-free part, output and usage errors) and
``cli_inputs`` (what is read).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def __getattr__(name: str):
    """``main``, the click group, is built on first use: ``qlint FILE`` does not import click."""
    if name in ("main", "DefaultGroup"):
        from qlint.linter import cli_group

        return getattr(cli_group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def entry() -> None:
    """The ``qlint`` console script: ``main`` under one exit-code policy.

    0 clean, 1 findings, 2 usage, input, configuration or output errors (a full disk,
    a closed pipe, no memory left for the report), 130 on SIGINT. Output that the
    terminal's encoding cannot carry is written with backslash escapes instead of
    failing.
    """
    from qlint import fastimport

    fastimport.install()  # qlint's modules straight from their bytecode caches
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):  # pragma: no cover - a replaced stream
            pass
    fast = parse(sys.argv[1:])
    if fast is not None:
        _check(fast)  # exits, unless the invocation turns out to be bad usage: then click reports it
    import click

    from qlint.linter.cli_group import main

    try:
        returned = main.main(standalone_mode=False)  # --help / --version return their exit code
    except click.exceptions.Abort:
        _quiet_exit("qlint: interrupted", 130)
    except KeyboardInterrupt:
        _quiet_exit("qlint: interrupted", 130)
    except click.ClickException as error:
        error.show()
        code = error.exit_code
    except BrokenPipeError:
        _quiet_exit(None, 2)  # the reader went away (qlint ... | head): nothing left to say
    except MemoryError:
        _quiet_exit("qlint: out of memory while building the report (narrow the inputs or use --statistics)", 2)
    except OSError as error:  # the output cannot be written (a full disk, a closed terminal)
        _quiet_exit(f"qlint: cannot write the output: {error.strerror or error}", 2)
    else:
        code = returned if isinstance(returned, int) else 0
    _flush_or_exit()
    sys.exit(code)


def _check(arguments: dict) -> None:
    """``qlint check`` without click, under the exit-code policy click's ``main`` and ``entry`` apply."""
    import gc
    import os

    _start_up()
    from qlint.linter.cli_check import run
    from qlint.linter.cli_common import Usage, echo

    paths = arguments["paths"]
    paused = len(paths) == 1 and os.path.isfile(paths[0]) and gc.isenabled()
    if paused:
        gc.disable()  # one file: what its lint builds is bounded by the file, and the collections find little
    try:
        try:
            run(**arguments)
        finally:
            gc.freeze()  # the run is over: the interpreter's collection at exit need not scan what it built
            if paused:
                gc.enable()
    except Usage:
        return  # raised before anything is read or printed: click parses again and reports it
    except (EOFError, KeyboardInterrupt):
        echo(err=True)  # click closes the terminal's ^C echo with a blank line
        _quiet_exit("qlint: interrupted", 130)
    except OSError as error:
        import errno

        if error.errno != errno.EPIPE:  # click re-raises these, and entry() says so
            _quiet_exit(f"qlint: cannot write the output: {error.strerror or error}", 2)
        from click.utils import _PacifyFlushWrapper  # what click's main does on EPIPE

        sys.stdout = _PacifyFlushWrapper(sys.stdout)
        sys.stderr = _PacifyFlushWrapper(sys.stderr)
        sys.exit(1)
    except MemoryError:
        _quiet_exit("qlint: out of memory while building the report (narrow the inputs or use --statistics)", 2)
    _flush_or_exit()  # pragma: no cover - run() always exits
    sys.exit(0)  # pragma: no cover


_STARTED = False


def _start_up() -> None:
    """Import the check path and load the knowledge with the cyclic garbage collector paused, then
    freeze what they built (``gc.freeze``: never scanned again) and resume it. Once per process.

    Everything start-up allocates (modules, rule metadata, the knowledge records) lives as long as
    the process, so the collections the allocations would trigger (about 3 ms of a 50 ms start) find
    nothing. The lint of a batch runs with the collector as it was (``batch`` freezes what it keeps); a single
    file is linted with it paused (``_check``), and what a run built is frozen before the interpreter exits, so
    that its collection at exit does not walk it (together about 5 % of a cold single-file run's instructions).
    """
    global _STARTED
    import gc

    if _STARTED or not gc.isenabled():
        return
    _STARTED = True
    gc.disable()
    try:
        from qlint.rules.graph import default_graph  # the rule graph (from the rule index: no rule module yet)
        from qlint.knowledge.base import KnowledgeError, load
        from qlint.linter import cli_check, lint  # noqa: F401

        default_graph()
        try:
            load()
        except KnowledgeError:
            pass  # cli_check.run reports it
    finally:
        gc.freeze()
        gc.enable()


def _flush_or_exit() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_exit(None, 2)
    except OSError as error:
        _quiet_exit(f"qlint: cannot write the output: {error.strerror or error}", 2)


def _quiet_exit(message: str | None, code: int) -> None:
    import os

    try:  # stdout may be the broken stream: point it at /dev/null so the interpreter's flush is quiet
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # pragma: no cover - no real file descriptor
        pass
    if message:
        try:
            print(message, file=sys.stderr)
        except OSError:  # pragma: no cover
            pass
    sys.exit(code)


COMMANDS = frozenset({"check", "config", "rules", "explain", "generate"})
"""The group's subcommands (a test checks this against the click group)."""
FORMATS = ("text", "json", "sarif", "github")
HARDWARE = ("a2", "a3", "310p")
_VALUED = {"--format": "output_format", "--hardware": "hardware", "--vllm-ascend-version": "version"}
_FLAGS = {"-q": "quiet", "--quiet": "quiet", "--exit-zero": "exit_zero"}


def parse(argv: list[str]) -> dict[str, Any] | None:
    """``cli_check.run`` keyword arguments for ``argv`` (without the program name), or None.

    The common invocation is read without click (importing click costs a cold run tens of milliseconds):

        qlint [check] [--format F] [--hardware H] [--vllm-ascend-version V] [-q|--quiet] [--exit-zero] PATH...

    The arguments are returned for exactly these shapes (each option at most once, ``--opt value`` or
    ``--opt=value``, values click would accept), None for anything else: another subcommand, ``--help``,
    any other option, a value click would refuse, ``--``, an argument starting with ``-`` other than ``-``
    (stdin), shell completion. None means "let click do it", so help, usage errors and every other option
    keep click's behaviour and messages.
    """
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return None  # click's shell completion
    explicit = bool(argv) and argv[0] == "check"
    if argv and argv[0] in COMMANDS:
        if not explicit:
            return None
        argv = argv[1:]
    options: dict[str, Any] = {}
    paths: list[str] = []
    index = 0
    while index < len(argv):
        token = argv[index]
        index += 1
        if token == "-" or not token.startswith("-"):
            paths.append(token)
            continue
        name, equals, value = token.partition("=")
        if name in _VALUED:
            if not equals:
                if index >= len(argv) or argv[index].startswith("-"):
                    return None
                value = argv[index]
                index += 1
            key = _VALUED[name]
            if key in options:
                return None
            if key == "output_format" and value not in FORMATS:
                return None
            if key == "hardware":
                if value.lower() not in HARDWARE:
                    return None
                value = value.lower()  # click's case-insensitive Choice answers the choice as declared
            options[key] = value
        elif token in _FLAGS:
            options[_FLAGS[token]] = True
        else:
            return None
    if not paths or (not explicit and any(path in COMMANDS for path in paths)):
        return None  # a subcommand after options (qlint --lang zh explain QL201): click moves it first
    return {"paths": tuple(paths), **options}


if __name__ == "__main__":  # pragma: no cover
    entry()
