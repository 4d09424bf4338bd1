"""Many files in one ``qlint`` call: analyse each once, keep for the deployment pass only what it needs, and
let go of each deployment once it is reported.

* Files are analysed in the order given, in this process. With ``QLINT_WORKERS=N`` (or ``auto``: one per
  core) a batch of at least ``PARALLEL_FROM`` files (no stdin, no ``--fix`` or ``--diff``) is shared out:
  this process analyses its share (``share_out``), the files that may join others first (``may_link``, from
  their bytes: what a worker sends back for one is its result and plan view, ~10 KiB pickled, where a file
  settled alone comes back as its text report and severities), N - 1 forked workers analyse the rest, and
  the answers are taken in the files' order, so the output is the one-process output byte for byte
  (``tests/test_batch.py``).
* A file named on its own that cannot be linked to another one (it shares no DP group or KV pair, is no
  DP template and names no other engine: :func:`qlint.linter.grouping.may_join`) is its own deployment
  unless a proxy names its endpoint. Its deployment pass runs at once (``settle``); with the text report
  its report is made then and kept as text (``Spool``: in memory up to ``SPOOL_MEMORY``, then in a
  temporary file) until its turn after the notes, and of its findings only their severities are kept
  (``counted``), for the summary line and the exit code; with a report made at the end (JSON, SARIF,
  GitHub, statistics) its findings are kept, not its plan or parse. Should a proxy of the batch name it
  after all, it is analysed again with the proxy's deployment.
* A file whose deployment pass waits for the rest of the batch keeps of its plan only what the pass reads
  (``keep``: ``deployment.deployment_view``, about a third of the plan: the serve options and variables the
  deployment rules, their facts and the topology read, every other command whole); a pass that reads what a
  view withholds raises ``NotKept`` and runs again on the group's whole plans, so the report never depends on
  it (``tests/test_deployment_views.py``).
* What is kept holds no reference cycles (reading a script leaves none either), and every
  ``FREEZE_EVERY`` files it is frozen out of the cyclic garbage collector's full scans (``Retained``).
"""

from __future__ import annotations

import copyreg
import gc
import os

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
MAIN_SHARE = 0.8
"""The part of an even share of the files this process analyses when workers help: it also reads their
answers, runs the deployment passes and makes the report (benchmarks/bench.py --batch, 600 and 2000 files:
the CPU time of this process and of the worker then about equal)."""


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


def keep(item) -> None:
    """For a file whose deployment pass waits for the rest of the batch: what it offers and asks for (the
    grouping reads it), and of its plan only what the pass reads (``deployment.deployment_view``: about a
    third of the plan; the rest is freed now)."""
    from qlint.linter.deployment import deployment_view
    from qlint.linter.grouping import links

    plan = item.result.plan
    if item.links is None:
        item.links = links(plan)
    if plan is not None:
        item.result.plan = deployment_view(plan)


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

def forks(count: int) -> bool:
    """Whether a batch of ``count`` files is analysed with worker processes (else all in this one)."""
    return count >= PARALLEL_FROM and workers() >= 2 and _can_fork()


_MAY_LINK = (b"parallel-a", b"parallel_a", b"kv-transfer", b"kv_transfer", b"ray", b"proxy", b"prefiller",
             b"decoder", b"dp-address", b"dp_address", b"launch_online_dp")
"""Bytes without which a file cannot be linked to another (``grouping.offers`` / ``wants``: a DP address,
a KV transfer config, Ray, a proxy's engines, a DP launcher); a DP template also names ``$1``..``$9``."""


def may_link(data: bytes) -> bool:
    """Whether a file of these bytes may share a deployment with another file (a guess from its text, never
    wrong the other way: a file it says no to has none of what links files). Only where a file is analysed
    depends on it, never what is reported."""
    if any(mark in data for mark in _MAY_LINK):
        return True
    import re

    return re.search(rb"\$\{?[1-9]", data) is not None


def analyse_all(jobs: list[Job], analyse: Callable[[Job], Outcome], parallel: bool,
                here: Callable[[Job], bool] | None = None) -> Iterator[Outcome]:
    """``analyse`` over ``jobs``, in their order. With ``parallel`` (and a batch big enough: ``forks``),
    this process analyses its share of the jobs (``MAIN_SHARE`` of one part in ``workers()``: ``share_out``), those ``here``
    prefers first (files that may join others), and forked worker processes the rest: a file that cannot
    join others is settled there and comes back as its text report and its findings' severities, one that
    may as its result with the view of its plan the deployment pass reads (``keep``)."""
    if not parallel or not forks(len(jobs)):
        for job in jobs:
            yield analyse(job)
        return
    local = share_out([here is None or here(job) for job in jobs], int(len(jobs) * MAIN_SHARE / workers()))
    remote = [(index, job) for index, job in enumerate(jobs) if not local[index]]
    helpers = Helpers(min(workers() - 1, -(-len(remote) // CHUNK)), analyse) if remote else None
    try:
        if helpers is not None:
            helpers.start(remote)
        done: dict[int, Outcome] = {}
        ahead = [index for index in range(len(jobs)) if local[index]]
        position = 0
        for index in range(len(jobs)):
            while index not in done:
                if position < len(ahead):  # this process's next file, also while a worker's answer is due
                    done[ahead[position]] = analyse(jobs[ahead[position]])
                    position += 1
                    if helpers is not None:
                        helpers.collect(done, block=False)
                else:
                    helpers.collect(done, block=True)  # type: ignore[union-attr]
            yield done.pop(index)
    finally:
        if helpers is not None:
            helpers.close()


def share_out(preferred: list[bool], share: int) -> list[bool]:
    """Which jobs this process analyses: ``share`` of them, the ``preferred`` ones first (a file that may
    join others: a worker sends back its result and plan view, ~10 KiB, where it sends a settled file's
    text), each kind spread evenly over the batch."""
    local = [False] * len(preferred)
    first = [index for index, wanted in enumerate(preferred) if wanted]
    rest = [index for index, wanted in enumerate(preferred) if not wanted]
    for chosen, count in ((first, min(share, len(first))), (rest, max(0, share - len(first)))):
        for position in range(count):
            local[chosen[position * len(chosen) // count]] = True
    return local


class Helpers:
    """Forked worker processes, each sent its whole list of jobs at once (so this process never writes to a
    worker that may be waiting to write), answering ``CHUNK`` jobs at a time as ``(index, Outcome)``
    pairs; this process reads the answers as they come (``collect``) and puts them in order."""

    def __init__(self, count: int, analyse: Callable[[Job], Outcome]) -> None:
        import multiprocessing

        _pickle_rules_by_id()
        context = multiprocessing.get_context("fork")
        self.connections = []
        self.processes = []
        for _ in range(count):
            parent, child = context.Pipe()
            process = context.Process(target=_serve, args=(child, analyse), daemon=True)
            process.start()
            child.close()
            self.connections.append(parent)
            self.processes.append(process)
        self.open = list(self.connections)

    def start(self, remote: list[tuple[int, Job]]) -> None:
        """Deal ``remote`` (index, job) out to the workers, ``CHUNK`` jobs at a time in turn."""
        parts: list[list[tuple[int, Job]]] = [[] for _ in self.connections]
        for start in range(0, len(remote), CHUNK):
            parts[(start // CHUNK) % len(parts)] += remote[start:start + CHUNK]
        for connection, part in zip(self.connections, parts):
            connection.send(("analyse", part))

    def collect(self, done: dict[int, Outcome], block: bool) -> None:
        """Read the answers that are there (``block``: wait for one at least) into ``done``."""
        from multiprocessing.connection import wait

        ready = wait(self.open, None if block else 0)
        for connection in ready:
            kind, answer = _receive(connection)
            if kind == "done":
                self.open.remove(connection)  # type: ignore[arg-type]  # wait() returns what it was given
                continue
            for index, outcome in answer:
                done[index] = outcome
        if block and not ready:
            raise RuntimeError("qlint worker processes stopped before answering")

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
        for process in self.processes:
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join()


def _receive(connection) -> tuple[str, Any]:
    try:
        kind, answer = connection.recv()
    except EOFError:
        raise RuntimeError("a qlint worker process stopped") from None
    if kind == "error":
        raise RuntimeError(f"a qlint worker process failed:\n{answer}")
    return kind, answer


def _serve(connection, analyse: Callable[[Job], Outcome]) -> None:
    """A worker: analyse the jobs it is sent, ``CHUNK`` answers a message, then say it is done and stop
    (``os._exit``: nothing this process inherited is flushed or cleaned up twice)."""
    _ignore_interrupts()
    try:
        _, jobs = connection.recv()
        for start in range(0, len(jobs), CHUNK):
            connection.send(("ok", [(index, analyse(job)) for index, job in jobs[start:start + CHUNK]]))
        connection.send(("done", None))
    except BaseException:  # the parent raises it
        import traceback

        try:
            connection.send(("error", traceback.format_exc()))
        except BaseException:
            pass
        os._exit(1)
    connection.close()
    os._exit(0)


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them and exits 130."""
    import signal  # in a worker only: a run in one process does not load it

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def rule_by_id(rule_id: str) -> RuleMeta:
    """The catalogue's rule ``rule_id`` (how a finding's rule travels between processes): the registered
    rule, its module imported first when it is not yet (not the whole catalogue: the rule index names it)."""
    from qlint.linter.catalog import UNUSED_SUPPRESSION_ID
    from qlint.rules.graph import RULES

    if rule_id == UNUSED_SUPPRESSION_ID:
        from qlint.linter.suppressions import UNUSED_SUPPRESSION

        return UNUSED_SUPPRESSION
    definition = RULES.get(rule_id)
    if definition is None:
        import importlib

        from qlint.rules.index import load_index

        importlib.import_module(f"qlint.rules.{load_index()['rules'][rule_id][0]}")
        definition = RULES[rule_id]
    return definition.meta


def _reduce_rule(meta: RuleMeta):
    from qlint.linter.catalog import UNUSED_SUPPRESSION_ID
    from qlint.rules.graph import RULES

    definition = RULES.get(meta.id)
    if meta.id == UNUSED_SUPPRESSION_ID and meta is rule_by_id(meta.id) \
            or definition is not None and definition.meta is meta:
        return rule_by_id, (meta.id,)
    return object.__reduce_ex__(meta, 4)  # a rule outside the catalogue travels whole


def _pickle_rules_by_id() -> None:
    """Findings name their rule by id between processes: one catalogue object per rule on both sides."""
    copyreg.pickle(RuleMeta, _reduce_rule)
