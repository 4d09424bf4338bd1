"""The pydantic schema of the ``[tool.qlint]`` / ``.qlint.toml`` table.

Imported only when a configuration file is found, so that a plain lint run
does not pay for importing pydantic.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from qlint.linter.catalog import find_entry, match_entries

Severity = Literal["error", "warning", "info"]
"""``qlint.rules.base.Severity``, at run time (there it is an annotation only): pydantic reads it."""


def _check_selectors(values: list[str]) -> list[str]:
    for value in values:
        if not match_entries(value):
            raise ValueError(f"{value!r} names no rule (see `qlint rules`)")
    return values


class QlintConfig(BaseModel):
    """The ``[tool.qlint]`` table. Every key is optional; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")

    select: list[str] | None = None
    ignore: list[str] = Field(default_factory=list)
    severity: dict[str, Severity] = Field(default_factory=dict)
    hardware: Literal["a2", "a3", "310p"] | None = None
    vllm_ascend: str | None = Field(default=None, alias="vllm-ascend")
    fail_level: Severity | None = Field(default=None, alias="fail-level")
    deployments: list[str] = Field(default_factory=list)  # globs, relative to the file's folder

    @field_validator("deployments")
    @classmethod
    def _globs(cls, value: list[str]) -> list[str]:
        for pattern in value:
            if not pattern.strip() or pattern.startswith("/"):
                raise ValueError(f"{pattern!r}: a deployment is a glob relative to this file's folder")
        return value

    @field_validator("select", "ignore")
    @classmethod
    def _known_selectors(cls, value):
        return value if value is None else _check_selectors(value)

    @field_validator("severity")
    @classmethod
    def _known_rules(cls, value: dict[str, str]) -> dict[str, str]:
        out = {}
        for key, level in value.items():
            meta = find_entry(key)
            if meta is None:
                raise ValueError(f"{key!r} names no rule (see `qlint rules`)")
            out[meta.id] = level
        return out

    @field_validator("vllm_ascend")
    @classmethod
    def _release_tag(cls, value):
        from qlint.knowledge.base import release_tag

        if value is None:
            return value
        try:
            release_tag(value)
        except Exception:
            raise ValueError(f"{value!r} is not a release tag like v0.23.0") from None
        return value


