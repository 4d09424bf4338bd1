"""The words qdoc itself writes, in English and Simplified Chinese.

Facts come from the knowledge (its ``Text`` fields carry both languages);
everything qdoc adds around them (headings, sentences that introduce a table,
names of scenarios and hardware as a reader sees them) lives here, once, in
both languages. ``say(lang, key, **values)`` picks and fills one string; a key
missing in either language is a KeyError at build time, never a silent fallback.
"""

from __future__ import annotations

LANGS = ("en", "zh_CN")
"""Site languages: directory names of the two trees and Sphinx ``language`` values."""

LANG_LABEL = {"en": "English", "zh_CN": "简体中文"}


def text_of(value, lang: str) -> str:
    """The language's side of a knowledge ``Text`` (``en`` / ``zh``)."""
    return value.en if lang == "en" else value.zh


HARDWARE_NAME = {
    "a2": ("Atlas 800 A2", "Atlas 800 A2"),
    "a3": ("Atlas 800 A3", "Atlas 800 A3"),
    "310p": ("Atlas 300I Duo (310P)", "Atlas 300I Duo（310P）"),
}

SCENARIO = {
    "high-throughput": (
        "High throughput",
        "高吞吐",
        "Many concurrent requests of moderate length: the node is split into as many data-parallel "
        "replicas as the weights allow, each with a large batch.",
        "适合大量中等长度的并发请求：在权重放得下的前提下，把整台机器切成尽可能多的数据并行副本，每个副本承载较大的批次。",
    ),
    "low-latency": (
        "Low latency",
        "低时延",
        "Few requests at a time where the time to each token matters most: small batches, shorter "
        "scheduling steps.",
        "同时在途的请求不多、最看重每个 token 的返回速度：批次小，每个调度步处理的 token 也少。",
    ),
    "long-context": (
        "Long context",
        "长上下文",
        "Prompts up to the model's full window: more tensor parallelism per replica so the KV cache of "
        "one long request fits.",
        "提示长度可达模型上限：每个副本使用更大的张量并行，让单个长请求的 KV 缓存放得下。",
    ),
}

QUANT_NAME = {"w8a8": ("W8A8", "W8A8"), "bf16": ("BF16", "BF16")}

FIX_SAFETY = {
    "safe": (
        "`qlint --fix` applies this fix. It only removes the fault the rule reports and keeps everything "
        "else the script says.",
        "`qlint --fix` 会自动应用此修复。修复只消除本规则指出的问题，脚本其余的意图保持不变。",
    ),
    "unsafe": (
        "A fix is suggested but never applied by `qlint --fix`: it changes behaviour beyond the reported "
        "fault (for example the parallel layout or the memory budget), so a person has to accept it.",
        "会给出修复建议，但 `qlint --fix` 不会自动应用：它带来的变化超出问题本身（例如并行布局或显存预算），需要人工确认。",
    ),
    "none": (
        "No automatic fix: the right change depends on what the deployment is meant to do. The finding's "
        "message says which values disagree.",
        "没有自动修复：正确的改法取决于部署的目标。告警信息会写明哪些取值彼此冲突。",
    ),
}

SEVERITY = {"error": ("error", "错误"), "warning": ("warning", "警告"), "info": ("info", "提示")}

SCOPE = {
    "serve": ("each `vllm serve` command", "每条 `vllm serve` 命令"),
    "script": ("the whole script", "整个脚本"),
    "deployment": ("scripts linted together as one deployment", "作为同一部署一起检查的多个脚本"),
}

RECORD_KIND = {
    "hardware": ("Hardware", "硬件"),
    "model": ("Model", "模型"),
    "variant": ("Checkpoint", "权重"),
    "release": ("Release", "版本"),
    "flag": ("vllm serve option", "vllm serve 参数"),
    "sub_config": ("JSON sub-config", "JSON 子配置"),
    "sub_config_key": ("JSON sub-config key", "JSON 子配置键"),
    "env": ("Environment variable", "环境变量"),
    "faq": ("FAQ entry", "常见问题条目"),
    "recipe": ("Recommended configuration", "推荐配置"),
    "redundant": ("Redundant setting", "冗余设置"),
    "architecture": ("Architecture numbers", "架构参数"),
    "defect": ("Known defect", "已知缺陷"),
    "behaviour": ("Release behaviour", "版本行为"),
}

STRINGS: dict[str, tuple[str, str]] = {
    # -- site -------------------------------------------------------------
    "site.title": ("qlint documentation", "qlint 文档"),
    "index.intro": (
        "qlint checks `vllm serve` launch scripts for Qwen3.5 and Qwen3.6 on vLLM-Ascend against a knowledge "
        "base in which every fact names its source. This site is rendered by `qdoc` from that same knowledge "
        "base and from the rule definitions, so a page cannot describe a flag, a limit or a command "
        "differently from the linter.",
        "qlint 依据一套逐条注明出处的知识库，检查在 vLLM-Ascend 上运行 Qwen3.5 与 Qwen3.6 的 `vllm serve` "
        "启动脚本。本站点由 `qdoc` 从同一知识库和规则定义生成，因此页面对参数、限制或命令的描述不可能与检查器不一致。",
    ),
    "index.promise": (
        "Every shell block of the deployment guides was linted with qlint while this site was built; a "
        "single finding at warning level or above stops the build.",
        "构建本站点时，部署指南中的每个 shell 代码块都经过了 qlint 检查；只要出现一条警告及以上级别的问题，构建就会失败。",
    ),
    "index.version": (
        "Commands target vllm-ascend {version}, the newest stable release in the knowledge base.",
        "命令面向 vllm-ascend {version}，即知识库中最新的正式版本。",
    ),
    "index.sections": ("Contents", "目录"),
    # -- guides index -------------------------------------------------------
    "guides.title": ("Deployment guides", "部署指南"),
    "guides.intro": (
        "One guide per model and hardware that the knowledge base supports. Each gives the image, the weights, "
        "a launch script per scenario, checks with curl, accuracy and performance runs, and the tuning table "
        "of the upstream tutorials.",
        "知识库支持的每一种模型与硬件组合各有一篇指南，内容包括镜像、权重、各场景的启动脚本、curl 验证、精度与性能测试命令，以及上游教程给出的调优表。",
    ),
    "guides.col.model": ("Model", "模型"),
    "guides.col.hardware": ("Hardware", "硬件"),
    "guides.col.single": ("Single-node scenarios", "单节点场景"),
    # -- guide page ---------------------------------------------------------
    "guide.title": ("{model} on {hardware}", "在 {hardware} 上部署 {model}"),
    "guide.intro": (
        "This page is generated from qlint's knowledge base. The launch scripts come from qlint's generator "
        "and, like every other shell block here, were linted during the build without a finding at warning "
        "level or above.",
        "本页由 qlint 知识库生成。启动脚本来自 qlint 的生成器；与本页其他 shell 代码块一样，它们在构建时都经过检查，没有任何警告及以上级别的问题。",
    ),
    "guide.facts": ("Model facts", "模型概况"),
    "guide.fact": ("Fact", "项目"),
    "guide.value": ("Value", "取值"),
    "guide.fact.kind": ("Architecture", "架构"),
    "guide.kind.moe": ("Mixture of experts, {experts} routed experts", "混合专家（MoE），{experts} 个路由专家"),
    "guide.kind.dense": ("Dense", "稠密模型"),
    "guide.kind.hybrid": ("hybrid attention (Gated DeltaNet layers plus full attention)",
                          "混合注意力（Gated DeltaNet 层加全注意力层）"),
    "guide.fact.layers": ("Layers / attention heads (Q, KV)", "层数 / 注意力头数（Q、KV）"),
    "guide.fact.context": ("Longest context (`--max-model-len`)", "最长上下文（`--max-model-len`）"),
    "guide.fact.mtp": ("MTP speculative method", "MTP 推测解码方法"),
    "guide.fact.none": ("none", "无"),
    "guide.fact.first": ("First vllm-ascend release on this hardware", "该硬件上首个支持的 vllm-ascend 版本"),
    "guide.prereq": ("Prerequisites", "前置条件"),
    "guide.prereq.node": (
        "One {hardware} node with {npus} NPUs of {hbm} GB HBM each ({total} GB in all).",
        "一台 {hardware}，共 {npus} 个 NPU，每个 {hbm} GB HBM（合计 {total} GB）。",
    ),
    "guide.prereq.driver": (
        "The Ascend NPU driver and firmware installed on the host; `npu-smi info` lists every NPU.",
        "宿主机已安装昇腾 NPU 驱动与固件，执行 `npu-smi info` 能看到全部 NPU。",
    ),
    "guide.prereq.docker": (
        "Docker on the host, and network access to quay.io and to ModelScope (or a local copy of the weights).",
        "宿主机已安装 Docker，并能访问 quay.io 和 ModelScope（或者本地已有权重副本）。",
    ),
    "guide.prereq.release": (
        "vllm-ascend {first} or later: older images do not carry this model for this hardware.",
        "vllm-ascend {first} 或更新版本：更早的镜像不支持在该硬件上运行此模型。",
    ),
    "guide.image": ("Container image", "容器镜像"),
    "guide.image.text": (
        "Use {image}. The tag is the vllm-ascend release; the suffix picks the build for the hardware: {suffixes}.",
        "使用 {image}。标签即 vllm-ascend 版本号，后缀决定对应哪种硬件的构建：{suffixes}。",
    ),
    "guide.image.nosuffix": ("no suffix for {hardware}", "{hardware} 不带后缀"),
    "guide.image.suffix": ("{suffix} for {hardware}", "{hardware} 用 {suffix}"),
    "guide.image.run": (
        "Start the container with every NPU of the node mapped in, then run the commands of the next sections inside it.",
        "启动容器并映射本机全部 NPU，之后各节的命令都在容器内执行。",
    ),
    "guide.weights": ("Weights", "模型权重"),
    "guide.weights.col.name": ("Checkpoint", "权重"),
    "guide.weights.col.id": ("Download id", "下载 ID"),
    "guide.weights.col.quant": ("Weights", "精度"),
    "guide.weights.col.size": ("Size", "大小"),
    "guide.weights.col.mtp": ("MTP head", "MTP 层"),
    "guide.yes": ("yes", "有"),
    "guide.no": ("no", "无"),
    "guide.weights.text": (
        "The launch scripts name the checkpoint by its ModelScope id. Download it once into the cache that "
        "the container mounts, and set `VLLM_USE_MODELSCOPE=True` in the shell that starts the server so "
        "vLLM resolves the id on ModelScope.",
        "启动脚本用 ModelScope ID 指定权重。先把权重下载到容器挂载的缓存目录，并在启动服务的 shell 中设置 "
        "`VLLM_USE_MODELSCOPE=True`，让 vLLM 到 ModelScope 解析该 ID。",
    ),
    "guide.single": ("Single-node deployment", "单节点部署"),
    "guide.single.text": (
        "Pick the scenario closest to your traffic. Each script was produced by qlint's generator for vllm-ascend "
        "{version}; its first comment lines record the hardware, the release and the sources of the sizing.",
        "选择与业务流量最接近的场景。每个脚本都由 qlint 的生成器针对 vllm-ascend {version} 生成，开头的注释记录了硬件、版本以及规格取值的出处。",
    ),
    "guide.variant": ("{quant} weights ({variant})", "{quant} 权重（{variant}）"),
    "guide.layout": (
        "TP {tp} x DP {dp} = {npus} of {total} NPUs, expert parallel {ep}; `--max-model-len` {len}, "
        "`--max-num-seqs` {seqs} per replica, `--max-num-batched-tokens` {batched}, MTP tokens {mtp}.",
        "TP {tp} x DP {dp} = 使用 {total} 个 NPU 中的 {npus} 个，专家并行{ep}；`--max-model-len` {len}，"
        "每个副本 `--max-num-seqs` {seqs}，`--max-num-batched-tokens` {batched}，MTP 推测 token 数 {mtp}。",
    ),
    "guide.on": ("on", "开启"),
    "guide.off": ("off", "关闭"),
    "guide.sized.recipe": (
        "Sized from the tutorials' recommended configuration for this scenario.",
        "规格取自上游教程针对该场景的推荐配置。",
    ),
    "guide.sized.derived": (
        "The tutorials give no table row for this case, so the generator sized it DP-first: the smallest TP "
        "that leaves room in HBM, the remaining NPUs as data-parallel replicas.",
        "上游教程没有覆盖这种情况，因此生成器按“DP 优先”原则确定规格：取能留出足够 HBM 余量的最小 TP，其余 NPU 作为数据并行副本。",
    ),
    "guide.refused": ("Not supported: {reason}", "不支持：{reason}"),
    "guide.single.none": (
        "One {hardware} node cannot hold this model; the multi-node section below has the plan that can.",
        "单台 {hardware} 放不下该模型；可行的方案见下方的多节点部署一节。",
    ),
    "guide.nodes": ("Multi-node deployment", "多节点部署"),
    "guide.nodes.text": (
        "One instance over several {hardware} nodes: TP within each node, one data-parallel group over the nodes "
        "(expert parallel for MoE models), every node but the first `--headless`. The scripts come from "
        "`qlint generate --nodes` and lint clean as one deployment; set the addresses named in them on every node.",
        "一个实例跨多台 {hardware}：每个节点内做 TP，所有节点组成一个数据并行组（MoE 模型开启专家并行），除第一台外均为 "
        "`--headless`。以下脚本由 `qlint generate --nodes` 生成，作为一个部署检查无问题；请在每个节点上设置脚本中引用的地址。",
    ),
    "guide.nodes.plan": ("{quant} weights on {nodes} nodes: TP {tp} x DP {dp}", "{quant} 权重，{nodes} 个节点：TP {tp} x DP {dp}"),
    "guide.nodes.order": ("Start the scripts in this order:", "按以下顺序启动脚本："),
    "guide.nodes.ray": (
        "The model's tutorial also runs it on a Ray cluster: every node starts Ray with the same network and "
        "device variables, and one `vllm serve --distributed-executor-backend ray` on the head node uses the NPUs "
        "of all of them. qlint writes tensor parallel over every NPU of the cluster (the supported-models table "
        "does not mark pipeline parallel for this model). The scripts come from `qlint generate --nodes N "
        "--executor ray` and lint clean as one deployment.",
        "该模型的教程也给出了在 Ray 集群上运行的方式：每个节点用相同的网络与设备变量启动 Ray，主节点上的一条 "
        "`vllm serve --distributed-executor-backend ray` 使用所有节点的 NPU。qlint 生成的是覆盖集群全部 NPU 的张量并行"
        "（支持模型列表没有为该模型标注流水线并行）。以下脚本由 `qlint generate --nodes N --executor ray` 生成，"
        "作为一个部署检查无问题。",
    ),
    "guide.nodes.ray.plan": ("Ray: {quant} weights on {nodes} nodes, TP {tp} over the cluster",
                             "Ray：{quant} 权重，{nodes} 个节点，TP {tp} 覆盖整个集群"),
    "guide.pd.plan": (
        "1P1D on {nodes} node(s): prefill TP {ptp} x DP {pdp}, decode TP {dtp} x DP {ddp} "
        "over {dnodes} node(s), the proxy on the prefill node. Generated by `qlint generate --pd 1P1D` and linted "
        "as one deployment:",
        "1P1D，共 {nodes} 个节点：预填充 TP {ptp} x DP {pdp}，解码 TP {dtp} x DP {ddp} 分布在 {dnodes} "
        "个节点上，代理运行在预填充节点。由 `qlint generate --pd 1P1D` 生成，并作为一个部署检查：",
    ),
    "guide.pd": ("Prefill/decode disaggregation", "预填充/解码分离（PD）部署"),
    "guide.pd.text": (
        "{hardware} supports PD disaggregation with the Mooncake connector: prefill instances "
        "(`kv_producer`) hand their KV cache to decode instances (`kv_consumer`) and a proxy spreads the "
        "requests. Lint all scripts of a deployment in one run (`qlint pd/`), so the rules that compare them see "
        "every side.",
        "{hardware} 支持基于 Mooncake 连接器的 PD 分离部署：预填充实例（`kv_producer`）把 KV 缓存交给解码实例（`kv_consumer`），"
        "由代理分发请求。请在一次运行中检查一个部署的全部脚本（`qlint pd/`），让需要相互比对的规则能看到每一侧。",
    ),
    "guide.pd.rules": ("Rules that check PD deployments:", "检查 PD 部署的规则："),
    "guide.pd.faq": ("Related FAQ entries:", "相关常见问题："),
    "guide.pd.none": ("Not supported: {reason}", "不支持：{reason}"),
    "guide.pd.reason": (
        "the knowledge base records no PD disaggregation for {hardware}",
        "知识库中没有 {hardware} 支持 PD 分离部署的记录",
    ),
    "guide.verify": ("Check the service", "验证服务"),
    "guide.verify.text": (
        "Once the log shows the server listening, ask for the model list and send one completion and one chat "
        "request. The `model` field must be the served name `{served}`: the server answers any other name "
        "with HTTP 404.",
        "日志显示服务开始监听后，先查询模型列表，再分别发送一次 completion 和一次 chat 请求。`model` "
        "字段必须是对外服务名 `{served}`，其他名字都会得到 HTTP 404。",
    ),
    "guide.verify.prompt": ("Explain tensor parallelism in one sentence.", "用一句话解释张量并行。"),
    "guide.verify.chat": ("What is the capital of France?", "法国的首都是哪里？"),
    "guide.accuracy": ("Accuracy", "精度评估"),
    "guide.accuracy.text": (
        "Run GSM8K through lm-evaluation-harness against the running server. `model=` is the served name; "
        "`tokenizer=` names the Hugging Face checkpoint so lm_eval can load the tokenizer locally.",
        "用 lm-evaluation-harness 对运行中的服务跑 GSM8K。`model=` 填对外服务名；`tokenizer=` "
        "填 Hugging Face 上的权重名，便于 lm_eval 在本地加载分词器。",
    ),
    "guide.perf": ("Performance", "性能评估"),
    "guide.perf.text": (
        "`vllm bench serve` sends random prompts at a fixed rate and reports throughput, TTFT and TPOT. "
        "`--model` loads the tokenizer, `--served-model-name` is the name sent in each request.",
        "`vllm bench serve` 以固定速率发送随机提示，并报告吞吐、TTFT 与 TPOT。`--model` 用于加载分词器，"
        "`--served-model-name` 是每个请求中携带的模型名。",
    ),
    "guide.tuning": ("Tuning table", "调优表"),
    "guide.tuning.text": (
        "Configurations the upstream tutorials recommend for {model} on {hardware} (per replica; empty "
        "cells mean the tutorial gives a range or leaves the value to the workload).",
        "上游教程为 {hardware} 上的 {model} 推荐的配置（按副本计；空白表示教程只给出范围或由负载决定）。",
    ),
    "guide.tuning.sources": ("Where the rows come from:", "各行数据的出处："),
    "guide.tuning.none": (
        "The tutorials give no recommended configuration for {model} on {hardware}; the scripts above were "
        "sized by the generator.",
        "上游教程没有给出 {hardware} 上 {model} 的推荐配置；上面的脚本由生成器确定规格。",
    ),
    "guide.col.scenario": ("Scenario", "场景"),
    "guide.col.weights": ("Weights", "精度"),
    "guide.col.nodes": ("Nodes", "节点数"),
    "guide.col.reason": ("Generator", "生成结果"),
    "guide.col.prefix": ("Prefix caching", "前缀缓存"),
    "guide.col.ep": ("Expert parallel", "专家并行"),
    "guide.col.mtp": ("MTP tokens", "MTP token 数"),
    "guide.disagree": ("Where the sources disagree", "来源之间的分歧"),
    "guide.disagree.text": (
        "The knowledge base records these conflicts between sources for this page and states which side "
        "qlint follows.",
        "知识库记录了与本页相关的来源冲突，并写明 qlint 采用哪一方。",
    ),
    "guide.faq": ("FAQ", "常见问题"),
    "guide.references": ("References", "参考来源"),
    # -- rules ----------------------------------------------------------------
    "rules.title": ("Rules", "规则"),
    "rules.intro": (
        "Every rule qlint reports, generated from its metadata. `qlint explain <rule>` prints the same text "
        "in a terminal.",
        "qlint 会报告的全部规则，内容由规则元数据生成。在终端执行 `qlint explain <规则>` 可以看到相同的说明。",
    ),
    "rules.col.rule": ("Rule", "规则"),
    "rules.col.name": ("Name", "名称"),
    "rules.col.severity": ("Severity", "级别"),
    "rules.col.fix": ("Fix", "修复"),
    "rules.col.title": ("What it checks", "检查内容"),
    "rules.col.groups": ("Groups", "分组"),
    "rules.groups": ("Rule groups", "规则分组"),
    "rules.groups.intro": (
        "Each rule belongs to one or more groups. A group name selects all its rules, like an id or a name: "
        "`qlint --select memory run.sh`, `--ignore 310p`, or `select = [\"pd\"]` in `[tool.qlint]`.",
        "每条规则属于一个或多个分组。分组名与规则 ID、名称一样可以用来选择规则："
        "`qlint --select memory run.sh`、`--ignore 310p`，或在 `[tool.qlint]` 中写 `select = [\"pd\"]`。",
    ),
    "rules.col.group": ("Group", "分组"),
    "rules.col.about": ("About", "内容"),
    "rules.col.members": ("Rules", "规则"),
    "rule.groups": ("Groups: {groups}.", "分组：{groups}。"),
    "rule.releases": ("Releases", "适用版本"),
    "rule.releases.applies": ("The rule applies to vllm-ascend {range}, where release behaviour {name} holds.",
                              "本规则适用于 vllm-ascend {range}，即版本行为 {name} 成立的版本。"),
    "rule.releases.all": ("The rule applies to every release qlint knows; what it reports depends on the release "
                          "behaviours below.",
                          "本规则适用于 qlint 已知的所有版本；它报告的内容取决于下列版本行为。"),
    "rule.releases.none": ("The rule applies to every release qlint knows.", "本规则适用于 qlint 已知的所有版本。"),
    "rule.behaviour": ("{name} ({range}{vllm}): {what}", "{name}（{range}{vllm}）：{what}"),
    "rule.behaviour.vllm": (", vLLM {range}", "，vLLM {range}"),
    "rule.behaviour.since": ("{since} and later", "{since} 及以后"),
    "rule.behaviour.between": ("{since} up to (not including) {until}", "{since} 起，{until} 之前"),
    "rule.behaviour.until": ("before {until}", "{until} 之前"),
    "rule.behaviour.follows": ("The sources disagree: {text}", "来源之间存在分歧：{text}"),
    "rule.meta": (
        "Severity: **{severity}**. Checked over {scope}. Fix: {fix}.",
        "级别：**{severity}**。检查范围：{scope}。修复：{fix}。",
    ),
    "rule.fix.safe": ("safe", "安全"),
    "rule.fix.unsafe": ("unsafe", "不安全"),
    "rule.fix.none": ("none", "无"),
    "rule.what": ("What it does", "检查内容"),
    "rule.facts": ("It reads these facts of the launch plan: {facts}.", "它读取启动计划中的这些事实：{facts}。"),
    "rule.why": ("Why is this bad?", "为什么有问题"),
    "rule.disagree": ("Sources disagree", "来源存在分歧"),
    "rule.disagree.text": (
        "The explanation above notes where the sources contradict each other and which side this rule follows.",
        "上面的说明指出了各来源相互矛盾之处，以及本规则采用哪一方。",
    ),
    "rule.example": ("Example", "示例"),
    "rule.example.n": ("Example {n}", "示例 {n}"),
    "rule.context": ("Linted for {context}.", "检查时使用的环境：{context}。"),
    "rule.ctx.hardware": ("hardware {hardware}", "硬件 {hardware}"),
    "rule.ctx.version": ("vllm-ascend {version}", "vllm-ascend {version}"),
    "rule.ctx.sep": (", ", "，"),
    "rule.peers": (
        "Linted together with these scripts of the same deployment:",
        "与同一部署中的以下脚本一起检查：",
    ),
    "rule.instead": ("Use instead", "推荐写法"),
    "rule.fixed": ("What `qlint --fix` makes of the example:", "`qlint --fix` 对示例的修改结果："),
    "rule.safety": ("Fix safety", "修复安全性"),
    "rule.references": ("References", "参考来源"),
    "rule.faq": ("FAQ: {link}", "常见问题：{link}"),
    "rule.noexample": ("This rule has no example yet.", "该规则暂无示例。"),
    # -- faq ------------------------------------------------------------------
    "faq.title": ("FAQ", "常见问题"),
    "gs.title": ("Get started", "快速上手"),
    "faq.intro": (
        "Each entry answers one question in a few sentences: the cause and what to change. Its fixed anchor, the "
        "entry's id, is what qlint findings and the guides link to; the links under each answer lead to the "
        "upstream documentation and the sources.",
        "每个条目用几句话回答一个问题：原因是什么、应当修改什么。条目 ID 是固定锚点，qlint 的检查结果和部署指南都链接到这里；"
        "每条解答下方的链接指向上游文档和来源。",
    ),
    "faq.anchor": ("Anchor: {anchor}", "锚点：{anchor}"),
    "faq.answer": ("Read more: {link}", "延伸阅读：{link}"),
    "faq.upstream": ("upstream documentation", "上游文档"),
    "faq.rules": ("Rules that link here: {rules}", "链接到此处的规则：{rules}"),
    "faq.sources": ("Sources: {sources}", "来源：{sources}"),
    # -- support matrix ---------------------------------------------------------
    "matrix.title": ("Support matrix", "支持矩阵"),
    "matrix.intro": (
        "Which vllm-ascend release runs which model on which hardware, from the first supported release "
        "recorded for each model.",
        "根据知识库记录的各模型首个支持版本，列出每个 vllm-ascend 版本在各硬件上支持哪些模型。",
    ),
    "matrix.releases": ("Releases", "版本"),
    "matrix.col.release": ("vllm-ascend", "vllm-ascend"),
    "matrix.col.date": ("Date", "日期"),
    "matrix.col.vllm": ("vLLM", "vLLM"),
    "matrix.col.stable": ("Stable", "正式版"),
    "matrix.models": ("Models per release", "各版本支持的模型"),
    "matrix.legend": (
        "✓ supported, ✗ not supported, ? no first release recorded. The 310P column uses the separate first "
        "release for Atlas inference products.",
        "✓ 表示支持，✗ 表示不支持，? 表示知识库未记录首个支持版本。310P 一列使用 Atlas 推理产品单独的首个支持版本。",
    ),
    "matrix.single": ("Single-node layouts at {version}", "{version} 的单节点布局"),
    "matrix.single.text": (
        "What the generator produces for the high-throughput scenario with W8A8 weights; refusals give the reason.",
        "生成器在高吞吐场景、W8A8 权重下给出的结果；无法生成时写明原因。",
    ),
    "matrix.first": ("first: {first}", "首个版本：{first}"),
    # -- disagreements -------------------------------------------------------------
    "disagree.title": ("Where the sources disagree", "来源之间的分歧"),
    "disagree.intro": (
        "The tutorials, the code and the release notes do not always agree. Each record below names both "
        "sides and the one qlint follows; rules whose explanation settles such a conflict are listed after them.",
        "上游教程、代码与发布说明并不总是一致。下面每条记录都写明了双方说法以及 qlint 采用的一方；之后列出在说明中处理此类冲突的规则。",
    ),
    "disagree.records": ("Knowledge records", "知识库记录"),
    "disagree.rules": ("Rules", "规则"),
    "disagree.rules.text": (
        "These rules explain a conflict between sources in their rationale:",
        "以下规则在原因说明中处理了来源之间的冲突：",
    ),
    # -- known defects ------------------------------------------------------------
    "defects.title": ("Known defects", "已知缺陷"),
    "defects.intro": (
        "Known defects of vllm-ascend releases, from the Known Issues of the release notes at each tag and from "
        "upstream issues and pull requests whose cause a maintainer confirmed. A launch that matches an entry is "
        "reported by the rule of its severity; each entry lists the lines and reports it was taken from.",
        "vllm-ascend 各版本的已知缺陷，来自各标签发布说明中的 Known Issues，以及经维护者确认原因的上游 issue 与 pull "
        "request。与某条目匹配的启动命令由对应严重级别的规则报告；每个条目都列出其所依据的原文行与报告。",
    ),
    "defects.counts": ("{total} entries: {notes} from release notes, {issues} from issues and pull requests.",
                       "共 {total} 条：{notes} 条来自发布说明，{issues} 条来自 issue 与合并请求。"),
    "defects.releases": ("Releases", "版本"),
    "defects.hardware": ("Hardware", "硬件"),
    "defects.models": ("Models", "模型"),
    "defects.matched": ("Matched", "匹配条件"),
    "defects.rule": ("Reported by", "报告规则"),
    "defects.workaround": ("Workaround", "规避方法"),
    "defects.any": ("any", "任意"),
    # -- cli -----------------------------------------------------------------------
    "cli.title": ("Command line", "命令行"),
    "cli.intro": (
        "Reference of the two commands this package installs: `qlint` checks scripts, `qdoc` builds this site.",
        "本软件包安装的两个命令的参考：`qlint` 检查脚本，`qdoc` 构建本站点。",
    ),
    "cli.help": (
        "The text below is the command's own `--help` output.",
        "下面是该命令自身 `--help` 的输出。",
    ),
}


def colon(lang: str) -> str:
    """The separator between a label and its text."""
    return ": " if lang == "en" else "："


def sentence_gap(lang: str) -> str:
    """What goes between two sentences: a space in English, nothing in Chinese."""
    return " " if lang == "en" else ""


def say(lang: str, key: str, **values) -> str:
    """The string ``key`` in ``lang`` (``en`` / ``zh_CN``), formatted with ``values``."""
    english, chinese = STRINGS[key]
    return (english if lang == "en" else chinese).format(**values)


def pick(pair: tuple[str, str], lang: str) -> str:
    """The ``lang`` side of an (en, zh) pair."""
    return pair[0] if lang == "en" else pair[1]


def hardware_name(hardware_id: str, lang: str) -> str:
    return pick(HARDWARE_NAME[hardware_id], lang)


def scenario_name(scenario: str, lang: str) -> str:
    entry = SCENARIO[scenario]
    return entry[0] if lang == "en" else entry[1]


def scenario_text(scenario: str, lang: str) -> str:
    entry = SCENARIO[scenario]
    return entry[2] if lang == "en" else entry[3]
