"""Release behaviour as data (knowledge/data/behaviours.toml): rules ask behaviours by name,
each behaviour-gated rule flips at its boundary, rule code holds no release literal, and
adding a release lists the behaviours to review."""

import ast
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from qlint.knowledge.base import MAIN, KnowledgeError, Record
from qlint.knowledge.review_release import main as review_main
from qlint.knowledge.review_release import render, to_review
from qlint.linter.catalog import all_rules
from qlint.record import replace
from qlint.rules import kit

from conftest import rule_findings

RULES = Path(__file__).resolve().parents[1] / "rules"
RELEASE = re.compile(r"(?<![\w.@/])v0\.\d+\.\d+(?:rc\d+)?")


# -- rule code asks behaviours by name ----------------------------------------------------------

def _asked(path: Path) -> set[str]:
    """Behaviour names a module asks: ``kit.holds(scope, "x")``, ``kb.holds("x", tag)``,
    ``first_release(kb, "x")`` / ``last_release(kb, "x")``."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", None))
        args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if name in ("holds", "first_release", "last_release", "describe_range") and args:
            names.add(args[0])
    return names


def _literals(path: Path) -> list[tuple[int, str]]:
    """Release literals in rule code: string constants outside examples, messages, metadata prose,
    citations and docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = getattr(node.func, "id", getattr(node.func, "attr", None))
            parts = [node] if called in ("Example", "Text") else \
                [k.value for k in node.keywords if k.arg in ("sources", "title", "why", "examples")]
            for part in parts:
                skip.update(id(sub) for sub in ast.walk(part))
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body \
                and isinstance(node.body[0], ast.Expr):
            skip.add(id(node.body[0].value))
    return [(node.lineno, hit) for node in ast.walk(tree)
            if id(node) not in skip and isinstance(node, ast.Constant) and isinstance(node.value, str)
            and not node.value.lstrip().startswith("https://") for hit in RELEASE.findall(node.value)]


def test_rule_code_holds_no_release_literal():
    found = {path.name: _literals(path) for path in sorted(RULES.rglob("*.py"))}
    assert not {name: hits for name, hits in found.items() if hits}


def test_every_asked_behaviour_exists_and_is_declared_by_a_rule(kb):
    declared = {name for meta in all_rules() for name in meta.behaviours}
    asked = {name for path in RULES.rglob("*.py") for name in _asked(path)}
    assert asked, "no rule asks a behaviour"
    assert asked - set(kb.behaviour_index) == set()
    assert asked - declared == set(), "a rule asks a behaviour its metadata does not list"
    assert declared - set(kb.behaviour_index) == set()
    redundant = next(meta for meta in all_rules() if meta.id == "QL513")
    assert {entry.behaviour for entry in kb.redundant} <= set(redundant.behaviours)


def test_unknown_behaviour_names_fail_loudly(kb):
    with pytest.raises(KeyError, match="no behaviour 'no_such_thing'"):
        kb.holds("no_such_thing", "v0.23.0")


def test_behaviour_sources_must_be_pinned_urls():
    from qlint.knowledge.models import Behaviour

    good = {"name": "x", "owner": "vllm", "what": {"en": "a", "zh": "甲"}, "vllm_since": "0.21.0",
            "verified": "v0.25.1rc1", "sources": ["https://github.com/vllm-project/vllm/blob/v0.21.0/vllm/a.py#L1"]}
    Behaviour.model_validate(good)
    for bad in ("https://github.com/vllm-project/vllm/blob/main/vllm/a.py#L1", "vllm@v0.21.0:vllm/a.py L1"):
        with pytest.raises(ValidationError):
            Behaviour.model_validate({**good, "sources": [bad]})
    with pytest.raises(ValidationError):  # a disagreement must say which source the rule follows
        Behaviour.model_validate({**good, "disagreement": {"en": "docs say x", "zh": "文档称 x"}})


def test_bounds_must_be_known_releases(kb):
    from qlint.knowledge.base import _check_links

    broken = replace(kb, behaviours=[Record(**{**vars(kb.behaviours[0]), "since": "v0.26.0"})])
    with pytest.raises(KnowledgeError, match="v0.26.0"):
        _check_links(broken)


# -- semantics ---------------------------------------------------------------------------------

def test_vllm_behaviours_follow_the_paired_vllm(kb):
    # QL208's check arrived in vLLM 0.21.0: v0.20.2rc1 ships 0.20.2, v0.21.0rc1 ships 0.21.0
    assert not kb.holds("vllm_external_dp_rejects_dense", "v0.20.2rc1")
    assert kb.holds("vllm_external_dp_rejects_dense", "v0.21.0rc1")
    assert kb.holds("vllm_external_dp_rejects_dense", MAIN)  # main ships vLLM 0.27.1
    # closed on the vLLM side: hybrid prefix caching is off from 0.12.0 until 0.27.1 (main)
    assert not kb.holds("vllm_hybrid_prefix_caching_default_off", "v0.11.0")
    assert kb.holds("vllm_hybrid_prefix_caching_default_off", "v0.12.0rc1")
    assert kb.holds("vllm_hybrid_prefix_caching_default_off", "v0.25.1rc1")
    assert not kb.holds("vllm_hybrid_prefix_caching_default_off", MAIN)


def test_ranges_reverts_and_main_overrides(kb):
    assert [kb.holds("pcp_rejects_dp", t) for t in ("v0.21.0rc1", "v0.22.1rc1", "v0.24.0rc1", "v0.25.1rc1")] \
        == [False, True, True, False]
    assert [kb.holds("quantization_auto_detect", t) for t in ("v0.14.0rc1", "v0.15.0rc1", "v0.16.0rc1", "v0.17.0rc1")] \
        == [False, True, False, True]
    assert [kb.holds("reduce_sample_checks", t) for t in ("v0.23.0rc1", "v0.23.0", "v0.24.0rc1", MAIN)] \
        == [False, True, False, True]
    assert kb.holds("dyntra_lb_checks", MAIN) and not kb.holds("dyntra_lb_checks", "v0.25.1rc1")
    assert kit.first_release(kb, "dyntra_lb_checks") == MAIN
    assert kit.describe_range(kb, "quantization_auto_detect") == "v0.15.0rc1, v0.17.0rc1 and later"
    assert kit.describe_range(kb, "pcp_rejects_dp", "zh") == "v0.22.1rc1 至 v0.24.0rc1"
    assert kit.describe_range(kb, "vllm_hybrid_prefix_caching_default_off") == "v0.12.0rc1 to v0.25.1rc1"


def test_the_310p_disagreement_is_recorded_and_the_code_followed(kb):
    record = kb.behaviour("gdn_attention_on_310p")
    assert record.follows == "code" and "v0.23.0rc1" in record.disagreement.en and record.disagreement.zh
    model = kb.model("Qwen3.6-27B")
    assert model.first_vllm_ascend_310p == "v0.23.0rc1"  # what the tutorials say
    assert kit.model_first_release(kb, model, "310p") == "v0.19.1rc1"  # what the code does
    assert kit.model_first_release(kb, model, "a2") == model.first_vllm_ascend


# -- each behaviour-gated rule flips at its boundary ----------------------------------------------

def _gated():
    return [pytest.param(meta, id=meta.id) for meta in all_rules() if meta.applies is not None]


def _boundaries(kb, name: str) -> list[tuple[str, str]]:
    """(release before, release after) for every boundary of behaviour ``name``, main included."""
    tags = [r.tag for r in kb.tagged_releases] + [MAIN]
    return [(a, b) for a, b in zip(tags, tags[1:]) if kb.holds(name, a) != kb.holds(name, b)]


@pytest.mark.parametrize("meta", _gated())
def test_gated_rule_fires_only_where_its_behaviour_holds(kb, meta):
    """At each boundary of the rule's ``applies`` behaviour one of its examples flips with it:
    a finding on the side where the behaviour holds, none on the other."""
    boundaries = _boundaries(kb, meta.applies)
    assert boundaries, f"{meta.applies} never changes across the known releases: the rule applies everywhere"
    for before, after in boundaries:
        flips = []
        for example in meta.examples:
            sides = [bool(rule_findings(meta, example.bad, example.hardware, tag, example.peers)) for tag in (before, after)]
            flips.append(sides == [kb.holds(meta.applies, before), kb.holds(meta.applies, after)])
        assert any(flips), f"{meta.id}: no example flips between {before} and {after} ({meta.applies})"


# -- adding a release lists the behaviours to review ------------------------------------------------

def _with_release(kb, tag: str):
    newest = kb.tagged_releases[-1]
    fake = Record(**{**vars(newest), "tag": tag, "date": "2026-09-30", "commit": None})
    return replace(kb, releases=[*kb.releases, fake])


def test_a_new_release_lists_the_open_behaviours(kb):
    assert to_review(kb) == []  # everything verified at the newest release
    newer = _with_release(kb, "v0.26.0rc1")
    listed = {review.name for review in to_review(newer)}
    assert "vllm_external_dp_rejects_dense" in listed and "gdn_attention_on_310p" in listed
    assert "pcp_rejects_dp" not in listed  # closed at v0.25.1rc1: nothing to review
    assert "layerwise_connector_asserts_sizes" not in listed
    assert "reduce_sample_checks" in listed  # open on main
    assert all("releases now reach v0.26.0rc1" in review.reason for review in to_review(newer))
    text = render(to_review(newer), newer)
    assert "vllm_external_dp_rejects_dense: External data parallel" in text and "read: https://" in text


def test_moving_the_main_pin_lists_them_too(kb):
    main = kb.release(MAIN)
    moved = replace(kb, releases=[r for r in kb.releases if r.tag != MAIN]
                                + [Record(**{**vars(main), "commit": "0" * 40})])
    reviews = to_review(moved)
    assert reviews and all("main is now 000000000000" in review.reason for review in reviews)


def test_review_release_command(capsys):
    assert review_main([]) == 0
    assert "no behaviour to review" in capsys.readouterr().out
    assert review_main(["v0.26.0"]) == 1
    out = capsys.readouterr().out
    assert "behaviour(s) with an open range to review" in out and "gdn_attention_on_310p" in out
    assert review_main(["not-a-tag"]) == 2


# -- rules that ask several behaviours: one case per boundary ---------------------------------------

QWEN35 = "vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --dtype float16\n"
PD_D = "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'"
BOUNDARY_CASES = [
    # rule, script, hardware, behaviour, a release where it fires, the neighbour where it does not
    # [, a text its findings carry at the first release and not at the second, when both releases report]
    ("QL310", "vllm serve Qwen/Qwen3-32B\n", "a2", "vllm_gpu_memory_utilization_092", "v0.20.2rc1", "v0.19.1rc1",
     "58.9 GB usable"),
    ("QL502", "vllm serve /models/Qwen3-32B --dtype float16 --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
     "310p", "graph_mode_on_310p", "v0.18.0rc1", "v0.18.0"),
    ("QL508", "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n", "a2", "quantization_auto_detect",
     "v0.16.0rc1", "v0.17.0rc1", "the flag is required"),
    ("QL511", QWEN35, "310p", "gdn_attention_on_310p", "v0.18.0", "v0.19.1rc1"),
    ("QL513", "vllm serve /models/Qwen3-32B --async-scheduling\n", "a2", "vllm_async_scheduling_default_on",
     "v0.14.0rc1", "v0.13.0"),
    ("QL513", "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --no-enable-prefix-caching\n", "a2",
     "vllm_hybrid_prefix_caching_default_off", "v0.25.1rc1", "main"),
    ("QL513", "vllm serve /models/Qwen3-32B --additional-config '{\"enable_cpu_binding\": true}'\n", "a2",
     "cpu_binding_default_on", "v0.15.0rc1", "v0.14.0rc1"),
    ("QL534", "vllm serve /models/Qwen3-32B --speculative-config '{\"method\": \"ngram\", \"num_speculative_tokens\": 1, "
     "\"prompt_lookup_max\": 4, \"quantization\": \"ascend\"}'\n", "a2", "spec_quantization_reset", "v0.13.0rc2", "v0.13.0rc1"),
    ("QL541", "vllm serve /models/Qwen3-32B --headless --api-server-count 1 --data-parallel-size 2\n", "a2",
     "vllm_headless_rejects_api_server_count", "v0.16.0rc1", "v0.15.0rc1"),
    ("QL542", "vllm serve /models/Qwen3-32B --data-parallel-size 2 --data-parallel-size-local 4\n", "a2",
     "vllm_dp_local_at_most_dp", "v0.10.1rc1", "v0.10.0rc1"),
    ("QL543", "vllm serve /models/Qwen3-32B --data-parallel-size 4 --data-parallel-rank 0 "
     "--data-parallel-multi-port-external-lb\n", "a2", "vllm_lb_modes_exclusive", "v0.22.1rc1", "v0.21.0rc1"),
    ("QL547", "vllm serve /models/Qwen3-32B --prefill-context-parallel-size 2 --data-parallel-size 2\n", "a2",
     "pcp_rejects_dp", "v0.22.1rc1", "v0.21.0rc1"),
    ("QL551", "vllm serve Qwen/Qwen3-30B-A3B --dtype float16 --tensor-parallel-size 2\n", "310p", "moe_on_310p",
     "v0.14.0rc1", "v0.15.0rc1"),
    ("QL552", "vllm serve /models/Qwen3-32B --additional-config '{\"enable_flashcomm1\": true}'\n", "a2",
     "flashcomm1_key_read", "v0.19.1rc1", "v0.20.2rc1"),
    ("QL601", "vllm serve /models/Qwen3-32B --tensor-parallel-size 4 --kv-transfer-config '{\"kv_connector\": "
     "\"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", \"kv_connector_extra_config\": {\"prefill\": {\"dp_size\": 1, "
     "\"tp_size\": 4}, \"decode\": {\"dp_size\": 1, \"tp_size\": 2}}}'\n", "a2", "kv_extra_config_size_check",
     "v0.13.0rc1", "v0.12.0rc1", "startup fails with"),
    ("QL603", "vllm serve /models/Qwen3-32B --additional-config '{\"recompute_scheduler_enable\": true}'\n", "a2",
     "recompute_scheduler_rejects_mixed", "v0.18.0", "v0.18.0rc1"),
]


@pytest.mark.parametrize("case", BOUNDARY_CASES, ids=[f"{c[0]}-{c[3]}" for c in BOUNDARY_CASES])
def test_rule_flips_at_each_behaviour_boundary(kb, case):
    from qlint.linter.catalog import find_rule

    rule, script, hardware, behaviour, fires, quiet, *marker = case
    meta = find_rule(rule)
    assert behaviour in meta.behaviours
    tags = [r.tag for r in kb.tagged_releases] + [MAIN]
    assert abs(tags.index(fires) - tags.index(quiet)) == 1, "the two releases must be neighbours"
    assert kb.holds(behaviour, fires) != kb.holds(behaviour, quiet)
    at, other = (" | ".join(f.message for f in rule_findings(meta, script, hardware, tag)) for tag in (fires, quiet))
    if marker:
        assert marker[0] in at and marker[0] not in other, (at, other)
    else:
        assert at and not other, f"{rule} at {fires}: {at!r}; at {quiet}: {other!r}"
