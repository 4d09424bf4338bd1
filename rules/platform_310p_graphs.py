"""Graph capture on Atlas inference products (Atlas 300I Duo, Ascend 310P): at most two capture
sizes with TP > 1 and eager mode before v0.18.0 (QL502), npugraph_ex off before v0.23.0 (QL503).

Sources: each rule's ``sources`` (the 310P guide and ``vllm_ascend/platform.py`` at each release).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

MAX_SIZES_WITH_TP = 2


# -- QL502 ----------------------------------------------------------------------

CAPTURE = RuleMeta(
    id="QL502",
    name="310p-capture-sizes",
    behaviours=("graph_mode_on_310p",),
    groups=("310p", "graph-capture"),
    severity="error",
    requires=("hardware", "version", "tp", "cudagraph_mode", "capture_sizes", "compilation", "mtp_tokens",
              "max_num_seqs"),
    optional=("batched_tokens",),
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


def two_sizes(mtp_tokens: int, max_num_seqs: int) -> list[int]:
    """Two capture sizes for TP > 1 on 310P: one decode step and about 8 tokens, both multiples
    of 1 + k (FULL decode graphs are rounded to multiples of the query length)."""
    step = 1 + mtp_tokens
    largest = max(step, max_num_seqs * step)
    big = min(-(-8 // step) * step, largest)
    return [step] if big == step else [step, big]


@check(CAPTURE, when=("hardware=310p",))
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
        batched = scope.known("batched_tokens")
        # vLLM clips the list to --max-num-batched-tokens and captures that size too; unknown: no clip
        default = kit.default_capture_sizes(max_size, batched.value if batched else max_size + 1)
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


@check(NPUGRAPH_EX, when=("hardware=310p",))
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
