"""QL314: a model argument that names no model qlint knows, the rules that were skipped for it,
and how to name the model with a ``# qlint: model=<id>`` directive."""

from __future__ import annotations

from qlint.knowledge.base import checkpoint_name, name_words
from qlint.knowledge.text import Text
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check, default_graph

UNKNOWN_MODEL = RuleMeta(
    id="QL314",
    name="unknown-model",
    severity="info",
    groups=("model",),
    requires=("model_ref",),
    optional=("model", "local_model"),
    title=Text(en="The model argument names no model qlint knows", zh="模型参数指向 qlint 不认识的模型"),
    why=Text(
        en="Many checks need the model's architecture: attention and KV heads for TP, routed experts for EP, "
        "the context length for --max-model-len, the size of the weights for memory. qlint finds them from the "
        "model argument (a hub id or a directory whose last component starts with a known model id) or from the "
        "config.json of a local directory. A path such as /data/ckpt/final names no model, so those checks are "
        "skipped rather than guessed. Put `# qlint: model=<id>` (a model id of the knowledge, e.g. Qwen3.6-27B) "
        "on a line above the command to name it; the weight format still comes from the path or the checkpoint.",
        zh="许多检查需要模型的结构信息：TP 需要注意力头和 KV 头数，EP 需要路由专家数，--max-model-len 需要上下文长度，"
        "显存估算需要权重大小。qlint 从模型参数（Hub 上的 id，或最后一级以已知模型 id 开头的目录）或本地目录的 "
        "config.json 中获得这些信息。像 /data/ckpt/final 这样的路径无法对应任何模型，这些检查就会被跳过而不是猜测。"
        "在命令上方写一行 `# qlint: model=<id>`（知识库中的模型 id，例如 Qwen3.6-27B）即可指明模型；"
        "权重格式仍从路径或权重目录读取。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/user_guide/support_matrix/supported_models.md#L1-L16",
    ),
    examples=(
        Example(
            bad="vllm serve /data/ckpt/final --tensor-parallel-size 3 --max-model-len 300000\n",
            good="# qlint: model=Qwen3.6-27B\nvllm serve /data/ckpt/final --tensor-parallel-size 4 --max-model-len 262144\n",
            hardware="a2", version="v0.23.0",
        ),
        Example(
            bad="vllm serve my-org/finetune-v2 --tensor-parallel-size 2 --enable-expert-parallel\n",
            good="vllm serve Eco-Tech/Qwen3.6-35B-A3B-w8a8 --tensor-parallel-size 2 --enable-expert-parallel\n",
            hardware="a3", version="main",
        ),
    ),
)


def _suggestions(scope: Scope, reference: str) -> list[str]:
    from qlint.rules.kit.spelling import close_matches

    ids = tuple(model.id for model in scope.kb.models)
    words = name_words(reference)
    guesses = close_matches(checkpoint_name(reference), ids, n=2, cutoff=0.5)
    return guesses or [model.id for model in scope.kb.models if model.in_scope and model.id.lower() in words][:2]


@check(UNKNOWN_MODEL, when=("!model",))
def unknown_model(scope: Scope):
    if scope.known("model") is not None:
        return
    reference = scope.get("model_ref")
    skipped = sorted(default_graph().skipped_for_want_of("model", scope))
    if not skipped:
        return
    local = scope.known("local_model")
    read = f" (config.json of {local.value.name} was read)" if local is not None and local.value else ""
    read_zh = f"（已读取 {local.value.name} 的 config.json）" if local is not None and local.value else ""
    guesses = _suggestions(scope, reference)
    example = guesses[0] if guesses else "Qwen3.6-27B"
    hint = f"; closest known ids: {', '.join(guesses)}" if guesses else ""
    hint_zh = f"；最接近的已知 id：{'、'.join(guesses)}" if guesses else ""
    serve = scope.serve
    yield Finding(
        UNKNOWN_MODEL,
        Text(
            en=f"{reference} names no model qlint knows{read}, so {len(skipped)} rule(s) that need its architecture "
            f"were skipped: {', '.join(skipped)}{hint}",
            zh=f"{reference} 不对应 qlint 认识的任何模型{read_zh}，因此跳过了 {len(skipped)} 条需要模型结构信息的规则："
            f"{', '.join(skipped)}{hint_zh}",
        ),
        serve.model.span if serve.model is not None else serve.span,
        Fix(Text(en=f"name the model on a line above the command: # qlint: model={example}",
                 zh=f"在命令上方一行指明模型：# qlint: model={example}")),
    )
