"""The site gets people started: a Get started page in both languages, FAQ answers written out,
commands shown on several lines so nothing is cut off."""

from __future__ import annotations

import re

import pytest

from qlint.docgen.commands import WIDTH, multiline
from qlint.docgen.prose import english_passages
from qlint.docgen.site import render_tree
from qlint.linter.catalog import all_rules

from conftest import lint


@pytest.fixture(scope="module")
def trees(kb):
    return {lang: render_tree(kb, lang).files for lang in ("en", "zh_CN")}


def _fences(markdown: str) -> list[str]:
    return re.findall(r"```[a-z]*\n(.*?)\n```", markdown, flags=re.S)


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_get_started_covers_install_to_ci(trees, lang):
    page = trees[lang]["get-started.md"]
    for needed in ("pip install qlint-ascend", "--diff", "--fix", "--unsafe-fixes", "pre-commit-config.yaml",
                   "id: qlint", "--with-deployment", "upload-sarif", "--format sarif", "[tool.qlint]",
                   "config --show", "QL206"):
        assert needed in page, needed
    assert "get-started" in trees[lang]["index.md"]
    if lang == "zh_CN":
        assert english_passages(page) == []


def test_get_started_shows_what_qlint_prints(trees):
    page = trees["en"]["get-started.md"]
    assert "error QL206 [tp-divides-heads]" in page and "  advice: " in page
    assert "检查了 1 个文件" in trees["zh_CN"]["get-started.md"]


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_every_faq_entry_has_an_answer(trees, kb, lang):
    page = trees[lang]["faq.md"]
    for entry in kb.faqs:
        answer = entry.answer.en if lang == "en" else entry.answer.zh
        assert answer.split(":")[0][:40] in page.replace("\\", ""), entry.id
    if lang == "zh_CN":
        assert english_passages(page) == []


def test_rule_page_commands_fit_the_column(trees):
    too_wide = []
    for path, text in trees["en"].items():
        if path.startswith("rules/QL"):
            for block in _fences(text):
                too_wide += [(path, line) for line in block.splitlines()
                             if len(line) > WIDTH and line.lstrip().startswith("vllm serve")]
    assert not too_wide, too_wide[:3]


@pytest.mark.parametrize("meta", [m for m in all_rules() if m.examples][:40], ids=lambda m: m.id)
def test_shown_commands_lint_as_the_examples(meta):
    example = meta.examples[0]
    shown = multiline(example.bad)
    assert [w for w in shown.split() if w != "\\"] == [w for w in example.bad.split() if w != "\\"]  # only breaks added
    ids = lambda text: sorted(f.rule.id for f in lint(text, example.hardware or "a3", example.version or "v0.23.0"))
    assert ids(shown) == ids(example.bad)


def test_guide_sources_one_per_line(trees):
    guide = next(text for path, text in trees["en"].items() if path.startswith("guides/qwen"))
    assert "# Sources:\n#   https://" in guide
    assert not [line for line in guide.splitlines() if line.startswith("# Sources: https")]
