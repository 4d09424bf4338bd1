"""The click declaration of ``qlint check`` (options, help); the work is ``cli_check.run``."""

from __future__ import annotations

import click

from qlint.linter import cli_check
from qlint.linter.cli_args import FORMATS, selection_options
from qlint.linter.cli_common import click_errors


@click.command("check")
@click.argument("paths", nargs=-1, required=True)
@selection_options
@click.option("--format", "output_format", type=FORMATS, default=None,
              help="Output format [default: text; github when GITHUB_ACTIONS=true].")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings (2 still means bad input).")
@click.option("--fix", is_flag=True, help="Apply safe fixes to the files in place, then report what is left.")
@click.option("--unsafe-fixes", is_flag=True,
              help="Also apply fixes that change behaviour beyond the finding (TP/DP, lengths); with --fix or --diff.")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print the fixes as a unified diff, write nothing, and report what the fixes would leave (exit 1 when a file would change).")
@click.option("--no-inline-suppressions", is_flag=True, help="Ignore every '# qlint: disable' comment.")
@click.option("--show-suppressed", is_flag=True, help="Text format: also list suppressed findings with their reasons.")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only: no summary, no notes.")
@click.option("--statistics", is_flag=True, help="Print a count per rule instead of the findings.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour severities (auto: on a terminal, unless NO_COLOR is set).")
@click.option("--lang", type=click.Choice(["en", "zh"]), default=None,
              help="Language of messages and fixes (default: from the locale).")
@click.option("--launcher", metavar="COMMAND",
              help="The launch_online_dp.py command that runs the DP template(s), e.g. "
                   "'python launch_online_dp.py --dp-size 8 --tp-size 2 --dp-address 10.0.0.1'.")
@click.option("--with-deployment", is_flag=True,
              help="Also read the rest of each named file's deployment (its folder, or its parent's folders); "
                   "the pre-commit hooks use it so that a change to one side of a pair checks the pair.")
def check_command(paths, hardware, version, select, ignore, fail_level, config_path, output_format, exit_zero,
                  fix, unsafe_fixes, show_diff, no_inline_suppressions, show_suppressed, quiet, statistics, color,
                  lang, launcher, with_deployment):
    """Lint launch scripts (files, directories, or - for stdin).

    A batch of 200 files or more is analysed in worker processes, one per idle core; QLINT_WORKERS=N sets
    the number of processes (QLINT_WORKERS=1: one process). The output is the same either way.
    """
    with click_errors():
        cli_check.run(paths, hardware, version, select, ignore, fail_level, config_path, output_format, exit_zero,
                      fix, unsafe_fixes, show_diff, no_inline_suppressions, show_suppressed, quiet, statistics,
                      color, lang, launcher, with_deployment)
