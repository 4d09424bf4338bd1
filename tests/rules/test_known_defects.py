"""Known defects as data (knowledge/data/defects.toml) and the rules that report them (QL560-QL562):
release ranges (affected and fixed releases), hardware, models, conditions the script does not fix,
fixes, links, and `qlint explain --log` naming the entries."""

import re

import pytest

from conftest import lint
from qlint.knowledge.base import KnowledgeError, _validate
from qlint.linter.fixes import apply_edits
from qlint.linter.logs import explain_log, render_explanations
from qlint.rules.graph import FACTS
from qlint.rules.known_defects import VOCABULARY

SPEC = '\'{"method": "mtp", "num_speculative_tokens": 3}\''
Q36_MTP = f"vllm serve Qwen/Qwen3.6-35B-A3B --tensor-parallel-size 4 --speculative-config {SPEC}\n"


def _defects(findings, entry=None):
    hits = [f for f in findings if f.rule.id in ("QL560", "QL561", "QL562")]
    if entry is not None:
        hits = [f for f in hits if any(t.name == "defect" and t.value == entry for t in f.trace)]
    return hits


def test_at_least_sixty_entries_from_both_kinds_of_source(kb):
    assert len(kb.defects) >= 60
    origins = {entry.origin for entry in kb.defects}
    assert origins == {"release-notes", "issue"}
    assert len({entry.id for entry in kb.defects}) == len(kb.defects)


def test_every_condition_names_a_known_fact_flag_or_env(kb):
    from qlint.rules import registry  # noqa: F401  (registers every fact)
    for entry in kb.defects:
        for condition in entry.when:
            if condition.fact is not None:
                head = condition.fact.split(".")[0]
                assert head in VOCABULARY, f"{entry.id}: fact {head} is not in the rule's vocabulary"
                assert head in FACTS, f"{entry.id}: fact {head} is not registered"
            if condition.flag is not None:
                assert condition.flag in kb.flag_index, f"{entry.id}: unknown flag {condition.flag}"


def test_every_link_is_pinned_and_release_notes_links_have_a_line(kb):
    for entry in kb.defects:
        for link in entry.sources:
            assert link.startswith("https://github.com/vllm-project/"), link
            if "/blob/" in link:
                assert re.search(r"/blob/(v[\w.]+|[0-9a-f]{40})/", link) and "#L" in link, link
        if entry.origin == "release-notes":
            assert any("release_notes.md#L" in s for s in entry.sources), entry.id


def test_a_range_without_an_end_is_refused():
    data = b'''[[defect]]
id = "x"
origin = "issue"
since = "v0.18.0"
severity = "error"
symptom = { en = "a", zh = "b" }
workaround = { en = "a", zh = "b" }
sources = ["https://github.com/vllm-project/vllm-ascend/issues/1"]
when = [{ fact = "tp", op = "gt", value = 1 }]
'''
    with pytest.raises(KnowledgeError, match="until"):
        _validate("defects.toml", "defect", "KnownDefect", data)
    with pytest.raises(KnowledgeError, match="pinned"):
        _validate("defects.toml", "defect", "KnownDefect",
                  data.replace(b'since = "v0.18.0"', b'until = "v0.18.0"').replace(
                      b"vllm-ascend/issues/1", b"vllm-ascend/blob/main/README.md"))


@pytest.mark.parametrize("version,expected", [
    ("v0.20.2rc1", True), ("v0.21.0rc1", True), ("v0.22.1rc1", True),  # affected (notes, then a report)
    ("v0.18.0", False), ("v0.23.0rc1", False),   # before and after
])
def test_release_range(version, expected):
    hits = _defects(lint(Q36_MTP, hardware="a3", version=version), "qwen36-35b-a3b-mtp-varlen-shutdown")
    assert bool(hits) is expected
    if expected:
        assert hits[0].level == "warning" and hits[0].span.line == 1
        assert "9956" in " ".join(hits[0].citations)
        assert "numAcceptedTokens" in hits[0].message and "numAcceptedTokens" in hits[0].message_zh


def test_other_model_and_no_speculation_are_not_reported():
    other = Q36_MTP.replace("Qwen3.6-35B-A3B", "Qwen3.6-27B")
    assert not _defects(lint(other, hardware="a3", version="v0.21.0rc1"), "qwen36-35b-a3b-mtp-varlen-shutdown")
    plain = "vllm serve Qwen/Qwen3.6-35B-A3B --tensor-parallel-size 4\n"
    assert not _defects(lint(plain, hardware="a3", version="v0.21.0rc1"), "qwen36-35b-a3b-mtp-varlen-shutdown")


def test_error_entry_with_value_fix_at_affected_and_fixed_release():
    script = ("vllm serve Qwen/Qwen3-32B --tensor-parallel-size 4 --distributed-executor-backend ray "
              "--enable-expert-parallel\n")
    hits = _defects(lint(script, hardware="a2", version="v0.11.0rc2"), "ray-with-expert-parallel")
    assert hits and hits[0].level == "error" and hits[0].rule.id == "QL560"
    fixed, _ = apply_edits(script, hits[0].fix.edits)
    assert "--distributed-executor-backend mp" in fixed
    assert not _defects(lint(fixed, hardware="a2", version="v0.11.0rc2"), "ray-with-expert-parallel")
    assert not _defects(lint(script, hardware="a2", version="v0.12.0rc1"), "ray-with-expert-parallel")


def test_env_condition_and_drop_fix():
    script = ("export VLLM_ASCEND_ENABLE_FUSED_MC2=1\n"
              "vllm serve Qwen/Qwen3-30B-A3B --tensor-parallel-size 2 --data-parallel-size 4 --enable-expert-parallel "
              "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\"}'\n")
    hits = _defects(lint(script, hardware="a3", version="v0.18.0"), "fused-mc2-multi-dp-prefill")
    assert hits and hits[0].span.line == 1
    fixed, _ = apply_edits(script, hits[0].fix.edits)
    assert fixed.splitlines()[0] == "export VLLM_ASCEND_ENABLE_FUSED_MC2=0"
    assert not _defects(lint(fixed, hardware="a3", version="v0.18.0"), "fused-mc2-multi-dp-prefill")
    decode = script.replace("kv_producer", "kv_consumer")
    assert not _defects(lint(decode, hardware="a3", version="v0.18.0"), "fused-mc2-multi-dp-prefill")
    off = script.replace("FUSED_MC2=1", "FUSED_MC2=0")
    assert not _defects(lint(off, hardware="a3", version="v0.18.0"), "fused-mc2-multi-dp-prefill")


def test_a_value_the_script_does_not_fix_leaves_the_entry_unreported():
    script = ("vllm serve /models/GLM-5.1-w8a8 --tensor-parallel-size $1 --data-parallel-size 2 "
              "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'\n")
    assert not _defects(lint(script, hardware="a3", version="v0.18.0"), "glm5-pd-decode-tp16-dp2-accuracy")
    fixed_tp = script.replace("$1", "16")
    assert _defects(lint(fixed_tp, hardware="a3", version="v0.18.0"), "glm5-pd-decode-tp16-dp2-accuracy")


def test_hardware_specific_entry_needs_that_hardware():
    script = "vllm serve Qwen/Qwen3-32B --compilation-config '{\"full_cuda_graph\": true}'\n"
    assert _defects(lint(script, hardware="a2", version="v0.9.1rc3"), "full-cuda-graph-a2")
    assert not _defects(lint(script, hardware="a3", version="v0.9.1rc3"), "full-cuda-graph-a2")


def test_explain_log_names_the_entry_and_the_script_finding():
    log = ("INFO 07-01 starting\n"
           "(EngineCore_DP0 pid=7) ERROR 07-01 [core.py:1] RuntimeError: numAcceptedTokens[0]=4 exceeds varlen "
           "segment length=3\n")
    matches = explain_log(log)
    ids = [m.id for m in matches]
    assert "defect-qwen36-35b-a3b-mtp-varlen-shutdown" in ids
    match = next(m for m in matches if m.id == "defect-qwen36-35b-a3b-mtp-varlen-shutdown")
    assert match.rules == ["QL561"] and match.line == 2
    from qlint.linter.lint import lint_text
    from qlint.rules.graph import Settings

    result = lint_text("run.sh", Q36_MTP, settings=Settings(hardware="a3", version="v0.21.0rc1"))
    text = render_explanations([match], "zh", result)
    assert "已知缺陷" in text and "run.sh:1:" in text
    assert not any(m.id.startswith("defect-qwen36") for m in explain_log("ERROR something else\n"))


def test_docs_page_lists_every_entry_in_both_languages(kb):
    from qlint.docgen.pages import render_known_defects

    for lang in ("en", "zh_CN"):
        page = render_known_defects(kb, lang, "myst")
        for entry in kb.defects:
            assert f"(defect-{entry.id})=" in page
        assert "rules/QL560.md" in page and "rules/QL562.md" in page
