"""The release in use: one way to compare it, one way to name it in a message, and its behaviour.

Comparisons go through the knowledge's ``parse_version`` (``main`` is above every
release); a version that is not a release tag raises ``Unknown`` (the rule is skipped).

Release behaviour: ask ``knowledge/data/behaviours.toml`` by name. A rule never compares release
literals; it asks whether a named behaviour holds at the release in use
(``holds(scope, "recompute_scheduler_rejects_mixed")``) and, for its message, which release a
behaviour starts at (``first_release``). The names a rule asks are listed in its
``RuleMeta.behaviours`` (a test checks it), so the rule pages can show the releases the rule
applies to.
"""

from __future__ import annotations

from qlint.knowledge.base import MAIN, KnowledgeBase, parse_version
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
    named = _AT_VERSION.get(known.value)
    if named is None:
        if len(_AT_VERSION) > 64:
            _AT_VERSION.clear()
        named = _AT_VERSION[known.value] = Text(en=f"vllm-ascend {known.value}", zh=f"vllm-ascend {known.value}")
    return named


_AT_VERSION: dict[str, Text] = {}
"""``at_version``'s Text by release (a Text is frozen): a command's rules name its release a dozen times."""


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


# -- release behaviour as data --------------------------------------------------------------------
def holds(scope: Scope, name: str) -> bool:
    """True when behaviour ``name`` holds at the release the script is checked at.

    The release is the ``version`` fact, always a release qlint knows (an unknown one is
    checked as the nearest known one). KeyError names an unknown behaviour.
    """
    kb, tag = scope.kb, scope.get("version")
    hit = _ANSWERS.get((id(kb), "holds", name, tag))
    if hit is not None and hit[0] is kb:  # (what _answer reads, without building the question and its answer)
        return hit[1]  # type: ignore[return-value]
    return _answer(kb, "holds", name, tag, lambda: kb.holds(name, tag))


_ANSWERS: dict[tuple, tuple[KnowledgeBase, object]] = {}
"""What a knowledge base says about a behaviour (``holds`` at a tag, ``first_release``): the
records do not change while it lives, and rules ask the same question for every script."""


def _answer(kb: KnowledgeBase, *key_and_compute):
    *question, compute = key_and_compute
    key = (id(kb), *question)
    hit = _ANSWERS.get(key)
    if hit is None or hit[0] is not kb:  # the entry holds its knowledge base: no id reuse
        if len(_ANSWERS) > 4096:
            _ANSWERS.clear()
        hit = _ANSWERS[key] = (kb, compute())
    return hit[1]


def first_release(kb: KnowledgeBase, name: str) -> str:
    """The oldest known release (a vllm-ascend tag, or ``main``) at which ``name`` holds.

    ``main`` when only the development branch has it; KeyError for an unknown name.
    """
    return _answer(kb, "first", name, lambda: _first_release(kb, name))


def _first_release(kb: KnowledgeBase, name: str) -> str:
    for release in kb.tagged_releases:
        if kb.holds(name, release.tag):
            return release.tag
    if kb.holds(name, MAIN):
        return MAIN
    raise KeyError(f"behaviour {name!r} holds at no known release")


def last_release(kb: KnowledgeBase, name: str) -> str | None:
    """The newest tagged release at which ``name`` holds, None when it still holds at the newest one."""
    tagged = kb.tagged_releases
    if kb.holds(name, tagged[-1].tag):
        return None
    held = [release.tag for release in tagged if kb.holds(name, release.tag)]
    return held[-1] if held else None


def describe_range(kb: KnowledgeBase, name: str, lang: str = "en") -> str:
    """The releases a behaviour holds at, in words: ``v0.21.0rc1 and later``, ``v0.22.1rc1 to
    v0.24.0rc1``, ``v0.15.0rc1, v0.17.0rc1 and later`` (a revert), ``main only``."""
    zh = lang.lower().startswith("zh")
    tagged = [release.tag for release in kb.tagged_releases]
    runs: list[list[str]] = []
    for index, tag in enumerate(tagged):
        if kb.holds(name, tag):
            if runs and tagged.index(runs[-1][-1]) == index - 1:
                runs[-1].append(tag)
            else:
                runs.append([tag])
    on_main = kb.holds(name, MAIN)
    if not runs:
        return ("仅 main" if zh else "main only") if on_main else ("无" if zh else "none")
    words = []
    for run in runs:
        first, last = run[0], run[-1]
        if last == tagged[-1] and on_main:
            if first == tagged[0]:
                words.append("所有已知版本" if zh else "every known release")
            else:
                words.append(f"{first} 及以后" if zh else f"{first} and later")
        elif first == last:
            words.append(first)
        else:
            words.append(f"{first} 至 {last}" if zh else f"{first} to {last}")
    if on_main and runs[-1][-1] != tagged[-1]:
        words.append("main")
    return ("、" if zh else ", ").join(words)


def model_first_release(kb: KnowledgeBase, model, hardware: str | None) -> str | None:
    """The first release that runs ``model`` (a models.toml record) on ``hardware``; None: not stated.

    On 310P it is the model's ``first_vllm_ascend_310p`` (the tutorials), except for hybrid
    (GDN) models, where the code follows behaviour ``gdn_attention_on_310p``: the 310P GDN
    attention is registered before the tutorials name a -310p image (that behaviour records
    the disagreement), never earlier than the model itself.
    """
    if hardware == "310p" and model.first_vllm_ascend_310p is not None:
        if not model.hybrid:
            return model.first_vllm_ascend_310p
        code = first_release(kb, "gdn_attention_on_310p")
        if model.first_vllm_ascend is None:
            return code
        return max(code, model.first_vllm_ascend, key=parse_version)
    return model.first_vllm_ascend
