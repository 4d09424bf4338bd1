"""Advice comes from the constraints the checks use: apply each value a finding suggests and the
rules that judge that value (the parallelism family: QL203 node NPUs, QL206 heads, QL207 experts)
stay quiet. ``fix:`` is only printed for fixes --fix / --unsafe-fixes applies."""

from __future__ import annotations

import re

import pytest

from conftest import lint

FAMILY = {"QL203", "QL206", "QL207"}
MODEL_27B = "Eco-Tech/Qwen3.6-27B-w8a8"  # 24 attention heads, 4 KV heads, dense
MODEL_MOE = "Eco-Tech/Qwen3.6-35B-A3B-w8a8"


def _suggested_tps(finding) -> list[int]:
    text = finding.fix.describe("en")
    found = re.search(r"e\.g\. ([\d, ]+)\)", text)
    if found:
        return [int(n) for n in found.group(1).split(",")]
    lower = re.search(r"--tensor-parallel-size to (\d+)", text)
    return [int(lower.group(1))] if lower else []


def _family(text, hardware, version):
    return [f for f in lint(text, hardware, version) if f.rule.id in FAMILY]


SCRIPTS = [
    (f"vllm serve {MODEL_27B} --tensor-parallel-size {{tp}}\n", 3, "a3"),    # KV heads reject 3 and 6
    (f"vllm serve {MODEL_27B} --tensor-parallel-size {{tp}}\n", 16, "a2"),   # heads and node reject 16
    (f"vllm serve {MODEL_27B} --tensor-parallel-size {{tp}}\n", 5, "a2"),
    (f"vllm serve {MODEL_MOE} --tensor-parallel-size {{tp}} --enable-expert-parallel\n", 3, "a3"),
    (f"vllm serve {MODEL_MOE} --tensor-parallel-size {{tp}} --enable-expert-parallel\n", 16, "a2"),
]


@pytest.mark.parametrize("version", ["v0.23.0", "main"])
@pytest.mark.parametrize("template,bad_tp,hardware", SCRIPTS)
def test_every_suggested_tp_passes_the_family(template, bad_tp, hardware, version):
    findings = _family(template.format(tp=bad_tp), hardware, version)
    assert findings, "the bad TP must be judged"
    suggested = sorted({tp for f in findings for tp in _suggested_tps(f)})
    assert suggested, [f.fix.describe("en") for f in findings]
    for tp in suggested:
        again = _family(template.format(tp=tp), hardware, version)
        assert not again, (tp, [f.text("en") for f in again])


def test_ql206_no_longer_offers_tp_the_kv_heads_reject():
    [finding] = [f for f in _family(f"vllm serve {MODEL_27B} --tensor-parallel-size 3\n", "a3", "v0.23.0")
                 if f.rule.id == "QL206"]
    assert _suggested_tps(finding) and not {3, 6} & set(_suggested_tps(finding))


def test_ql203_lowers_tp_when_dp_is_already_one():
    findings = _family(f"vllm serve {MODEL_27B} --tensor-parallel-size 16\n", "a2", "v0.23.0")
    [node] = [f for f in findings if f.rule.id == "QL203"]
    assert "lower DP(local) to" not in node.fix.describe("en")
    assert "--tensor-parallel-size to 8" in node.fix.describe("en")


def test_ql203_lowers_local_dp_when_one_rank_fits():
    text = f"vllm serve {MODEL_27B} --tensor-parallel-size 2 --data-parallel-size 8\n"
    [node] = [f for f in _family(text, "a2", "v0.23.0") if f.rule.id == "QL203"]
    assert "--data-parallel-size-local 4" in node.fix.describe("en")
    fixed = text.replace("--data-parallel-size 8", "--data-parallel-size 8 --data-parallel-size-local 4")
    assert not _family(fixed, "a2", "v0.23.0")


def test_advice_is_labelled_advice_and_fixes_fix(tmp_path):
    from conftest import invoke, write_file
    path = write_file(tmp_path, "run.sh", f"vllm serve {MODEL_27B} --tensor-parallel-size 3\n")
    for lang, advice, fix in (("en", "  advice: ", "  fix: add --quantization ascend"),
                              ("zh", "  建议：", "  修复：添加 --quantization ascend")):
        out = invoke([path, "--hardware", "a3", "--vllm-ascend-version", "v0.23.0", "--lang", lang]).output
        tail = out.split("QL206", 1)[1].splitlines()[1:5]
        assert any(l.startswith(advice) for l in tail), tail
        assert not any(l.lstrip().startswith(("fix", "修复")) for l in tail)
        assert fix in out


def test_unsafe_fix_says_it_needs_unsafe_fixes():
    text = (f"vllm serve {MODEL_27B} --speculative-config "
            "'{\"method\": \"mtp\", \"num_speculative_tokens\": 3}'\n")
    [finding] = [f for f in lint(text, "a3", "v0.23.0") if f.rule.id == "QL403"]
    assert finding.fix.safety == "unsafe" and finding.fix.applicable
    assert finding.fix.label("en") == "fix (unsafe, --unsafe-fixes)"
