"""Argument handling shared by the ``qlint`` subcommands: choices, the selection
options of ``check`` and ``config``, turning them into configuration overrides,
and the exit-2 path for bad usage."""

from __future__ import annotations

import click

from qlint.linter.cli_common import check_version as _check_version
from qlint.linter.cli_common import config_cache, default_lang, fail
from qlint.linter.cli_common import overrides as _overrides
from qlint.linter.cli_common import click_errors

__all__ = ["FORMATS", "HARDWARE", "LANGS", "LEVELS", "check_version", "config_cache", "default_lang", "fail",
           "overrides", "selection_options"]

HARDWARE = click.Choice(["a2", "a3", "310p"], case_sensitive=False)
FORMATS = click.Choice(["text", "json", "sarif", "github"])
LEVELS = click.Choice(["error", "warning", "info"])
LANGS = click.Choice(["en", "zh"])


def selection_options(function):
    """Options shared by ``check`` and ``config``: what to lint for and which rules."""
    decorators = [
        click.option("--hardware", type=HARDWARE, help="Target hardware (default: from the script's directive "
                     "or image tag, else the configuration)."),
        click.option("--vllm-ascend-version", "version", metavar="TAG", help="vllm-ascend release, e.g. v0.23.0."),
        click.option("--select", multiple=True, metavar="RULES",
                     help="Only these rules (ids, names, groups such as memory, or id prefixes such as QL2; comma-separated). "
                     "Replaces the configuration's select."),
        click.option("--ignore", multiple=True, metavar="RULES", help="Skip these rules (adds to the configuration's ignore)."),
        click.option("--fail-level", type=LEVELS, default=None,
                     help="Exit 1 when a finding is at or above this severity [default: warning]."),
        click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
                     help="Use this .qlint.toml / pyproject.toml instead of searching upwards."),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def check_version(version: str | None) -> None:
    """Reject a ``--vllm-ascend-version`` that is not a release tag (click usage error)."""
    with click_errors():
        _check_version(version)


def overrides(hardware, version, select, ignore, fail_level):
    """The command-line part of the configuration (``linter.config.Overrides``); click usage errors."""
    with click_errors():
        return _overrides(hardware, version, select, ignore, fail_level)
