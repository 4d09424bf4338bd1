"""Rules about the options themselves: unknown flags, bad JSON, bad values, bad keys.

Sources (pinned lines in each rule's ``sources``): vLLM's FlexibleArgumentParser and argparse
``unrecognized arguments``, vLLM sub-configs as pydantic dataclasses with ``extra="forbid"``,
and vllm-ascend's free-form ``--additional-config`` that silently ignores unknown keys.
"""

from __future__ import annotations

import difflib
import json
import re
from functools import lru_cache

from qlint.knowledge.base import parse_version
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

BAD_VALUE = RuleMeta(
    id="QL106",
    name="invalid-option-value",
    groups=("flags",),
    severity="error",
    optional=("version",),
    title=Text(en="An option or JSON key has a value vLLM rejects", zh="参数或 JSON 键的取值会被 vLLM 拒绝"),
    why=Text(
        en="Integer options given text, choice options given a value outside their list "
        "(--dtype, --kv-cache-dtype, cudagraph_mode, kv_role, the speculative method, ...) and numbers "
        "outside the range the config field allows (--gpu-memory-utilization in (0, 1]) fail argument or "
        "config validation before the model loads. Types, choices and ranges are those of the release "
        "being linted, read from its vLLM sources (Field(gt=..., le=...) and __post_init__ checks); sizes "
        "such as 300k / 32K are read as vLLM's human_readable_int reads them.",
        zh="整数参数传入文本、枚举参数（--dtype、--kv-cache-dtype、cudagraph_mode、kv_role、投机方法等）"
        "取了列表之外的值，或数值超出配置字段允许的范围（--gpu-memory-utilization 须在 (0, 1] 内），都会在加载"
        "模型之前的参数校验阶段失败。类型、可选值和范围取自被检查版本的 vLLM 源码（Field(gt=..., le=...) 与 "
        "__post_init__ 中的检查）；300k、32K 这类大小按 vLLM 的 human_readable_int 解析。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/compilation.py#L53-L63",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/kv_transfer.py",
        "https://github.com/vllm-project/vllm/blob/v0.25.1/vllm/config/cache.py#L68",
        "https://github.com/vllm-project/vllm/blob/v0.25.1/vllm/utils/argparse_utils.py#L29",
    ),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE\"}'\n",
            good="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
        ),
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --gpu-memory-utilization 1.5\n",
            good="vllm serve Qwen/Qwen3.6-27B --gpu-memory-utilization 0.9\n",
            version="v0.25.1rc1",
        ),
    ),
)

UNKNOWN_KEY = RuleMeta(
    id="QL105",
    name="unknown-config-key",
    groups=("flags",),
    severity="error",
    requires=("version",),
    title=Text(en="A JSON sub-config has a key its reader does not know",
               zh="JSON 子配置中存在读取方不认识的键"),
    why=Text(
        en="--speculative-config, --compilation-config and --kv-transfer-config are validated with "
        "extra keys forbidden, so an unknown key stops startup. --additional-config ignores keys it "
        "does not read: a removed key (e.g. ascend_scheduler_config, torchair_graph_config) "
        "silently does nothing, which is reported as a warning.",
        zh="--speculative-config、--compilation-config 与 --kv-transfer-config 禁止多余的键，未知键会让启动失败。"
        "--additional-config 会忽略它不读取的键：已移除的键（如 ascend_scheduler_config、"
        "torchair_graph_config）不会生效，因此以警告报告。",
    ),
    sources=("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/utils.py#L58-L74",),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --speculative-config '{\"method\": \"mtp\", \"num_spec_tokens\": 1}'\n",
            good="vllm serve Qwen/Qwen3.6-27B --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'\n",
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
    """The closest known option name (difflib, cutoff 0.75), once per distinct misspelling and
    release: a script repeating one unknown flag 10,000 times pays for one search."""
    return difflib.get_close_matches(candidate, names, n=1, cutoff=0.75)

@check(UNKNOWN_FLAG)
def unknown_flag(scope: Scope):
    release = option_facts.facts(scope)
    names = tuple(release.long_names) if release is not None else tuple(scope.kb.flag_names)
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
        close = _closest_option(candidate, names)
        message = f"unknown option {written}"
        message_zh = f"未知参数 {written}"
        fix = None
        if close:
            message += f"; did you mean {close[0]}?"
            message_zh += f"；是否想写 {close[0]}？"
            fix = Fix(Text(en=f"rename to {close[0]}", zh=f"改名为 {close[0]}"),
                      kit.replace(option.name_span, close[0] + option.spelled[len(written):]), "unsafe")
        cited = option_facts.parser_source(release) if release is not None else None
        yield Finding(UNKNOWN_FLAG, Text(en=message, zh=message_zh), option.name_span, fix,
                      sources=(cited,) if cited else None)


def _type_ok(kind: str, value) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if kind == "dict":
        return isinstance(value, dict)
    if kind == "list":
        return isinstance(value, list)
    return True


# Integer options vLLM parses with human_readable_int (``8k`` = 8000, ``8K`` = 8192, ``25.6k``) and,
# for --max-model-len, human_readable_int_or_auto (also ``-1`` / ``auto``):
# vllm@v0.23.0:vllm/engine/arg_utils.py L354-364, vllm/utils/argparse_utils.py L29-91.
_HUMAN_READABLE_INTS = frozenset({
    "--max-model-len", "--max-num-batched-tokens", "--kv-cache-memory-bytes", "--safetensors-prefetch-block-size",
})
_HUMAN_INT = re.compile(r"\d+(?:\.\d+)?[kmgt]|\d+[KMGT]")


def _human_readable_int_ok(name: str, text: str) -> bool:
    text = text.strip()
    if name not in _HUMAN_READABLE_INTS:
        return False
    if name == "--max-model-len" and text.lower() == "auto":
        return True
    return _HUMAN_INT.fullmatch(text) is not None


# --additional-config is a plain dict read with additional_config.get(key, default): vllm-ascend
# does not check the type of these keys (vllm-ascend@v0.23.0:vllm_ascend/ascend_config.py L139-253),
# so Python's own reading applies. A string in a bool key is tested for truth (any non-empty
# string, "False" included, is true); a JSON true/false in an int key equals 1/0 (bool is an int).
_TRUE_WORDS = frozenset({"true", "1", "yes", "on", "y", "t"})


def _loose_type_finding(sub_closed: bool, key_spec, value, span):
    """For a key of a free-form sub-config whose value has the wrong JSON type: the finding, or None."""
    if sub_closed:
        return Finding(BAD_VALUE, Text(
            en=f"{key_spec.key} should be {key_spec.type}, got {json.dumps(value)}",
            zh=f"{key_spec.key} 应为 {key_spec.type} 类型，实际为 {json.dumps(value)}",
        ), span)
    if key_spec.type == "bool" and isinstance(value, str):
        if value.strip().lower() in _TRUE_WORDS:
            return Finding(
                BAD_VALUE,
                Text(
                    en=f"{key_spec.key} is the string {json.dumps(value)}, not the JSON boolean true; vllm-ascend only "
                    "tests it for truth, so it works, but write true",
                    zh=f"{key_spec.key} 是字符串 {json.dumps(value)}，不是 JSON 布尔值 true；vllm-ascend 只判断其真假，"
                    "因此能生效，但应写成 true",
                ),
                span,
                severity="info",
            )
        return Finding(
            BAD_VALUE,
            Text(
                en=f"{key_spec.key} is the string {json.dumps(value)}: vllm-ascend only tests it for truth and every "
                f"non-empty string is true, so this turns {key_spec.key} on; write false (a JSON boolean)",
                zh=f"{key_spec.key} 是字符串 {json.dumps(value)}：vllm-ascend 只判断其真假，而任何非空字符串都为真，"
                f"因此这会开启 {key_spec.key}；应写成 false（JSON 布尔值）",
            ),
            span,
        )
    if key_spec.type == "bool" and isinstance(value, (int, float)):
        return Finding(
            BAD_VALUE,
            Text(
                en=f"{key_spec.key} is the number {json.dumps(value)}, which vllm-ascend reads as "
                f"{json.dumps(bool(value))}; write {json.dumps(bool(value))}",
                zh=f"{key_spec.key} 是数字 {json.dumps(value)}，vllm-ascend 会将其读作 "
                f"{json.dumps(bool(value))}；应写成 {json.dumps(bool(value))}",
            ),
            span,
            severity="info",
        )
    if key_spec.type in ("int", "float") and isinstance(value, bool):
        return Finding(
            BAD_VALUE,
            Text(
                en=f"{key_spec.key} is {json.dumps(value)}, which Python reads as {int(value)}; write {int(value)}",
                zh=f"{key_spec.key} 为 {json.dumps(value)}，Python 会将其读作 {int(value)}；应写成 {int(value)}",
            ),
            span,
            severity="info",
        )
    return Finding(BAD_VALUE, Text(
        en=f"{key_spec.key} should be {key_spec.type}, got {json.dumps(value)}",
        zh=f"{key_spec.key} 应为 {key_spec.type} 类型，实际为 {json.dumps(value)}",
    ), span)


def _release_value(option, fact, release):
    """QL106 findings for an option value against the release's own facts (type, choices, range)."""
    text = option.value.text
    where, where_zh = option_facts.where(release), option_facts.where_zh(release)
    number: float | None = None
    if fact.kind == "int":
        number = option_facts.option_int_value(release, fact.name, text)
        if number is None:
            yield Finding(BAD_VALUE, Text(
                en=f"{option.spelled} expects an integer, got {text!r} ({where})",
                zh=f"{option.spelled} 需要整数，实际为 {text!r}（{where_zh}）",
            ), option.value.span, sources=_cited(fact))
            return
        if fact.parser == "human_readable_int_or_auto" and number == -1:
            return
    elif fact.kind == "float":
        number = option.value.as_float()
        if number is None:
            yield Finding(BAD_VALUE, Text(
                en=f"{option.spelled} expects a number, got {text!r} ({where})",
                zh=f"{option.spelled} 需要数值，实际为 {text!r}（{where_zh}）",
            ), option.value.span, sources=_cited(fact))
            return
    elif fact.kind == "choice" and fact.choices and text not in fact.choices:
        close = difflib.get_close_matches(text, list(fact.choices), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        hint_zh = f"；是否想写 {close[0]}？" if close else ""
        shown = ", ".join(fact.choices[:12]) + (", ..." if len(fact.choices) > 12 else "")
        yield Finding(
            BAD_VALUE,
            Text(
                en=f"{option.spelled} {text!r} is not one of {shown} ({where}){hint}",
                zh=f"{option.spelled} 的取值 {text!r} 不在可选值 {shown} 之中（{where_zh}）{hint_zh}",
            ),
            option.value.span,
            # Literal[...] | str: plugins may register more values at run time
            severity="warning" if fact.choices_open else None,
            sources=_cited(fact),
        )
        return
    if number is not None and fact.range and not option_facts.in_range(fact.range, number):
        bounds = option_facts.range_text(fact.range)
        yield Finding(BAD_VALUE, Text(
            en=f"{option.spelled} {text} is outside {bounds}, the range {where} accepts"
               + (f" ({fact.field})" if fact.field else ""),
            zh=f"{option.spelled} {text} 超出 {where_zh} 接受的范围 {bounds}"
               + (f"（{fact.field}）" if fact.field else ""),
        ), option.value.span, sources=_cited(fact, ranges=True))


def _cited(fact, ranges: bool = False) -> tuple[str, ...]:
    """The release's own lines for an option finding: the field (or add_argument) and any range check."""
    found = [fact.field_source or fact.source]
    if ranges:
        found += [s for s in fact.range_sources if s not in found]
    return tuple(found)


@check(BAD_VALUE)
def bad_value(scope: Scope):
    index = scope.kb.flag_index
    release = option_facts.facts(scope)
    for option in scope.serve.all_options:
        spec = index.get(option.name) if option.known else None
        fact = option_facts.resolve(release, option) if release is not None else None
        if option.value is None or option.value.text is None:
            continue
        if fact is not None and option.json is None and fact.kind != "json":
            if "." not in option.spelled:
                yield from _release_value(option, fact, release)
            continue
        if spec is None:
            continue
        text = option.value.text
        if spec.type == "int" and option.value.as_int() is None and not _human_readable_int_ok(spec.name, text):
            yield Finding(BAD_VALUE, Text(
                en=f"{option.spelled} expects an integer, got {text!r}",
                zh=f"{option.spelled} 需要整数，实际为 {text!r}",
            ), option.value.span)
        elif spec.type == "float" and option.value.as_float() is None:
            yield Finding(BAD_VALUE, Text(
                en=f"{option.spelled} expects a number, got {text!r}",
                zh=f"{option.spelled} 需要数值，实际为 {text!r}",
            ), option.value.span)
        elif spec.type == "choice" and spec.choices and text not in spec.choices:
            close = difflib.get_close_matches(text, spec.choices, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            hint_zh = f"；是否想写 {close[0]}？" if close else ""
            yield Finding(
                BAD_VALUE,
                Text(
                    en=f"{option.spelled} {text!r} is not one of {', '.join(spec.choices)}{hint}",
                    zh=f"{option.spelled} 的取值 {text!r} 不在可选值 {', '.join(spec.choices)} 之中{hint_zh}",
                ),
                option.value.span,
            )
        if option.json is None:
            continue
        if not isinstance(option.json.data, dict):
            compilation = option.name == "--compilation-config"
            hint = " (for a compilation level use --optimization-level / -O)" if compilation else ""
            hint_zh = "（编译级别请用 --optimization-level / -O 设置）" if compilation else ""
            yield Finding(
                BAD_VALUE,
                Text(
                    en=f"{option.spelled} expects a JSON object, got {text.strip()!r}; vLLM 0.23.0 rejects it{hint}",
                    zh=f"{option.spelled} 需要 JSON 对象，实际为 {text.strip()!r}；vLLM 0.23.0 会拒绝该值{hint_zh}",
                ),
                option.value.span,
            )
            continue
        sub = _sub_config(scope, release, fact, option)
        if sub is None:
            continue
        read_at = release if getattr(sub, "release", None) is not None else None
        at = option_facts.where(read_at) if read_at is not None else "vLLM 0.23.0"
        at_zh = option_facts.where_zh(read_at) if read_at is not None else "vLLM 0.23.0"
        for key_spec in sub.keys:
            value = option.json.get(key_spec.key, _MISSING)
            if value is _MISSING:
                continue
            span = kit.span_of(scope.serve, option, key_spec.key)
            upper = getattr(key_spec, "upper", key_spec.key == "cudagraph_mode")
            compare = value.upper() if upper and isinstance(value, str) else value
            if key_spec.choices and isinstance(value, str) and compare not in key_spec.choices:
                # speculative methods grow with every vLLM release: the list is vLLM 0.23.0's
                open_list = key_spec.key == "method"
                shown = ", ".join(key_spec.choices[:8]) + (", ..." if len(key_spec.choices) > 8 else "")
                close = difflib.get_close_matches(compare, key_spec.choices, n=1)
                hint = f"; did you mean {close[0]}?" if close else ""
                hint_zh = f"；是否想写 {close[0]}？" if close else ""
                yield Finding(
                    BAD_VALUE,
                    Text(
                        en=f"{option.spelled} {key_spec.key} {json.dumps(value)} is not one {at} accepts "
                        f"({shown}){hint}",
                        zh=f"{option.spelled} 中 {key_spec.key} 的取值 {json.dumps(value)} 不被 {at_zh} 接受"
                        f"（可选：{shown}）{hint_zh}",
                    ),
                    span,
                    severity="warning" if open_list and getattr(sub, "release", None) is None else None,
                    sources=tuple(key_spec.sources),  # where the key and its choices are defined
                )
            elif getattr(key_spec, "range", None) and isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and not option_facts.in_range(key_spec.range, value):
                bounds = option_facts.range_text(key_spec.range)
                yield Finding(BAD_VALUE, Text(
                    en=f"{option.spelled} {key_spec.key} {json.dumps(value)} is outside {bounds}, the range {at} accepts",
                    zh=f"{option.spelled} 中 {key_spec.key} 的取值 {json.dumps(value)} 超出 {at_zh} 接受的范围 {bounds}",
                ), span, sources=tuple(key_spec.sources))
            elif not _type_ok(key_spec.type, value) and not (key_spec.type == "int" and isinstance(value, str) and value.isdigit()):
                if getattr(sub, "release", None) is not None and (
                        not sub.typed or option_facts.pydantic_accepts(key_spec.type, value)):
                    continue  # pydantic's lax mode reads "False" as false, "3" as 3 (or no validation at all)
                yield _loose_type_finding(sub.closed, key_spec, value, span)


_MISSING = object()


def _sub_config(scope: Scope, release, fact, option):
    """The key table of a JSON option: the release's own (vLLM sub-configs), else the hand-kept one
    (--additional-config: with the key types of the release's own reader)."""
    if release is not None:
        name = fact.name if fact is not None else option.name
        sub = option_facts.sub_config(release, name)
        if sub is not None:
            return sub
    table = scope.kb.sub_config(option.name)
    if table is not None and release is not None and option.name == "--additional-config":
        return option_facts.additional_config_spec(release, table)
    return table


def _walk_keys(data: dict, prefix: str = ""):
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        yield dotted, value
        if isinstance(value, dict):
            yield from _walk_keys(value, dotted + ".")


@check(UNKNOWN_KEY)
def unknown_key(scope: Scope):
    version = parse_version(scope.get("version"))
    for option in scope.serve.all_options:
        if option.json is None or not isinstance(option.json.data, dict):
            continue
        release = option_facts.facts(scope)
        fact = option_facts.resolve(release, option) if release is not None else None
        sub = _sub_config(scope, release, fact, option)
        if sub is None:
            continue
        known = {k.key: k for k in sub.keys}
        for dotted, _ in _walk_keys(option.json.data):
            parent = dotted.rsplit(".", 1)[0] if "." in dotted else None
            span = kit.span_of(scope.serve, option, dotted)
            spec = known.get(dotted)
            if spec is None:
                if parent is not None and parent in known and known[parent].type in ("dict", "any"):
                    if not any(k.startswith(parent + ".") for k in known):
                        continue  # free-form nested dict
                if parent is not None and parent not in known:
                    continue  # reported at its parent
                if parent is not None and known[parent].type not in ("dict", "any"):
                    continue  # a value of the wrong type: QL106 reports it
                if sub.closed:
                    close = difflib.get_close_matches(dotted, list(known), n=1)
                    hint = f"; did you mean {close[0]}?" if close else ""
                    hint_zh = f"；是否想写 {close[0]}？" if close else ""
                    yield Finding(UNKNOWN_KEY, Text(
                        en=f"{option.spelled} has no key {dotted!r}{hint}",
                        zh=f"{option.spelled} 没有键 {dotted!r}{hint_zh}",
                    ), span, sources=tuple(sub.sources))  # the config class that rejects unknown keys
                continue
            if spec.removed_in and version >= parse_version(spec.removed_in):
                where = "ignored" if not sub.closed else "rejected"
                where_zh = "会被忽略" if not sub.closed else "会被拒绝"
                yield Finding(
                    UNKNOWN_KEY,
                    Text(
                        en=f"{option.spelled} key {dotted!r} was removed in vllm-ascend {spec.removed_in} and is "
                        f"{where} at {scope.get('version')}",
                        zh=f"{option.spelled} 的键 {dotted!r} 已在 vllm-ascend {spec.removed_in} 中移除，"
                        f"在 {scope.get('version')} 中{where_zh}",
                    ),
                    span,
                    severity="warning" if not sub.closed else None,
                )
            elif spec.added_in and version < parse_version(spec.added_in):
                yield Finding(
                    UNKNOWN_KEY,
                    Text(
                        en=f"{option.spelled} key {dotted!r} arrived in vllm-ascend {spec.added_in}; "
                        f"{scope.get('version')} does not read it",
                        zh=f"{option.spelled} 的键 {dotted!r} 自 vllm-ascend {spec.added_in} 起才引入；"
                        f"{scope.get('version')} 不会读取它",
                    ),
                    span,
                    severity="warning" if not sub.closed else None,
                )
