"""qdoc building blocks: the Markdown block extractor and linter, the writer, the prose check."""

from qlint.docgen.markdown_blocks import code_blocks, lint_markdown, shell_blocks
from qlint.docgen.prose import english_passages, is_english
from qlint.docgen.writer import Page, escape

GUIDE = """# A guide

Some text.

```bash
vllm serve Qwen/Qwen3.6-27B --served-model-name qwen3.6
```

```python
print("not shell")
```

- a list item with a nested block:

  ```sh
  curl http://<server_ip>:8000/v1/models
  ```

```
no language
```
"""


def test_shell_blocks_are_found_with_their_lines():
    blocks = shell_blocks(GUIDE)
    assert [b.language for b in blocks] == ["bash", "sh"]
    lines = GUIDE.splitlines()
    first, nested = blocks
    assert lines[first.line - 1].startswith("vllm serve")
    assert lines[nested.line - 1].strip().startswith("curl")
    assert nested.indent == 2
    assert [b.language for b in code_blocks(GUIDE)] == ["bash", "python", "sh", ""]


def test_findings_point_into_the_markdown_file():
    result = lint_markdown("guide.md", GUIDE)
    placeholder = [f for f in result.findings if f.rule.id == "QL107"]
    assert placeholder, [f.rule.id for f in result.findings]
    finding = placeholder[0]
    line = GUIDE.splitlines()[finding.span.line - 1]
    assert finding.path == "guide.md"
    assert line.strip().startswith("curl http://<server_ip>")
    # the column is counted in the .md file, including the list indentation
    assert line[finding.span.column - 1] == "<"


def test_client_block_is_checked_against_the_launch_script():
    from qlint.linter.lint import at_or_above
    from qlint.docgen.markdown_blocks import lint_block

    server = shell_blocks(GUIDE)[0]
    text = "```bash\ncurl http://127.0.0.1:8000/v1/completions -d '{\"model\": \"qwen3.5\", \"prompt\": \"hi\"}'\n```\n"
    client = shell_blocks(text)[0]
    alone = lint_block("c.md", client)
    assert not at_or_above(alone.findings, "warning")
    together = lint_block("c.md", client, prefix=server.text)
    assert [f.rule.id for f in together.findings] == ["QL801"]
    assert together.findings[0].span.line == client.line


def test_writer_flavours_spell_anchors_and_links():
    myst = Page("guides/x", "myst")
    plain = Page("guides/x", "markdown")
    assert myst.link("FAQ", "faq", "oom") == "{ref}`FAQ <oom>`"
    assert plain.link("FAQ", "faq", "oom") == "[FAQ](../faq.md#oom)"
    assert myst.link("Rule", "rules/QL201") == "[Rule](../rules/QL201.md)"
    myst.heading(2, "Title", anchor="oom")
    plain.heading(2, "Title", anchor="oom")
    assert "(oom)=" in myst.render()
    assert '<a id="oom"></a>' in plain.render()
    assert escape("http://<ip>:8000 | a*b") == r"http://\<ip\>:8000 \| a\*b"


def test_prose_check_tells_english_from_chinese():
    assert is_english("This paragraph is written in English.")
    assert not is_english("本段是中文，只引用了 `--max-model-len` 和 Atlas 800 A3 这样的标识符。")
    assert not is_english("报错“The model does not exist.”时检查服务名。")
    page = "# 标题\n\nThis sentence was not translated.\n\n```bash\necho code is fine\n```\n"
    assert english_passages(page) == ["This sentence was not translated."]
    myst = "```{admonition} Sources disagree\n:class: warning\n\n中文正文。\n```\n"
    assert english_passages(myst) == ["Sources disagree"]
