"""Client rules: curl, lm_eval and ``vllm bench serve`` must ask for a name the server answers to.

Sources: the Qwen3.5-27B/Qwen3.6-27B tutorial, sections 6-8 (clients use the
--served-model-name), vLLM's OpenAI server (``The model `X` does not exist.``, HTTP 404).
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)
import re

from qlint.knowledge.text import Text
from qlint.rules.base import Edit, Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.plan import ClientCommand, Value

SERVE = "vllm serve Eco-Tech/Qwen3.5-27B-w8a8-mtp --served-model-name qwen3.5 --tensor-parallel-size 2\n"

NAME_MISMATCH = RuleMeta(
    id="QL801",
    name="client-model-name-mismatch",
    groups=("clients",),
    severity="error",
    scope="script",
    requires=("served_names",),
    fix="safe",
    title=Text(en="A client asks for a model name the server does not serve",
               zh="客户端请求的模型名不是服务端提供的名称"),
    why=Text(
        en="Once --served-model-name is given, vLLM answers only to those names; the model path is no "
        "longer accepted. A curl body, an lm_eval model= argument or vllm bench serve (which sends its "
        "--served-model-name, else its --model) naming anything else gets HTTP 404 'The model ... does "
        "not exist.' For vllm bench serve the fix adds --served-model-name and keeps --model, which the "
        "benchmark still needs to load the tokenizer.",
        zh="给出 --served-model-name 后，vLLM 只认这些名称，模型路径不再被接受。curl 请求体、lm_eval 的 model= "
        "参数或 vllm bench serve（发送其 --served-model-name，没有时发送 --model）若写了别的名字，会得到 HTTP 404"
        "“The model ... does not exist.”。对 vllm bench serve，修复方式是补上 --served-model-name 并保留 "
        "--model，因为基准工具仍要用它加载分词器。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L768-L796",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L628-L687",
        "https://github.com/vllm-project/vllm-ascend/blob/331c1926a7a35ce80378263a7df0dfcda24d0e6f/docs/source/tutorials/models/Qwen3.5-27B-Qwen3.6-27B.md?plain=1#L689-L766",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/entrypoints/openai/engine/serving.py#L234-L239",
    ),
    examples=(
        Example(
            bad=SERVE + "curl http://localhost:8000/v1/completions -d '{\"model\": \"qwen3.6\", \"prompt\": \"hi\"}'\n",
            good=SERVE + "curl http://localhost:8000/v1/completions -d '{\"model\": \"qwen3.5\", \"prompt\": \"hi\"}'\n",
            fixed=SERVE + "curl http://localhost:8000/v1/completions -d '{\"model\": \"qwen3.5\", \"prompt\": \"hi\"}'\n",
        ),
        Example(
            bad=SERVE + "vllm bench serve --model Eco-Tech/Qwen3.5-27B-w8a8-mtp --num-prompts 200\n",
            good=SERVE + "vllm bench serve --model Eco-Tech/Qwen3.5-27B-w8a8-mtp --served-model-name qwen3.5 "
            "--num-prompts 200\n",
            fixed=SERVE + "vllm bench serve --model Eco-Tech/Qwen3.5-27B-w8a8-mtp --served-model-name qwen3.5 "
            "--num-prompts 200\n",
        ),
    ),
)


def _word_at(client: ClientCommand, value: Value) -> tuple[int, Value] | None:
    """The argv word whose span is the model name's span (the whole word), with its index."""
    for index, word in enumerate(client.argv):
        if word.span == value.span:
            return index, word
    return None


def _curl_edits(client: ClientCommand, value: Value, name: str) -> list[Edit]:
    if _word_at(client, value) is not None or "'" in name:
        return []  # the span is the whole body: the key could not be located
    return [Edit(value.span, json.dumps(name))]


def _lm_eval_edits(client: ClientCommand, value: Value, name: str) -> list[Edit]:
    found = _word_at(client, value)
    if found is None or found[1].symbols or value.text is None:
        return []
    raw = found[1].raw
    pattern = re.compile(r"(?:(?<=[\s,'\"=])|^)(model=)" + re.escape(value.text) + r"(?=$|[,'\"\s])")
    new, count = pattern.subn(lambda m: m.group(1) + name, raw)
    return [Edit(value.span, new)] if count == 1 and re.fullmatch(r"[\w.\-/:]+", name) else []


def _bench_edits(client: ClientCommand, value: Value, name: str) -> tuple[Text | None, list[Edit]]:
    found = _word_at(client, value)
    if found is None:
        return None, []
    index, word = found
    from shlex import quote  # only when a fix writes a word

    text = word.text or ""
    flag = text.split("=", 1)[0] if text.startswith("--") else (client.argv[index - 1].text or "")
    if flag.replace("_", "-") == "--served-model-name":
        new = f"{flag}={quote(name)}" if text.startswith("--") else quote(name)
        return (Text(en=f"set --served-model-name to {name}", zh=f"将 --served-model-name 设为 {name}"),
                [Edit(value.span, new)])
    return (Text(en=f"add --served-model-name {name} (keep --model for the tokenizer)",
                 zh=f"添加 --served-model-name {name}（保留 --model，用于加载分词器）"),
            [Edit(value.span, f"{word.raw} --served-model-name {quote(name)}")])


TOOL_NAME = {"curl": "curl request body", "lm_eval": "lm_eval model_args", "vllm-bench": "vllm bench serve"}
TOOL_NAME_ZH = {"curl": "curl 请求体中指定的模型", "lm_eval": "lm_eval 的 model_args 中指定的模型",
                "vllm-bench": "vllm bench serve 请求的模型"}


@check(NAME_MISMATCH, when=("command:client",))
def name_mismatch(scope: Scope):
    served = scope.get("served_names")
    if not served:
        return
    listed = ", ".join(repr(n) for n in served)
    for client in scope.plan.clients():
        value = client.model_name
        if value is None or value.text is None or value.text in served or client.tool == "other":
            continue
        asked = value.text
        message = Text(
            en=f"{TOOL_NAME[client.tool]} asks for model {asked!r}, but the vllm serve command(s) in this "
            f"script answer only to {listed}; the server replies 404 \"The model `{asked}` does not exist.\"",
            zh=f"{TOOL_NAME_ZH[client.tool]}是 {asked!r}，但本脚本中的 vllm serve 命令只响应 {listed}；"
            f"服务端会返回 404 \"The model `{asked}` does not exist.\"",
        )
        if len(served) != 1:
            yield Finding(NAME_MISMATCH, message, value.span, Fix(Text(
                en=f"use one of the served names ({listed})", zh=f"改用服务端提供的名称之一（{listed}）")))
            continue
        name = served[0]
        if client.tool == "curl":
            description = Text(en=f"set \"model\" to {name!r}", zh=f"将 \"model\" 设为 {name!r}")
            edits = _curl_edits(client, value, name)
        elif client.tool == "lm_eval":
            description = Text(en=f"set model={name} in --model_args", zh=f"在 --model_args 中设置 model={name}")
            edits = _lm_eval_edits(client, value, name)
        else:
            named, edits = _bench_edits(client, value, name)
            description = named or Text(en=f"pass --served-model-name {name}",
                                              zh=f"传入 --served-model-name {name}")
        yield Finding(NAME_MISMATCH, message, value.span, Fix(description, edits))
