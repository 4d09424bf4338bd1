"""Rule metadata, findings and fixes: the vocabulary every rule module uses.

Rules know constraints over facts; they never look at shell text. A finding
points at the plan item it blames (its ``Span``) and may carry a ``Fix``:
text edits at spans the linter applies. Messages and fix descriptions are
written in English and Chinese: pass ``Text(en=..., zh=...)``.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.record import SlottedRecord, record
from qlint.rules.groups import check_groups
from qlint.rules.plan import Span

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (the schema of the configuration has its own, for pydantic)
    from typing import Literal

    Severity = Literal["error", "warning", "info"]
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


_RULE_ID = r"^QL\d{3}$"
_RULE_NAME = r"^[a-z0-9]+(-[a-z0-9]+)*$"
"""What ``re.match`` accepts as a rule id and a rule name: told by :func:`is_rule_id` and :func:`is_rule_name`
with string operations (every rule module builds its metadata at import; a test checks they agree)."""
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789"


def _one_line(text: str) -> str:
    return text[:-1] if text.endswith("\n") else text  # ``$`` also matches before a final newline


def is_rule_id(text: str) -> bool:
    """``re.match(_RULE_ID, text)`` is not None: QL and three decimal digits (``\\d``: any script's)."""
    text = _one_line(text)
    return len(text) == 5 and text.startswith("QL") and text[2:].isdecimal()


def is_rule_name(text: str) -> bool:
    """``re.match(_RULE_NAME, text)`` is not None: kebab-case of ASCII lower-case letters and digits."""
    text = _one_line(text)
    return (text[:1] not in ("", "-") and text[-1] != "-" and "--" not in text
            and not text.strip(_NAME_CHARS + "-"))  # (strip: every character is one of them)


@record(frozen=True)
class Example:
    """An executable example: a ``bad`` script the rule flags, a ``good`` one it
    accepts, and ``fixed`` (what ``bad`` becomes after the rule's fix), if any.
    The ``context`` (hardware, version) is applied when the example is linted;
    ``peers`` are the other scripts linted with it as one deployment."""

    bad: str
    good: str
    fixed: str | None = None
    hardware: Literal["a2", "a3", "310p"] | None = None
    version: str | None = None
    peers: tuple[str, ...] = ()  # other scripts of the deployment (deployment-scope rules)

    def __init__(self, bad: str, good: str, fixed: str | None = None, hardware: Literal["a2", "a3", "310p"] | None = None,
                 version: str | None = None, peers: tuple[str, ...] = ()) -> None:
        if hardware not in (None, "a2", "a3", "310p"):
            raise ValueError(f"example hardware {hardware!r} is not a2, a3 or 310p")
        self.__dict__.update(bad=bad, good=good, fixed=fixed, hardware=hardware, version=version, peers=peers)  # frozen


@record(frozen=True)
class RuleMeta:
    """What a rule is: id, name, severity, docs in both languages, sources.

    ``requires`` names the facts (nodes of the rule graph) the rule reads; it
    is skipped when any of them is unknown for a command; ``optional`` names
    facts it reads when known (``scope.known`` returns None otherwise). ``groups`` says what
    the rule is about (names from ``rules.groups.GROUPS``, at least one): selectors, ``qlint
    rules`` and the docs use them. ``fix`` says whether
    the rule offers a fix and how safe it is (``safe``: keeps meaning apart from
    the fault; ``unsafe``: changes behaviour beyond the finding, e.g. TP/DP).
    A plain record (validated in ``__init__``) so that importing the
    rules does not import pydantic. Raises ValueError on a bad id, name,
    severity, scope, group or fix kind, or when ``sources`` is not a non-empty list of strings.
    That each citation is a pinned public URL (``knowledge.text.check_sources``) is checked where a
    rule is added, not at every start-up (it was a fifth of what importing the rule modules cost):
    ``python -m qlint.rules.index`` refuses to index such a rule and tests/test_citations.py fails.
    """

    id: str
    name: str
    severity: Severity
    title: Text
    why: Text
    sources: tuple[str, ...]
    scope: Literal["serve", "script", "deployment"] = "serve"
    requires: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    faq: str | None = None
    fix: Literal["safe", "unsafe", "none"] = "none"
    examples: tuple[Example, ...] = ()
    groups: tuple[str, ...] = ()
    behaviours: tuple[str, ...] = ()  # release behaviours (behaviours.toml) the rule asks
    applies: str | None = None  # the behaviour whose releases are the releases the rule applies to

    def __init__(self, id: str, name: str, severity: Severity, title: Text, why: Text, sources: tuple[str, ...],
                 scope: Literal["serve", "script", "deployment"] = "serve", requires: tuple[str, ...] = (),
                 optional: tuple[str, ...] = (), faq: str | None = None, fix: Literal["safe", "unsafe", "none"] = "none",
                 examples: tuple[Example, ...] = (), groups: tuple[str, ...] = (), behaviours: tuple[str, ...] = (),
                 applies: str | None = None) -> None:
        # written out (not record's generic __init__ and a __post_init__): every rule module builds these at import
        if not is_rule_id(id):
            raise ValueError(f"rule id {id!r} must look like QL123")
        if not is_rule_name(name):
            raise ValueError(f"rule name {name!r} must be kebab-case")
        if severity not in SEVERITY_RANK:
            raise ValueError(f"{id}: severity {severity!r} is not error, warning or info")
        if scope not in ("serve", "script", "deployment"):
            raise ValueError(f"{id}: scope {scope!r} is not serve, script or deployment")
        if fix not in ("safe", "unsafe", "none"):
            raise ValueError(f"{id}: fix {fix!r} is not safe, unsafe or none")
        if not isinstance(title, Text) or not isinstance(why, Text):
            raise ValueError(f"{id}: title and why must be Text(en=..., zh=...)")
        sources = () if isinstance(sources, str) else tuple(sources)
        if not sources or not all(isinstance(source, str) for source in sources):
            raise ValueError(f"{id}: sources must be at least one citation (a pinned https URL)")
        groups = tuple(groups)
        check_groups(id, groups)
        behaviours = tuple(behaviours)
        if applies is not None and applies not in behaviours:
            raise ValueError(f"{id}: applies={applies!r} must be one of its behaviours")
        # frozen: the fields go into the instance's dict at once (object.__setattr__ per field was half of this)
        self.__dict__.update(id=id, name=name, severity=severity, title=title, why=why, sources=sources, scope=scope,
                             requires=tuple(requires), optional=tuple(optional), faq=faq, fix=fix,
                             examples=tuple(examples), groups=groups, behaviours=behaviours, applies=applies)


class Edit(metaclass=SlottedRecord):
    """Replace the text at ``span`` with ``text``."""

    span: Span
    text: str

    def __init__(self, span: Span, text: str) -> None:
        self.span = span
        self.text = text


class Fix(metaclass=SlottedRecord):
    """A fix: what it does (one line) and the edits. No edits: advice only.

    ``description`` may be given as ``Text`` (English and Chinese); it is then
    stored as the English ``description`` plus ``description_zh``. ``by_hand`` is set by
    ``qlint check`` on a fix with edits that ``--fix``/``--unsafe-fixes`` will not apply in
    this run (``cli_check.mark_by_hand``): the text report then says so instead of naming a flag.
    """

    description: str
    edits: list[Edit]
    safety: Literal["safe", "unsafe"]
    description_zh: str | None
    by_hand: bool

    def __init__(self, description: str | Text, edits: list[Edit] | None = None,
                 safety: Literal["safe", "unsafe"] = "safe", description_zh: str | None = None,
                 by_hand: bool = False) -> None:
        if isinstance(description, Text):
            description_zh = description.zh
            description = description.en
        self.description = description
        self.edits = [] if edits is None else edits
        self.safety = safety
        self.description_zh = description_zh
        self.by_hand = by_hand

    def describe(self, lang: str = "en") -> str:
        """The description in ``lang`` (English when no Chinese text was given)."""
        return self.description_zh if lang.startswith("zh") and self.description_zh else self.description

    @property
    def applicable(self) -> bool:
        """True when ``--fix`` (safe) or ``--unsafe-fixes`` (unsafe) applies it: it has edits.
        A fix without edits is advice, printed as ``advice:``, never as ``fix:``."""
        return bool(self.edits)

    def label(self, lang: str = "en") -> str:
        """How a reporter introduces it: ``fix``, ``fix (unsafe, --unsafe-fixes)`` or ``advice`` (in
        ``lang``); a fix ``by_hand`` names no flag: ``fix (by hand)``, ``fix (unsafe, by hand)``."""
        zh = lang.startswith("zh")
        if not self.edits:
            return "建议" if zh else "advice"
        if self.by_hand:
            if self.safety == "unsafe":
                return "修复（不安全，需手动修改）" if zh else "fix (unsafe, by hand)"
            return "修复（需手动修改）" if zh else "fix (by hand)"
        if self.safety == "unsafe":
            return "修复（不安全，需 --unsafe-fixes）" if zh else "fix (unsafe, --unsafe-fixes)"
        return "修复" if zh else "fix"

    @property
    def replacement(self) -> str | None:
        """The new text of the finding's span when the fix is one edit, else None."""
        return self.edits[0].text if len(self.edits) == 1 else None


class FactTrace(metaclass=SlottedRecord):
    """One fact a finding relied on: its name, value and where it came from."""

    name: str
    value: object
    origin: str

    def __init__(self, name: str, value: object, origin: str) -> None:
        self.name = name
        self.value = value
        self.origin = origin


class Finding(metaclass=SlottedRecord):
    """A problem found by a rule.

    ``message`` may be given as ``Text`` (English and Chinese); it is then stored
    as the English ``message`` plus ``message_zh``. ``span`` is where to point;
    ``path`` is filled by the linter (a rule may set it to blame another script of
    the same deployment). ``trace`` is the chain of facts that produced the
    finding (see ``RuleGraph.why``). ``sources`` are this finding's own citations
    (pinned URLs: a known defect's links, or the line of an option in the vLLM version
    the linted release ships, from the per-release data); when set they replace the
    rule's. ``release`` is the vllm-ascend release the finding was checked at (filled
    by the rule graph); reporters put the citations pinned at that release first.
    """

    rule: RuleMeta
    message: str
    span: Span
    fix: Fix | None
    severity: Severity | None  # None: the rule's own severity
    path: str | None
    trace: list[FactTrace]
    message_zh: str | None
    sources: tuple[str, ...] | None  # this finding's own citations (None: the rule's)
    release: str | None  # the vllm-ascend release it was checked at (filled by the rule graph)

    def __init__(self, rule: RuleMeta, message: str | Text, span: Span, fix: Fix | None = None,
                 severity: Severity | None = None, path: str | None = None, trace: list[FactTrace] | None = None,
                 message_zh: str | None = None, sources: tuple[str, ...] | None = None,
                 release: str | None = None) -> None:
        if isinstance(message, Text):  # Finding(META, Text(en=..., zh=...), span)
            message_zh = message.zh
            message = message.en
        self.rule = rule
        self.message = message
        self.span = span
        self.fix = fix
        self.severity = severity
        self.path = path
        self.trace = [] if trace is None else trace
        self.message_zh = message_zh
        self.sources = sources
        self.release = release

    @property
    def citations(self) -> tuple[str, ...]:
        """What the finding cites: its own sources (e.g. a known defect's links), else the rule's."""
        return self.sources if self.sources else self.rule.sources

    @property
    def level(self) -> Severity:
        return self.severity or self.rule.severity

    def text(self, lang: str = "en") -> str:
        """The message in ``lang`` (English when the rule gave no Chinese text)."""
        return self.message_zh if lang.startswith("zh") and self.message_zh else self.message


def finding_key(finding: Finding) -> tuple:
    """What tells two evaluations' findings apart: rule, file, span and message."""
    return (finding.rule.id, finding.path, finding.span, finding.message)
