"""Bilingual message helpers: phrases several rule families put into their messages."""

from __future__ import annotations

from qlint.knowledge.text import Text


def kv_role_phrase(role: str | None) -> Text:
    """How a message names the instance's kv_role."""
    if role is None:
        return Text(en="no --kv-transfer-config", zh="未设置 --kv-transfer-config")
    return Text(en=f"kv_role {role}", zh=f"kv_role {role}")


def sizes(values: list[int], spaced: bool = True) -> str:
    """A capture-size list as written in JSON: ``[1, 8]`` (``[1,8]`` unspaced)."""
    return "[" + (", " if spaced else ",").join(str(value) for value in values) + "]"
