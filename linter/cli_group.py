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
            args = self._command_first(args)
        if not args or args[0] not in self.commands:
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def _command_first(self, args: list[str]) -> list[str]:
        """``qlint --lang zh explain QL201`` as ``qlint explain --lang zh QL201``: a subcommand named
        after leading options (the first word that is no option's value) is the command, as when it
        comes first; to lint a file named like a command, write ``qlint check rules`` or ``./rules``."""
        valued = {name for param in self.commands["check"].params if isinstance(param, click.Option)
                  and not param.is_flag and not param.count for name in param.opts}
        index = 0
        while index < len(args) and args[index].startswith("-") and args[index] not in ("-", "--"):
            index += 2 if args[index] in valued else 1
        if index < len(args) and args[index] in self.commands:
            return [args[index], *args[:index], *args[index + 1:]]
        return args


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
