"""Argument handling shared by the ``qlint`` subcommands: choices, the selection
options of ``check`` and ``config``, turning them into configuration overrides,
and the exit-2 path for bad usage."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

import click

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


def fail(message: str) -> NoReturn:
    """Print ``message`` on stderr and exit 2 (bad usage, configuration or input)."""
    click.echo(message, err=True)
    sys.exit(2)


def check_version(version: str | None) -> None:
    """Reject a ``--vllm-ascend-version`` that is not a release tag (click usage error)."""
    from qlint.knowledge.base import release_tag

    if version is not None:
        try:
            release_tag(version)
        except Exception:
            raise click.BadParameter(f"{version!r} is not a release tag like v0.23.0", param_hint="--vllm-ascend-version")


def overrides(hardware, version, select, ignore, fail_level):
    """The command-line part of the configuration (``linter.config.Overrides``)."""
    from qlint.linter.config import ConfigError, Overrides, check_selectors

    check_version(version)
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
        return ConfigCache(Path(config_path) if config_path else None)
    except ConfigError as error:
        fail(str(error))


def default_lang() -> str:
    """``zh`` when the locale is Chinese (LC_ALL, LC_MESSAGES, LANG), else ``en``."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"
