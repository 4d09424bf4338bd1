"""Release rules QL550-QL552: behaviour beyond the rule examples."""

import tomllib

import pytest


from conftest import FIXTURES, lint, hits, fixed

MODEL = "vllm serve Qwen/Qwen3.6-27B"


# -- QL550 serve-flag-not-in-release ----------------------------------------------

@pytest.mark.parametrize("flag,first,before", [
    ("--mamba-backend triton", "v0.20.2rc1", "v0.19.1rc1"),
    ("--gdn-prefill-backend triton", "v0.18.0rc1", "v0.17.0rc1"),
    ("--spec-tokens 3", "v0.22.1rc1", "v0.21.0rc1"),
    ("--numa-bind", "v0.20.2rc1", "v0.19.1rc1"),
])
def test_ql550_flag_arrives_with_its_vllm(flag, first, before):
    text = f"{MODEL} {flag}\n"
    found = hits(text, "QL550", version=before)
    assert [f.level for f in found] == ["error"]
    name = flag.split()[0]
    assert f"{name} arrived with vLLM {first[1:].split('rc')[0]} (vllm-ascend {first})" in found[0].message
    assert f"vllm-ascend {before}" in found[0].message and "unrecognized arguments" in found[0].message
    assert found[0].fix.safety == "unsafe" and fixed(text, found) == f"{MODEL}\n"
    assert not hits(text, "QL550", version=first)
    assert not hits(text, "QL550", version="main")


def test_ql550_removed_flags_are_version_aware():
    text = f"{MODEL} --disable-frontend-multiprocessing\n"
    assert not hits(text, "QL550", version="v0.18.0")
    found = hits(text, "QL550", version="v0.19.1rc1")
    assert "removed in vLLM 0.19.1 (vllm-ascend v0.19.1rc1)" in found[0].message
    assert "vllm-ascend v0.19.1rc1 (vLLM 0.19.1)" in found[0].message
    # the removed option is known, so QL102 no longer calls it unknown
    assert not hits(text, "QL102", version="v0.23.0")


def test_ql550_underscore_spelling_and_negated_form():
    found = hits(f"{MODEL} --enable_cumem_allocator\n", "QL550", version="v0.21.0rc1")
    assert found and "--enable_cumem_allocator arrived with vLLM 0.22.1" in found[0].message


def test_ql550_states_the_assumed_release():
    found = hits(f"{MODEL} --swap-space 4\n", "QL550")
    assert "(assumed: latest stable)" in found[0].message


def test_ql550_older_flags_are_not_dated():
    assert not hits(f"{MODEL} --max-num-seqs 8 --mamba-cache-mode align\n", "QL550", version="v0.11.0rc1")


def test_ql550_data_is_cited():
    data = tomllib.loads((FIXTURES.parent.parent / "knowledge/data/serve_flags.toml").read_text())
    dated = [f for f in data["flag"] if f.get("added_in") or f.get("removed_in")]
    assert len(dated) >= 40
    for flag in dated:
        assert any(s.startswith("https://github.com/vllm-project/vllm/blob/v") for s in flag["sources"]), flag["name"]


# -- QL551 feature-late-on-310p -------------------------------------------------------

def test_ql551_draft_spec_boundary():
    text = ("vllm serve /models/Qwen3-32B --dtype float16 --speculative-config "
            "'{\"method\": \"eagle3\", \"model\": \"/m/e3\", \"num_speculative_tokens\": 2}'\n")
    found = hits(text, "QL551", hardware="310p", version="v0.20.2rc1")
    assert "arrived in vllm-ascend v0.21.0rc1, the script runs vllm-ascend v0.20.2rc1" in found[0].message
    assert not hits(text, "QL551", hardware="310p", version="v0.21.0rc1")
    assert not hits(text, "QL551", hardware="a3", version="v0.18.0")


def test_ql551_ngram_is_not_reported():
    text = ("vllm serve /models/Qwen3-32B --dtype float16 --speculative-config "
            "'{\"method\": \"ngram\", \"num_speculative_tokens\": 2, \"prompt_lookup_max\": 4}'\n")
    assert not hits(text, "QL551", hardware="310p", version="v0.17.0rc1")


@pytest.mark.parametrize("model", ["Qwen/Qwen3-30B-A3B", "deepseek-ai/DeepSeek-V3.1"])
def test_ql551_moe_boundary(model):
    text = f"vllm serve {model} --dtype float16\n"
    assert hits(text, "QL551", hardware="310p", version="v0.14.0rc1")
    assert not hits(text, "QL551", hardware="310p", version="v0.15.0rc1")
    assert not hits(text, "QL551", hardware="a2", version="v0.14.0rc1")


def test_ql551_leaves_models_that_came_late_to_ql511():
    text = ("vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --dtype float16 "
            "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'\n")
    assert hits(text, "QL511", hardware="310p", version="v0.20.2rc1")
    assert not hits(text, "QL551", hardware="310p", version="v0.20.2rc1")


# -- QL552 flashcomm1-switch-by-version -------------------------------------------------

KEY = ("vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --tensor-parallel-size 2 --enable-expert-parallel "
       "--additional-config '{\"enable_flashcomm1\": %s}'\n")


def test_ql552_key_before_it_was_read():
    found = hits(KEY % "true", "QL552", version="v0.19.1rc1")
    assert [f.level for f in found] == ["warning"]
    assert "read from vllm-ascend v0.20.2rc1 on; vllm-ascend v0.19.1rc1 ignores it, so FlashComm1 stays off" \
        in found[0].message
    assert not hits(KEY % "true", "QL552", version="v0.20.2rc1")


def test_ql552_key_before_v0_20_with_env_says_env_decides():
    text = "export VLLM_ASCEND_ENABLE_FLASHCOMM1=1\n" + KEY % "false"
    found = hits(text, "QL552", version="v0.18.0")
    assert "stays on through VLLM_ASCEND_ENABLE_FLASHCOMM1" in found[0].message


def test_ql552_key_overrides_env_info():
    text = "export VLLM_ASCEND_ENABLE_FLASHCOMM1=1\n" + KEY % "false"
    found = hits(text, "QL552", version="v0.23.0")
    assert [f.level for f in found] == ["info"]
    assert "overrides VLLM_ASCEND_ENABLE_FLASHCOMM1=1 at vllm-ascend v0.23.0: FlashComm1 is off" in found[0].message
    assert not hits("export VLLM_ASCEND_ENABLE_FLASHCOMM1=1\n" + KEY % "true", "QL552", version="v0.23.0")


def test_ql552_env_name_before_rename():
    text = "export VLLM_ASCEND_ENABLE_FLASHCOMM1=1\nvllm serve Qwen/Qwen3-32B --tensor-parallel-size 2\n"
    found = hits(text, "QL552", version="v0.10.2rc1")
    assert "reads VLLM_ASCEND_ENABLE_FLASHCOMM instead" in found[0].message
    assert not hits(text, "QL552", version="v0.11.0rc1")


def test_ql552_silent_on_main_where_ql105_and_ql512_report():
    findings = lint("export VLLM_ASCEND_ENABLE_FLASHCOMM1=1\n" + KEY % "true", version="main")
    ids = {f.rule.id for f in findings}
    assert "QL552" not in ids and {"QL105", "QL512"} <= ids


@pytest.mark.parametrize("seed", ["s000_a3_w8a8_single_node.sh", "s003_a3_w8a8_single_node.sh",
                                  "s001_a2a3_qwen35_27b_w8a8.sh"])
def test_versions_quiet_on_seeds(seed):
    manifest = tomllib.loads((FIXTURES / "seeds" / "manifest.toml").read_text())[seed]
    findings = lint((FIXTURES / "seeds" / seed).read_text(), manifest.get("hardware"), manifest.get("version"))
    assert not [f for f in findings if f.rule.id in ("QL550", "QL551", "QL552")]
