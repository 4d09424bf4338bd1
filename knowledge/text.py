"""Bilingual text and source citations: the light part of the knowledge vocabulary.

Kept free of pydantic so that rule modules (which import it at start-up) stay
cheap to import; ``qlint.knowledge.models`` uses the same types for validation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CITATION = re.compile(
    r"^("
    r"\d{3}_[0-9a-f]{16}\.txt section [\w.\-]+.*"  # seed file + section
    r"|(vllm-ascend|vllm)@[\w.\-]+:[\w./\-]+.*"  # source path at a release
    r"|(vllm-ascend|vllm)#\d+.*"  # public issue / PR
    r"|case-\d\d.*"  # handed case rebuilt from a public report
    r"|vllm_ascend_facts\.md section [\d.]+.*"  # project reference notes (facts)
    r"|anchors\.md section [\w.]+.*"  # project reference notes (how other linters do it)
    r"|https://\S+"  # a public URL (the form every citation is moving to)
    r")$"
)


def check_sources(sources) -> list[str]:
    """Validate citations; raise ValueError naming the first one that is not a citation."""
    sources = list(sources)
    if not sources:
        raise ValueError("at least one source citation is required")
    for citation in sources:
        if not isinstance(citation, str) or not CITATION.match(citation):
            raise ValueError(
                f"citation {citation!r} is not a seed section, a source path at a release, "
                "an issue (vllm-ascend#N), a case (case-NN) or a reference-notes section"
            )
    return sources


@dataclass(frozen=True, slots=True)
class Text:
    """A sentence in both languages. Both are required and must be non-empty."""

    en: str
    zh: str

    def __post_init__(self) -> None:
        if not isinstance(self.en, str) or not isinstance(self.zh, str) or not self.en or not self.zh:
            raise ValueError("Text needs a non-empty English (en) and Chinese (zh) string")

    def get(self, lang: str) -> str:
        """The text in ``lang`` (``zh``/``zh_CN`` -> Chinese, anything else -> English)."""
        return self.zh if lang.lower().startswith("zh") else self.en
