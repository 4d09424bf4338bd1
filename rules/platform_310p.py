"""Atlas inference products (Atlas 300I Duo, Ascend 310P): float16 only, few graph sizes,
no npugraph_ex before v0.23.0, TP only, no PD disaggregation, no FP8 KV cache.

Sources: the Qwen3.5-27B/Qwen3.6-27B tutorial, section 5.1 (the 310P launch blocks), the 310P
guide and the 310P code at each release (pinned lines in each rule's ``sources``).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

MAX_SIZES_WITH_TP = 2


# -- QL501 ----------------------------------------------------------------------

DTYPE = RuleMeta(
    id="QL501",
    name="310p-dtype-float16",
    groups=("310p", "quantization"),
    severity="error",
    requires=("hardware", "dtype"),
    fix="safe",
    faq="atlas-300i-duo-deployment",
    title=Text(en="Atlas 300I (310P) needs --dtype float16", zh="Atlas 300I（310P）需要 --dtype float16"),
    why=Text(
        en="The 310P chip computes in float16 only: its Gated-DeltaNet kernels for Qwen3.5/3.6 raise a "
        "TypeError when q/k/v are not float16, and the guide asks for --dtype float16 on these cards. "
        "An explicit bfloat16/float32 is reported as an error. Leaving --dtype out is only a warning: the "
        "guide says it must be set, but the project's own 310P CI config omits it and no startup check "
        "exists, so the outcome depends on the checkpoint's dtype. The SSM cache of the GDN layers is forced "
        "to float16 by the 310P code, so --mamba-ssm-cache-dtype may be left out; another explicit value is "
        "ignored and reported as a warning.",
        zh="310P 芯片只支持 float16 计算：Qwen3.5/3.6 的 Gated-DeltaNet 算子在 q/k/v 不是 float16 时抛出 "
        "TypeError，部署指南也要求在这类卡上设置 --dtype float16。显式写 bfloat16/float32 报错误。未写 --dtype "
        "只报警告：指南说必须设置，但项目自己的 310P CI 配置并没有写，启动时也没有检查，结果取决于权重自身的 dtype。"
        "GDN 层的 SSM 缓存由 310P 代码强制为 float16，因此 --mamba-ssm-cache-dtype 可以不写；写成其他值会被忽略，报警告。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/_310p/ops/fla/chunk_gated_delta_rule.py#L196-L197",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/_310p/ops/fla/gdn_310.py#L149-L151",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/tests/e2e/weekly/single_node/configs/Qwen3.6-27B-W8A8-310P-300I-DUO.yaml",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype bfloat16 --enforce-eager\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16 --enforce-eager\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16 --enforce-eager\n",
            hardware="310p",
            version="v0.23.0",
        ),
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --enforce-eager\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype half --enforce-eager\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --dtype float16 --tensor-parallel-size 2 --enforce-eager\n",
            hardware="310p",
            version="v0.23.0",
        ),
    ),
)

_FP16 = ("float16", "half")


@check(DTYPE)
def dtype_float16(scope: Scope):
    if scope.get("hardware") != "310p":
        return
    serve = scope.serve
    dtype = scope.get("dtype")
    option = serve.opt("--dtype")
    if dtype not in _FP16:
        if option is not None and option.value is not None and dtype != "auto":
            yield Finding(
                DTYPE,
                Text(
                    en=f"--dtype {dtype} on Atlas 300I (310P): the chip only computes in float16",
                    zh=f"在 Atlas 300I（310P）上使用了 --dtype {dtype}：该芯片只支持 float16 计算",
                ),
                option.value.span,
                Fix(Text(en="set --dtype float16", zh="将 --dtype 设为 float16"), kit.set_value(serve, "--dtype", "float16")),
            )
        elif option is not None and option.value is not None:
            yield Finding(
                DTYPE,
                Text(
                    en="--dtype auto on Atlas 300I (310P) follows the checkpoint, usually bfloat16; the guide asks for float16",
                    zh="Atlas 300I（310P）上 --dtype auto 会沿用权重的 dtype（通常为 bfloat16）；指南要求使用 float16",
                ),
                option.value.span,
                Fix(Text(en="set --dtype float16", zh="将 --dtype 设为 float16"), kit.set_value(serve, "--dtype", "float16")),
                severity="warning",
            )
        else:
            yield Finding(
                DTYPE,
                Text(
                    en="no --dtype on Atlas 300I (310P): the checkpoint's dtype (usually bfloat16) is used, "
                    "but the guide asks for --dtype float16",
                    zh="Atlas 300I（310P）上未设置 --dtype：将使用权重自身的 dtype（通常为 bfloat16），"
                    "但指南要求 --dtype float16",
                ),
                kit.model_span(serve),
                Fix(Text(en="add --dtype float16", zh="添加 --dtype float16"), kit.insert_option(serve, "--dtype float16")),
                severity="warning",
            )
    ssm = serve.opt("--mamba-ssm-cache-dtype")
    if ssm is not None and ssm.value is not None and ssm.value.text is not None:
        value = ssm.value.text.lower()
        if value not in _FP16 and value != "auto":
            yield Finding(
                DTYPE,
                Text(
                    en=f"--mamba-ssm-cache-dtype {value} on Atlas 300I (310P): only float16 is supported "
                    "(the 310P GDN layers force a float16 SSM cache, so this value is ignored)",
                    zh=f"Atlas 300I（310P）上设置了 --mamba-ssm-cache-dtype {value}：只支持 float16"
                    "（310P 的 GDN 层强制使用 float16 的 SSM 缓存，因此该值会被忽略）",
                ),
                ssm.value.span,
                Fix(Text(en="set --mamba-ssm-cache-dtype float16", zh="将 --mamba-ssm-cache-dtype 设为 float16"),
                    kit.set_value(serve, "--mamba-ssm-cache-dtype", "float16")),
                severity="warning",
            )


# -- QL502 ----------------------------------------------------------------------

CAPTURE = RuleMeta(
    id="QL502",
    name="310p-capture-sizes",
    behaviours=("graph_mode_on_310p",),
    groups=("310p", "graph-capture"),
    severity="error",
    requires=("hardware", "version", "tp", "cudagraph_mode", "capture_sizes", "compilation", "mtp_tokens",
              "max_num_seqs"),
    fix="unsafe",
    faq="atlas-300i-duo-deployment",
    title=Text(en="Graph capture on Atlas 300I (310P) asks for more graphs than the card can hold",
               zh="Atlas 300I（310P）上的图捕获数量超出硬件能力"),
    why=Text(
        en="Up to v0.18.0rc1 the 310P guide allows eager mode only; the code has no such check and a user report "
        "(vllm-ascend#8284) shows a server starting in graph mode there, so that is a warning. From v0.18.0 graph mode "
        "is supported on 310P, but "
        "with TP > 1 the card's event-id resources limit how many graphs can be captured: the guide allows "
        "at most two capture sizes (e.g. [1, 8], or [2, 8] with one MTP token since FULL decode sizes are "
        "multiples of k + 1). The default list (1, 2, 4, 8, 16, ... up to max_num_seqs x (1 + k)) has far "
        "more sizes, so an unset list is reported as well. TP = 1 has no such limit.",
        zh="v0.18.0rc1 及以前，310P 指南只允许 eager 模式；代码并无此检查，用户报告（vllm-ascend#8284）显示服务在图模式下也能启动，"
        "因此只报警告。自 v0.18.0 起 310P 支持图模式，但 TP > 1 时受硬件 "
        "event-id 资源限制，能捕获的图数量有限：指南规定最多两个捕获尺寸（如 [1, 8]；MTP 为 1 个 token 时 FULL "
        "decode 尺寸须是 k + 1 的倍数，即 [2, 8]）。默认列表（1、2、4、8、16……直到 max_num_seqs x (1 + k)）"
        "尺寸远多于此，因此未设置列表同样会报告。TP = 1 没有这一限制。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.18.0rc1/docs/source/tutorials/hardwares/310p.md?plain=1#L5",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.18.0/docs/source/tutorials/hardwares/310p.md?plain=1#L7-L9",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0rc1/docs/source/tutorials/hardwares/310p.md?plain=1#L23-L27",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L427",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/platform.py#L207-L241",
        "https://github.com/vllm-project/vllm-ascend/issues/8284",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 4 --dtype float16 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [1, 4, 8, 16]}'\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 4 --dtype float16 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [1, 8]}'\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 4 --dtype float16 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [1, 8]}'\n",
            hardware="310p",
            version="v0.23.0",
        ),
        Example(
            bad="vllm serve /models/Qwen3-32B --tensor-parallel-size 2 --dtype float16\n",
            good="vllm serve /models/Qwen3-32B --tensor-parallel-size 2 --dtype float16 --enforce-eager\n",
            fixed="vllm serve /models/Qwen3-32B --enforce-eager --tensor-parallel-size 2 --dtype float16\n",
            hardware="310p",
            version="v0.18.0rc1",
        ),
    ),
)


def default_capture_sizes(max_size: int) -> list[int]:
    """vLLM's capture list when none is given: 1, 2, 4, then steps of 8 to 248, then 16 (vLLM 0.23.0)."""
    max_size = min(max_size, kit.ENUMERATION_CAP)  # 10^9 would be a list of that size
    sizes = [size for size in (1, 2, 4) if size <= max_size]
    if max_size >= 8:
        sizes += list(range(8, min(max_size + 1, 256), 8))
    if max_size >= 256:
        sizes += list(range(256, max_size + 1, 16))
    return sizes


def two_sizes(mtp_tokens: int, max_num_seqs: int) -> list[int]:
    """Two capture sizes for TP > 1 on 310P: one decode step and about 8 tokens, both multiples
    of 1 + k (FULL decode graphs are rounded to multiples of the query length)."""
    step = 1 + mtp_tokens
    largest = max(step, max_num_seqs * step)
    big = min(-(-8 // step) * step, largest)
    return [step] if big == step else [step, big]


@check(CAPTURE)
def capture_sizes(scope: Scope):
    if scope.get("hardware") != "310p" or scope.get("cudagraph_mode") == "NONE":
        return
    serve = scope.serve
    mode = scope.get("cudagraph_mode")
    where = kit.at_version(scope)
    documented = kit.first_release(scope.kb, "graph_mode_on_310p")
    if not kit.holds(scope, "graph_mode_on_310p"):
        yield Finding(
            CAPTURE,
            Text(
                en=f"graph mode {mode} on Atlas 300I (310P) at {where.en}: the 310P guide of this release allows eager "
                f"mode only (graph mode is documented from {documented})",
                zh=f"{where.zh} 在 Atlas 300I（310P）上使用图模式 {mode}：该版本的 310P 指南只允许 eager 模式"
                f"（图模式自 {documented} 起才有文档支持）",
            ),
            kit.span_of(serve, "--compilation-config", "cudagraph_mode", absent=kit.model_span(serve)),
            # unsafe like the rule's other fix: the server does start in graph mode here, and eager mode runs slower
            Fix(Text(en="add --enforce-eager", zh="添加 --enforce-eager"), kit.insert_option(serve, "--enforce-eager"),
                safety="unsafe"),
            severity="warning",
        )
        return
    tp = scope.get("tp")
    if tp <= 1:
        return
    mtp, max_num_seqs = scope.get("mtp_tokens"), scope.get("max_num_seqs")
    suggestion = two_sizes(mtp, max_num_seqs)
    sizes = scope.get("capture_sizes")
    if sizes is None:
        configured = scope.get("compilation").get("max_cudagraph_capture_size")
        max_size = configured if isinstance(configured, int) else min(max_num_seqs * (1 + mtp), 512)
        default = default_capture_sizes(max_size)
        if len(default) <= MAX_SIZES_WITH_TP:
            return
        yield Finding(
            CAPTURE,
            Text(
                en=f"TP={tp} on Atlas 300I (310P) at {where.en}: graph mode {mode} with the default capture list "
                f"captures {len(default)} sizes (1, 2, 4, ... {default[-1]}), but at most {MAX_SIZES_WITH_TP} fit "
                "when TP > 1",
                zh=f"{where.zh} 在 Atlas 300I（310P）上 TP={tp}：图模式 {mode} 使用默认捕获列表，会捕获 "
                f"{len(default)} 个尺寸（1, 2, 4, ... {default[-1]}），但 TP > 1 时最多只能容纳 {MAX_SIZES_WITH_TP} 个",
            ),
            kit.span_of(serve, "--compilation-config", "cudagraph_mode", absent=kit.model_span(serve)),
            Fix(Text(en=f"set \"cudagraph_capture_sizes\": {suggestion} in --compilation-config (or use TP=1)",
                     zh=f"在 --compilation-config 中设置 \"cudagraph_capture_sizes\": {suggestion}（或改用 TP=1）"),
                safety="unsafe"),
        )
    elif len(sizes) > MAX_SIZES_WITH_TP:
        span = kit.span_of(serve, "--compilation-config", "cudagraph_capture_sizes", absent=kit.model_span(serve))
        yield Finding(
            CAPTURE,
            Text(
                en=f"TP={tp} on Atlas 300I (310P) at {where.en}: {len(sizes)} capture sizes {sizes}, but at most "
                f"{MAX_SIZES_WITH_TP} fit when TP > 1",
                zh=f"{where.zh} 在 Atlas 300I（310P）上 TP={tp}：设置了 {len(sizes)} 个捕获尺寸 {sizes}，"
                f"但 TP > 1 时最多只能容纳 {MAX_SIZES_WITH_TP} 个",
            ),
            span,
            Fix(Text(en=f"capture two sizes: {suggestion}", zh=f"只捕获两个尺寸：{suggestion}"),
                kit.set_key(serve, "--compilation-config", "cudagraph_capture_sizes", suggestion),
                safety="unsafe"),
        )


# -- QL503 ----------------------------------------------------------------------

NPUGRAPH_EX = RuleMeta(
    id="QL503",
    name="310p-npugraph-ex",
    behaviours=("npugraph_ex_default_on", "npugraph_ex_auto_off_on_310p"),
    applies="npugraph_ex_default_on",
    groups=("310p", "graph-capture"),
    severity="error",
    requires=("hardware", "version", "cudagraph_mode", "additional_config"),
    fix="safe",
    faq="atlas-300i-duo-deployment",
    title=Text(en="npugraph_ex must be off on Atlas 300I (310P) before v0.23.0",
               zh="v0.23.0 之前在 Atlas 300I（310P）上必须关闭 npugraph_ex"),
    why=Text(
        en="npugraph_ex is on by default since v0.16.0rc1 and stays on in FULL / FULL_DECODE_ONLY graph modes "
        "(piecewise modes switch it off), but the 310P does not support it. Up to v0.23.0rc1 the script must "
        "pass ascend_compilation_config.enable_npugraph_ex=false, as the guide says. From v0.23.0 vllm-ascend "
        "switches it off on 310P by itself with a warning, so the setting is only redundant there (info); the "
        "guide still calls it required, and the rule follows the code for those releases.",
        zh="npugraph_ex 自 v0.16.0rc1 起默认开启，在 FULL / FULL_DECODE_ONLY 图模式下保持开启（分段模式会关闭它），"
        "而 310P 不支持该特性。v0.23.0rc1 及以前，脚本必须按指南传入 ascend_compilation_config.enable_npugraph_ex=false。"
        "自 v0.23.0 起 vllm-ascend 会在 310P 上自动关闭它并打印警告，此时该设置只是多余（提示）；指南仍称其必需，"
        "对这些版本规则以代码为准。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0rc1/vllm_ascend/ascend_config.py#L590",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0rc1/vllm_ascend/platform.py#L590-L633",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/ascend_config.py#L640-L650",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [2, 8]}' "
            "--additional-config '{\"ascend_compilation_config\": {\"enable_npugraph_ex\": true}}'\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [2, 8]}' "
            "--additional-config '{\"ascend_compilation_config\": {\"enable_npugraph_ex\": false}}'\n",
            fixed="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16 "
            "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\", \"cudagraph_capture_sizes\": [2, 8]}' "
            "--additional-config '{\"ascend_compilation_config\": {\"enable_npugraph_ex\": false}}'\n",
            hardware="310p",
            version="v0.23.0rc1",
        ),
    ),
)

_NPUGRAPH_KEY = "ascend_compilation_config.enable_npugraph_ex"
_DISABLE_JSON = '{"ascend_compilation_config": {"enable_npugraph_ex": false}}'


@check(NPUGRAPH_EX)
def npugraph_ex(scope: Scope):
    if scope.get("hardware") != "310p" or scope.get("cudagraph_mode") not in ("FULL", "FULL_DECODE_ONLY"):
        return
    serve = scope.serve
    config = scope.get("additional_config")
    compilation = config.get("ascend_compilation_config")
    value = compilation.get("enable_npugraph_ex") if isinstance(compilation, dict) else None
    where = kit.at_version(scope)
    if not kit.holds(scope, "npugraph_ex_default_on"):
        return
    if kit.holds(scope, "npugraph_ex_auto_off_on_310p"):
        if value is None:
            return
        edits = kit.drop_key(serve, "--additional-config", _NPUGRAPH_KEY)  # the whole option when nothing is left
        outcome = "redundant" if value is False else f"ignored ({str(value).lower()})"
        outcome_zh = "是多余的" if value is False else f"会被忽略（{str(value).lower()}）"
        yield Finding(
            NPUGRAPH_EX,
            Text(
                en=f"ascend_compilation_config.enable_npugraph_ex is {outcome} at {where.en}: vllm-ascend turns "
                "npugraph_ex off on Atlas 300I (310P) by itself since v0.23.0",
                zh=f"在 {where.zh} 中 ascend_compilation_config.enable_npugraph_ex 的设置{outcome_zh}："
                "自 v0.23.0 起 vllm-ascend 会在 Atlas 300I（310P）上自动关闭 npugraph_ex",
            ),
            kit.span_of(serve, "--additional-config", _NPUGRAPH_KEY, absent=kit.model_span(serve)),
            Fix(Text(en="remove the enable_npugraph_ex setting", zh="删除 enable_npugraph_ex 设置"), edits),
            severity="info",
        )
        return
    if value is False:
        return
    option = serve.opt("--additional-config")
    if value is not None:
        span = kit.span_of(serve, "--additional-config", _NPUGRAPH_KEY, absent=kit.model_span(serve))
        fix = Fix(Text(en="set enable_npugraph_ex to false", zh="将 enable_npugraph_ex 设为 false"),
                  kit.set_key(serve, "--additional-config", _NPUGRAPH_KEY, False))
        said = said_zh = f"enable_npugraph_ex={str(value).lower()}"
    elif option is None:
        span = kit.span_of(serve, "--compilation-config", "cudagraph_mode", absent=kit.model_span(serve))
        fix = Fix(Text(en="add --additional-config with enable_npugraph_ex false",
                       zh="添加 --additional-config，将 enable_npugraph_ex 设为 false"),
                  kit.insert_option(serve, f"--additional-config '{_DISABLE_JSON}'"))
        said, said_zh = "npugraph_ex left at its default (on)", "npugraph_ex 保持默认值（开启）"
    else:
        span = kit.span_of(serve, "--additional-config")
        fix = Fix(Text(en='add "ascend_compilation_config": {"enable_npugraph_ex": false} to --additional-config',
                       zh='在 --additional-config 中加入 "ascend_compilation_config": {"enable_npugraph_ex": false}'))
        said, said_zh = "npugraph_ex left at its default (on)", "npugraph_ex 保持默认值（开启）"
    yield Finding(
        NPUGRAPH_EX,
        Text(
            en=f"{said} with graph mode {scope.get('cudagraph_mode')} on Atlas 300I (310P) at {where.en}: the 310P does "
            "not support npugraph_ex and vllm-ascend only switches it off itself from v0.23.0",
            zh=f"{where.zh} 在 Atlas 300I（310P）上以图模式 {scope.get('cudagraph_mode')} 运行，且 {said_zh}："
            "310P 不支持 npugraph_ex，而 vllm-ascend 从 v0.23.0 起才会自动关闭它",
        ),
        span,
        fix,
    )


# -- QL504-QL506 ----------------------------------------------------------------

TP_ONLY = RuleMeta(
    id="QL504",
    name="310p-tp-only",
    groups=("310p", "parallelism"),
    severity="error",
    requires=("hardware", "dp", "expert_parallel"),
    fix="unsafe",
    faq="atlas-300i-duo-deployment",
    title=Text(en="Atlas 300I (310P) supports tensor parallel only", zh="Atlas 300I（310P）只支持张量并行"),
    why=Text(
        en="The guide for Atlas inference products states that only the TP scenario is supported (TP=2 or "
        "TP=4). The 310P worker still has a data-parallel code path, but it is not a supported layout, and "
        "expert parallelism is not offered on these cards either; the rule follows the guide.",
        zh="Atlas 推理产品的指南明确只支持 TP 场景（TP=2 或 TP=4）。310P worker 代码中虽保留了数据并行分支，"
        "但这并不是受支持的部署方式，这类卡也不提供专家并行；规则以指南为准。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L800-L828",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L181-L378",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L908",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --data-parallel-size 2 --dtype float16\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 4 --dtype float16\n",
            hardware="310p",
        ),
    ),
)


@check(TP_ONLY)
def tp_only(scope: Scope):
    if scope.get("hardware") != "310p":
        return
    serve = scope.serve
    dp = scope.get("dp")
    if dp > 1:
        yield Finding(
            TP_ONLY,
            Text(
                en=f"--data-parallel-size {dp} on Atlas 300I (310P): only the TP scenario is supported",
                zh=f"Atlas 300I（310P）上设置了 --data-parallel-size {dp}：只支持 TP（张量并行）场景",
            ),
            kit.span_of(serve, "--data-parallel-size", absent=kit.model_span(serve)),
            Fix(Text(en=f"use tensor parallel only (e.g. TP={min(4, 2 * dp)}) or run separate instances",
                     zh=f"只使用张量并行（如 TP={min(4, 2 * dp)}），或分别运行多个独立实例"), safety="unsafe"),
        )
    if scope.get("expert_parallel"):
        option = serve.opt("--enable-expert-parallel")
        yield Finding(
            TP_ONLY,
            Text(
                en="--enable-expert-parallel on Atlas 300I (310P): only the TP scenario is supported",
                zh="Atlas 300I（310P）上开启了 --enable-expert-parallel：只支持 TP（张量并行）场景",
            ),
            kit.option_span(serve, "--enable-expert-parallel"),
            Fix(Text(en="remove --enable-expert-parallel", zh="删除 --enable-expert-parallel"),
                kit.drop_option(option), safety="unsafe"),
            # a guide's statement, not a startup check: vllm-ascend v0.11.0's own 300I page runs
            # Pangu-Pro-MoE with --enable-expert-parallel, and no code rejects it
            severity="warning",
        )


NO_PD = RuleMeta(
    id="QL505",
    name="310p-no-pd",
    groups=("310p", "pd"),
    severity="error",
    requires=("hardware", "kv_transfer"),
    faq="atlas-300i-duo-deployment",
    title=Text(en="PD disaggregation (KV transfer) is not supported on Atlas 300I (310P)",
               zh="Atlas 300I（310P）不支持 PD 分离（KV 传输）"),
    why=Text(
        en="The 310P model runner refuses any --kv-transfer-config with a ValueError when it allocates the KV "
        "cache, and the guide states that multi-node PD separation is not supported on these cards.",
        zh="310P 的 model runner 在分配 KV cache 时遇到任何 --kv-transfer-config 都会抛出 ValueError，"
        "指南也说明这类卡不支持多节点 PD 分离部署。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L380-L626",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.18.0rc1/vllm_ascend/_310p/model_runner_310p.py#L209",
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/vllm_ascend/_310p/model_runner_310p.py#L747",
    ),
    examples=(
        Example(
            bad="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16 "
            "--kv-transfer-config '{\"kv_connector\": \"MooncakeConnectorV1\", \"kv_role\": \"kv_producer\"}'\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --tensor-parallel-size 2 --dtype float16\n",
            hardware="310p",
        ),
    ),
)


@check(NO_PD)
def no_pd(scope: Scope):
    if scope.get("hardware") != "310p" or scope.get("kv_transfer") is None:
        return
    yield Finding(
        NO_PD,
        Text(
            en="--kv-transfer-config on Atlas 300I (310P): the 310P runner raises "
            "\"KV cache transfer is not supported for 310P\"",
            zh="Atlas 300I（310P）上设置了 --kv-transfer-config：310P 的 model runner 会抛出 "
            "\"KV cache transfer is not supported for 310P\"",
        ),
        kit.name_span(scope.serve, "--kv-transfer-config"),
        Fix(Text(en="serve prefill and decode in one instance (no --kv-transfer-config) or use Atlas A2/A3 for PD",
                 zh="在同一实例中完成 prefill 与 decode（不使用 --kv-transfer-config），或在 Atlas A2/A3 上做 PD 分离")),
    )


KV_FP8 = RuleMeta(
    id="QL506",
    name="310p-kv-cache-fp8",
    groups=("310p", "memory"),
    severity="error",
    requires=("hardware",),
    fix="safe",
    faq="atlas-300i-duo-deployment",
    title=Text(en="FP8 KV cache is not supported on Atlas 300I (310P)", zh="Atlas 300I（310P）不支持 FP8 KV cache"),
    why=Text(
        en="The 310P has no FP8 support. vLLM accepts --kv-cache-dtype fp8 and the server starts, but the "
        "first request crashes the engine; the maintainers' answer is to drop the option and keep the "
        "default KV cache dtype (float16 on these cards).",
        zh="310P 不支持 FP8。vLLM 接受 --kv-cache-dtype fp8，服务也能启动，但第一个请求就会让引擎崩溃；"
        "维护者给出的办法是去掉该参数，使用默认的 KV cache 类型（这类卡上为 float16）。",
    ),
    sources=("https://github.com/vllm-project/vllm-ascend/issues/8284",),
    examples=(
        Example(
            bad="vllm serve /models/Qwen3-30B-A3B-Instruct-2507 --tensor-parallel-size 2 --dtype float16 "
            "--kv-cache-dtype fp8 --enforce-eager\n",
            good="vllm serve /models/Qwen3-30B-A3B-Instruct-2507 --tensor-parallel-size 2 --dtype float16 "
            "--enforce-eager\n",
            fixed="vllm serve /models/Qwen3-30B-A3B-Instruct-2507 --tensor-parallel-size 2 --dtype float16 "
            "--enforce-eager\n",
            hardware="310p",
        ),
    ),
)


@check(KV_FP8)
def kv_cache_fp8(scope: Scope):
    if scope.get("hardware") != "310p":
        return
    option = scope.serve.opt("--kv-cache-dtype")
    if option is None or option.value is None or option.value.text is None:
        return
    value = option.value.text.strip().lower()
    if not value.startswith("fp8"):
        return
    yield Finding(
        KV_FP8,
        Text(
            en=f"--kv-cache-dtype {value} is not supported on Atlas 300I Duo / 310P: the server starts but "
            "crashes on the first request",
            zh=f"Atlas 300I Duo / 310P 不支持 --kv-cache-dtype {value}：服务能启动，但第一个请求就会使其崩溃",
        ),
        option.span,
        Fix(Text(en=f"remove --kv-cache-dtype {value} (use the default float16 KV cache)",
                 zh=f"删除 --kv-cache-dtype {value}（使用默认的 float16 KV 缓存）"), kit.drop_option(option)),
    )
