"""The ``qlint`` command line.

``qlint [OPTIONS] PATH...`` lints files, directories (``*.sh``/``*.bash`` and
files with a shell shebang) or ``-`` (stdin). ``qlint rules`` lists the rules,
``qlint explain QLnnn`` documents one, ``qlint config --show`` prints the
effective configuration. Exit codes: 0 no finding at or above the fail level,
1 findings, 2 bad usage, bad configuration or unreadable input.

This module only wires the group; the commands live in ``cli_check`` (lint),
``cli_commands`` (config, rules, explain) and ``cli_generate``, sharing
``cli_args`` (options), ``cli_inputs`` (what is read) and ``cli_report`` (output).
"""

from __future__ import annotations

import sys

import click

from qlint import __version__
from qlint.linter.cli_check import check_command
from qlint.linter.cli_commands import config_command, explain_command, rules_command
from qlint.linter.cli_generate import generate_command


class DefaultGroup(click.Group):
    """A group whose default command is ``check``: ``qlint run.sh`` == ``qlint check run.sh``."""

    def resolve_command(self, ctx, args):
        if args and args[0] in self.commands:
            return super().resolve_command(ctx, args)
        return "check", self.commands["check"], args

    def parse_args(self, ctx, args):
        if args and args[0] in ("--help", "-h", "--version"):
            return super().parse_args(ctx, args)
        if not args or args[0] not in self.commands:
            args = ["check", *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="qlint")
def main() -> None:
    """Lint vLLM-Ascend launch scripts for Qwen3.5 / Qwen3.6 deployments.

    \b
    qlint FILE...  is short for  qlint check FILE...  (also with options: qlint --fix run.sh).
    qlint check --help lists the options of a lint run.
    """


for _command in (check_command, config_command, rules_command, explain_command, generate_command):
    main.add_command(_command)


def entry() -> None:
    """The ``qlint`` console script: ``main`` under one exit-code policy.

    0 clean, 1 findings, 2 usage, input, configuration or output errors (a full disk,
    a closed pipe, no memory left for the report), 130 on SIGINT. Output that the
    terminal's encoding cannot carry is written with backslash escapes instead of
    failing.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):  # pragma: no cover - a replaced stream
            pass
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


if __name__ == "__main__":  # pragma: no cover
    entry()
