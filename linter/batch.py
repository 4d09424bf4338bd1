"""Many files in one ``qlint`` call: analyse each once, keep for the deployment pass only what it needs, and
let go of each deployment once it is reported.

* Files are analysed in the order given, in this process. With ``QLINT_WORKERS=N`` (or ``auto``: one per
  core) a batch of at least ``PARALLEL_FROM`` files is analysed by N forked workers, whose answers come back
  in that same order, so the output is the one-process output byte for byte (``tests/test_batch.py``).
  They are off by default: on the shared 2-core machine a 2000-file batch took 8.4 ms/file with two
  workers against 4.7 in one process (CPU 5.0 against 3.1), because a file kept for the deployment pass
  travels back with its plan (about 20 KiB pickled, some 2 ms to pickle and unpickle: as much as linting
  it). ``--fix``/``--diff`` and stdin always stay in this process.
* A file named on its own that cannot be linked to another one (it shares no DP group or KV pair, is no
  DP template and names no other engine: :func:`qlint.linter.grouping.may_join`) is its own deployment
  unless a proxy names its endpoint. Its deployment pass runs at once (``settle``); with the text report
  its report is made then and kept as text (``Spool``: in memory up to ``SPOOL_MEMORY``, then in a
  temporary file) until its turn after the notes, and of its findings only their severities are kept
  (``counted``), for the summary line and the exit code; with a report made at the end (JSON, SARIF,
  GitHub, statistics) its findings are kept, not its plan or parse. Should a proxy of the batch name it
  after all, it is analysed again with the proxy's deployment.
* What is kept holds no reference cycles (reading a script leaves none either), and every
  ``FREEZE_EVERY`` files it is frozen out of the cyclic garbage collector's full scans (``Retained``).
"""

from __future__ import annotations

import copyreg
import gc
import os
from functools import lru_cache

from qlint.record import field, record
from qlint.rules.base import RuleMeta

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator

PARALLEL_FROM = 100
"""The fewest files analysed in worker processes (below it forking and shipping results costs more than
it saves; measured with benchmarks/bench.py)."""
CHUNK = 8
"""Files handed to a worker at a time."""


def workers() -> int:
    """The worker processes a big batch uses: ``QLINT_WORKERS`` (``auto``: one per core), else 1 (none:
    all in this process). Measured on the 2-core machine (benchmarks/bench.py, README), shipping the
    results back costs more than the second core gives, so one process is the default."""
    chosen = os.environ.get("QLINT_WORKERS", "")
    if chosen == "auto":
        try:
            return len(os.sched_getaffinity(0))
        except AttributeError:  # not Linux
            return os.cpu_count() or 1
    return int(chosen) if chosen.isdigit() and int(chosen) > 0 else 1


@record
class Job:
    """One file to analyse and what its deployment grouping knows of it: ``("dir", n)``, ``("named",)``
    or ``("extra",)``, and whether it may be settled alone (named, no deployments glob, not stdin)."""

    path: str
    origin: tuple
    alone: bool = False


@record
class Outcome:
    """What analysing one job gives back: the analysed file (None after an input error), the input
    errors to print (``(notice, line)``), and whether its deployment pass is already done."""

    item: Any
    errors: list[tuple[Any, str]] = field(default_factory=list)
    settled: bool = False


def settle(item, deploy: Callable) -> bool:
    """For a file that may be its own deployment: when nothing can link it to another file, run its
    deployment pass now (``deploy([item])``) and drop what only that pass needed. Returns whether it
    did; ``item.links`` is set either way (the grouping of named files reads it)."""
    from qlint.linter.grouping import links, may_join

    item.links = links(item.result.plan)
    if may_join(item.links):
        return False
    deploy([item])
    slim(item.result)
    item.read = b""
    return True


def slim(result) -> None:
    """Keep of a reported file's result what the reports read: findings, suppressed findings and the
    notes' fields; the text only when a finding is shown with its line."""
    result.plan = None
    result.raw = []
    result.suppressions = []
    result.opaque = []
    if not result.findings and not result.suppressed:
        result.source = None


@record(frozen=True, slots=True)
class Counted:
    """A finding whose text is already printed (or spooled): its severity alone, for the summary line and
    the exit code. One shared object per severity (``counted``)."""

    level: str


_COUNTED: dict[str, Counted] = {}


def counted(result) -> None:
    """Keep of a result whose text report is made what the notes, the summary line and the exit code read:
    the findings' severities and the number suppressed, not the findings, their text or the plan."""
    marks = _COUNTED
    result.findings = [marks.get(f.level) or marks.setdefault(f.level, Counted(f.level)) for f in result.findings]
    result.suppressed = [None] * len(result.suppressed)
    slim(result)
    result.source = None


class Spool:
    """The text reports of files settled alone, made as they settle and printed in the report's order once
    every file is read (the notes come first). Held in memory up to ``SPOOL_MEMORY`` bytes, then in a
    temporary file, so that a batch of files that run apart keeps no findings, text or plan per file."""

    def __init__(self, memory: int | None = None) -> None:
        self.memory = SPOOL_MEMORY if memory is None else memory
        self.held: dict[int, str] = {}
        self.size = 0
        self.file: Any = None
        self.count = 0

    def add(self, text: str) -> int:
        """Keep ``text``; returns the key ``take`` gives it back by."""
        self.count += 1
        key = self.count
        if self.file is None and self.size + len(text) <= self.memory:
            self.held[key] = text
            self.size += len(text)
            return key
        if self.file is None:
            import tempfile

            self.file = tempfile.TemporaryFile()
        data = text.encode("utf-8", "surrogatepass")
        offset = self.file.seek(0, 2)
        self.file.write(data)
        self.held[key] = (offset, len(data))  # type: ignore[assignment]
        return key

    def take(self, key: int) -> str:
        """The text kept under ``key``, let go."""
        kept = self.held.pop(key)
        if isinstance(kept, str):
            return kept
        offset, size = kept
        self.file.seek(offset)
        return self.file.read(size).decode("utf-8", "surrogatepass")

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
        self.held.clear()


SPOOL_MEMORY = 1 << 20
"""Characters of spooled text held in memory before a temporary file takes the rest."""


class Retained:
    """Keeps what a batch holds for its deployment pass out of the cyclic garbage collector's way.

    A batch keeps every file's findings (and the plans of the files a deployment may join) until the
    report, and those records hold no reference cycles (refcounting frees them). Left to itself, the
    collector scans all of them again at each full collection, more of them each time (about an eighth
    of a 2000-file run). Every ``FREEZE_EVERY`` files kept, the garbage made so far is collected and what
    is left is frozen (``gc.freeze``: never scanned again; still freed when its last reference goes), as
    start-up does with the knowledge. Nothing is frozen while the collector is paused."""

    def __init__(self, every: int | None = None) -> None:
        self.every = FREEZE_EVERY if every is None else every
        self.pending = 0
        self.frozen = 0  # times frozen (tests)

    def kept(self) -> None:
        """One more file kept."""
        self.pending += 1
        if self.pending >= self.every and gc.isenabled():
            self.pending = 0
            gc.collect()
            gc.freeze()
            self.frozen += 1


FREEZE_EVERY = 128
"""Files kept between two freezes (each collects what the files since the last one left)."""


# -- worker processes ----------------------------------------------------------------------------

_ANALYSE: Callable[[Job], Outcome] | None = None
"""The analysis of one job, set in this process before the workers fork (they inherit it)."""


def forks(count: int) -> bool:
    """Whether a batch of ``count`` files is analysed in worker processes (else all in this one)."""
    return count >= PARALLEL_FROM and min(workers(), count // CHUNK) >= 2 and _can_fork()


def analyse_all(jobs: list[Job], analyse: Callable[[Job], Outcome], parallel: bool) -> Iterator[Outcome]:
    """``analyse`` over ``jobs``, in their order; in forked worker processes when ``parallel`` and the
    batch is big enough (``forks``)."""
    count = min(workers(), len(jobs) // CHUNK)
    if not parallel or not forks(len(jobs)):
        for job in jobs:
            yield analyse(job)
        return
    import multiprocessing

    global _ANALYSE
    _ANALYSE = analyse
    _pickle_rules_by_id()
    context = multiprocessing.get_context("fork")
    try:
        with context.Pool(count, initializer=_ignore_interrupts) as pool:
            yield from pool.imap(_run, jobs, chunksize=CHUNK)
    finally:
        _ANALYSE = None


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them and exits 130."""
    import signal  # in a worker only: a run in one process does not load it

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run(job: Job) -> Outcome:
    assert _ANALYSE is not None
    return _ANALYSE(job)


@lru_cache(maxsize=1)
def _rules_by_id() -> dict[str, RuleMeta]:
    from qlint.linter.catalog import all_rules

    return {meta.id: meta for meta in all_rules()}


def rule_by_id(rule_id: str) -> RuleMeta:
    """The catalogue's rule ``rule_id`` (how a finding's rule travels between processes)."""
    return _rules_by_id()[rule_id]


def _reduce_rule(meta: RuleMeta):
    if _rules_by_id().get(meta.id) is meta:
        return rule_by_id, (meta.id,)
    return object.__reduce_ex__(meta, 4)  # a rule outside the catalogue travels whole


def _pickle_rules_by_id() -> None:
    """Findings name their rule by id between processes: one catalogue object per rule on both sides."""
    copyreg.pickle(RuleMeta, _reduce_rule)
