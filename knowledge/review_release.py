"""Which release behaviours to review after releases.toml gains a release.

    python -m qlint.knowledge.review_release            # against the newest release in releases.toml
    python -m qlint.knowledge.review_release v0.26.0    # as if v0.26.0 were the newest

A behaviour (knowledge/data/behaviours.toml) records ``verified``: the newest tag at which a
person checked its boundaries against the source, and ``verified_main``: the main commit
checked. When a newer tag exists, or main is pinned to another commit, every behaviour whose
range is still open there (no ``until`` / ``vllm_until`` yet, or ``on_main``) may have changed
and is listed, with its sources, so a person reads the code at the new release and either
moves ``verified`` forward or closes the range. Exit status: 0 nothing to review, 1 behaviours
listed, 2 bad usage. Reads the knowledge files only; never imports vLLM or vllm-ascend.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from qlint.knowledge.base import MAIN, KnowledgeBase, load, parse_version, release_tag
from qlint.knowledge.versions import InvalidVersion


@dataclass(frozen=True)
class Review:
    """One behaviour to review: why, and where to read."""

    name: str
    reason: str
    sources: tuple[str, ...]


def _open_ended(behaviour) -> bool:
    """True when the behaviour still holds at the newest release it was checked at (no end yet)."""
    if behaviour.owner == "vllm":
        return behaviour.vllm_until is None and behaviour.until is None
    return behaviour.until is None or behaviour.on_main is True


def to_review(kb: KnowledgeBase, newest: str | None = None) -> list[Review]:
    """The behaviours whose open range must be checked at ``newest`` (default: the newest tag
    in releases.toml) or at the main commit releases.toml pins.

    Raises InvalidVersion when ``newest`` is not a release tag.
    """
    tag = release_tag(newest) if newest is not None else kb.tagged_releases[-1].tag
    main = kb.release_index.get(MAIN)
    out = []
    for behaviour in kb.behaviours:
        if not _open_ended(behaviour):
            continue
        reasons = []
        if tag != MAIN and parse_version(tag) > parse_version(behaviour.verified):
            reasons.append(f"verified at {behaviour.verified}, releases now reach {tag}")
        if main is not None and main.commit and behaviour.verified_main not in (None, main.commit):
            reasons.append(f"verified at main {behaviour.verified_main[:12]}, main is now {main.commit[:12]}")
        if reasons:
            out.append(Review(behaviour.name, "; ".join(reasons), tuple(behaviour.sources)))
    return out


def render(reviews: list[Review], kb: KnowledgeBase) -> str:
    """The review list as text: one block per behaviour with what it is and where to read."""
    if not reviews:
        return "no behaviour to review: every open behaviour was verified at the newest release\n"
    lines = [f"{len(reviews)} behaviour(s) with an open range to review in knowledge/data/behaviours.toml:", ""]
    for review in reviews:
        behaviour = kb.behaviour(review.name)
        lines.append(f"{review.name}: {behaviour.what.en}")
        lines.append(f"  why: {review.reason}")
        lines.extend(f"  read: {source}" for source in review.sources)
        lines.append("")
    lines.append("For each: read the code at the new release; move `verified` (and `verified_main`) forward, "
                 "or set `until` / `vllm_until` where the behaviour ends.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and args[0].startswith("-")):
        print("usage: python -m qlint.knowledge.review_release [RELEASE]", file=sys.stderr)
        return 2
    kb = load()
    try:
        reviews = to_review(kb, args[0] if args else None)
    except InvalidVersion:
        print(f"review_release: {args[0]!r} is not a release tag like v0.26.0", file=sys.stderr)
        return 2
    sys.stdout.write(render(reviews, kb))
    return 1 if reviews else 0


if __name__ == "__main__":  # pragma: no cover - exercised through main() in the tests
    sys.exit(main())
