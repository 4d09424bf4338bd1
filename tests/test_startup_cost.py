"""What keeps ``qlint FILE`` quick to start: nothing heavy on the lint path.
The figures themselves come from ``benchmarks/bench.py`` (not a timed test)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap




def _python(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)


def test_lint_path_imports_nothing_heavy(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 3\n")
    done = _python(f"""
        import sys
        from qlint.linter.cli import main
        sys.argv = ["qlint", {str(script)!r}]
        try:
            main()
        except SystemExit:
            pass
        heavy = ["hypothesis", "networkx", "pydantic", "sphinx", "tomllib", "tempfile", "importlib.resources",
                 "tree_sitter_bash", "hashlib", "markdown_it"]
        print("LOADED", [name for name in heavy if name in sys.modules])
    """)
    assert "LOADED []" in done.stdout, done.stdout + done.stderr


def test_qlint_testing_says_how_to_get_hypothesis():
    done = _python("""
        import sys
        sys.modules["hypothesis"] = None
        import qlint.testing
    """)
    assert done.returncode != 0
    assert "qlint.testing needs hypothesis" in done.stderr and "pip install -e '" in done.stderr
    assert "[test]'" in done.stderr
