"""Many files in one ``qlint`` call: analyse each once, keep for the deployment pass only what it needs, and
let go of each deployment once it is reported.

* Files are analysed in the order given. A batch of at least ``PARALLEL_FROM`` files (no stdin, no
  ``--fix`` or ``--diff``) is shared with forked worker processes by default, one process per idle core
  (``workers``: ``QLINT_WORKERS=N`` sets the number, ``QLINT_WORKERS=1`` keeps everything in this process),
  where forking is safe (``can_fork``): this process analyses its first ``WARM_UP`` files (the workers inherit
  what they load), then deals the rest out ``CHUNK`` files at a time as workers answer (``Helpers``), analysing
  files itself meanwhile: the files that may join others first (``may_link``, from their bytes: a worker sends
  back such a file's result and plan view, ~10 KiB pickled, where a file settled alone comes back as its
  text report and severities). The answers are taken in the files' order, so the output is the one-process
  output byte for byte (``tests/test_batch.py``); a worker that fails or dies hands its files back, which
  are analysed again (never a hang, never a different report).
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

from qlint.record import SlottedRecord, field, record
from qlint.rules.base import RuleMeta

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterator

PARALLEL_FROM = 200
"""The fewest files analysed with worker processes. Instructions of all processes against those of this one
(callgrind, two processes, bench corpus): 100 files 1.59x the one-process run's, this process 0.85x; 200
files 1.32x and 0.73x; 600 files 1.20x and 0.66x. Below 200 files workers cost a third more CPU or more for
less than a quarter off the wall time (a worker loads its own releases and per-rule tables)."""
WARM_UP = 32
"""Files this process analyses before it forks the workers: the first files of a process import rule
modules and build what is kept per release and model (~0.1 s); forked after them, workers inherit it."""
CHUNK = 8
"""Files handed to a worker at a time (fewer near the end of the batch, so that all finish together)."""
AHEAD = 2
"""Chunks a worker holds: the one it analyses and the next, so that it never waits for this process."""


def workers() -> int:
    """The processes a big batch is analysed in (this one and ``workers() - 1`` forked workers):
    ``QLINT_WORKERS=N`` (1: all in this process), else one per core this process may run on that other
    processes leave free (the 1-minute load average: a worker on a busy core only adds the cost of shipping
    results; measured on the shared 2-core machine at load 3, 600 files took 1.5x the one-process wall time)."""
    chosen = os.environ.get("QLINT_WORKERS", "")
    if chosen.isdigit() and int(chosen) > 0:
        return int(chosen)
    return max(1, min(cores(), round(cores() + 1 - load())))


def load() -> float:
    """The 1-minute load average (0 where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


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


class Counted(metaclass=SlottedRecord, frozen=True):
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
    """Whether a batch of ``count`` files is analysed with worker processes (else all in this one): at
    least ``PARALLEL_FROM`` files, two processes or more (``workers``), and a safe way to start them."""
    return count >= PARALLEL_FROM and workers() >= 2 and can_fork()


def can_fork() -> bool:
    """Whether workers can be forked safely: the platform forks (not Windows), it is not macOS (whose system
    libraries are not fork-safe: CPython starts processes there with ``spawn``), and this process runs one
    thread (a lock another thread holds would stay held in the child)."""
    import sys

    threading = sys.modules.get("threading")  # not imported: no thread was started from Python
    if sys.platform == "darwin" or threading is not None and threading.active_count() > 1:
        return False
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


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
    """``analyse`` over ``jobs``, yielded in their order. With ``parallel`` (and a batch big enough:
    ``forks``), this process analyses its first ``WARM_UP`` files, then forks ``workers() - 1`` workers and
    deals them the files ``CHUNK`` at a time as they answer (``Helpers``), analysing files itself meanwhile:
    those ``here`` prefers first (files that may join others: a worker would send back their result and plan
    view), a worker the others first (it sends back a settled file's text report): ``Queue``. A worker that fails or
    stops gets no more files, and the files it held are analysed again by this process or another worker,
    so a batch gives the one-process output whatever happens to a worker."""
    if not parallel or not forks(len(jobs)):
        for job in jobs:
            yield analyse(job)
        return
    queue = Queue([here is None or here(job) for job in jobs])
    done: dict[int, Outcome] = {}
    helpers: Helpers | None = None
    mine_so_far = 0
    try:
        for index in range(len(jobs)):
            while index not in done:
                if helpers is None and mine_so_far == WARM_UP and queue.left() >= PARALLEL_FROM // 2:
                    helpers = Helpers(workers() - 1, analyse, jobs, queue)
                mine = queue.here()
                if mine is not None:
                    done[mine] = analyse(jobs[mine])
                    mine_so_far += 1
                    if helpers is not None:
                        helpers.collect(done, block=False)
                elif helpers is not None and helpers.busy():
                    helpers.collect(done, block=True)
                else:  # pragma: no cover - every job is queued, held by a worker or done
                    raise RuntimeError(f"qlint batch: job {index} was lost")
            yield done.pop(index)
    finally:
        if helpers is not None:
            helpers.close()


class Queue:
    """The jobs no process has yet, by index: those this process prefers (``preferred``) and the others,
    each in the batch's order (workers taking from the back instead gave more work in all on the bench
    corpus: 2.85 against 2.62 G instructions at 200 files)."""

    def __init__(self, preferred: list[bool]) -> None:
        from collections import deque

        self.preferred = deque(index for index, wanted in enumerate(preferred) if wanted)
        self.others = deque(index for index, wanted in enumerate(preferred) if not wanted)
        self.wanted = preferred

    def left(self) -> int:
        return len(self.preferred) + len(self.others)

    def here(self) -> int | None:
        """The next job for this process: the first preferred one, else the first other one."""
        for side in (self.preferred, self.others):
            if side:
                return side.popleft()
        return None

    def chunk(self, size: int) -> list[int]:
        """Up to ``size`` jobs for a worker: the first other ones, then the first preferred ones."""
        taken: list[int] = []
        for side in (self.others, self.preferred):
            while side and len(taken) < size:
                taken.append(side.popleft())
        return taken

    def give_back(self, indices: list[int]) -> None:
        """Jobs a worker held and did not answer (after a failure): first in line again, in order."""
        from collections import deque

        for name in ("preferred", "others"):
            side = getattr(self, name)
            back = [index for index in indices if (name == "preferred") == self.wanted[index]]
            if back:
                setattr(self, name, deque(sorted([*side, *back])))


class Helpers:
    """Forked worker processes. Each holds at most ``AHEAD`` chunks of jobs, and is sent the next chunk
    (or ``None``: stop) when it answers one, so a message to a worker is small and goes to a worker that
    has read what it held before: this process never blocks writing to a worker that may be blocked
    writing to it. Answers are ``("ok", [(index, Outcome), ...])`` per chunk, read as they come
    (``collect``); a worker that fails (``("error", traceback)``) or stops is given nothing more and its
    unanswered jobs go back to the queue."""

    def __init__(self, count: int, analyse: Callable[[Job], Outcome], jobs: list[Job], queue: Queue) -> None:
        import multiprocessing

        _pickle_rules_by_id()
        context = multiprocessing.get_context("fork")
        self.jobs = jobs
        self.queue = queue
        self.share = count + 1  # processes the rest of the batch is shared by
        self.held: dict[Any, list[list[int]]] = {}  # connection -> the chunks it holds, oldest first
        self.stopped: set = set()  # connections sent None
        self.processes = []
        if gc.isenabled():  # what this process holds now: never scanned by a worker's collector (nor copied for it)
            gc.collect()
            gc.freeze()
        for _ in range(count):
            parent, child = context.Pipe()
            process = context.Process(target=_serve, args=(child, analyse, list(self.held)), daemon=True)
            process.start()
            child.close()
            self.held[parent] = []
            self.processes.append(process)
        for connection in list(self.held):
            for _ in range(AHEAD):
                self._deal(connection)

    def busy(self) -> bool:
        """Whether a worker holds jobs."""
        return any(self.held.values())

    def _deal(self, connection) -> None:
        """The next chunk to ``connection``'s worker (``None`` once the queue is empty: it stops when it
        has answered what it holds)."""
        if connection not in self.held or connection in self.stopped:
            return
        size = max(1, min(CHUNK, self.queue.left() // (2 * self.share)))
        chunk = self.queue.chunk(size)
        try:
            connection.send([(index, self.jobs[index]) for index in chunk] if chunk else None)
        except OSError:  # it is gone (it said so, or its answer's end of file will)
            self.queue.give_back(chunk)
            return
        if chunk:
            self.held[connection].append(chunk)
        else:
            self.stopped.add(connection)

    def collect(self, done: dict[int, Outcome], block: bool) -> None:
        """Read the answers that are there (``block``: wait for one at least) into ``done``."""
        from multiprocessing.connection import wait

        ready: list[Any] = wait([c for c, chunks in self.held.items() if chunks], None if block else 0)
        for connection in ready:  # the connections given (wait() is typed for sockets and fds too)
            answer: Any = None
            try:
                kind, answer = connection.recv()
            except (EOFError, OSError):
                kind = "stopped"
            if kind != "ok":
                self._lose(connection)
                continue
            for index, outcome in answer:
                done[index] = outcome
            self.held[connection].pop(0)
            self._deal(connection)

    def _lose(self, connection) -> None:
        """A worker that failed or stopped: its jobs go back to the queue, it gets no more."""
        for chunk in self.held.pop(connection):
            self.queue.give_back(chunk)
        connection.close()

    def close(self) -> None:
        """Stop the workers: at the end of a batch they have stopped or are stopping (waited for); after an
        error or an interrupt they are killed."""
        finished = not self.busy() and self.queue.left() == 0
        for connection in self.held:
            connection.close()
        for process in self.processes:
            if not finished:
                process.kill()
            process.join(None if not finished else 5)
            if process.is_alive():  # pragma: no cover - a worker that does not stop
                process.kill()
                process.join()


def _serve(connection, analyse: Callable[[Job], Outcome], inherited: list) -> None:
    """A worker: analyse each chunk of jobs it is sent and answer it, until it is sent ``None`` or this
    process's end closes; then stop (``os._exit``: nothing this process inherited is flushed or cleaned up
    twice). ``inherited`` are the connections of the workers forked before it, closed here."""
    for other in inherited:
        other.close()
    _ignore_interrupts()
    try:
        while True:
            try:
                jobs = connection.recv()
            except EOFError:
                break
            if jobs is None:
                break
            connection.send(("ok", [(index, analyse(job)) for index, job in jobs]))
    except BaseException:  # the parent analyses the jobs again (and meets the error itself, if it is one)
        import traceback

        try:
            connection.send(("error", traceback.format_exc()))
        except BaseException:
            pass
        os._exit(1)
    os._exit(0)


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
