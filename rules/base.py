"""Rule metadata, findings and fixes: the vocabulary every rule module uses.

Rules know constraints over facts; they never look at shell text. A finding
points at the plan item it blames (its ``Span``) and may carry a ``Fix``:
text edits at spans the linter applies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from qlint.knowledge.models import Text, _check_sources
from qlint.rules.plan import Span

Severity = Literal["error", "warning", "info"]
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


class Example(BaseModel):
    """An executable example: a ``bad`` script the rule flags, a ``good`` one it
    accepts, and ``fixed`` (what ``bad`` becomes after the rule's fix), if any.
    The ``context`` (hardware, version) is applied when the example is linted;
    ``peers`` are the other scripts linted with it as one deployment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bad: str
    good: str
    fixed: str | None = None
    hardware: Literal["a2", "a3", "310p"] | None = None
    version: str | None = None
    peers: tuple[str, ...] = ()  # other scripts of the deployment (deployment-scope rules)


class RuleMeta(BaseModel):
    """What a rule is: id, name, severity, docs in both languages, sources.

    ``requires`` names the facts (nodes of the rule graph) the rule reads; it
    is skipped when any of them is unknown for a command; ``optional`` names
    facts it reads when known (``scope.known`` returns None otherwise). ``fix`` says whether
    the rule offers a fix and how safe it is (``safe``: keeps meaning apart from
    the fault; ``unsafe``: changes behaviour beyond the finding, e.g. TP/DP).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^QL\d{3}$")
    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    severity: Severity
    scope: Literal["serve", "script", "deployment"] = "serve"
    requires: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    title: Text
    why: Text
    sources: tuple[str, ...]
    faq: str | None = None
    fix: Literal["safe", "unsafe", "none"] = "none"
    examples: tuple[Example, ...] = ()

    @field_validator("sources")
    @classmethod
    def _cited(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        _check_sources(list(value))
        return value


@dataclass(slots=True)
class Edit:
    """Replace the text at ``span`` with ``text``."""

    span: Span
    text: str


@dataclass(slots=True)
class Fix:
    """A fix: what it does (one line) and the edits. No edits: advice only."""

    description: str
    edits: list[Edit] = field(default_factory=list)
    safety: Literal["safe", "unsafe"] = "safe"

    @property
    def replacement(self) -> str | None:
        """The new text of the finding's span when the fix is one edit, else None."""
        return self.edits[0].text if len(self.edits) == 1 else None


@dataclass(slots=True)
class FactTrace:
    """One fact a finding relied on: its name, value and where it came from."""

    name: str
    value: object
    origin: str


@dataclass(slots=True)
class Finding:
    """A problem found by a rule.

    ``span`` is where to point; ``path`` is filled by the linter (a rule may
    set it to blame another script of the same deployment). ``trace`` is the
    chain of facts that produced the finding (see ``RuleGraph.why``).
    """

    rule: RuleMeta
    message: str
    span: Span
    fix: Fix | None = None
    severity: Severity | None = None  # None: the rule's own severity
    path: str | None = None
    trace: list[FactTrace] = field(default_factory=list)

    @property
    def level(self) -> Severity:
        return self.severity or self.rule.severity
