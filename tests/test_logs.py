"""qlint explain --log: error signatures of vLLM / vllm-ascend server logs (knowledge/data/log_signatures.toml).

The excerpts follow the shape of real logs (vLLM 0.23.0 / vllm-ascend v0.23.0 banners, INFO lines,
worker tracebacks with ``(EngineCore_DP0 pid=...)`` prefixes); the error lines carry the message text as
the cited sources produce it.
"""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qlint.knowledge.models import LogSignature
from qlint.linter.lint import lint_bytes
from qlint.linter.logs import MAX_LINE_CHARS, explain_log, explain_stream, render_explanations
from qlint.rules.graph import default_graph

BANNER = """\
INFO 08-14 09:12:01 [__init__.py:43] Available plugins for group vllm.platform_plugins:
INFO 08-14 09:12:01 [__init__.py:45] - ascend -> vllm_ascend:register
INFO 08-14 09:12:01 [__init__.py:235] Platform plugin ascend is activated
(APIServer pid=2143) INFO 08-14 09:12:05 [api_utils.py:319] vLLM server version 0.23.0, serving model Eco-Tech/Qwen3.6-27B-w8a8
(APIServer pid=2143) INFO 08-14 09:12:05 [api_utils.py:273] non-default args: {'model_tag': 'Eco-Tech/Qwen3.6-27B-w8a8', 'port': 8000, 'tensor_parallel_size': 2}
(APIServer pid=2143) INFO 08-14 09:12:09 [model.py:571] Resolved architecture: Qwen3_5ForConditionalGeneration
(EngineCore_DP0 pid=2388) INFO 08-14 09:12:21 [core.py:104] Initializing a V1 LLM engine (v0.23.0) with config: model='Eco-Tech/Qwen3.6-27B-w8a8', dtype=torch.bfloat16, max_seq_len=65536, tensor_parallel_size=2
"""

TRACEBACK = """\
(EngineCore_DP0 pid=2388) ERROR 08-14 09:13:40 [core.py:1010] EngineCore failed to start.
(EngineCore_DP0 pid=2388) ERROR 08-14 09:13:40 [core.py:1010] Traceback (most recent call last):
(EngineCore_DP0 pid=2388) ERROR 08-14 09:13:40 [core.py:1010]   File "/usr/local/python3.11.13/lib/python3.11/site-packages/vllm/v1/engine/core.py", line 1000, in run_engine_core
(EngineCore_DP0 pid=2388) ERROR 08-14 09:13:40 [core.py:1010]     engine_core = EngineCoreProc(*args, engine_index=dp_rank, **kwargs)
"""


def startup_error(error: str) -> str:
    """Banner, a worker traceback and the error line(s), then the API server giving up."""
    lines = "".join(f"(EngineCore_DP0 pid=2388) ERROR 08-14 09:13:40 [core.py:1010] {e}\n" for e in error.splitlines())
    return BANNER + TRACEBACK + lines + "(APIServer pid=2143) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n"


def config_error(error: str) -> str:
    """An error raised while the API server builds the config (before any engine starts)."""
    return (
        BANNER.split("(EngineCore_DP0")[0]
        + "(APIServer pid=2143) Traceback (most recent call last):\n"
        + '(APIServer pid=2143)   File "/usr/local/python3.11.13/bin/vllm", line 8, in <module>\n'
        + "(APIServer pid=2143)     sys.exit(main())\n"
        + "".join(f"(APIServer pid=2143) {e}\n" for e in error.splitlines())
    )


SERVING = """\
(APIServer pid=2143) INFO 08-14 09:15:02 [api_server.py:583] Starting vLLM server on http://0.0.0.0:8000
(APIServer pid=2143) INFO:     Started server process [2143]
(APIServer pid=2143) INFO:     Waiting for application startup.
(APIServer pid=2143) INFO:     Application startup complete.
(APIServer pid=2143) INFO:     10.0.0.7:51422 - "POST /v1/chat/completions HTTP/1.1" 200 OK
"""

OOM = ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.96 GiB total capacity; "
       "58.12 GiB already allocated; 58.12 GiB current active; 1.02 GiB free; 59.20 GiB reserved in total by "
       "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.")

STREAMS = """\
RuntimeError: capture_begin:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:230 NPU function error: c10_npu::acl::AclmdlRICaptureBegin(capture_stream_, capture_mode), error code is 207008
[ERROR] 2026-06-04-10:17:18 (PID:46706, Device:0, RankID:-1) ERR00100 PTA call acl api failed
[Error]: Stream resources are insufficient.
        Check whether the number of streams meets the requirements by referring to the description of the acl.rt.create_stream interface.
[PID: 46706] 2026-06-04-10:17:18.891.861 Insufficient_Stream_Resources(EL0009): The stream resources are insufficient."""

# (log excerpt, signature id, groups that must have been captured, rules, faq)
CASES = [
    (startup_error("  File \".../vllm_ascend/worker/worker.py\", line 565, in determine_available_memory\n"
                   "    self.model_runner.profile_run()\n" + OOM),
     "npu-oom-profile-run", {"alloc": "2.00 GiB", "device": "0", "total": "60.96 GiB", "allocated": "58.12 GiB"},
     ["QL310", "QL311", "QL312"], "oom"),
    (BANNER + SERVING + "(EngineCore_DP0 pid=2388) ERROR 08-14 09:16:11 [core.py:945] EngineCore encountered a fatal error.\n"
     "(EngineCore_DP0 pid=2388) ERROR 08-14 09:16:11 [core.py:945] " + OOM.replace("2.00 GiB", "768.00 MiB") + "\n",
     "npu-oom-serving", {"alloc": "768.00 MiB", "device": "0"}, ["QL311", "QL302"], "oom"),
    (startup_error("ValueError: Free memory on device (12.5/60.96 GiB) on startup is less than desired GPU memory "
                   "utilization (0.92, 56.08 GiB). Decrease GPU memory utilization or reduce GPU memory used by "
                   "other processes."),
     "free-memory-below-utilization", {"free": "12.5", "total": "60.96", "utilization": "0.92", "requested": "56.08"},
     [], "oom"),
    (startup_error("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                   "initializing the engine (this flag also controls CPU memory reservation on the CPU backend, "
                   "despite its name). See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."),
     "no-kv-cache-memory", {}, ["QL310", "QL311"], "oom"),
    (startup_error("ValueError: To serve at least one request with the model's max seq len (262144), (16.00 GiB KV "
                   "cache is needed, which is larger than the available KV cache memory (9.37 GiB). Based on the "
                   "available memory, the estimated maximum model length is 153472. Try increasing "
                   "`gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or decreasing "
                   "`max_model_len` when initializing the engine."),
     "kv-cache-below-one-sequence", {"max_model_len": "262144", "needed": "16.00", "available": "9.37", "estimated": "153472"},
     ["QL312", "QL301"], "oom"),
    (startup_error("ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (118). Each decode sequence "
                   "requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs "
                   "to at most 118 or increase gpu_memory_utilization."),
     "mamba-cache-blocks", {"max_num_seqs": "256", "blocks": "118"}, ["QL313", "QL312"], "oom"),
    ("(Worker_TP0_EP0 pid=3016) [ERROR] 2026-08-14-09:20:31 [dispatch_ffn_combine_tiling.cpp:287] DispatchFFNCombine: "
     "HCCL_BUFFSIZE is too SMALL, m = 4096, k = 7168, topK = 8 expected HCCL_BUFFSIZE is ((m * k * topK * "
     "sizeof(int8_t)) * 3 + 3MB)= 682MB, HCCL_BUFFSIZE=200MB.\n"
     "(Worker_TP0_EP0 pid=3016) ERROR 08-14 09:20:31 [multiproc_executor.py:870] RuntimeError: The Inner error is reported as above.\n",
     "hccl-buffsize-too-small", {"m": "4096", "k": "7168", "topk": "8", "expected": "682", "actual": "200"},
     [], "hccl-tuning"),
    (BANNER + "(EngineCore_DP0 pid=2388) INFO 08-14 09:14:02 [model_runner_v1.py:3502] Starting to capture ACL graphs "
     "for cases: [512, 504, 496], mode: PIECEWISE\n" + startup_error(STREAMS),
     "capture-stream-exhaustion", {}, ["QL502"], "capture-stream-exhaustion"),
    # v0.23.0 really prints "containvalues" (two f-strings without a space)
    (config_error("AssertionError: cudagraph_capture_sizes [1, 2, 4, 8, 16, 24, 32] does not containvalues that "
                  "are multiples of tp_size 64"),
     "capture-sizes-not-multiple-of-tp", {"sizes": "[1, 2, 4, 8, 16, 24, 32]", "tp": "64"}, ["QL404"], "flashcomm1-when"),
    (config_error("  Value error, No valid cudagraph sizes after rounding to multiple of 4 (num_speculative_tokens "
                  "+ 1 or tp if sequence parallelism is enabled) please adjust num_speculative_tokens (3) or "
                  "max_cudagraph_capture_size (2) or cudagraph_capture_sizes ([1, 2])"),
     "no-valid-cudagraph-sizes", {"multiple": "4"}, ["QL401"], "qwen35-397b-mtp-tuning"),
    (config_error("ValueError: Can't determine cudagraph shapes that are both a multiple of 3 (num_speculative_tokens "
                  "+ 1) required by spec-decode and 4 (tensor_parallel_size) required by sequence parallelism please "
                  "adjust num_speculative_tokens or disable sequence parallelism"),
     "spec-and-sp-capture-multiple", {"spec": "3", "tp": "4"}, ["QL401", "QL404"], None),
    (config_error("ValueError: ACL graph is incompatible with ASCEND_LAUNCH_BLOCKING=1. Please unset "
                  "ASCEND_LAUNCH_BLOCKING or set it to 0."),
     "acl-graph-launch-blocking", {}, ["QL520"], None),
    (config_error("AssertionError: Flash Comm v1 is only supported when tp_size > 1."),
     "flashcomm1-needs-tp", {}, ["QL404"], "flashcomm1-when"),
    (config_error("AssertionError: Flash Comm v1 requires enable_expert_parallel=True for MoE models."),
     "flashcomm1-moe-needs-ep", {}, ["QL404"], "flashcomm1-when"),
    ("INFO 08-14 09:12:01 [__init__.py:235] Platform plugin ascend is activated\n"
     "usage: vllm serve [model_tag] [options]\n"
     "vllm serve: error: argument --quantization/-q: invalid choice: 'ascend' (choose from 'awq', 'fp8', 'gptq')\n",
     "argparse-invalid-choice", {"flag": "--quantization", "kind": "choice", "value": "ascend"}, ["QL106"], None),
    ("usage: vllm serve [model_tag] [options]\n"
     "vllm serve: error: argument --max-num-seqs: invalid int value: '64,'\n",
     "argparse-invalid-choice", {"flag": "--max-num-seqs", "kind": "int value", "value": "64,"}, ["QL106"], None),
    ("usage: vllm serve [model_tag] [options]\n"
     "vllm serve: error: unrecognized arguments: --enable-prefix-cache --max-num-seq 32\n",
     "argparse-unrecognized-arguments", {"args": "--enable-prefix-cache --max-num-seq 32"}, ["QL102", "QL103"], None),
    ("usage: vllm serve [model_tag] [options]\n"
     "vllm serve: error: argument --speculative-config/-sc: Value {method:mtp} cannot be converted to "
     "<function loads at 0x7f3c2a1b9e40>.\n",
     "invalid-json-config", {"flag": "--speculative-config", "value": "{method:mtp}"}, ["QL101"], None),
    (config_error("pydantic_core._pydantic_core.ValidationError: 1 validation error for SpeculativeConfig\n"
                  "num_speculative_token\n"
                  "  Extra inputs are not permitted [type=extra_forbidden, input_value=3, input_type=int]\n"
                  "    For further information visit https://errors.pydantic.dev/2.12/v/extra_forbidden"),
     "config-extra-key", {"value": "3"}, ["QL105"], None),
    (config_error("pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
                  "  Value error, User-specified max_model_len (266000) is greater than the derived max_model_len "
                  "(max_position_embeddings=262144 or model_max_length=None in model's config.json). To allow "
                  "overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. [type=value_error]"),
     "max-model-len-above-derived", {"max_model_len": "266000", "key": "max_position_embeddings", "derived": "262144"},
     ["QL301"], None),
    (config_error("  Value error, max_num_batched_tokens (8192) is smaller than max_model_len (32768). This "
                  "effectively limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject "
                  "longer sequences. Please increase max_num_batched_tokens or decrease max_model_len. [type=value_error]"),
     "batched-tokens-below-model-len", {"batched": "8192", "max_model_len": "32768"}, ["QL303"], None),
    (config_error("  Value error, max_num_batched_tokens (64) must be greater than or equal to max_num_seqs (128). "
                  "[type=value_error, input_value=ArgsKwargs(()), input_type=ArgsKwargs]"),
     "batched-tokens-below-max-num-seqs", {"batched": "64", "max_num_seqs": "128"}, ["QL302"], None),
    (startup_error("  File \".../vllm/model_executor/models/qwen3_5_mtp.py\", line 364, in __init__\n"
                   "    raise NotImplementedError(\n"
                   "NotImplementedError: Qwen3_5MTP currently does not support 'all' prefix caching, please use "
                   "'--mamba-cache-mode=align' instead"),
     "qwen35-mamba-cache-all", {"model": "Qwen3_5MTP"}, ["QL703"], "hybrid-prefix-caching-block-size"),
    (config_error("  Value error, Total number of attention heads (24) must be divisible by tensor parallel size (16). "
                  "[type=value_error]"),
     "heads-not-divisible-by-tp", {"heads": "24", "tp": "16"}, ["QL206"], None),
    (startup_error("AssertionError: local_world_size (8) must be less than or equal to the number of visible devices (4)."),
     "local-world-size-exceeds-devices", {"local": "8", "visible": "4"}, ["QL203", "QL204"], None),
    (config_error("ERROR 08-14 09:12:07 [modelslim_config.py:808] ModelSlim quantization config not found for model "
                  "'/models/Qwen3.6-27B'. Searched path: /models/Qwen3.6-27B. Found JSON files: ['config.json'].\n"
                  "ValueError: \n"
                  "================================================================================\n"
                  "ERROR: ModelSlim Quantization Config Not Found"),
     "modelslim-config-not-found", {"model": "/models/Qwen3.6-27B"}, ["QL509"], "quantization-support"),
    (startup_error("RuntimeError: npu_quant_matmul_symint: NPU function error: call aclnnQuantMatmulWeightNz failed, "
                   "error code is 161002\n"
                   "[ERROR] 2026-07-27-10:01:12 (PID:2388, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n"
                   "AclNN_Parameter_Error(EZ1001): Tensor scale not implemented for DT_FLOAT16,\n"
                   "should be in dtype support list [DT_UINT64, DT_BFLOAT16, DT_INT64, DT_FLOAT]."),
     "w8a8-float16-scale", {}, ["QL507"], "quantization-support"),
    (startup_error("  File \".../vllm_ascend/_310p/ops/fla/chunk_gated_delta_rule.py\", line 197, in _require_ascend_chunk_ops\n"
                   "TypeError: q/k/v must share float16 dtype on 310P, got torch.bfloat16, torch.bfloat16, torch.bfloat16."),
     "310p-gdn-float16", {"q": "torch.bfloat16"}, ["QL501"], "atlas-300i-duo-deployment"),
    (startup_error("ERROR 08-14 09:13:39 [model_runner_310p.py:746] KV cache transfer is not supported.\n"
                   "ValueError: KV cache transfer is not supported for 310P."),
     "310p-no-kv-transfer", {}, ["QL505"], "atlas-300i-duo-deployment"),
    (config_error("ValueError: Non-MoE models do not support external data parallel mode. For external load "
                  "balancing, launch independent vLLM instances without --data-parallel-* arguments."),
     "external-dp-on-dense-model", {}, ["QL208"], "external-dp-dense"),
    (BANNER + "(APIServer pid=2143) ERROR 08-14 09:13:02 [core_client.py:612] RuntimeError: Remote engine 8 must "
     "use --headless unless in external or hybrid dp lb mode\n",
     "remote-engine-needs-headless", {"engine": "8"}, ["QL612"], "qwen35-397b-mp-hang"),
    (startup_error("ValueError: KV transfer 'decode' config has a conflicting tensor parallel size. Expected 4, but got 8."),
     "kv-transfer-conflicting-tp", {"side": "decode", "expected": "4", "got": "8"}, ["QL601"], "pd-disaggregation"),
    (startup_error("ValueError: KV transfer 'prefill' config has a conflicting data parallel size. Expected 2, but got 1."),
     "kv-transfer-conflicting-dp", {"side": "prefill", "expected": "2", "got": "1"}, ["QL601"], "pd-disaggregation"),
    (startup_error("  File \".../vllm_ascend/distributed/kv_transfer/kv_p2p/mooncake_connector.py\", line 2079, in _get_prefill_decode_size\n"
                   "    assert \"tp_size\" in decode_parallel_config\n"
                   "AssertionError"),
     "kv-extra-config-size-missing", {"key": "tp_size", "side": "decode"}, ["QL604"], "pd-disaggregation"),
    (startup_error("AssertionError: Prefill TP size must be divisible by Decode TP size."),
     "pd-tp-ratio", {}, ["QL605"], "pd-disaggregation"),
    (startup_error("AssertionError: Mamba prefill TP size must be >= decode TP size."),
     "pd-tp-ratio", {}, ["QL605"], "pd-disaggregation"),
    (config_error("  Value error, Please specify kv_role when kv_connector is set, supported roles are "
                  "('kv_producer', 'kv_consumer', 'kv_both') [type=value_error]"),
     "kv-role-missing", {}, ["QL602"], "pd-disaggregation"),
    (config_error("ValueError: recompute_scheduler_enable can only be enabled on PD-disaggregated D nodes "
                  "(kv_role='kv_consumer', but got kv_role=None), and is not supported in PD-mixed mode."),
     "recompute-scheduler-not-on-decode", {"role": "None"}, ["QL603"], "pd-disaggregation"),
    (BANNER + "(APIServer pid=2143) WARNING 08-14 09:12:08 [platform.py:693] recompute_scheduler_enable is ignored "
     "on PD-disaggregated P nodes (kv_role='kv_producer') and will be deprecated on P nodes in a future release.\n",
     "recompute-scheduler-ignored-on-prefill", {}, ["QL603"], "pd-disaggregation"),
    (startup_error("  File \".../zmq/sugar/socket.py\", line 311, in bind\n"
                   "    super().bind(addr)\n"
                   "zmq.error.ZMQError: Address already in use (addr='tcp://10.0.0.7:30002')"),
     "zmq-address-in-use", {"port": "30002"}, ["QL613"], "kv-port-range"),
    (startup_error("  File \".../vllm/distributed/kv_transfer/kv_connector/factory.py\", line 127, in create_connector\n"
                   "    raise ValueError(f\"Unsupported connector type: {connector_name}\")\n"
                   "ValueError: Unsupported connector type: MooncakeConnectorV2"),
     "kv-connector-unknown", {"connector": "MooncakeConnectorV2"}, ["QL533"], "pd-disaggregation"),
    (config_error("AssertionError: Hybrid models do not support recompute mode kv load failure policy now."),
     "kv-load-failure-recompute-hybrid", {}, ["QL531"], "pd-disaggregation"),
    (config_error("ValueError: enable_balance_scheduling only supports PD-mixed mode (kv_role='kv_both' or no "
                  "kv_transfer_config), and is not supported in PD-disaggregated mode (kv_role='kv_producer'/'kv_consumer')."),
     "balance-scheduling-on-pd", {}, ["QL526"], "pd-disaggregation"),
    (config_error("  Value error, Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU "
                  "kind of speculative decoding [type=value_error, input_value=ArgsKwargs(()), input_type=ArgsKwargs]"),
     "async-scheduling-spec-method", {}, ["QL536"], None),
    ("Traceback (most recent call last):\n"
     "  File \"/vllm-workspace/vllm-ascend/examples/disaggregated_prefill_v1/load_balance_proxy_server_example.py\", line 720, in <module>\n"
     "    global_args = parse_args()\n"
     "ValueError: Number of decoder hosts must match number of decoder ports\n",
     "proxy-host-port-count", {"role": "decoder"}, ["QL614"], "pd-disaggregation"),
    (startup_error("ValueError: Cannot provide a placement group of placement_group_specs=[{'NPU': 1.0, "
                   "'node:10.0.0.1': 0.001}, {'NPU': 1.0}] within 1800 seconds. See `ray status` and "
                   "`ray list nodes` to make sure the cluster has enough resources."),
     "ray-placement-group-timeout", {"seconds": "1800"}, ["QL623", "QL620", "QL629", "QL628"], "ray-multi-node"),
    (startup_error("ValueError: Current node has no NPU available. current_node_resource={'CPU': 192.0}. vLLM "
                   "engine cannot start without NPU. Make sure you have at least 1 NPU available in a node "
                   "current_node_id='ab12' current_ip='10.0.0.2'."),
     "ray-no-npu-on-driver", {"device": "NPU"}, ["QL621", "QL628"], "ray-multi-node"),
    (config_error("ValueError: nnodes > 1 can only be set when distributed executor backend is mp, uni or "
                  "external_launcher."),
     "ray-with-nnodes", {}, ["QL627"], None),
]


def _only(matches, signature_id):
    found = [m for m in matches if m.id == signature_id]
    assert found, f"{signature_id} not matched; got {[m.id for m in matches]}"
    return found[0]


@pytest.mark.parametrize("log, signature_id, groups, rules, faq", CASES, ids=[c[1] for c in CASES])
def test_signature_matches_realistic_excerpt(kb, log, signature_id, groups, rules, faq):
    matches = explain_log(log, kb)
    match = _only(matches, signature_id)
    assert {k: match.groups.get(k) for k in groups} == groups
    assert match.rules == rules
    assert match.faq == faq
    if faq:
        assert match.faq_url == kb.faq_index[faq].url
    # the line number points at the error line itself
    line = log.splitlines()[match.line - 1]
    assert re.search(match.signature.pattern, re.sub(r"^(\(\S+ pid=\d+\) )+", "", line))
    # placeholders were filled from the captured numbers
    for text in (match.cause.en, match.cause.zh, match.fix.en, match.fix.zh):
        for name in re.compile(match.signature.pattern).groupindex:
            assert "{" + name + "}" not in text
    for value in groups.values():
        if any(f"{{{k}}}" in match.signature.cause.en + match.signature.fix.en for k, v in groups.items() if v == value):
            assert value in match.cause.en + match.fix.en


def test_every_signature_has_an_excerpt(kb):
    tested = {case[1] for case in CASES}
    assert {s.id for s in kb.log_signatures} == tested


def test_at_least_twenty_signatures_with_unique_ids(kb):
    ids = [s.id for s in kb.log_signatures]
    assert len(ids) >= 20 and len(ids) == len(set(ids))


def test_signature_rules_and_faqs_exist(kb):
    rule_ids = {rule.meta.id for rule in default_graph().order()}
    for signature in kb.log_signatures:
        assert set(signature.rules) <= rule_ids, (signature.id, signature.rules)
        assert signature.faq is None or signature.faq in kb.faq_index, (signature.id, signature.faq)


def test_every_signature_cites_and_speaks_both_languages(kb):
    cjk = re.compile(r"[\u4e00-\u9fff]")
    for signature in kb.log_signatures:
        assert signature.sources, signature.id
        # the message text comes from a source file at a release, or from a public report quoting it
        assert any("/blob/" in s or "/issues/" in s or "/pull/" in s for s in signature.sources), signature.id
        for text in (signature.cause, signature.fix):
            assert text.en.strip() and text.zh.strip()
            assert cjk.search(text.zh) and not cjk.search(text.en), signature.id


def test_placeholders_must_be_pattern_groups():
    with pytest.raises(ValueError, match="placeholder"):
        LogSignature.model_validate({
            "id": "x", "pattern": r"Expected (?P<expected>\d+)", "stage": "startup",
            "cause": {"en": "got {got}", "zh": "得到 {got}"}, "fix": {"en": "f", "zh": "修"},
            "sources": ["https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L1"],
        })
    with pytest.raises(ValueError):
        LogSignature.model_validate({
            "id": "x", "pattern": "(unclosed", "stage": "startup",
            "cause": {"en": "c", "zh": "因"}, "fix": {"en": "f", "zh": "修"},
            "sources": ["https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L1"],
        })


def test_oom_before_and_after_startup_are_told_apart(kb):
    before = explain_log(BANNER + "(EngineCore_DP0 pid=2388) ERROR " + OOM + "\n", kb)
    after = explain_log(BANNER + SERVING + "(EngineCore_DP0 pid=2388) ERROR " + OOM + "\n", kb)
    assert [m.id for m in before] == ["npu-oom-profile-run"] and before[0].phase == "starting"
    assert [m.id for m in after] == ["npu-oom-serving"] and after[0].phase == "serving"
    # a restart appended to the same file is a new startup
    restarted = explain_log(BANNER + SERVING + BANNER + "ERROR " + OOM + "\n", kb)
    assert [m.id for m in restarted] == ["npu-oom-profile-run"]


def test_repeated_message_is_reported_once_with_a_count(kb):
    ranks = "".join(
        f"(Worker_TP{r} pid={3000 + r}) ERROR 08-14 [multiproc_executor.py:870] ValueError: KV transfer 'decode' "
        "config has a conflicting tensor parallel size. Expected 4, but got 8.\n" for r in range(4)
    )
    matches = explain_log(ranks, kb)
    assert len(matches) == 1 and matches[0].count == 4 and matches[0].line == 1
    streams = _only(explain_log(STREAMS, kb), "capture-stream-exhaustion")
    assert streams.line == 1 and streams.count == 3


def test_ansi_colours_crlf_and_nested_prefixes(kb):
    log = ("\x1b[1;36m(vLLMHttpServer pid=77054)\x1b[0;0m \x1b[1;36m(Worker_TP3 pid=78100)\x1b[0;0m "
           "\x1b[31mERROR\x1b[0m 04-20 21:27:00 [multiproc_executor.py:932] AssertionError: Prefill TP size must "
           "be divisible by Decode TP size.\r\n")
    (match,) = explain_log(log, kb)
    assert match.id == "pd-tp-ratio" and match.text.startswith("ERROR 04-20")
    assert "\x1b" not in match.text and "pid=" not in match.text


def test_carriage_return_progress_bars_do_not_hide_errors(kb):
    log = ("Capturing ACL graphs (mixed prefill-decode, PIECEWISE):  12%|#2  | 5/41 [00:03<00:25]\r" * 2000
           + "[Error]: Stream resources are insufficient.\n")
    assert [m.id for m in explain_log(log, kb)] == ["capture-stream-exhaustion"]


def test_huge_lines_are_capped_and_matching_stops(kb):
    message = " Flash Comm v1 is only supported when tp_size > 1. "
    filler = "x" * (MAX_LINE_CHARS * 10)
    # an over-long line is searched at its head and its tail, not in the middle
    assert explain_log(filler + message + filler + "\n", kb) == []
    for line in (filler + message + "\n", message + filler + "\n"):
        assert [m.id for m in explain_log(line, kb)] == ["flashcomm1-needs-tp"]
        assert [m.id for m in explain_stream(io.BytesIO(line.encode()), kb)] == ["flashcomm1-needs-tp"]
        assert [m.id for m in explain_stream(io.StringIO(line), kb)] == ["flashcomm1-needs-tp"]
    many = "".join(
        f"ValueError: Remote engine {n} must use --headless unless in external or hybrid dp lb mode\n"
        for n in range(500)
    )
    matches = explain_log(many, kb)
    assert len(matches) == 50 and matches[-1].groups == {"engine": "49"}
    assert len(explain_log(many, kb, max_matches=3)) == 3


def test_bytes_and_streams_never_fail(kb):
    data = b"\xff\xfe\x00garbage\x80\n" + startup_error("AssertionError: Prefill TP size must be divisible by Decode TP size.").encode()
    assert [m.id for m in explain_log(data, kb)] == ["pd-tp-ratio"]
    assert [m.id for m in explain_stream(io.BytesIO(data), kb)] == ["pd-tp-ratio"]
    assert [m.id for m in explain_stream(io.StringIO(data.decode("utf-8", "replace")), kb)] == ["pd-tp-ratio"]
    huge = io.BytesIO(b"A" * (MAX_LINE_CHARS * 50) + b"\nFlash Comm v1 is only supported when tp_size > 1.\n")
    assert [m.line for m in explain_stream(huge, kb)] == [2]


@given(st.text(max_size=3000))
def test_explain_log_never_raises_on_text(text):
    from qlint.knowledge.base import load

    kb = load()
    matches = explain_log(text, kb)
    assert len(matches) <= 50
    render_explanations(matches, "en")
    render_explanations(matches, "zh")


@given(st.binary(max_size=3000))
def test_explain_log_never_raises_on_bytes(data):
    from qlint.knowledge.base import load

    kb = load()
    explain_log(data, kb)
    explain_stream(io.BytesIO(data), kb)


@given(st.lists(st.sampled_from([
    "ValueError: KV transfer 'decode' config has a conflicting tensor parallel size. Expected ",
    "NPU out of memory. Tried to allocate ", "Application startup complete", "\x1b[31m", "(EngineCore_DP0 pid=1) ",
    "\r", "\n", "12", " GiB", "'", "(", ")", "Remote engine ", " must use --headless", "\xff", "{expected}",
]), max_size=40))
def test_explain_log_never_raises_on_near_misses(parts):
    from qlint.knowledge.base import load

    kb = load()
    text = "".join(parts)
    for match in explain_log(text, kb):
        assert match.line >= 1
        render_explanations([match], "zh")


# -- rendering -------------------------------------------------------------------

PD_SCRIPT = b"""#!/bin/bash
export HCCL_BUFFSIZE=1024
vllm serve /models/Qwen3-32B \\
  --tensor-parallel-size 4 \\
  --kv-transfer-config '{"kv_connector": "MooncakeConnectorV1", "kv_role": "kv_consumer", "kv_connector_extra_config": {"prefill": {"dp_size": 1, "tp_size": 4}, "decode": {"dp_size": 1, "tp_size": 8}}}'
"""

PD_LOG = startup_error("ValueError: KV transfer 'decode' config has a conflicting tensor parallel size. Expected 4, but got 8.")


def test_render_text_line(kb):
    matches = explain_log(PD_LOG, kb)
    text = render_explanations(matches, "en")
    first = text.splitlines()[0]
    line = matches[0].line
    assert first.startswith(f"server.log:{line}: kv-transfer-conflicting-tp -> rules QL601; cause: ")
    assert "tp_size is 8" in first and '"decode": {"tp_size": 4}' in first
    assert first.endswith("; see: " + kb.faq_index["pd-disaggregation"].url)
    zh = render_explanations(matches, "zh", path="d0.log")
    assert zh.startswith(f"d0.log:{line}: kv-transfer-conflicting-tp -> 规则 QL601; 原因: ") and "参见: https://" in zh


def test_render_without_rule_or_faq_cites_the_source(kb):
    no_faq = explain_log(config_error("ValueError: Can't determine cudagraph shapes that are both a multiple of 3 "
                                      "(num_speculative_tokens + 1) required by spec-decode and 4 (tensor_parallel_size)"), kb)
    assert "; see: https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/compilation.py#L1476-L1492" in render_explanations(no_faq, "en")
    no_rule = explain_log("[ERROR] HCCL_BUFFSIZE is too SMALL, m = 1, k = 2, topK = 3 expected HCCL_BUFFSIZE is "
                          "((m * k * topK * sizeof(int8_t)) * 3 + 3MB)= 11MB, HCCL_BUFFSIZE=10MB.", kb)
    text = render_explanations(no_rule, "en")
    assert "hccl-buffsize-too-small -> no qlint rule;" in text and "export HCCL_BUFFSIZE=11 " in text


def test_render_nothing_found(kb):
    assert render_explanations(explain_log(BANNER, kb), "en") == "server.log: no known vLLM / vllm-ascend error signature found\n"
    assert "未发现" in render_explanations([], "zh")


def test_render_with_script_shows_finding_fix_and_corrected_command(kb):
    result = lint_bytes("run_d.sh", PD_SCRIPT)
    text = render_explanations(explain_log(PD_LOG, kb), "en", result)
    assert "  run_d.sh:5:" in text and "error QL601 [kv-parallel-size-mismatch]" in text
    assert "    fix: set decode.tp_size to 4" in text
    assert "    --- run_d.sh\n    +++ run_d.sh (fixed)\n    @@ -5 +5 @@\n" in text
    removed = [l for l in text.splitlines() if l.startswith("    -  --kv-transfer-config")]
    added = [l for l in text.splitlines() if l.startswith("    +  --kv-transfer-config")]
    assert len(removed) == 1 and '"tp_size": 8}}}' in removed[0]
    assert len(added) == 1 and '"decode": {"dp_size": 1, "tp_size": 4}}}' in added[0]


def test_render_with_script_without_the_rule(kb):
    result = lint_bytes("run_d.sh", PD_SCRIPT)
    log = config_error("AssertionError: Flash Comm v1 is only supported when tp_size > 1.")
    text = render_explanations(explain_log(log, kb), "en", result)
    assert "run_d.sh: no QL404 finding in this script" in text


def test_render_with_unreadable_script(kb):
    result = lint_bytes("run.sh", b"vllm serve \x00\xff")
    text = render_explanations(explain_log(PD_LOG, kb), "en", result)
    assert "run.sh: not linted:" in text


def test_as_dict_is_json_ready(kb):
    import json

    (match,) = [m for m in explain_log(PD_LOG, kb) if m.id == "kv-transfer-conflicting-tp"]
    data = json.loads(json.dumps(match.as_dict("zh")))
    assert data["signature"] == "kv-transfer-conflicting-tp" and data["rules"] == ["QL601"]
    assert data["groups"] == {"side": "decode", "expected": "4", "got": "8"} and "原因" not in data["cause"]
