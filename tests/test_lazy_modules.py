"""Modules that only some inputs need are imported when such an input is read: a plain shell script
does not import the Markdown / YAML reader, the JSON span mapper or the model-folder reader, nor hash
the knowledge's data files (behaviour, not timing: the figures come from benchmarks/cold_start.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

LAZY = ("qlint.linter.documents", "qlint.linter.jsonspan", "qlint.linter.model_dir", "_blake2", "hashlib")


def _loaded_after_linting(path) -> tuple[int, list[str], str]:
    """Lint ``path`` with ``qlint PATH`` in a fresh interpreter: exit code, which of LAZY it imported, output."""
    probe = textwrap.dedent(f"""
        import sys
        from qlint.linter.cli import entry
        sys.argv = ["qlint", "--format", "json", {str(path)!r}]
        try:
            entry()
        except SystemExit as done:
            code = done.code
        print("\\nLOADED", code, " ".join(name for name in {LAZY!r} if name in sys.modules))
    """)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          cwd=path.parent, env={**os.environ, "QLINT_CACHE_DIR": "off"})
    report, _, tail = done.stdout.rpartition("\nLOADED ")
    assert tail, done.stdout + done.stderr
    code, *loaded = tail.split()
    return int(code), loaded, report


def test_a_plain_script_imports_none_of_them(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3\n"
                      "vllm serve /models/Qwen3.6-27B-w8a8 --tensor-parallel-size 8 --max-model-len 266000\n")
    code, loaded, report = _loaded_after_linting(script)
    assert code == 1 and {"QL204", "QL301"} <= {item["rule"] for item in json.loads(report)}
    assert loaded == []


def test_a_json_option_no_finding_points_into_reads_no_layout(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_capture_sizes\": [1, 8]}'\n")
    code, loaded, report = _loaded_after_linting(script)
    assert code in (0, 1) and isinstance(json.loads(report), list)
    assert loaded == []


@pytest.mark.parametrize("name, text, needed", [
    ("README.md", "# Serve\n\n```bash\nvllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 3\n```\n",
     "qlint.linter.documents"),
    ("run.sh", "vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_capture_sizez\": [1, 8]}'\n",
     "qlint.linter.jsonspan"),  # a finding on a JSON key: where the key is
    ("run.sh", "vllm serve ./Qwen3.6-27B --tensor-parallel-size 3\n", "qlint.linter.model_dir"),
])
def test_an_input_that_needs_one_imports_it(tmp_path, name, text, needed):
    model = tmp_path / "Qwen3.6-27B"
    model.mkdir()
    (model / "config.json").write_text('{"num_attention_heads": 24, "num_hidden_layers": 64}')
    path = tmp_path / name
    path.write_text(text)
    code, loaded, report = _loaded_after_linting(path)
    assert code in (0, 1) and isinstance(json.loads(report), list)
    assert loaded == [needed]
