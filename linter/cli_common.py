"""The click-free part of the ``qlint`` argument handling: turning the selection options into
configuration overrides, the configuration files to use, the message language, and the exit-2
path for bad usage. ``cli_args`` adds the click option declarations on top."""

from __future__ import annotations

import os

from qlint.linter.cli_echo import Usage, fail

__all__ = ["check_version", "config_cache", "default_lang", "fail", "overrides"]


def check_version(version: str | None) -> None:
    """Reject a ``--vllm-ascend-version`` that is not a release tag (:class:`Usage` naming the option)."""
    from qlint.knowledge.base import release_tag

    if version is not None:
        try:
            release_tag(version)
        except Exception:
            raise Usage(f"{version!r} is not a release tag like v0.23.0", param_hint="--vllm-ascend-version")


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
