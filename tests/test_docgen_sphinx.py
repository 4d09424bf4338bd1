"""qdoc with Sphinx: the HTML site builds clean under -W and links the two languages.

``test_english_site`` builds one language (about 6 s). ``test_full_site`` runs
``qdoc build`` for both languages like a user would (about 10 s); it is
marked ``docs_build`` and runs by default (deselect with ``-m "not docs_build"``).
"""

import re
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner

pytestmark = pytest.mark.filterwarnings("ignore:.*is deprecated. Check CHANGES for Sphinx API")

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")
pytest.importorskip("sphinx_click")

from qlint.docgen.build import SphinxError, sphinx_build, write_tree  # noqa: E402
from qlint.docgen.cli import main  # noqa: E402
from qlint.docgen.prose import is_english  # noqa: E402
from qlint.docgen.site import render_tree  # noqa: E402


def _ids(html: str) -> set[str]:
    return set(re.findall(r'\sid="([^"]+)"', html))


@pytest.fixture(scope="module")
def english_site(kb, tmp_path_factory):
    root = tmp_path_factory.mktemp("qdoc-en")
    tree = render_tree(kb, "en")
    write_tree(tree, root / "src")
    sphinx_build(root / "src", root / "html", root / "doctrees")
    return tree, root / "html"


def test_english_site(kb, english_site):
    tree, html = english_site
    for page in tree.pages:
        assert (html / page.replace(".md", ".html")).is_file(), page
    faq = (html / "faq.html").read_text(encoding="utf-8")
    assert {entry.id for entry in kb.faqs} <= _ids(faq)
    guide = (html / "guides" / "qwen3.6-27b-a3.html").read_text(encoding="utf-8")
    assert 'class="qdoc-lang"' in guide and 'href="../../zh_CN/guides/qwen3.6-27b-a3.html"' in guide
    assert "--served-model-name qwen3.6" in re.sub(r"<[^>]+>", "", guide)
    assert 'href="../faq.html#oom"' in guide  # guide -> FAQ anchor
    cli = (html / "cli.html").read_text(encoding="utf-8")
    assert "--vllm-ascend-version" in cli and ".. option::" not in cli  # sphinx-click output parsed as reST
    rule = (html / "rules" / "QL801.html").read_text(encoding="utf-8")
    assert "Why is this bad?" in rule and "Use instead" in rule


def test_sphinx_warnings_fail_the_build(kb, tmp_path):
    tree = render_tree(kb, "en")
    files = {"index.md": "# Title\n\nA [broken link](missing.md).\n", "conf.py": tree.files["conf.py"]}
    for path, text in files.items():
        (tmp_path / "src" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / path).write_text(text, encoding="utf-8")
    with pytest.raises(SphinxError, match="missing"):
        sphinx_build(tmp_path / "src", tmp_path / "html", tmp_path / "doctrees")


def test_unchanged_tree_is_not_built_again(kb, tmp_path):
    """A second build of the same sources is skipped (its output is current); a changed page, or a
    build that failed, builds everything again."""
    tree = render_tree(kb, "en")
    src, html, doctrees = tmp_path / "src", tmp_path / "html", tmp_path / "doctrees"

    def write(index_text):
        files = {path: text for path, text in tree.files.items() if not path.endswith(".md")}
        files["index.md"] = index_text
        for path, text in files.items():
            (src / path).parent.mkdir(parents=True, exist_ok=True)
            (src / path).write_text(text, encoding="utf-8")

    write("# Title\n\nFirst text.\n")
    sphinx_build(src, html, doctrees)
    (html / "index.html").write_text("kept", encoding="utf-8")  # a rebuild would overwrite it
    sphinx_build(src, html, doctrees)
    assert (html / "index.html").read_text(encoding="utf-8") == "kept"
    write("# Title\n\nSecond text.\n")
    sphinx_build(src, html, doctrees)
    assert "Second text." in (html / "index.html").read_text(encoding="utf-8")
    write("# Title\n\nA [broken link](missing.md).\n")
    with pytest.raises(SphinxError, match="missing"):
        sphinx_build(src, html, doctrees)
    with pytest.raises(SphinxError, match="missing"):  # the failure is not forgotten by the next build
        sphinx_build(src, html, doctrees)


class _Text(HTMLParser):
    """Visible prose of a page body: paragraphs, list items, cells, headings (code excluded)."""

    BLOCKS = {"p", "li", "td", "th", "h1", "h2", "h3", "h4", "dd", "dt", "caption", "figcaption"}

    def __init__(self):
        super().__init__()
        self.blocks, self._current, self._skip, self._body = [], [], 0, False

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class") or ""
        if tag == "div" and "body" in classes.split():
            self._body = True
        if tag in ("pre", "code", "script", "style", "kbd") or "highlight" in classes or "sig" in classes:
            self._skip += 1
        if tag in self.BLOCKS:
            self._flush()

    def handle_endtag(self, tag):
        if tag in ("pre", "code", "script", "style", "kbd") and self._skip:
            self._skip -= 1
        if tag in self.BLOCKS:
            self._flush()

    def handle_data(self, data):
        if self._body and not self._skip:
            self._current.append(data)

    def _flush(self):
        text = " ".join("".join(self._current).split())
        if text:
            self.blocks.append(text)
        self._current = []


@pytest.mark.docs_build
def test_full_site(kb, tmp_path):
    out = tmp_path / "html"
    result = CliRunner().invoke(main, ["build", "--out", str(out), "--source", str(tmp_path / "src")])
    assert result.exit_code == 0, result.output
    assert "shell blocks" in result.output and "clean" in result.output
    assert (out / "index.html").is_file()
    english = sorted(p.relative_to(out / "en") for p in (out / "en").rglob("*.html"))
    chinese = sorted(p.relative_to(out / "zh_CN") for p in (out / "zh_CN").rglob("*.html"))
    assert english == chinese
    guide = (out / "zh_CN" / "guides" / "qwen3.6-27b-310p.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN"' in guide
    assert 'href="../../en/guides/qwen3.6-27b-310p.html"' in guide
    # Chinese pages read as Chinese in the browser too, CLI reference included
    leftovers = {}
    for page in sorted((out / "zh_CN").rglob("*.html")):
        if page.name in ("search.html", "genindex.html", "cli.html"):  # cli: test_cli_help_is_translated
            continue
        parser = _Text()
        parser.feed(page.read_text(encoding="utf-8"))
        english_blocks = [b for b in parser.blocks if is_english(b, min_words=3)]
        if english_blocks:
            leftovers[str(page.relative_to(out))] = english_blocks
    assert leftovers == {}
    cli = (out / "zh_CN" / "cli.html").read_text(encoding="utf-8")
    assert "用法" in cli and "选项" in cli


def test_cli_help_is_translated():
    from qlint.docgen.cli_zh import untranslated
    from qlint.docgen.pages import CLI_COMMANDS

    assert untranslated(CLI_COMMANDS) == [], "add the Chinese text to qlint/docgen/cli_zh.py"
