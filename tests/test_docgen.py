"""qdoc: the generated sources (both languages, both flavours), without running Sphinx."""

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from qlint.docgen.build import lint_guides, stale_files, write_tree
from qlint.docgen.cli import default_source, main
from qlint.docgen.guides import guides
from qlint.docgen.markdown_blocks import shell_blocks
from qlint.docgen.prose import english_passages
from qlint.docgen.site import render_site, render_tree
from qlint.linter.catalog import all_rules

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def site(kb):
    return render_site(kb)


@pytest.fixture(scope="module")
def markdown_site(kb):
    return render_site(kb, flavor="markdown")


def test_every_english_page_has_a_chinese_twin(site, markdown_site):
    for trees in (site, markdown_site):
        assert trees["en"].pages == trees["zh_CN"].pages
        assert set(trees["en"].files) == set(trees["zh_CN"].files)


def test_pages_cover_guides_rules_faq_matrix_cli(kb, site):
    pages = set(site["en"].pages)
    for guide in guides(kb):
        assert f"{guide.docname}.md" in pages
    for meta in all_rules():
        assert f"rules/{meta.id}.md" in pages
    assert {"index.md", "faq.md", "support-matrix.md", "cli.md", "disagreements.md", "guides/index.md",
            "rules/index.md"} <= pages


def test_guides_cover_supported_model_hardware_pairs(kb):
    pairs = {(g.model.id, g.hardware.id) for g in guides(kb)}
    assert ("Qwen3.6-27B", "310p") in pairs
    assert ("Qwen3.5-397B-A17B", "a3") in pairs
    assert ("Qwen3.5-397B-A17B", "310p") not in pairs  # no 310P release recorded
    assert all(kb.model(model).in_scope for model, _ in pairs)


@pytest.mark.parametrize("flavor", ["myst", "markdown"])
def test_chinese_pages_have_no_english_prose(site, markdown_site, flavor):
    tree = (site if flavor == "myst" else markdown_site)["zh_CN"]
    leftovers = {path: english_passages(tree.files[path]) for path in tree.pages}
    leftovers = {path: found for path, found in leftovers.items() if found}
    assert leftovers == {}


def test_english_pages_are_english(site):
    tree = site["en"]
    assert all(english_passages(tree.files[path]) for path in tree.pages)


def test_faq_page_has_an_anchor_per_faq_id(kb, site, markdown_site):
    for faq in kb.faqs:
        assert f"({faq.id})=\n" in site["en"].files["faq.md"]
        assert f"({faq.id})=\n" in site["zh_CN"].files["faq.md"]
        assert f'<a id="{faq.id}"></a>' in markdown_site["en"].files["faq.md"]


def test_rule_pages_have_ruffs_shape(site):
    english = site["en"].files["rules/QL801.md"]
    headings = re.findall(r"^## (.+)$", english, re.MULTILINE)
    for wanted in ("What it does", "Why is this bad?", "Fix safety", "References"):
        assert wanted in headings
    assert any(h.startswith("Example") for h in headings) and "Use instead" in english
    chinese = site["zh_CN"].files["rules/QL801.md"]
    assert "## 为什么有问题" in chinese and "推荐写法" in chinese and "## 修复安全性" in chinese


def test_disagreements_are_shown_with_the_choice(kb, site):
    model = kb.model("Qwen3.5-397B-A17B")
    page = site["en"].files["guides/qwen3.5-397b-a17b-a3.md"]
    assert "262144" in page and "Sources disagree" in page
    assert model.disagreement.zh.split("，")[0] in site["zh_CN"].files["guides/qwen3.5-397b-a17b-a3.md"]
    disagreements = site["en"].files["disagreements.md"]
    assert "rules/QL603.md" in disagreements  # a rule whose rationale settles seed 001 vs seed 003


def test_guides_show_refusals_and_served_names(site):
    page = site["en"].files["guides/qwen3.5-397b-a17b-a2.md"]
    assert "Not supported: Qwen3.5-397B-A17B-w8a8-mtp needs 16 NPUs by its tutorial, one Atlas 800 A2 node has 8" in page
    chinese = site["zh_CN"].files["guides/qwen3.5-397b-a17b-a3.md"]
    assert "不支持：" in chinese
    guide = site["en"].files["guides/qwen3.6-27b-a3.md"]
    assert '"model": "qwen3.6"' in guide and "--served-model-name qwen3.6" in guide
    assert "quay.io/ascend/vllm-ascend:v0.23.0-a3" in guide
    assert "<server_ip>" not in guide


def test_every_guide_block_lints_clean(kb, site, markdown_site):
    report = lint_guides([*site.values(), *markdown_site.values()], kb=kb)
    assert report.problems == []
    expected = sum(len(shell_blocks(t.files[p])) for t in [*site.values(), *markdown_site.values()]
                   for p in t.guide_pages)
    assert report.blocks == expected > 100


def test_lint_step_catches_a_bad_block(kb, site):
    from dataclasses import replace

    tree = site["en"]
    path = "guides/qwen3.6-27b-a3.md"
    broken = tree.files[path].replace('"model": "qwen3.6"', '"model": "qwen3.5"', 1)
    broken = broken.replace("--tensor-parallel-size 2 \\", "--tensor-parallel-size 2 \\\n  --bogus-flag 1 \\", 1)
    report = lint_guides([replace(tree, files={**tree.files, path: broken})], kb=kb)
    rules = {p.rule for p in report.problems}
    assert {"QL801", "QL102"} <= rules
    line = broken.splitlines()[[p for p in report.problems if p.rule == "QL102"][0].line - 1]
    assert "--bogus-flag" in line


def test_markdown_flavour_is_plain(markdown_site):
    for tree in markdown_site.values():
        for path in tree.pages:
            text = tree.files[path]
            assert "{ref}" not in text and "```{" not in text and "(" + "faq)=" not in text
            # mkdocs-macros (Jinja) runs over vllm-ascend's pages
            assert "{{" not in text and "{%" not in text and "{#" not in text
        assert "conf.py" not in tree.files


DIGEST = """
import hashlib
from qlint.knowledge.base import load
from qlint.docgen.site import render_site
digest = hashlib.sha256()
for lang, tree in render_site(load()).items():
    for path in sorted(tree.files):
        digest.update(f"{lang}/{path}".encode() + b"\\0" + tree.files[path].encode() + b"\\0")
print(digest.hexdigest())
"""


def test_sources_are_reproducible(kb, site):
    assert render_tree(kb, "zh_CN").files == site["zh_CN"].files
    digest = hashlib.sha256()
    for lang, tree in site.items():
        for path in sorted(tree.files):
            digest.update(f"{lang}/{path}".encode() + b"\0" + tree.files[path].encode() + b"\0")
    outputs = set()
    for seed in ("1", "2"):  # set iteration order changes with the hash seed
        env = {**os.environ, "PYTHONHASHSEED": seed, "QLINT_CACHE_DIR": "off"}
        run = subprocess.run([sys.executable, "-c", DIGEST], env=env, capture_output=True, text=True, check=True)
        outputs.add(run.stdout.strip())
    assert outputs == {digest.hexdigest()}


def test_committed_sources_are_current():
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 0, result.output + "\nrun `qdoc build` (or `qdoc generate`) and commit docs/_generated"
    assert default_source() == ROOT / "docs" / "_generated"


def test_check_reports_stale_sources(kb, tmp_path):
    tree = render_tree(kb, "en")
    write_tree(tree, tmp_path / "en")
    write_tree(render_tree(kb, "zh_CN"), tmp_path / "zh_CN")
    assert stale_files(tree, tmp_path / "en") == []
    (tmp_path / "en" / "faq.md").write_text("edited by hand\n")
    (tmp_path / "en" / "old-page.md").write_text("gone\n")
    assert sorted(stale_files(tree, tmp_path / "en")) == ["faq.md (out of date)", "old-page.md (no longer generated)"]
    result = CliRunner().invoke(main, ["check", "--source", str(tmp_path)])
    assert result.exit_code == 1
    assert "faq.md" in result.output and "qdoc build" in result.output


def test_build_refuses_to_write_when_a_block_fails(monkeypatch, tmp_path):
    from qlint.docgen import build

    original = build.lint_guides

    def failing(trees, kb=None, level="warning"):
        report = original(trees, kb=kb, level=level)
        report.problems.append(build.Problem("en/guides/x.md", 3, 1, "error", "QL102", "unknown flag"))
        return report

    monkeypatch.setattr(build, "lint_guides", failing)
    result = CliRunner().invoke(main, ["build", "--format", "markdown", "--lang", "en", "--out", str(tmp_path)])
    assert result.exit_code == 1
    assert "en/guides/x.md:3:1: error QL102 unknown flag" in result.output
    assert not any(tmp_path.iterdir())


def test_markdown_build_writes_both_languages(tmp_path):
    result = CliRunner().invoke(main, ["build", "--format", "markdown", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "shell blocks" in result.output
    assert (tmp_path / "en" / "guides" / "qwen3.6-27b-a3.md").is_file()
    assert (tmp_path / "zh_CN" / "faq.md").is_file()
    assert not (tmp_path / "en" / "conf.py").exists()


def test_build_without_the_docs_extra_names_the_install_line(monkeypatch, tmp_path):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a, **k: None if name == "sphinx" else real_find_spec(name, *a, **k))
    result = CliRunner().invoke(main, ["build", "--out", str(tmp_path / "site")])
    assert result.exit_code == 2
    # the suite runs from a source checkout: the hint installs the checkout's extra, not PyPI's qlint
    assert "pip install -e '" in result.output and "[docs]'" in result.output and "sphinx" in result.output
    assert "qlint-ascend[docs]" not in result.output
    assert not (tmp_path / "site").exists()


def test_install_hint_names_pypi_for_a_wheel_and_the_checkout_for_a_source_tree(tmp_path, monkeypatch):
    from qlint import install_hint

    root = install_hint.source_checkout()
    assert root is not None and (root / "pyproject.toml").is_file() and (root / "qlint").is_dir()
    assert install_hint.extra_install("docs", cwd=root) == "pip install -e '.[docs]'"
    assert install_hint.extra_install("docs", cwd=tmp_path) == f"pip install -e '{root}[docs]'"
    wheel = tmp_path / "site-packages" / "qlint"
    wheel.mkdir(parents=True)
    assert install_hint.source_checkout(str(wheel / "install_hint.py")) is None  # an installed wheel
    (tmp_path / "site-packages" / "pyproject.toml").write_text('[project]\nname = "other"\n')
    assert install_hint.source_checkout(str(wheel / "install_hint.py")) is None
    monkeypatch.setattr(install_hint, "source_checkout", lambda: None)  # as from site-packages
    assert install_hint.extra_install("docs") == "pip install 'qlint-ascend[docs]'"
