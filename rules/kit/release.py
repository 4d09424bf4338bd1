"""The release in use: one way to compare it, and one way to name it in a message.

Comparisons go through the knowledge's ``parse_version`` (``main`` is above every
release); a version that is not a release tag raises ``Unknown`` (the rule is skipped).
"""

from __future__ import annotations

from qlint.knowledge.base import MAIN, parse_version
from qlint.knowledge.text import Text
from qlint.knowledge.versions import InvalidVersion, Version
from qlint.rules.graph import Scope, Unknown


def release(scope: Scope) -> Version:
    """The vllm-ascend release in effect as a Version (needs the ``version`` fact)."""
    try:
        return parse_version(scope.get("version"))
    except InvalidVersion:
        raise Unknown("version") from None


def since(scope: Scope, tag: str) -> bool:
    """True when the release in use is ``tag`` or later."""
    return release(scope) >= parse_version(tag)


def before(scope: Scope, tag: str) -> bool:
    """True when the release in use is older than ``tag``."""
    return not since(scope, tag)


def between(scope: Scope, first: str, until: str) -> bool:
    """True when ``first <= release < until``."""
    return since(scope, first) and before(scope, until)


def is_main(scope: Scope) -> bool:
    """True on vllm-ascend main."""
    return scope.get("version") == MAIN


def at_least(tag: str, bound: str) -> bool:
    """True when release ``tag`` is ``bound`` or later (for a tag read from elsewhere than the scope)."""
    return parse_version(tag) >= parse_version(bound)


def at_version(scope: Scope) -> Text:
    """``vllm-ascend v0.23.0`` in both languages. An assumed release is not flagged here: the run's
    note says it once (``assuming v0.23.0 (latest stable)``), not every finding."""
    known = scope.known("version")
    assert known is not None
    return Text(en=f"vllm-ascend {known.value}", zh=f"vllm-ascend {known.value}")


def paired_vllm(scope: Scope, tag: str | None = None) -> str:
    """The vLLM version a vllm-ascend release pairs with (``0.23.0``), or ``main``
    (default: the release in use)."""
    tag = scope.get("version") if tag is None else tag
    if tag == MAIN:
        return MAIN
    item = scope.kb.release_record(tag)
    if item is not None:
        return item.vllm.removeprefix("v")
    return parse_version(tag).base_version
