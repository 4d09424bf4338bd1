"""Citations users see are public https URLs pinned to a tag or a commit; no internal note reaches users."""

import importlib
import json
import pkgutil
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import qlint.rules as rules_pkg
from qlint.docgen import citations
from qlint.knowledge import base
from qlint.knowledge.text import CITATION, MAIN_COMMIT, at_release, check_sources, citation_url, pin_problem
from qlint.linter.cli import main
from qlint.rules.base import RuleMeta

from conftest import FIXTURES

INTERNAL = re.compile(
    r"vllm_ascend_facts|anchors\.md|\bcase-\d\d\b|\d{3}_[0-9a-f]{16}\.txt|(?:vllm-ascend|vllm)@[\w.\-]+:"
)
"""The project's notes, the handed cases, the seed files and the old ``repo@ref:path`` locators."""


def all_rule_metas():
    metas = {}
    for info in pkgutil.iter_modules(rules_pkg.__path__):
        module = importlib.import_module(f"qlint.rules.{info.name}")
        metas.update({v.id: v for v in vars(module).values() if isinstance(v, RuleMeta)})
    from qlint.linter import suppressions

    metas.update({v.id: v for v in vars(suppressions).values() if isinstance(v, RuleMeta)})
    return metas


def record_citations(kb):
    """(where, citation) for every ``sources`` entry of every knowledge record, nested ones included."""
    def walk(where, value):
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield from walk(f"{where}[{i}]", item)
        elif hasattr(value, "__dict__"):
            for key, item in vars(value).items():
                if key == "sources":
                    yield from ((f"{where}.sources", c) for c in item)
                else:
                    yield from walk(f"{where}.{key}", item)

    for field_name, *_ in base.DATA_FILES:
        yield from walk(field_name, getattr(base.load(), field_name))


def assert_pinned(where, citation):
    assert isinstance(citation, str) and CITATION.match(citation), f"{where}: {citation!r}"
    url = citation_url(citation)
    assert url.startswith("https://"), f"{where}: {citation!r}"
    assert pin_problem(url) is None, f"{where}: {citation!r}: {pin_problem(url)}"
    assert not INTERNAL.search(citation), f"{where}: {citation!r}"


def test_every_rule_cites_pinned_public_urls():
    metas = all_rule_metas()
    assert len(metas) >= 89
    for rule_id, meta in metas.items():
        assert meta.sources, rule_id
        for citation in meta.sources:
            assert_pinned(rule_id, citation)
        # a rule rests on a source file, an issue or a report, not on tutorials alone where code decides
        assert any(("/blob/" in s or "/issues/" in s or "/pull/" in s or "/commit/" in s
                    or s.startswith("https://pubs.opengroup.org/")) for s in meta.sources), rule_id


def test_every_fact_cites_pinned_public_urls():
    found = list(record_citations(base.load()))
    assert len(found) > 1000
    for where, citation in found:
        assert_pinned(where, citation)


def test_faq_links_are_pinned():
    kb = base.load()
    assert len(kb.faqs) > 20
    for entry in kb.faqs:
        assert pin_problem(entry.url) is None, (entry.id, entry.url)
    from qlint.knowledge.models import FaqEntry

    with pytest.raises(ValueError, match="not pinned"):
        FaqEntry.model_validate({"id": "x", "title": {"en": "t", "zh": "题"}, "sources": [kb.faqs[0].sources[0]],
                                 "url": "https://docs.vllm.ai/projects/ascend/en/latest/faqs.html#x"})


@pytest.mark.parametrize("citation", [
    "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L1489-L1495",
    f"https://github.com/vllm-project/vllm-ascend/blob/{MAIN_COMMIT}/vllm_ascend/platform.py#L82",
    "https://github.com/vllm-project/vllm-ascend/blob/v0.25.1rc1/docs/source/faqs.md?plain=1#L15-L31 (FAQ 1)",
    "https://github.com/vllm-project/vllm-ascend/tree/v0.23.0/examples",
    "https://github.com/vllm-project/vllm-ascend/issues/7944",
    "https://github.com/vllm-project/vllm-ascend/pull/4365",
    f"https://github.com/vllm-project/vllm-ascend/commit/{MAIN_COMMIT}",
    "https://docs.vllm.ai/projects/ascend/en/v0.23.0/faqs.html",
    "https://docs.vllm.ai/en/v0.23.0/serving/expert_parallel_deployment.html",
])
def test_pinned_citations_are_accepted(citation):
    assert check_sources([citation]) == [citation]


@pytest.mark.parametrize("citation", [
    "https://github.com/vllm-project/vllm-ascend/blob/main/vllm_ascend/platform.py#L82",  # a branch
    "https://github.com/vllm-project/vllm/blob/releases/v0.26.0/vllm/envs.py",
    "https://github.com/vllm-project/vllm-ascend/blob/5cb98caa/vllm_ascend/platform.py",  # short hash
    "https://docs.vllm.ai/projects/ascend/en/latest/faqs.html",  # no version path
    "https://docs.vllm.ai/en/stable/",
    "http://github.com/vllm-project/vllm-ascend/issues/1",
    "vllm-ascend@v0.23.0:vllm_ascend/platform.py L82",
    "vllm-ascend#7944",
    "001_1f87ed2ec95407d6.txt section 9.1",
    "vllm_ascend_facts.md section 4.6",
    "case-14",
    "anchors.md section A.4",
    "https://example.com/notes.md",
    "https://github.com/vllm-project/vllm-ascend/issues/1 note without parentheses",
])
def test_other_citations_are_rejected(citation):
    with pytest.raises(ValueError, match="citation"):
        check_sources([citation])


def test_models_validate_through_the_same_check():
    from qlint.knowledge.models import EnvVar

    good = {"name": "X_Y", "owner": "vllm", "meaning": {"en": "m", "zh": "义"},
            "sources": ["https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/envs.py#L1"]}
    assert EnvVar.model_validate(good).sources == good["sources"]
    with pytest.raises(ValueError, match="not pinned"):
        EnvVar.model_validate({**good, "sources": ["https://github.com/vllm-project/vllm/blob/main/vllm/envs.py"]})


def test_sources_at_the_linted_release_come_first():
    sources = (
        "https://github.com/vllm-project/vllm-ascend/issues/1",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/a.py#L1 (note)",
        "https://github.com/vllm-project/vllm/blob/v0.25.1/b.py#L2",
        f"https://github.com/vllm-project/vllm-ascend/blob/{MAIN_COMMIT}/a.py#L3",
    )
    assert at_release(sources, "v0.23.0", "v0.23.0")[0].endswith("/v0.23.0/a.py#L1")
    assert at_release(sources, "v0.25.1rc1", "v0.25.1")[0].endswith("/v0.25.1/b.py#L2")
    assert at_release(sources, "main", "v0.27.1")[0].endswith(f"/{MAIN_COMMIT}/a.py#L3")
    own = "https://github.com/vllm-project/vllm/blob/v0.25.1/vllm/engine/arg_utils.py#L9"
    assert at_release(sources, "v0.25.1rc1", "v0.25.1", first=(own,))[:2] == [own, sources[2]]
    assert at_release(sources) == [citation_url(s) for s in sources]  # unknown release: order kept, notes off


def test_finding_cites_the_source_at_its_release(tmp_path):
    script = tmp_path / "run.sh"
    # QL208 (external DP on a dense model) cites vLLM's arg_utils at v0.23.0 and a tutorial revision
    script.write_text("#!/bin/bash\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --data-parallel-size 2 "
                      "--data-parallel-rank 0\n")
    for version in ("v0.23.0", "v0.25.1rc1"):
        out = CliRunner().invoke(main, ["--format", "json", "--vllm-ascend-version", version, str(script)]).output
        for finding in json.loads(out):
            assert finding["sources"], finding["rule"]
            for url in finding["sources"]:
                assert pin_problem(url) is None and not INTERNAL.search(url), url
    out = CliRunner().invoke(main, ["--format", "json", "--vllm-ascend-version", "v0.23.0", str(script)]).output
    sources = {f["rule"]: f["sources"] for f in json.loads(out)}
    assert any(u.startswith("https://github.com/vllm-project/vllm/blob/v0.23.0/") for u in sources.get("QL208", []))


def _fixture_inputs():
    return sorted(p for p in FIXTURES.rglob("*.sh"))


def test_no_cli_output_mentions_internal_notes():
    runner = CliRunner()
    scripts = _fixture_inputs()
    assert len(scripts) > 40
    outputs = []
    for lang in ("en", "zh"):
        for fmt in ("text", "json", "sarif", "github"):
            for script in scripts:
                result = runner.invoke(main, ["--format", fmt, "--lang", lang, "--exit-zero", str(script)])
                # the fixture's own path (tests/fixtures/cases/case-01.sh) is not a citation
                outputs.append((f"{fmt}/{lang}/{script.name}", result.output.replace(str(script), "<input>")))
    for rule_id in sorted(all_rule_metas()):
        for lang in ("en", "zh"):
            outputs.append((f"explain {rule_id} {lang}", runner.invoke(main, ["explain", rule_id, "--lang", lang]).output))
    outputs.append(("rules", runner.invoke(main, ["rules"]).output))
    for args in (["--model", "Qwen3.6-27B", "--hardware", "a3"], ["--model", "Qwen3.6-35B-A3B", "--hardware", "a2"],
                 ["--model", "Qwen3.5-27B", "--hardware", "310p"], ["--model", "Qwen3.6-27B", "--hardware", "a3",
                                                                    "--pd", "1P1D", "--format", "json"]):
        outputs.append((f"generate {args}", runner.invoke(main, ["generate", *args]).output))
    for where, text in outputs:
        assert text, where
        hit = INTERNAL.search(text)
        assert hit is None, f"{where}: {hit.group(0)!r} in\n{text[max(0, hit.start() - 200):hit.end() + 100]}"
        for url in re.findall(r"https://github\.com/[^\s\"'<>)\\;]+", text):
            assert pin_problem(url.rstrip(".,;")) is None, f"{where}: {url}"


def test_docs_render_citations_as_links():
    rendered = citations.render(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/cache.py#L67 (default 0.92)", "en")
    assert rendered == ("[`vllm v0.23.0 vllm/config/cache.py L67`]"
                        "(https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/cache.py#L67) (default 0.92)")
    zh = citations.render("https://github.com/vllm-project/vllm-ascend/issues/7944 (wontfix)", "zh_CN")
    assert zh == "[`vllm-ascend#7944`](https://github.com/vllm-project/vllm-ascend/issues/7944)"
    tutorial = citations.label(f"https://github.com/vllm-project/vllm-ascend/blob/{MAIN_COMMIT}/docs/x.md?plain=1#L5-L9")
    assert tutorial == "vllm-ascend 182b75ea84 docs/x.md L5-9"


def test_generated_pages_hold_no_internal_notes():
    from qlint.docgen.site import render_tree

    kb = base.load()
    for lang in ("en", "zh_CN"):
        for name, text in render_tree(kb, lang).files.items():
            hit = INTERNAL.search(text)
            assert hit is None, f"{lang}/{name}: {hit.group(0)!r}"


def test_per_release_data_cites_pinned_public_urls():
    """Every ``source``/``*_source``/``*_sources`` value of the extracted per-release data is a pinned URL."""
    data = Path(base.__file__).parent / "data"
    files = sorted((data / "vllm").glob("*.json")) + sorted((data / "ascend").glob("*.json")) + [data / "release_index.json"]
    files = [f for f in files if f.exists()]
    if not files:
        pytest.skip("no per-release data in this tree")
    count = 0

    def walk(where, value):
        nonlocal count
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "source" or key.endswith(("_source", "_sources", "sources")):
                    for url in ([item] if isinstance(item, str) else item or []):
                        if isinstance(url, str):
                            count += 1
                            assert_pinned(f"{where}.{key}", url)
                else:
                    walk(f"{where}.{key}", item)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(f"{where}[{i}]", item)

    for path in files:
        walk(path.name, json.loads(path.read_text()))
    assert count > 1000
