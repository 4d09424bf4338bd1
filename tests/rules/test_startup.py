"""Startup-validation rules QL520-QL548: behaviour beyond the rule examples."""

import tomllib

import pytest


from conftest import FIXTURES, SHARED, lint, hits, fixed

Q27 = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8"
MOE = "vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --enable-expert-parallel"
DECODE = "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\"}'"
PREFILL = "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\"}'"


def ac(body):
    return f"--additional-config '{body}'"


# -- environment ---------------------------------------------------------------------

@pytest.mark.parametrize("flags,expected", [
    ("", True),                                                              # default FULL_AND_PIECEWISE
    ("--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'", True),
    ("--enforce-eager", False),
    ("--compilation-config '{\"cudagraph_mode\": \"NONE\"}'", False),
])
def test_ql520_launch_blocking_follows_graph_mode(flags, expected):
    text = f"export ASCEND_LAUNCH_BLOCKING=1\n{Q27} {flags}\n"
    assert bool(hits(text, "QL520", version="v0.23.0")) is expected


def test_ql520_value_zero_and_old_release():
    assert not hits(f"export ASCEND_LAUNCH_BLOCKING=0\n{Q27}\n", "QL520", version="v0.23.0")
    assert not hits(f"export ASCEND_LAUNCH_BLOCKING=1\n{Q27}\n", "QL520", version="v0.10.2rc1")
    found = hits(f"ASCEND_LAUNCH_BLOCKING=1 {Q27}\n", "QL520", version="main")
    assert "vllm-ascend main stops with ValueError" in found[0].message


def test_ql521_alloc_conf_variants():
    both = hits(f"export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True,garbage_collection_threshold:0.6\n{Q27}\n",
                "QL521")
    assert [f.level for f in both] == ["warning"] and "garbage_collection_threshold" in both[0].message
    only_split = hits(f"export PYTORCH_NPU_ALLOC_CONF=max_split_size_mb:250\n{Q27}\n", "QL521", version="v0.23.0")
    assert [f.level for f in only_split] == ["info"] and "vllm-ascend v0.23.0 does not add" in only_split[0].message
    assert not hits(f"export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True\n{Q27}\n", "QL521")


# -- additional-config -----------------------------------------------------------------

STATIC = ac('{"ascend_compilation_config": {"enable_static_kernel": true}}')


def test_ql522_static_kernel_needs_full_graphs():
    found = hits(f"{Q27} {STATIC}\n", "QL522", version="v0.23.0")  # default FULL_AND_PIECEWISE
    assert [f.level for f in found] == ["warning"] and "FULL_AND_PIECEWISE" in found[0].message
    full = f"{Q27} --compilation-config '{{\"cudagraph_mode\": \"FULL\"}}' {STATIC}\n"
    assert not hits(full, "QL522", version="v0.23.0")


def test_ql522_version_and_310p():
    text = (f"{Q27} --compilation-config '{{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}}' "
            + ac('{"ascend_compilation_config": {"enable_npugraph_ex": false, "enable_static_kernel": true}}') + "\n")
    assert hits(text, "QL522", version="v0.16.0rc1")
    assert not hits(text, "QL522", version="v0.15.0rc1")
    assert hits(text, "QL522", hardware="310p", version="v0.22.1rc1")
    assert not hits(text, "QL522", hardware="310p", version="v0.23.0")


def test_ql523_dump_config_boundary():
    text = f"{Q27} " + ac('{"dump_config": {"task": "tensor"}, "dump_config_path": "/d.json"}') + "\n"
    assert "vllm-ascend v0.20.2rc1 stops" in hits(text, "QL523", version="v0.20.2rc1")[0].message
    assert not hits(text, "QL523", version="v0.19.1rc1")
    assert not hits(f"{Q27} " + ac('{"dump_config_path": "/d.json"}') + "\n", "QL523", version="v0.23.0")


@pytest.mark.parametrize("value,version,level", [
    (2, "v0.23.0", None), (2, "v0.24.0rc1", "error"), (3, "v0.23.0", "warning"), (1, "main", None),
    ("true", "main", None),
])
def test_ql524_fused_mc2_values_by_release(value, version, level):
    found = hits(f"{MOE} " + ac('{"enable_fused_mc2": %s}' % value) + "\n", "QL524", version=version)
    assert [f.level for f in found] == ([level] if level else [])


def test_ql524_env_value_and_key_precedence():
    env = hits(f"export VLLM_ASCEND_ENABLE_FUSED_MC2=2\n{MOE}\n", "QL524", version="main")
    assert "VLLM_ASCEND_ENABLE_FUSED_MC2=2" in env[0].message and "must be 0 or 1" in env[0].message
    # the key is read from v0.20.2rc1 on and wins over the variable
    text = "export VLLM_ASCEND_ENABLE_FUSED_MC2=2\n" + f"{MOE} " + ac('{"enable_fused_mc2": 1}') + "\n"
    assert not hits(text, "QL524", version="v0.25.1rc1")


def test_ql524_hierarchy_comm_on_main():
    text = f"{MOE} " + ac('{"enable_mc2_hierarchy_comm": true}') + "\n"
    assert not hits(text, "QL524", hardware="a3", version="main")
    assert "310P" in hits(text, "QL524", hardware="310p", version="main")[0].message
    assert not hits(text, "QL524", hardware="310p", version="v0.23.0")
    fused = f"{MOE} " + ac('{"enable_mc2_hierarchy_comm": true, "enable_fused_mc2": 1}') + "\n"
    assert "hierarchy communication" in hits(fused, "QL524", version="v0.23.0")[0].message
    # before v0.20.2rc1 only the variable selects fused MC2
    assert not hits(fused, "QL524", version="v0.19.1rc1")


def test_ql525_profiling_chunk_nested_and_balance():
    nested = f"{Q27} " + ac('{"scheduler_config": {"profiling_chunk_config": {"enabled": true}}}') + "\n"
    assert "scheduler_config.profiling_chunk_config.enabled=true" in hits(nested, "QL525", version="main")[0].message
    assert not hits(nested, "QL525", version="v0.23.0")  # nested spelling not read yet (QL105 says so)
    both = ("export VLLM_ASCEND_BALANCE_SCHEDULING=1\n" + f"{Q27} --pipeline-parallel-size 2 "
            + ac('{"profiling_chunk_config": {"enabled": true}}') + "\n")
    found = hits(both, "QL525", version="v0.19.1rc1")
    assert len(found) == 1 and "VLLM_ASCEND_BALANCE_SCHEDULING=1" in found[0].message
    assert not hits(both, "QL525", version="v0.18.0")


@pytest.mark.parametrize("switch,version", [
    ("export VLLM_ASCEND_BALANCE_SCHEDULING=1\n", "v0.18.0"),
    ("", "v0.20.2rc1"),
])
def test_ql526_balance_on_prefill_and_decode(switch, version):
    body = "" if switch else ac('{"enable_balance_scheduling": true}')
    for kv in (PREFILL, DECODE):
        text = f"{switch}{Q27} {body} {kv}\n"
        assert hits(text, "QL526", version=version)
    assert not hits(f"{switch}{Q27} {body}\n", "QL526", version=version)
    both = "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_both\"}'"
    assert not hits(f"{switch}{Q27} {body} {both}\n", "QL526", version=version)


def test_ql526_nested_key_wins_from_v0_25():
    text = f"{Q27} " + ac('{"enable_balance_scheduling": true, "scheduler_config": '
                          '{"enable_balance_scheduling": false}}') + f" {DECODE}\n"
    assert hits(text, "QL526", version="v0.23.0")
    assert not hits(text, "QL526", version="v0.25.1rc1")


def test_ql527_short_request_first_on_decode_and_with_batch_jobs():
    body = ac('{"scheduler_config": {"short_request_first_config": {"enabled": true}, '
              '"batch_job_sched_config": {"enabled": true}}}')
    found = hits(f"{Q27} {body} {DECODE}\n", "QL527", version="v0.25.1rc1")
    assert len(found) == 2
    assert not hits(f"{Q27} {body} {DECODE}\n", "QL527", version="v0.24.0rc1")


def test_ql528_dyntra_only_on_main_and_multi_node():
    body = ac('{"scheduler_config": {"dyntra_lb_config": {"enabled": true}}}')
    good = f"{MOE} --data-parallel-size 4 {body} {DECODE}\n"
    assert not hits(good, "QL528", version="main")
    spread = f"{MOE} --data-parallel-size 4 --data-parallel-size-local 2 {body} {DECODE}\n"
    assert "spread over nodes (2 of 4 ranks here)" in hits(spread, "QL528", version="main")[0].message
    assert not hits(f"{MOE} {body}\n", "QL528", version="v0.25.1rc1")


def test_ql529_reduce_sample_release_window():
    text = f"{Q27} " + ac('{"enable_reduce_sample": true}') + f" {PREFILL}\n"
    assert hits(text, "QL529", version="v0.23.0") and hits(text, "QL529", version="main")
    assert not hits(text, "QL529", version="v0.25.1rc1")
    assert not hits(text, "QL529", version="v0.22.1rc1")
    lmhead = f"{Q27} " + ac('{"enable_reduce_sample": true, "finegrained_tp_config": '
                            '{"lmhead_tensor_parallel_size": 2}}') + "\n"
    assert "lmhead_tensor_parallel_size 2" in hits(lmhead, "QL529", version="main")[0].message


def test_ql530_kv_nz_on_mla_model_needs_decode():
    body = ac('{"enable_kv_nz": true}')
    found = hits(f"vllm serve deepseek-ai/DeepSeek-V3.1 {body} {PREFILL}\n", "QL530", version="v0.23.0")
    assert "kv_role kv_producer" in found[0].message and "NotImplementedError" in found[0].message
    assert not hits(f"vllm serve deepseek-ai/DeepSeek-V3.1 {body} {DECODE}\n", "QL530", version="v0.23.0")
    assert "GQA" in hits(f"{Q27} {body}\n", "QL530", version="v0.23.0")[0].message


# -- kv-transfer-config ------------------------------------------------------------------

def test_ql531_only_hybrid_models_and_from_v0_21():
    kv = ("--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", "
          "\"kv_load_failure_policy\": \"recompute\"}'")
    text = f"{Q27} {kv}\n"
    found = hits(text, "QL531", version="v0.21.0rc1")
    assert found and fixed(text, found) == text.replace('"recompute"', '"fail"')
    assert not hits(text, "QL531", version="v0.20.2rc1")
    assert not hits(f"vllm serve Qwen/Qwen3-32B {kv}\n", "QL531", version="v0.23.0")


def test_ql532_buffer_size_and_permute():
    kv = ("--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_consumer\", "
          "\"kv_buffer_size\": 5e9, \"enable_permute_local_kv\": true}'")
    found = hits(f"{Q27} {kv}\n", "QL532", version="v0.21.0rc1")
    assert [f.level for f in found] == ["info", "info"] and "kv_buffer_size 5e+09" in found[0].message
    assert not hits(f"{Q27} {kv}\n", "QL532", version="v0.20.2rc1")


def test_ql533_module_path_and_case_fix():
    typo = "--kv-transfer-config '{\"kv_connector\": \"mooncakelayerwiseconnector\", \"kv_role\": \"kv_producer\"}'"
    found = hits(f"{Q27} {typo}\n", "QL533", version="v0.23.0")
    assert "did you mean MooncakeLayerwiseConnector?" in found[0].message
    module = ("--kv-transfer-config '{\"kv_connector\": \"MyConnector\", \"kv_role\": \"kv_producer\", "
              "\"kv_connector_module_path\": \"my.pkg.connector\"}'")
    assert not hits(f"{Q27} {module}\n", "QL533", version="v0.23.0")
    assert not hits(f"{Q27} {PREFILL}\n", "QL533", version="v0.23.0")


# -- speculative decoding -----------------------------------------------------------------

def test_ql534_and_ql535_boundaries():
    spec = "--speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 1, \"quantization\": \"ascend\"}'"
    assert hits(f"{Q27} {spec}\n", "QL534", version="v0.21.0rc1")
    assert not hits(f"{Q27} {spec}\n", "QL534", version="v0.20.2rc1")
    alias = hits(f"{Q27} {spec}\n", "QL535", version="v0.22.1rc1")
    assert "vllm-ascend v0.22.1rc1 (vLLM 0.22.1) rewrites it" in alias[0].message
    assert not hits(f"{Q27} {spec}\n", "QL535", version="v0.13.0")


def test_ql534_non_positive_speculative_tokens():
    spec = "--speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 0}'"
    found = hits(f"{Q27} {spec}\n", "QL534", version="v0.23.0")
    assert [f.level for f in found] == ["error"] and "num_speculative_tokens 0" in found[0].message
    assert not hits(f"{Q27} {spec}\n", "QL534", version="v0.13.0")


def test_ql536_eagle_mtp_and_padded_batch():
    mtp = "--async-scheduling --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'"
    assert not hits(f"{Q27} {mtp}\n", "QL536", version="v0.23.0")
    padded = ("--async-scheduling --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1, "
              "\"disable_padded_drafter_batch\": true}'")
    assert "disable_padded_drafter_batch" in hits(f"{Q27} {padded}\n", "QL536", version="v0.23.0")[0].message
    suffix = "--speculative-config '{\"method\": \"suffix\", \"num_speculative_tokens\": 4}'"
    assert not hits(f"{Q27} {suffix}\n", "QL536", version="v0.23.0")  # no explicit --async-scheduling
    assert hits(f"{Q27} --async-scheduling {suffix}\n", "QL536", version="v0.23.0")


# -- graph capture ---------------------------------------------------------------------------

def test_ql537_unsupported_mode_per_release():
    text = f"{Q27} --compilation-config '{{\"mode\": 2}}'\n"
    assert "sets cudagraph_mode to NONE" in hits(text, "QL537", version="v0.23.0")[0].message
    main = hits(text, "QL537", version="main")[0].message
    assert "resets the mode to NONE; PIECEWISE graphs are dropped" in main
    assert not hits(f"{Q27} --compilation-config '{{\"mode\": 3}}'\n", "QL537", version="v0.23.0")
    assert not hits(f"{Q27} --enforce-eager --compilation-config '{{\"mode\": 2}}'\n", "QL537", version="v0.23.0")


def test_ql538_sizes_dropped_before_the_comparison():
    text = (f"{Q27} --max-num-batched-tokens 64 --compilation-config "
            "'{\"cudagraph_capture_sizes\": [16, 32, 64, 128], \"max_cudagraph_capture_size\": 128}'\n")
    found = hits(text, "QL538", version="v0.23.0")
    assert "largest capture size 64 (sizes above --max-num-batched-tokens 64 are dropped first)" in found[0].message
    assert fixed(text, found) == text.replace('"max_cudagraph_capture_size": 128', '"max_cudagraph_capture_size": 64')
    only_max = f"{Q27} --compilation-config '{{\"max_cudagraph_capture_size\": 48}}'\n"
    assert not hits(only_max, "QL538", version="v0.23.0")


def test_ql539_leaves_spec_decode_to_ql401():
    text = (f"{Q27} --max-num-batched-tokens 64 --speculative-config '{{\"method\": \"mtp\", \"num_speculative_tokens\": 1}}' "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [2, 4, 128]}'\n")
    assert not hits(text, "QL539", version="v0.23.0")
    assert hits(text, "QL401", version="v0.23.0")
    piecewise = (f"{Q27} --max-num-batched-tokens 64 --compilation-config "
                 "'{\"cudagraph_mode\": \"PIECEWISE\", \"cudagraph_capture_sizes\": [128, 256]}'\n")
    found = hits(piecewise, "QL539", version="v0.23.0")
    assert "keeps none, so no graph is captured" in found[0].message and not found[0].fix.edits


def test_ql540_shared_expert_dp_needs_ep_and_tp():
    cc = "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [1, 2]}'"
    body = ac('{"enable_shared_expert_dp": true}')
    no_ep = f"vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --tensor-parallel-size 4 {cc} {body}\n"
    assert not hits(no_ep, "QL540", version="v0.23.0")
    dsa = f"{MOE} --tensor-parallel-size 4 {cc} " + ac('{"enable_dsa_cp": true}') + "\n"
    assert hits(dsa, "QL540", version="main") and not hits(dsa, "QL540", version="v0.23.0")


def test_ql540_tutorial_glm_block_is_a_warning():
    text = (FIXTURES / "tutorials" / "v0.23.0" / "GLM4.x_1.sh").read_text()
    found = [f for f in lint(text) if f.rule.id == "QL540"]
    assert [f.level for f in found] == ["warning"] and "drops capture sizes [1, 2, 4]" in found[0].message


# -- data parallel and the command line ---------------------------------------------------------

def test_ql541_hybrid_lb_on_headless():
    text = f"{MOE} --headless --data-parallel-size 4 --data-parallel-size-local 2 --data-parallel-hybrid-lb\n"
    found = hits(text, "QL541", version="v0.23.0")
    assert "not applicable in headless mode" in found[0].message
    assert fixed(text, found) == text.replace(" --data-parallel-hybrid-lb", "")
    assert not hits(f"{MOE} --headless --api-server-count 0\n", "QL541", version="v0.23.0")


def test_ql542_external_rank_and_headless():
    ext = f"{MOE} --data-parallel-size 4 --data-parallel-rank 1 --data-parallel-size-local 2\n"
    assert "asserts the local size is 1" in hits(ext, "QL542", version="v0.23.0")[0].message
    assert not hits(f"{MOE} --data-parallel-size 4 --data-parallel-rank 1 --data-parallel-size-local 1\n",
                    "QL542", version="v0.23.0")
    zero = f"{MOE} --headless --data-parallel-size 4 --data-parallel-size-local 0\n"
    assert "must be > 0 in headless mode" in hits(zero, "QL542", version="v0.23.0")[0].message
    assert not hits(f"{MOE} --data-parallel-size 4 --data-parallel-size-local $LOCAL\n", "QL542", version="v0.23.0")


def test_ql543_release_boundary_and_explicit_flags():
    text = f"{MOE} --data-parallel-size 2 --data-parallel-rank 1 --data-parallel-start-rank 0\n"
    assert hits(text, "QL543", version="v0.22.1rc1")
    assert not hits(text, "QL543", version="v0.21.0rc1")
    flags = f"{MOE} --data-parallel-size 2 --data-parallel-hybrid-lb --data-parallel-external-lb\n"
    assert "asserts" in hits(flags, "QL543", version="v0.21.0rc1")[0].message
    hybrid_only = f"{MOE} --data-parallel-size 4 --data-parallel-size-local 2 --data-parallel-start-rank 2\n"
    assert not hits(hybrid_only, "QL543", version="v0.23.0")


def test_ql544_local_size_one_switches_to_external():
    text = f"{MOE} --data-parallel-size 4 --data-parallel-size-local 1 --data-parallel-start-rank 3\n"
    assert "switches to external load balancing" in hits(text, "QL544", version="v0.23.0")[0].message
    assert not hits(text.replace("--data-parallel-start-rank 3", "--data-parallel-start-rank 0"), "QL544")


def test_ql544_seed_003_multi_node_decode_is_quiet():
    for name in ("s003_pd_run_d0.sh", "s003_pd_run_d1.sh"):
        manifest = tomllib.loads((FIXTURES / "seeds" / "manifest.toml").read_text())[name]
        text = (FIXTURES / "seeds" / name).read_text()
        assert not [f for f in lint(text, manifest.get("hardware"), manifest.get("version"))
                    if f.rule.id in ("QL541", "QL542", "QL543", "QL544")]


def test_ql545_variants():
    assert not hits(f"{Q27} --served-model-name q\n", "QL545")
    deprecated = hits("vllm serve --model Qwen/Qwen3.6-27B --served-model-name q\n", "QL545", version="v0.23.0")
    assert [f.level for f in deprecated] == ["info"]
    none = hits("vllm serve --tensor-parallel-size 2\n", "QL545", version="v0.23.0")
    assert [f.level for f in none] == ["warning"]
    server = "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3.6-27B --served-model-name q\n"
    assert not hits(server, "QL545")
    placeholder = "vllm serve <path_to_model>/Qwen3-32B \\\n--served-model-name qwen\n"
    assert not hits(placeholder, "QL545") and hits(placeholder, "QL107")


# -- hybrid cache mode, PCP, mega MoE ----------------------------------------------------------------

def test_ql546_case_14_after_the_ql701_fix_drops_align():
    text = (SHARED / "cases" / "case-14.sh").read_text()
    assert not hits(text, "QL546")  # prefix caching on, chunked prefill on: align is fine
    after = text.replace("--enable-prefix-caching", "--no-enable-prefix-caching")
    found = hits(after, "QL546")
    assert [f.level for f in found] == ["warning"] and "--mamba-cache-mode align" in found[0].message
    assert "vllm-ascend v0.18.0rc1" in found[0].message and "--mamba-cache-mode align" not in fixed(after, found)


@pytest.mark.parametrize("model", ["Eco-Tech/Qwen3.5-27B-w8a8-mtp", "Qwen/Qwen3.6-35B-A3B", "Qwen/Qwen3.5-397B-A17B"])
def test_ql546_generalises_to_other_hybrid_models(model):
    text = f"vllm serve {model} --mamba-cache-mode all\n"
    assert hits(text, "QL546", version="v0.23.0")           # default prefix caching off: reset to none
    assert not hits(text, "QL546", version="v0.22.1rc1")    # default not established before v0.23.0rc1
    on = f"vllm serve {model} --enable-prefix-caching --mamba-cache-mode all\n"
    assert [f.level for f in hits(on, "QL546", version="v0.22.1rc1")] == ["info"]
    assert not hits("vllm serve Qwen/Qwen3-32B --mamba-cache-mode all\n", "QL546", version="v0.23.0")


def test_ql546_leaves_mtp_all_to_ql703():
    text = ("vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --enable-prefix-caching --mamba-cache-mode all "
            "--speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 3}'\n")
    assert hits(text, "QL703", version="v0.23.0") and not hits(text, "QL546", version="v0.23.0")


def test_ql547_pcp_by_release():
    text = f"{MOE} --prefill-context-parallel-size 2\n"
    assert not hits(text, "QL547", version="v0.23.0")
    assert [f.level for f in hits(text, "QL547", version="v0.25.1rc1")] == ["warning"]
    assert [f.level for f in hits("export VLLM_USE_V2_MODEL_RUNNER=0\n" + text, "QL547", version="main")] == ["error"]
    assert not hits("export VLLM_USE_V2_MODEL_RUNNER=1\n" + text, "QL547", version="main")
    assert not hits(f"{MOE} --prefill-context-parallel-size 2 --data-parallel-size 2\n", "QL547", version="v0.21.0rc1")


def test_ql547_dcp_with_dynamic_spec_on_main():
    spec = ("--decode-context-parallel-size 2 --speculative-config "
            "'{\"method\": \"mtp\", \"num_speculative_tokens\": 2, \"num_speculative_tokens_per_batch_size\": {\"1\": 2}}'")
    assert "dynamic speculative decoding" in hits(f"{MOE} {spec}\n", "QL547", version="main")[0].message
    assert not hits(f"{MOE} {spec}\n", "QL547", version="v0.23.0")


def test_ql548_negative_and_release():
    text = f"{MOE} " + ac('{"mega_moe_max_tokens": -8}') + "\n"
    assert hits(text, "QL548", version="v0.23.0rc1") and not hits(text, "QL548", version="v0.22.1rc1")


def test_ql549_mla_on_310p_only():
    text = "vllm serve deepseek-ai/DeepSeek-R1 --dtype float16 --tensor-parallel-size 4\n"
    found = hits(text, "QL549", hardware="310p", version="v0.18.0")
    assert "vllm-ascend v0.18.0 stops with ValueError 'MLAAttention is not supported for 310P'" in found[0].message
    assert not hits(text, "QL549", hardware="a3", version="v0.18.0")
    assert not hits(text, "QL549", hardware="310p", version="v0.14.0rc1")
    assert not hits("vllm serve Qwen/Qwen3-30B-A3B --dtype float16\n", "QL549", hardware="310p", version="v0.23.0")


# -- quiet where the seeds are right ------------------------------------------------------------------

@pytest.mark.parametrize("seed", sorted(p.name for p in (FIXTURES / "seeds").glob("*.sh")))
def test_startup_rules_raise_no_error_or_warning_on_seeds(seed):
    manifest = tomllib.loads((FIXTURES / "seeds" / "manifest.toml").read_text()).get(seed, {})
    findings = lint((FIXTURES / "seeds" / seed).read_text(), manifest.get("hardware"), manifest.get("version"))
    loud = [f for f in findings if 520 <= int(f.rule.id[2:]) <= 549 and f.level != "info"]
    assert not loud, [(f.rule.id, f.message) for f in loud]
