"""--compilation-config rules (QL537-QL540) beyond tests/fixtures/rules: advice-only fixes, a tutorial block."""

from conftest import FIXTURES, fixed, hits

Q27 = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8"


def test_ql539_piecewise_sizes_all_dropped_is_advice_only():
    piecewise = (f"{Q27} --max-num-batched-tokens 64 --compilation-config "
                 "'{\"cudagraph_mode\": \"PIECEWISE\", \"cudagraph_capture_sizes\": [128, 256]}'\n")
    found = hits(piecewise, "QL539", version="v0.23.0")
    assert "keeps none, so no graph is captured" in found[0].message and not found[0].fix.edits
    assert fixed(piecewise, found) == piecewise


def test_ql540_tutorial_glm_block_is_a_warning():
    text = (FIXTURES / "tutorials" / "v0.23.0" / "GLM4.x_1.sh").read_text()
    found = hits(text, "QL540")
    assert [f.level for f in found] == ["warning"] and "drops capture sizes [1, 2, 4]" in found[0].message
