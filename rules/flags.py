"""Flag rules: JSON that does not parse (QL101) and options vllm serve does not have (QL102).
Values and sub-config keys are ``flag_values`` (QL105) and ``flag_keys`` (QL106).
"""

from __future__ import annotations

from functools import lru_cache

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.kit import options as option_facts
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

INVALID_JSON = RuleMeta(
    id="QL101",
    name="invalid-json-in-config-flag",
    groups=("flags",),
    severity="error",
    title=Text(
        en="A JSON-valued flag does not hold valid JSON",
        zh="JSON 类型的参数值不是合法的 JSON",
    ),
    why=Text(
        en="vLLM parses --speculative-config, --compilation-config, --kv-transfer-config and "
        "--additional-config with json.loads at startup; a stray quote or comma stops the server "
        "only after the container is up. The finding points at the character where parsing stopped.",
        zh="vLLM 在启动时用 json.loads 解析 --speculative-config、--compilation-config、"
        "--kv-transfer-config 与 --additional-config；多余的逗号或引号会让服务在容器启动后才失败。"
        "告警位置即解析中断的字符。",
    ),
    sources=("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/engine/arg_utils.py#L1465-L1489",),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\",}'\n",
            good="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
        ),
    ),
)

UNKNOWN_FLAG = RuleMeta(
    id="QL102",
    name="unknown-serve-flag",
    groups=("flags",),
    severity="error",
    optional=("version",),
    fix="unsafe",
    title=Text(en="vllm serve does not know this option", zh="vllm serve 不认识该参数"),
    why=Text(
        en="argparse stops vllm serve with 'unrecognized arguments' when an option is misspelt. "
        "The options are those of the release's own parser, extracted from its vLLM sources; underscores "
        "and dashes are interchangeable, unambiguous prefixes, -O3 and dotted -cc.key / --compilation-config.key "
        "are accepted where that release's FlexibleArgumentParser accepts them, so only names that match "
        "nothing in any known release are reported here (an option of another release is QL550's).",
        zh="参数拼写错误时 argparse 会以 “unrecognized arguments” 终止 vllm serve。参数表取自该版本 vLLM "
        "源码中的参数解析器；下划线与连字符等价，无歧义的前缀、-O3 以及 -cc.key / --compilation-config.key "
        "这类点号写法，只要该版本的 FlexibleArgumentParser 接受即不报告；只报告在所有已知版本中都不存在的名称"
        "（其他版本才有的参数由 QL550 报告）。",
    ),
    sources=("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/utils/argparse_utils.py#L302-L320",
             "https://github.com/vllm-project/vllm/blob/v0.25.1/vllm/utils/argparse_utils.py#L113",
             "https://github.com/vllm-project/vllm/blob/v0.25.1/vllm/engine/arg_utils.py#L790"),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --tensor-paralel-size 2\n",
            good="vllm serve Qwen/Qwen3.6-27B --tensor_parallel_size 2\n",
            fixed="vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2\n",
        ),
    ),
)


@check(INVALID_JSON)
def invalid_json(scope: Scope):
    for option in scope.serve.all_options:
        if option.json_error is not None:
            yield Finding(INVALID_JSON, _json_error_text(option), option.json_error_span or option.span)


def _json_error_text(option) -> Text:
    """The planner's English parse error, with a Chinese version (json's own message kept as is)."""
    prefix = f"invalid JSON in {option.spelled}: "
    error = option.json_error
    detail = error[len(prefix):] if error.startswith(prefix) else error
    return Text(en=error, zh=f"{option.spelled} 的值不是合法的 JSON：{detail}")


@lru_cache(maxsize=4096)
def _closest_option(candidate: str, names: tuple[str, ...]) -> list[str]:
    """The closest known option name (difflib's answer, cutoff 0.75, through the indexed matcher of
    ``kit.spelling``), once per distinct misspelling and release: a script repeating one unknown flag
    10,000 times pays for one search, and 10,000 distinct ones for 10,000 cheap ones (the matcher is imported
    on the first unknown flag: a script without one does not load it)."""
    from qlint.rules.kit.spelling import close_matches

    return close_matches(candidate, names, n=1, cutoff=0.75)


@check(UNKNOWN_FLAG)
def unknown_flag(scope: Scope):
    release = option_facts.facts(scope)
    names: tuple[str, ...] | None = None  # the names a misspelling is matched against (most scripts have none)
    for option in scope.serve.all_options:
        if release is not None:
            if option_facts.resolve(release, option) is not None:
                continue
            if option.known or option_facts.versions_with(option.name):
                continue  # an option of another release: QL550 says which
        elif option.known:
            continue
        written = option.spelled.split(".", 1)[0]
        candidate = "--" + written.lstrip("-").replace("_", "-")
        if names is None:
            names = tuple(release.long_names) if release is not None else tuple(scope.kb.flag_names)
        close = _closest_option(candidate, names)
        short = "-" + written[2:] if written.startswith("--") else ""
        doubled = False
        if not close and release is not None and short in release.spellings:
            close, doubled = [release.spellings[short]], True  # --tp: the short option -tp written with two dashes
        message = f"unknown option {written}"
        message_zh = f"未知参数 {written}"
        fix = None
        if close:
            meant = f"{short} ({close[0]})" if doubled else close[0]
            message += f"; did you mean {meant}?"
            message_zh += f"；是否想写 {meant}？"
            fix = Fix(Text(en=f"rename to {close[0]}", zh=f"改名为 {close[0]}"),
                      kit.replace(option.name_span, close[0] + option.spelled[len(written):]), "unsafe")
        cited = option_facts.parser_source(release) if release is not None else None
        yield Finding(UNKNOWN_FLAG, Text(en=message, zh=message_zh), option.name_span, fix,
                      sources=(cited,) if cited else None)


