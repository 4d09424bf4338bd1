"""Expert parallelism: EP with an expert tensor-parallel size (QL201), EP on a dense model (QL202),
EP = TP x DP against the routed experts (QL207), and external DP ranks on a dense model (QL208).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

EP_MIXED = RuleMeta(
    id="QL201",
    name="ep-mixed-with-moe-tp",
    groups=("parallelism",),
    severity="error",
    requires=("expert_parallel", "moe_tp", "version", "etp_read"),
    fix="safe",
    title=Text(en="Expert parallel mixed with MoE tensor parallel",
               zh="专家并行与 MoE 张量并行混用"),
    why=Text(
        en="With --enable-expert-parallel the MoE layers are split purely by experts. Asking for an "
        "expert tensor-parallel size above 1 at the same time (ETP and EP mixed) is not a layout vLLM "
        "supports and gives wrong output: an MoE layer is either pure EP or pure TP. Only the releases whose "
        "ascend_config.py reads additional-config expert_tensor_parallel_size (v0.9.0rc1 to v0.9.1rc1, and "
        "v0.9.2rc1) are affected; the others ignore the key, which QL105 reports. A script that names no "
        "release is still reported, since the release it will run is not known.",
        zh="开启 --enable-expert-parallel 后，MoE 层只按专家切分。此时再要求专家张量并行度大于 1"
        "（ETP 与 EP 混用）并不是 vLLM 支持的布局，会产生错误输出：MoE 层只能是纯 EP 或纯 TP。"
        "只有 ascend_config.py 读取 additional-config 中 expert_tensor_parallel_size 的版本"
        "（v0.9.0rc1 至 v0.9.1rc1，以及 v0.9.2rc1）受此影响；其他版本忽略该键，由 QL105 报告。"
        "脚本未写明版本时仍会报告，因为无法知道它将运行在哪个版本上。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/5500e45c4c4f3e160ce705a9c477d8de27611aa5/docs/source/tutorials/models/Qwen3.6-35B-A3B.md?plain=1#L81-L140",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L88-L149",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.9.2rc1/vllm_ascend/ascend_config.py#L49",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.9.1rc1/vllm_ascend/ascend_config.py#L39-L40",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/user_guide/release_notes.md?plain=1#L1772",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/docs/serving/expert_parallel_deployment.md?plain=1#L34-L52",
    ),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3.5-397B-A17B-w8a8 --quantization ascend -tp=16 --enable-expert-parallel "
            "--additional-config '{\"expert_tensor_parallel_size\":16}'\n",
            good="vllm serve /models/Qwen3.5-397B-A17B-w8a8 --quantization ascend -tp=16 --enable-expert-parallel\n",
            fixed="vllm serve /models/Qwen3.5-397B-A17B-w8a8 --quantization ascend -tp=16 --enable-expert-parallel "
            "--additional-config '{\"expert_tensor_parallel_size\":1}'\n",
            version="v0.9.2rc1",
        ),
    ),
)

EP_DENSE = RuleMeta(
    id="QL202",
    name="ep-on-dense-model",
    groups=("parallelism",),
    severity="error",
    requires=("expert_parallel", "moe", "model"),
    fix="safe",
    title=Text(en="Expert parallel on a dense model: vLLM refuses to start",
               zh="稠密模型开启专家并行：vLLM 拒绝启动"),
    why=Text(
        en="When --enable-expert-parallel is set, vLLM checks the model while building its configuration and stops "
        "with 'Number of experts in the model must be greater than 0 when expert parallelism is enabled' if the "
        "model has no experts. Every vLLM release from 0.9.0 to 0.27.1 does this. The flag usually comes from a "
        "MoE recipe copied onto a dense model, so check the rest of that recipe too.",
        zh="设置 --enable-expert-parallel 后，vLLM 在构建配置时会检查模型；模型没有专家时，它以 "
        "“Number of experts in the model must be greater than 0 when expert parallelism is enabled” 报错退出。"
        "vLLM 0.9.0 到 0.27.1 的每个版本都如此。这个参数通常来自照搬到稠密模型上的 MoE 配置，"
        "因此也请检查该配置的其余部分。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L1197-L1198",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/model.py#L1137-L1142",
        "https://github.com/vllm-project/vllm/blob/v0.17.0/vllm/config/model.py#L998-L1003",
        "https://github.com/vllm-project/vllm/blob/v0.27.1/vllm/config/model.py#L1262-L1267",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L3-L9",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --enable-expert-parallel\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2\n",
        ),
    ),
)

EP_EXPERTS = RuleMeta(
    id="QL207",
    name="ep-divides-experts",
    groups=("parallelism",),
    severity="error",
    requires=("ep_size", "routed_experts", "model_label"),
    title=Text(en="The EP size does not divide the routed experts", zh="EP 大小不能整除路由专家数"),
    why=Text(
        en="With --enable-expert-parallel the EP size is TP x DP and every rank holds the same number of "
        "routed experts; an EP size that does not divide the expert count cannot be laid out.",
        zh="开启 --enable-expert-parallel 时 EP 大小为 TP x DP，每个 rank 持有相同数量的路由专家；"
        "EP 大小不能整除专家数时无法完成切分。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/issues/52435",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/docs/serving/expert_parallel_deployment.md?plain=1#L34-L52",
    ),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 3 --enable-expert-parallel\n",
            good="vllm serve /models/Qwen3-30B-A3B --tensor-parallel-size 4 --enable-expert-parallel\n",
        ),
    ),
)


@check(EP_MIXED, relations=(("conflicts", "expert_parallel", "moe_tp"),), when=("expert_parallel",))
def ep_mixed(scope: Scope):
    moe_tp = scope.get("moe_tp")
    if scope.get("expert_parallel") and moe_tp is not None and moe_tp > 1:
        read = scope.get("etp_read")
        stated = scope.known("version")
        assumed = stated is not None and stated.origin.startswith("assumed")
        tag = scope.get("version")
        if read is False and not assumed:
            return  # the stated release ignores the key (QL105 says so): no MoE tensor parallelism is asked for
        where = where_zh = ""
        if read is False:
            from qlint.rules.kit.options import releases_reading

            reading = ", ".join(releases_reading("expert_tensor_parallel_size"))
            where = (f"; the script names no release, and vllm-ascend reads this key only at {reading} "
                     f"(at {tag} it is ignored)")
            where_zh = f"；脚本未写明版本，而 vllm-ascend 只在 {reading} 读取该键（在 {tag} 中会被忽略）"
        span = kit.span_of(scope.serve, "--additional-config", "expert_tensor_parallel_size")
        yield Finding(
            EP_MIXED,
            Text(
                en=f"additional-config expert_tensor_parallel_size={moe_tp} with --enable-expert-parallel mixes MoE "
                f"tensor parallel and expert parallel (etp={moe_tp}); MoE must be pure EP or pure TP{where}",
                zh=f"additional-config 中 expert_tensor_parallel_size={moe_tp} 与 --enable-expert-parallel 同时使用，"
                f"混用了 MoE 张量并行与专家并行（etp={moe_tp}）；MoE 只能是纯 EP 或纯 TP{where_zh}",
            ),
            span,
            Fix(Text(en="set expert_tensor_parallel_size to 1 and keep --enable-expert-parallel",
                     zh="将 expert_tensor_parallel_size 设为 1，并保留 --enable-expert-parallel"),
                kit.set_key(scope.serve, "--additional-config", "expert_tensor_parallel_size", 1)),
        )


@check(EP_DENSE, when=("expert_parallel",))
def ep_dense(scope: Scope):
    if scope.get("expert_parallel") and not scope.get("moe"):
        option = scope.serve.opt("--enable-expert-parallel")
        model = scope.get("model").model.id
        yield Finding(
            EP_DENSE,
            Text(
                en=f"--enable-expert-parallel on {model}, a dense model without experts: vLLM stops at startup with "
                "'Number of experts in the model must be greater than 0 when expert parallelism is enabled'",
                zh=f"{model} 是没有专家的稠密模型，却设置了 --enable-expert-parallel：vLLM 启动时以 "
                "'Number of experts in the model must be greater than 0 when expert parallelism is enabled' 报错退出",
            ),
            kit.option_span(scope.serve, "--enable-expert-parallel"),
            Fix(Text(en="remove --enable-expert-parallel", zh="删除 --enable-expert-parallel"), kit.drop_option(option)),
        )


@check(EP_EXPERTS, relations=(("divides", "ep_size", "routed_experts"),), when=("ep_size", "routed_experts"))
def ep_experts(scope: Scope):
    ep_size = scope.get("ep_size")
    experts = scope.get("routed_experts")
    if ep_size is None or not experts or ep_size <= 1:
        return
    if experts % ep_size:
        choices = ", ".join(str(d) for d in [d for d in kit.divisors(experts) if 2 <= d <= 16][:4])
        yield Finding(
            EP_EXPERTS,
            Text(
                en=f"EP size {ep_size} (TP x DP with --enable-expert-parallel) does not divide the "
                f"{experts} routed experts of {scope.get('model_label')}",
                zh=f"EP 大小 {ep_size}（开启 --enable-expert-parallel 时为 TP x DP）不能整除 "
                f"{scope.get('model_label')} 的 {experts} 个路由专家",
            ),
            kit.option_span(scope.serve, "--tensor-parallel-size", "--enable-expert-parallel"),
            Fix(Text(en=f"choose TP x DP that divides {experts} (e.g. {choices})",
                     zh=f"选择能整除 {experts} 的 TP x DP（如 {choices}）"), safety="unsafe"),
        )

EXTERNAL_DP_DENSE = RuleMeta(
    id="QL208",
    name="external-dp-on-dense-model",
    behaviours=("vllm_external_dp_rejects_dense",),
    applies="vllm_external_dp_rejects_dense",
    groups=("parallelism",),
    severity="error",
    requires=("dp", "moe", "model", "version"),
    title=Text(en="External data parallel (--data-parallel-rank) on a dense model",
               zh="稠密模型使用外部数据并行（--data-parallel-rank）"),
    why=Text(
        en="With --data-parallel-rank each process is one rank of an externally balanced DP group. vLLM only "
        "allows that for MoE models and stops a dense model with 'Non-MoE models do not support external "
        "data parallel mode' when DP > 1. The Qwen3.5-27B/Qwen3.6-27B tutorial's PD recipe for the dense 27B models launches exactly "
        "this through launch_online_dp.py (reported in vllm-ascend#11863); run independent DP=1 instances "
        "behind the proxy instead.",
        zh="使用 --data-parallel-rank 时，每个进程是外部负载均衡 DP 组中的一个 rank。vLLM 只允许 MoE 模型这样做，"
        "稠密模型在 DP > 1 时会以 “Non-MoE models do not support external data parallel mode” 退出。Qwen3.5-27B/Qwen3.6-27B 教程 "
        "为稠密 27B 模型给出的 PD 方案正是通过 launch_online_dp.py 这样启动的（vllm-ascend#11863）；应改为在代理后面运行"
        "多个互相独立的 DP=1 实例。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L1860-L1870",
        "https://github.com/vllm-project/vllm-ascend/issues/11863",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
    ),
    faq="external-dp-dense",
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --data-parallel-size 8 --data-parallel-rank 0\n",
            good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --data-parallel-size 8 --data-parallel-rank 0\n",
        ),
    ),
)


@check(EXTERNAL_DP_DENSE, when=("option:--data-parallel-rank",))
def external_dp_dense(scope: Scope):
    option = scope.serve.opt("--data-parallel-rank")
    if option is None or scope.get("moe") or scope.get("dp") <= 1 or not kit.holds(scope, "vllm_external_dp_rejects_dense"):
        return
    yield Finding(
        EXTERNAL_DP_DENSE,
        Text(
            en=f"--data-parallel-rank with --data-parallel-size {scope.get('dp')} on the dense model "
            f"{scope.get('model').model.id}: vLLM stops with 'Non-MoE models do not support external data "
            "parallel mode'",
            zh=f"在稠密模型 {scope.get('model').model.id} 上将 --data-parallel-rank 与 --data-parallel-size "
            f"{scope.get('dp')} 一起使用：vLLM 会以 'Non-MoE models do not support external data parallel mode' 退出",
        ),
        option.span,
        Fix(Text(
            en="launch independent instances without --data-parallel-* (one per NPU group) behind the proxy",
            zh="在代理后面启动多个不带 --data-parallel-* 的独立实例（每组 NPU 一个）",
        )),
    )
