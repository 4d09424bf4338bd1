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
    """Lint vLLM-Ascend launch scripts for Qwen3.5 / Qwen3.6 deployments."""


for _command in (check_command, config_command, rules_command, explain_command, generate_command):
    main.add_command(_command)


if __name__ == "__main__":  # pragma: no cover
    main()
