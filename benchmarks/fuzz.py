"""Long fuzz run of qlint's reader, linter, fixer and CLI (not part of the test suite).

    python benchmarks/fuzz.py                    # 100 000 inputs, seed 0, all cores
    python benchmarks/fuzz.py --count 1000000 --seed 7 --jobs 2

Inputs, in equal shares: random bytes or characters (ASCII, shell punctuation, wide and
astral Unicode); shell-like text from ``qlint.testing.SHELL_PIECES``;
real scripts (the seed fixtures, the tutorial corpus and generated scripts) mutated by byte
flips, deletions, duplications, splices, truncation, CRLF conversion and inserted pieces or
invalid UTF-8; numbers at the edges (0, -1, 10^9+1, 1e309, integers of 4,400 digits, ``300k``) put
where the rules read sizes, lengths, JSON keys and launcher options. Every input is linted with
``lint_bytes`` under a 10 s alarm (a slower input counts as a hang); one in 20 also goes through
``fix_bytes`` (twice: the second pass must change nothing); one in 200 through the CLI
(in-process, text and JSON output). Checked: nothing raises, an input error has a
1-based line and column, every finding has a 1-based span inside the file, the CLI exits 0, 1
or 2 without a traceback. A failing input is saved under ``--out`` (default
``benchmarks/fuzz-failures``) and the run exits 1.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


HANG_SECONDS = 10

EDGE_NUMBERS = ("0", "-1", "1000000001", "1e309", "9" * 4400, "300k", "2147483648", "0.0", "-0", "1_0", "nan")
EDGE_PIECES = tuple(
    piece
    for number in EDGE_NUMBERS
    for piece in (
        f"--tensor-parallel-size {number} ", f"--pipeline-parallel-size {number} ", f"--data-parallel-size {number} ",
        f"--max-model-len {number} ", f"--max-num-seqs {number} ", f"--gpu-memory-utilization {number} ",
        f"--data-parallel-size-local {number} ", f"--max-num-batched-tokens {number} ",
        f"--speculative-config '{{\"method\": \"mtp\", \"num_speculative_tokens\": {number}}}' ",
        f"--compilation-config '{{\"max_cudagraph_capture_size\": {number}, \"cudagraph_capture_sizes\": [{number}]}}' ",
        f"--additional-config '{{\"expert_tensor_parallel_size\": {number}}}' ",
        f"--kv-transfer-config '{{\"kv_role\": \"kv_consumer\", \"kv_port\": {number}}}' ",
        f"export VLLM_ASCEND_ENABLE_FLASHCOMM1={number}\n",
        f"python launch_online_dp.py --dp-size {number} --tp-size {number} --dp-size-local {number} --dp-address 10.0.0.1\n",
    )
) + ("# qlint: hardware=310p\n", "# qlint: hardware=a2 vllm-ascend=v0.23.0\n", "--enable-expert-parallel ",
     "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 ", "vllm serve Qwen/Qwen3.5-397B-A17B ")


class Hang(Exception):
    """An input took longer than HANG_SECONDS."""


def corpus() -> list[bytes]:
    """Seed fixtures, the tutorial corpus, the bug-report cases and a sample of generated scripts."""
    import qlint.testing as qt

    found = [path.read_bytes() for path in sorted((ROOT / "tests" / "fixtures").rglob("*.sh"))]
    configs = qt.all_configs()
    found += [qt.render(config).script.encode() for config in configs[:: max(1, len(configs) // 150)]]
    return found


def make_input(rng: random.Random, scripts: list[bytes], pieces: list[bytes]) -> bytes:
    kind = rng.randrange(3)
    if kind == 0:
        size = rng.choice((0, 1, 8, 64, 512, 2048))
        if rng.random() < 0.5:
            return bytes(rng.randrange(256) for _ in range(size))
        alphabet = rng.choice(("ascii", "shell", "unicode"))
        if alphabet == "ascii":
            return bytes(rng.randrange(1, 128) for _ in range(size))
        if alphabet == "shell":
            return "".join(rng.choice(" \t\n\r\\'\"`$(){}[]<>|&;#=-_.,:/*?!~%^+@0123456789abcxyzMNP")
                           for _ in range(size)).encode()
        return "".join(rng.choice("{}$ ") if rng.random() < 0.2 else
                       chr(rng.choice((rng.randrange(32, 0x250), rng.randrange(0x4E00, 0x9FFF),
                                       rng.randrange(0x1F300, 0x1FAFF), rng.randrange(0xA0000, 0x10FFFE))))
                       for _ in range(size)).encode("utf-8", "replace")
    if kind == 1:
        return b"".join(rng.choice(pieces) for _ in range(rng.randrange(60)))
    if kind == 2 and rng.random() < 0.4:  # numbers at the edges in a serve command
        edge = [piece.encode() for piece in EDGE_PIECES]
        return b"vllm serve Eco-Tech/Qwen3.6-27B-w8a8 " + b"".join(rng.choice(edge) for _ in range(rng.randrange(1, 8)))
    data = bytearray(rng.choice(scripts))
    for _ in range(rng.randrange(1, 6)):
        if not data:
            data += rng.choice(pieces)
            continue
        at = rng.randrange(len(data))
        op = rng.randrange(9)
        if op == 0:
            data[at] = rng.randrange(256)
        elif op == 1:
            del data[at : at + rng.randrange(1, 40)]
        elif op == 2:
            data[at:at] = rng.choice(pieces)
        elif op == 3:
            data[at:at] = data[at : at + rng.randrange(1, 200)]
        elif op == 4:
            other = rng.choice(scripts)
            start = rng.randrange(len(other) or 1)
            data[at:at] = other[start : start + rng.randrange(1, 300)]
        elif op == 5:
            del data[at:]
        elif op == 6:
            data = bytearray(bytes(data).replace(b"\n", b"\r\n"))
        elif op == 7:
            data[at:at] = rng.choice((b"\xff", b"\xc3", b"\xe4\xb8", b"\x00", b"\xef\xbb\xbf", b"\xed\xa0\x80"))
        else:
            data[at:at] = rng.choice((b"'", b'"', b"`", b"$(", b"${", b"\\", b"<<EOF\n", b")", b"}", b"#"))
    return bytes(data)


def check(data: bytes, index: int) -> None:
    from qlint.linter.fixer import fix_bytes
    from qlint.linter.lint import lint_bytes

    result = lint_bytes("f.sh", data)
    if result.error is not None:
        assert result.error.line >= 1 and result.error.column >= 1, result.error.message
    else:
        lines = result.source.data.count(b"\n") + 1
        for finding in result.findings:
            span = finding.span
            assert 1 <= span.line <= span.end_line <= lines + 1 and span.column >= 1, (finding.rule.id, span)
    if index % 20 == 0:
        lint = lambda content: lint_bytes("f.sh", content)  # noqa: E731
        first = fix_bytes("f.sh", data, lint)
        if first.data is not None:
            again = fix_bytes("f.sh", first.data, lint)
            assert again.data is None, "a second fix changed the file again"
    if index % 200 == 0:
        from click.testing import CliRunner

        from qlint.linter.cli import main

        for args in (["-"], ["-", "--format", "json"]):
            outcome = CliRunner().invoke(main, args, input=data)
            assert outcome.exit_code in (0, 1, 2), outcome.output
            assert outcome.exception is None or isinstance(outcome.exception, SystemExit), repr(outcome.exception)
            assert "Traceback" not in outcome.output


def _alarm(signum, frame):
    raise Hang(f"over {HANG_SECONDS} s")


def special_files(out: str) -> list[str]:
    """The CLI on a FIFO, /dev/zero (as a path and as stdin) and a symlink loop: exit 2, no hang."""
    import subprocess
    import tempfile

    failures = []
    with tempfile.TemporaryDirectory(prefix="qlint-fuzz-") as tmp:
        fifo, loop = os.path.join(tmp, "pipe.sh"), os.path.join(tmp, "loop.sh")
        os.mkfifo(fifo)
        os.symlink(loop, loop)
        command = [sys.executable, "-c", "from qlint.linter.cli import entry; entry()"]
        for args, stdin in (([fifo], None), (["/dev/zero"], None), (["-"], "/dev/zero"), ([loop], None)):
            try:
                with open(stdin or os.devnull, "rb") as source:
                    done = subprocess.run(command + args, stdin=source, capture_output=True, timeout=HANG_SECONDS)
                if done.returncode != 2 or b"Traceback" in done.stderr:
                    failures.append(f"special file {args}: exit {done.returncode}")
            except subprocess.TimeoutExpired:
                failures.append(f"special file {args}: hang")
    return failures


def worker(job: tuple[int, int, int, str]) -> tuple[int, list[str], int]:
    seed, start, count, out = job
    import signal

    import qlint.testing as qt

    scripts = corpus()
    pieces = [piece.encode() for piece in qt.SHELL_PIECES + EDGE_PIECES]
    failures, hangs = [], 0
    signal.signal(signal.SIGALRM, _alarm)
    for index in range(start, start + count):
        rng = random.Random(f"{seed}:{index}")
        data = make_input(rng, scripts, pieces)
        signal.alarm(HANG_SECONDS)
        try:
            check(data, index)
        except Exception as error:  # noqa: BLE001 - any escape is a finding of the fuzzer
            hangs += isinstance(error, Hang)
            path = Path(out) / f"input-{seed}-{index}.bin"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            path.with_suffix(".txt").write_text(traceback.format_exc())
            failures.append(str(path))
        finally:
            signal.alarm(0)
    if start == 0:
        failures += special_files(out)
    return count, failures, hangs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "fuzz-failures"))
    options = parser.parse_args(argv)
    chunk = 2_000
    jobs = [(options.seed, start, min(chunk, options.count - start), options.out)
            for start in range(0, options.count, chunk)]
    started = time.perf_counter()
    done, failures, hangs = 0, [], 0
    with multiprocessing.Pool(options.jobs) as pool:
        for count, failed, hung in pool.imap_unordered(worker, jobs):
            done += count
            failures += failed
            hangs += hung
            if done % 20_000 < chunk or done == options.count:
                print(f"{done}/{options.count} inputs, {len(failures)} failure(s)", file=sys.stderr)
    elapsed = time.perf_counter() - started
    print(f"fuzz: {done} inputs (seed {options.seed}) in {elapsed:.1f} s with {options.jobs} process(es) "
          f"({done / elapsed:.0f} inputs/s): {len(failures)} failure(s), of which {hangs} hang(s) over "
          f"{HANG_SECONDS} s; special files (FIFO, /dev/zero, symlink loop) checked once")
    for path in failures[:20]:
        print(f"  {path}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
