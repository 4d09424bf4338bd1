"""One ``qlint`` call over many files: the parallel path prints what the serial one prints, a file settled
alone reports what the deployment pass would have reported, a batch reports what the files report one by
one, and each file is analysed once. (Memory and speed are benchmark figures: benchmarks/bench.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from qlint.linter import batch, cli_check
from qlint.linter import lint as lint_module
from qlint.linter.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
MIXED = sorted(str(p) for folder in ("seeds", "cases", "reports", "tutorials/v0.23.0", "tutorials/main")
               for p in (FIXTURES / folder).glob("*.sh"))
"""Seeds, handed cases, failure reports and tutorials: PD pairs, proxies, DP templates with their
launchers, scripts bash cannot parse (input errors) and single engines."""

ENGINE = "#!/bin/bash\n# qlint: hardware=a2 vllm-ascend=v0.23.0\nvllm serve Qwen/Qwen3.6-27B --port {port} \\\n" \
         "  --tensor-parallel-size 3\n"
PROXY = "#!/bin/bash\npython load_balance_proxy_server_example.py --port 9000 \\\n" \
        "  --prefiller-hosts 127.0.0.1 --prefiller-ports 8100 --decoder-hosts 127.0.0.1 --decoder-ports 8200\n"


def test_results_travel_between_processes():
    """What a worker sends back (findings, their fixes and rules, the plan, the text) unpickles equal,
    frozen records included, and each finding names the catalogue's own rule object."""
    import pickle

    from qlint.knowledge.base import load

    batch._pickle_rules_by_id()
    for path in MIXED[:12]:
        result = lint_module.lint_bytes(path, Path(path).read_bytes(), kb=load())
        back = pickle.loads(pickle.dumps(result))
        assert back.findings == result.findings and back.plan == result.plan and back.error == result.error
        assert all(a.rule is b.rule for a, b in zip(back.findings, result.findings))


def _run(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["check", "--exit-zero", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def serial(monkeypatch):
    monkeypatch.setattr(batch, "PARALLEL_FROM", 10**9)


_COPIES: list[str] = []


def _batch_of(count: int) -> list[str]:
    """``count`` files: the mixed fixtures, then copies of them under other folders (a file named twice is
    read once), made once per test session."""
    import shutil
    import tempfile

    while len(MIXED) + len(_COPIES) < count:
        folder = Path(tempfile.mkdtemp(prefix="qlint-batch-"))
        for path in MIXED:
            target = folder / Path(path).parent.name / Path(path).name
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(path, target)
            _COPIES.append(str(target))
    return (MIXED + _COPIES)[:count]


def _dealt(monkeypatch) -> list[int]:
    """Spy: the number of files each chunk dealt to a worker held."""
    dealt: list[int] = []
    chunk = batch.Queue.chunk
    monkeypatch.setattr(batch.Queue, "chunk", lambda self, size: dealt.append(len(taken := chunk(self, size))) or taken)
    return dealt


@pytest.mark.parametrize("workers", ["2", None])
@pytest.mark.parametrize("output", ["text", "json", "sarif", "github"])
def test_parallel_output_is_the_serial_output(output, workers, monkeypatch):
    """Files that may join others analysed in this process, the others in a worker, with QLINT_WORKERS=2 and
    by default (no QLINT_WORKERS, two cores): the output is the one-process output byte for byte, and both
    places analysed files."""
    if workers is None:
        monkeypatch.delenv("QLINT_WORKERS", raising=False)
        monkeypatch.setattr(batch, "cores", lambda: 2)
        monkeypatch.setattr(batch, "load", lambda: 0.5)
    else:
        monkeypatch.setenv("QLINT_WORKERS", workers)
    assert batch.workers() == 2
    dealt = _dealt(monkeypatch)
    files = _batch_of(max(batch.PARALLEL_FROM, len(MIXED)) + 7)
    parallel = _run(["--format", output, *files])
    assert 0 < sum(dealt) < len(files)
    monkeypatch.setenv("QLINT_WORKERS", "1")
    dealt.clear()
    assert _run(["--format", output, *files]) == parallel
    assert not dealt


def test_how_many_processes(monkeypatch):
    """QLINT_WORKERS=N sets the processes (1: this one only); unset, ``auto`` or anything else: one per core
    that other processes leave free (the load average).
    Workers are forked from PARALLEL_FROM files, with two processes or more, where forking is safe."""
    monkeypatch.setattr(batch, "cores", lambda: 6)
    monkeypatch.setattr(batch, "load", lambda: 0.9)
    for value, expected in (("1", 1), ("3", 3), ("", 6), ("auto", 6), ("0", 6), ("x", 6)):
        monkeypatch.setenv("QLINT_WORKERS", value)
        assert batch.workers() == expected
    monkeypatch.delenv("QLINT_WORKERS")
    assert batch.workers() == 6 and batch.forks(batch.PARALLEL_FROM) and not batch.forks(batch.PARALLEL_FROM - 1)
    for busy, expected in ((3.2, 4), (5.5, 2), (6.0, 1), (40.0, 1)):  # cores other processes leave free
        monkeypatch.setattr(batch, "load", lambda: busy)
        assert batch.workers() == expected
    assert not batch.forks(10**6)
    monkeypatch.setenv("QLINT_WORKERS", "3")
    assert batch.workers() == 3  # set: whatever the load
    monkeypatch.setenv("QLINT_WORKERS", "1")
    assert not batch.forks(10**6)


@pytest.mark.parametrize("value", ["abc", "0", "-3", "1.5", "\u0663", " 2"])
def test_a_bad_worker_count_is_a_usage_error(value, monkeypatch, tmp_path):
    """``QLINT_WORKERS`` that is not a count of processes or ``auto`` stops the run with exit 2 and says why,
    whatever the number of files (it is not silently replaced by one per core)."""
    script = tmp_path / "run.sh"
    script.write_text("vllm serve Qwen/Qwen3.6-27B --port 8000\n")
    monkeypatch.setenv("QLINT_WORKERS", value)
    code, out, err = _run([str(script)])
    assert code == 2 and not out and f"QLINT_WORKERS={value!r} is not a number of processes" in err
    for good in ("1", "2", "auto", ""):
        monkeypatch.setenv("QLINT_WORKERS", good)
        assert _run([str(script)])[0] == 0


def test_no_fork_beside_another_thread(monkeypatch):
    """A process running another thread does not fork (what that thread holds would stay held in the child)."""
    import threading

    monkeypatch.setenv("QLINT_WORKERS", "2")
    assert batch.can_fork() and batch.forks(batch.PARALLEL_FROM)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not batch.can_fork() and not batch.forks(batch.PARALLEL_FROM)
    finally:
        release.set()
        other.join()


def _no_children_left() -> bool:
    import multiprocessing
    import os

    if multiprocessing.active_children():
        return False
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.mark.parametrize("how", ["exit", "raise", "first"])
def test_a_worker_that_fails_or_dies_changes_nothing(how, monkeypatch):
    """A worker that dies (``os._exit``, as a killed one) at its 12th file or its first, or whose analysis
    raises: its files are analysed again, the output is the one-process output, and no process is left."""
    import os

    parent = os.getpid()
    calls = [0]  # each process counts its own (a forked worker starts from this process's count)
    real = cli_check.analyse

    def failing(*args, **kwargs):
        calls[0] += 1
        if os.getpid() != parent:
            if how == "first" or how == "exit" and calls[0] == batch.WARM_UP + 12:
                os._exit(3)
            if how == "raise" and calls[0] == batch.WARM_UP + 12:
                raise ValueError("only in a worker")
        return real(*args, **kwargs)

    monkeypatch.setenv("QLINT_WORKERS", "3")
    monkeypatch.setattr(cli_check, "analyse", failing)
    files = _batch_of(max(batch.PARALLEL_FROM, len(MIXED)) + 40)
    dealt = _dealt(monkeypatch)
    failed = [_run(["--format", output, *files]) for output in ("text", "json")]
    assert dealt and _no_children_left()
    monkeypatch.setenv("QLINT_WORKERS", "1")
    assert [_run(["--format", output, *files]) for output in ("text", "json")] == failed


def test_an_interrupt_stops_the_workers(monkeypatch):
    """Ctrl-C in this process while workers run: the run stops and no worker is left running or unwaited."""
    import os

    parent = os.getpid()
    calls = [0]
    real = cli_check.analyse

    def interrupted(*args, **kwargs):
        if os.getpid() == parent:
            calls[0] += 1
            if calls[0] == batch.WARM_UP + 5:
                raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setenv("QLINT_WORKERS", "2")
    monkeypatch.setattr(cli_check, "analyse", interrupted)
    dealt = _dealt(monkeypatch)
    result = CliRunner().invoke(main, ["check", *_batch_of(max(batch.PARALLEL_FROM, len(MIXED)) + 40)])
    assert result.exit_code != 0 and dealt and _no_children_left()


def test_queue_deals_in_order_and_takes_back():
    """This process takes the jobs it prefers first, a worker the others first, each in order; jobs given
    back are first in line again, in order."""
    queue = batch.Queue([index % 3 == 0 for index in range(10)])  # 0, 3, 6, 9 preferred
    assert queue.here() == 0 and queue.chunk(4) == [1, 2, 4, 5] and queue.chunk(3) == [7, 8, 3]
    queue.give_back([8, 2, 3])
    assert queue.left() == 5 and queue.here() == 3 and queue.chunk(9) == [2, 8, 6, 9]
    assert queue.here() is None and queue.chunk(2) == [] and queue.left() == 0


def test_three_workers_and_files_that_join_others_in_workers(monkeypatch):
    """Two worker processes, also analysing files that join others (their plan views travel back): still the
    one-process output."""
    files = _batch_of(max(batch.PARALLEL_FROM, len(MIXED)) + 7)
    monkeypatch.setenv("QLINT_WORKERS", "3")
    three = [_run(["--format", output, *files]) for output in ("text", "json")]
    monkeypatch.setattr(cli_check, "may_link", lambda data: False)
    everything = [_run(["--format", output, *files]) for output in ("text", "json")]
    monkeypatch.setattr(batch, "PARALLEL_FROM", 10**9)
    serial = [_run(["--format", output, *files]) for output in ("text", "json")]
    assert three == everything == serial


def test_files_that_join_others_travel_back_as_plan_views(monkeypatch, tmp_path):
    """With more files that may join others than this process's share, workers analyse some of them and
    send back their results with plan views (never the whole plan): the output is still the serial one."""
    import shutil

    from qlint.linter.deployment import PlanView, deployment_view

    monkeypatch.setenv("QLINT_WORKERS", "2")
    source = FIXTURES / "deployments"
    trees = sorted(source.rglob("*.sh"))
    files = []  # copies of the deployment trees under new folders (a file named twice is read once)
    for copy in range(batch.PARALLEL_FROM // len(trees) + 1):
        for tree in trees:
            target = tmp_path / f"copy{copy}" / tree.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(tree, target)
            files.append(str(target))
    files += MIXED[:20]  # most may join others
    back: list = []
    collect = batch.Helpers.collect

    def spied(self, done, block):
        before = set(done)
        collect(self, done, block)
        back.extend(done[index].item.result.plan for index in set(done) - before if done[index].item is not None)

    monkeypatch.setattr(batch.Helpers, "collect", spied)
    parallel = [_run(["--format", output, *files]) for output in ("text", "json")]
    assert any(isinstance(plan, PlanView) for plan in back)
    assert all(plan is None or isinstance(plan, PlanView) or deployment_view(plan) is plan for plan in back)
    monkeypatch.setattr(batch, "PARALLEL_FROM", 10**9)
    assert [_run(["--format", output, *files]) for output in ("text", "json")] == parallel


def _linkable_inputs():
    from qlint import testing

    yield from ((path, Path(path).read_bytes()) for path in sorted(map(str, FIXTURES.rglob("*.sh"))))
    configs = testing.all_configs()
    for config in configs[::max(1, len(configs) // 300)]:
        yield "generated.sh", testing.render(config).script.encode()


def test_may_link_is_never_wrong_the_other_way():
    """A file batch.may_link says no to cannot share a deployment with another file (grouping.may_join of
    its plan is false), over every fixture and generated scripts across the knowledge; and it says yes to
    files that do."""
    from qlint.knowledge.base import load
    from qlint.linter.grouping import links, may_join

    kb = load()
    joined = 0
    for path, data in _linkable_inputs():
        result = lint_module.lint_bytes(path, data, kb=kb)
        if result.plan is not None and may_join(links(result.plan)):
            joined += 1
            assert batch.may_link(data), path
    assert joined > 50


def test_settling_alone_changes_nothing(serial, monkeypatch, tmp_path):
    """Files settled alone (their deployment pass run at once, their plan let go) report what keeping
    them for the deployment pass reports, including an engine a later proxy names (analysed again)."""
    (tmp_path / "engine_p.sh").write_text(ENGINE.format(port=8100))
    (tmp_path / "engine_d.sh").write_text(ENGINE.format(port=8200))
    (tmp_path / "zz_proxy.sh").write_text(PROXY)
    files = [*MIXED, *(str(tmp_path / name) for name in ("engine_p.sh", "engine_d.sh", "zz_proxy.sh"))]
    analysed = []
    real = cli_check.analyse
    monkeypatch.setattr(cli_check, "analyse", lambda path, *a, **k: analysed.append(path) or real(path, *a, **k))
    settled = _run(["--format", "json", *files])
    assert analysed.count(str(tmp_path / "engine_p.sh")) == 2  # settled, then named by the proxy
    monkeypatch.setattr(cli_check, "settle", lambda item, deploy: False)
    kept = _run(["--format", "json", *files])
    assert settled == kept
    paths = {item["path"] for item in json.loads(kept[1])}
    assert str(tmp_path / "zz_proxy.sh") in paths or str(tmp_path / "engine_p.sh") in paths


def test_batch_reports_what_each_file_reports(serial, tmp_path):
    """Files that run apart: the batch's findings are each file's own, in the order given."""
    files = []
    for index, port in enumerate((8100, 8101, 8102)):
        path = tmp_path / f"run{index}.sh"
        path.write_text(ENGINE.format(port=port))
        files.append(str(path))
    files += [str(FIXTURES / "cases" / "case-01.sh"), str(FIXTURES / "cases" / "case-02.sh")]
    one_by_one = [item for path in files for item in json.loads(_run(["--format", "json", path])[1])]
    assert one_by_one and json.loads(_run(["--format", "json", *files])[1]) == one_by_one


def test_each_file_is_analysed_once(serial, monkeypatch):
    """No file of a batch is linted twice: a DP template is linted once more per local rank of its
    launcher, nothing else is linted again for the deployment pass."""
    counted: list[str] = []
    real = lint_module.lint_bytes

    def counting(path, data, *args, **kwargs):
        if not kwargs.get("bindings"):
            counted.append(path)
        return real(path, data, *args, **kwargs)

    monkeypatch.setattr(lint_module, "lint_bytes", counting)
    monkeypatch.setattr("qlint.linter.deployment.lint_bytes", counting)
    _run(MIXED)
    assert sorted(counted) == sorted(set(counted)) and len(counted) == len(MIXED)


def test_files_under_one_configuration_share_its_policy(serial, monkeypatch, tmp_path):
    """The configuration of a folder is resolved once for all its files (one Effective, one Policy), and a
    folder with its own configuration gets its own."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / ".qlint.toml").write_text('ignore = ["QL201"]\n')
    for folder in ("a", "b"):
        for port in (8100, 8101):
            (tmp_path / folder / f"run{port}.sh").write_text(ENGINE.format(port=port))
    seen = []
    real = cli_check.analyse

    def recording(*args, **kwargs):
        item = real(*args, **kwargs)
        seen.append(item)
        return item

    monkeypatch.setattr(cli_check, "analyse", recording)
    _run(sorted(str(p) for p in tmp_path.rglob("*.sh")))
    by_folder: dict[str, set[int]] = {}
    for item in seen:
        by_folder.setdefault(Path(item.path).parent.name, set()).add(id(item.policy))
    assert len(seen) == 4 and all(len(ids) == 1 for ids in by_folder.values())
    assert by_folder["a"] != by_folder["b"]


def test_kept_records_hold_no_cycles():
    """What a batch keeps (a file's result, its plan, its findings) is freed by refcounting alone when let go:
    freezing it out of the collector's scans (batch.Retained) cannot keep garbage alive."""
    import gc

    from qlint.knowledge.base import load

    kb = load()
    results = [lint_module.lint_bytes(path, Path(path).read_bytes(), kb=kb) for path in MIXED[:60]]
    assert any(result.plan is not None and result.findings for result in results)
    gc.collect()  # the garbage linting made; the results stay
    gc.disable()
    try:
        del results
        assert gc.collect() == 0  # nothing of them was left for the collector
    finally:
        gc.enable()


def test_freezing_kept_files_changes_nothing(serial, monkeypatch):
    """A batch frozen after every file (batch.Retained) prints what a batch never frozen prints."""
    import gc

    files = _batch_of(len(MIXED) + 5)
    frozen_before = gc.get_freeze_count()
    monkeypatch.setattr(batch, "FREEZE_EVERY", 1)
    often = [_run(["--format", output, *files]) for output in ("text", "json")]
    assert gc.get_freeze_count() > frozen_before
    monkeypatch.setattr(batch, "FREEZE_EVERY", 10**9)
    assert [_run(["--format", output, *files]) for output in ("text", "json")] == often


def test_spooled_text_report_is_the_report(serial, monkeypatch, tmp_path):
    """The text report of files settled alone, made as they settle and printed in turn (in memory, or in a
    temporary file past SPOOL_MEMORY), is byte for byte the report of keeping every file to the end."""
    (tmp_path / "engine_p.sh").write_text(ENGINE.format(port=8100))
    (tmp_path / "zz_proxy.sh").write_text(PROXY)
    files = [*MIXED, str(tmp_path / "engine_p.sh"), str(tmp_path / "zz_proxy.sh")]
    for args in ([], ["--show-suppressed"], ["--lang", "zh"], ["--color", "always"]):
        in_memory = _run([*args, *files])
        monkeypatch.setattr(batch, "SPOOL_MEMORY", 0)
        on_disk = _run([*args, *files])
        monkeypatch.setattr(cli_check, "settle", lambda item, deploy: False)
        kept = _run([*args, *files])
        monkeypatch.undo()
        monkeypatch.setattr(batch, "PARALLEL_FROM", 10**9)
        assert in_memory == on_disk == kept and "QL" in kept[1]


def test_settled_files_keep_no_findings_until_the_report(serial, monkeypatch):
    """With the text report, a file settled alone keeps no finding, text or plan for the rest of the batch:
    its report is spooled and its result only counts severities; files kept for the deployment pass keep
    their plan."""
    grouped = []
    real = cli_check.deployment_groups

    def grouping(analysed):  # what each file holds when every file is read
        grouped.extend((item.settled, item.spooled, item.result.plan is not None, item.result.source is not None,
                        len(item.read), [type(f) for f in item.result.findings]) for item, _ in analysed)
        return real(analysed)

    monkeypatch.setattr(cli_check, "deployment_groups", grouping)
    _run(MIXED)
    settled = [entry for entry in grouped if entry[0]]
    kept = [entry for entry in grouped if not entry[0]]
    assert settled and kept and any(entry[1] is not None for entry in settled)
    for _, _, plan, source, read, kinds in settled:
        assert not plan and not source and not read and all(kind is batch.Counted for kind in kinds)
    assert all(entry[2] for entry in kept)
    grouped.clear()
    _run(["--format", "json", *MIXED])  # a document made at the end: the findings are kept
    assert any(entry[5] and batch.Counted not in entry[5] for entry in grouped if entry[0])


def test_linting_leaves_no_cycles_for_the_collector():
    """Reading and linting a script leaves no garbage that only the cyclic collector frees (the reader lets go
    of its words, variables and commands once the script is read: shell._Walker.release): a batch's files are
    freed by refcounting as they go."""
    import gc

    from qlint.knowledge.base import load

    kb = load()
    for path in MIXED:  # what is built once per release or per process
        lint_module.lint_bytes(path, Path(path).read_bytes(), kb=kb)
    gc.collect()
    gc.disable()
    try:
        for path in MIXED:
            lint_module.lint_bytes(path, Path(path).read_bytes(), kb=kb)
        assert gc.collect() == 0
    finally:
        gc.enable()
