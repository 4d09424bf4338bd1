"""The ``qlint`` click group: ``check`` is the default command (``qlint run.sh`` ==
``qlint check run.sh``), beside ``config``, ``rules``, ``explain`` and ``generate``."""

from __future__ import annotations

import click

from qlint import __version__
from qlint.linter.cli_check_command import check_command
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
