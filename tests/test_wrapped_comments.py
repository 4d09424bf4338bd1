"""Comments inside a quoted heredoc fed to a shell are the inner script's comments: an image tag or a
`# qlint:` directive written there sets the release and hardware as it does at the top level."""

from __future__ import annotations

from qlint.linter.lint import lint_bytes

BARE = (
    "# Image: quay.io/ascend/vllm-ascend:v0.23.0rc1\n"
    "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16\n"
)


def _rules(text: str) -> list[str]:
    return sorted(f.rule.id for f in lint_bytes("run.sh", text.encode()).findings)


def test_image_comment_inside_a_heredoc_counts():
    wrapped = "#!/bin/bash\ndocker exec -i vllm-ascend bash <<'EOF'\n" + BARE + "EOF\n"
    bare = _rules(BARE)
    assert "QL507" in bare  # float16 is a 310P setting; the image names A2
    assert _rules(wrapped) == bare


def test_directive_inside_a_heredoc_counts():
    body = "# qlint: hardware=a2 vllm-ascend=v0.23.0\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 16\n"
    wrapped = "docker exec -i vllm-ascend bash <<'EOF'\n" + body + "EOF\n"
    assert "QL203" in _rules(body) and "QL203" in _rules(wrapped)
