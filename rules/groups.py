"""Rule groups: what a rule is about, for ``--select``/``--ignore``, ``[tool.qlint]``,
``qlint rules`` and the docs (like sqlfluff's rule groups).

A rule declares its groups in its ``RuleMeta.groups``; a group name selects every
rule in it. Group names are kebab-case and never the name of a rule.
"""

from __future__ import annotations

from qlint.knowledge.text import Text

GROUPS: dict[str, Text] = {
    "script": Text(en="Shell script structure", zh="Shell 脚本结构"),
    "flags": Text(en="vllm serve options and their values", zh="vllm serve 选项及其取值"),
    "host": Text(en="Host and container setup", zh="主机与容器设置"),
    "parallelism": Text(en="Tensor, data, expert and context parallelism", zh="张量、数据、专家与上下文并行"),
    "scheduling": Text(en="Scheduler limits and policies", zh="调度器限制与策略"),
    "memory": Text(en="NPU memory: weights, KV cache, allocator", zh="NPU 显存：权重、KV cache、分配器"),
    "graph-capture": Text(en="ACL graph capture and compilation", zh="ACL 图捕获与编译"),
    "310p": Text(en="Atlas 300I (310P) limits", zh="Atlas 300I（310P）的限制"),
    "quantization": Text(en="Quantized weights and dtypes", zh="量化权重与数据类型"),
    "release": Text(en="What a vllm-ascend release supports", zh="某个 vllm-ascend 版本支持的内容"),
    "redundant": Text(en="Settings that repeat a default", zh="与默认值重复的设置"),
    "env": Text(en="NPU environment variables", zh="NPU 环境变量"),
    "additional-config": Text(en="vllm-ascend --additional-config switches", zh="vllm-ascend 的 --additional-config 开关"),
    "speculative": Text(en="Speculative decoding (MTP)", zh="投机解码（MTP）"),
    "kv-transfer": Text(en="KV transfer connector configuration", zh="KV 传输连接器配置"),
    "pd": Text(en="Prefill/decode disaggregation", zh="预填充/解码分离部署"),
    "prefix-cache": Text(en="Prefix caching and the mamba cache", zh="前缀缓存与 Mamba 状态缓存"),
    "clients": Text(en="Clients of the server in the script", zh="脚本中访问服务的客户端"),
    "known-defects": Text(en="Known defects of a release (defects.toml)", zh="某个版本的已知缺陷（defects.toml）"),
    "model": Text(en="Which model is served and what qlint knows of it", zh="所服务的模型及 qlint 对它的了解"),
    "ray": Text(en="Ray clusters over several nodes", zh="跨多个节点的 Ray 集群"),
}
"""Every group, with a one-line description in English and Chinese."""


def check_groups(rule_id: str, groups: tuple[str, ...]) -> None:
    """Raise ValueError unless ``groups`` is a non-empty tuple of known group names."""
    if not groups:
        raise ValueError(f"{rule_id}: a rule needs at least one group (one of {', '.join(GROUPS)})")
    unknown = [group for group in groups if group not in GROUPS]
    if unknown:
        raise ValueError(f"{rule_id}: unknown group(s) {', '.join(unknown)}; known: {', '.join(GROUPS)}")
