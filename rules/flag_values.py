"""Option values the release's parser or config classes reject (QL105): types, choices and the
JSON sub-config values of each release.
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)
import re

from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.kit import options as option_facts
from qlint.rules.base import Example, Finding, RuleMeta
from qlint.rules.graph import Scope, check

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
_HUMAN_INT = r"\d+(?:\.\d+)?[kmgt]|\d+[KMGT]"  # compiled on first use (re's cache)


def _human_readable_int_ok(name: str, text: str) -> bool:
    text = text.strip()
    if name not in _HUMAN_READABLE_INTS:
        return False
    if name == "--max-model-len" and text.lower() == "auto":
        return True
    return re.fullmatch(_HUMAN_INT, text) is not None


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
    number: float | None = None
    if fact.kind == "int":
        number = option_facts.option_int_value(release, fact.name, text)
        if number is None:
            yield Finding(BAD_VALUE, Text(
                en=f"{option.spelled} expects an integer, got {text!r} ({option_facts.where(release)})",
                zh=f"{option.spelled} 需要整数，实际为 {text!r}（{option_facts.where_zh(release)}）",
            ), option.value.span, sources=_cited(fact))
            return
        if fact.parser == "human_readable_int_or_auto" and number == -1:
            return
    elif fact.kind == "float":
        number = option.value.as_float()
        if number is None:
            yield Finding(BAD_VALUE, Text(
                en=f"{option.spelled} expects a number, got {text!r} ({option_facts.where(release)})",
                zh=f"{option.spelled} 需要数值，实际为 {text!r}（{option_facts.where_zh(release)}）",
            ), option.value.span, sources=_cited(fact))
            return
    elif fact.kind == "choice" and fact.choices and text not in fact.choices:
        from difflib import get_close_matches  # imported when a spelling is wrong
        close = get_close_matches(text, list(fact.choices), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        hint_zh = f"；是否想写 {close[0]}？" if close else ""
        shown = ", ".join(fact.choices[:12]) + (", ..." if len(fact.choices) > 12 else "")
        yield Finding(
            BAD_VALUE,
            Text(
                en=f"{option.spelled} {text!r} is not one of {shown} ({option_facts.where(release)}){hint}",
                zh=f"{option.spelled} 的取值 {text!r} 不在可选值 {shown} 之中（{option_facts.where_zh(release)}）{hint_zh}",
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
            en=f"{option.spelled} {text} is outside {bounds}, the range {option_facts.where(release)} accepts"
               + (f" ({fact.field})" if fact.field else ""),
            zh=f"{option.spelled} {text} 超出 {option_facts.where_zh(release)} 接受的范围 {bounds}"
               + (f"（{fact.field}）" if fact.field else ""),
        ), option.value.span, sources=_cited(fact, ranges=True))


def _needs_value(option, spec, fact) -> bool:
    """True for an option written without the value its parser requires (not a switch, not a
    ``bool | str`` option whose bare form means true, not ``--x.key`` / ``--no-x``)."""
    if not option.known or option.negated or "." in option.spelled:
        return False
    if fact is not None:
        return fact.kind != "bool" and not fact.optional_value
    return spec is not None and spec.type != "bool"


def _no_value(option, fact, release) -> Finding:
    where = f" ({option_facts.where(release)})" if release is not None else ""
    where_zh = f"（{option_facts.where_zh(release)}）" if release is not None else ""
    return Finding(BAD_VALUE, Text(
        en=f"{option.spelled} has no value: vllm serve stops with 'argument {option.spelled}: expected one "
           f"argument'{where}; give it a value or remove it",
        zh=f"{option.spelled} 没有给出取值：vllm serve 会报 'argument {option.spelled}: expected one argument' "
           f"并退出{where_zh}；请补上取值或删除该参数",
    ), option.name_span, sources=_cited(fact) if fact is not None else ())


def _cited(fact, ranges: bool = False) -> tuple[str, ...]:
    """The release's own lines for an option finding: the field (or add_argument) and any range check."""
    found = [fact.field_source or fact.source]
    if ranges:
        found += [s for s in fact.range_sources if s not in found]
    return tuple(found)


_BY_HEAD: dict[int, tuple[object, list, dict[str, list[int]]]] = {}


def _written(sub, data: dict) -> list:
    """The key specs of table ``sub`` whose key (a dotted key: its first part) ``data`` has, in the
    table's order: the table's keys are indexed by their first part once per table, so a JSON value
    costs its own keys, not the table's (~60 a table)."""
    keys = sub.keys
    held = _BY_HEAD.get(id(sub))
    if held is None or held[0] is not sub or held[1] is not keys:  # the entry holds the table: no id reuse
        by_head: dict[str, list[int]] = {}
        for position, key_spec in enumerate(keys):
            by_head.setdefault(key_spec.key.split(".", 1)[0], []).append(position)
        held = _BY_HEAD[id(sub)] = (sub, keys, by_head)
    by_head = held[2]
    positions = [position for key in data if key in by_head for position in by_head[key]]
    positions.sort()
    return [keys[position] for position in positions]


@check(BAD_VALUE)
def bad_value(scope: Scope):
    flag = scope.kb.flag
    release = option_facts.facts(scope)
    for option in scope.serve.all_options:
        spec = flag(option.name) if option.known else None
        fact = option_facts.resolve(release, option) if release is not None else None
        if option.value is None and _needs_value(option, spec, fact):
            yield _no_value(option, fact, release)
            continue
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
            from difflib import get_close_matches  # imported when a spelling is wrong
            close = get_close_matches(text, spec.choices, n=1)
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
        sub = option_facts.key_table(scope, release, fact, option)
        if sub is None:
            continue
        read_at = release if getattr(sub, "release", None) is not None else None
        at = option_facts.where(read_at) if read_at is not None else "vLLM 0.23.0"
        at_zh = option_facts.where_zh(read_at) if read_at is not None else "vLLM 0.23.0"
        data = option.json.data  # a dict (checked above)
        for key_spec in _written(sub, data):
            key = key_spec.key
            value = data[key] if "." not in key else option.json.get(key, _MISSING)
            if value is _MISSING:
                continue
            upper = getattr(key_spec, "upper", key_spec.key == "cudagraph_mode")
            compare = value.upper() if upper and isinstance(value, str) else value
            if key_spec.choices and isinstance(value, str) and compare not in key_spec.choices:
                # speculative methods grow with every vLLM release: the list is vLLM 0.23.0's
                open_list = key_spec.key == "method"
                shown = ", ".join(key_spec.choices[:8]) + (", ..." if len(key_spec.choices) > 8 else "")
                from difflib import get_close_matches  # imported when a spelling is wrong
                close = get_close_matches(compare, key_spec.choices, n=1)
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
                    kit.span_of(scope.serve, option, key),
                    severity="warning" if open_list and getattr(sub, "release", None) is None else None,
                    sources=tuple(key_spec.sources),  # where the key and its choices are defined
                )
            elif getattr(key_spec, "range", None) and isinstance(value, (int, float)) and not isinstance(value, bool) \
                    and not option_facts.in_range(key_spec.range, value):
                bounds = option_facts.range_text(key_spec.range)
                yield Finding(BAD_VALUE, Text(
                    en=f"{option.spelled} {key_spec.key} {json.dumps(value)} is outside {bounds}, the range {at} accepts",
                    zh=f"{option.spelled} 中 {key_spec.key} 的取值 {json.dumps(value)} 超出 {at_zh} 接受的范围 {bounds}",
                ), kit.span_of(scope.serve, option, key), sources=tuple(key_spec.sources))
            elif not _type_ok(key_spec.type, value) and not (key_spec.type == "int" and isinstance(value, str) and value.isdigit()):
                if getattr(sub, "release", None) is not None and (
                        not sub.typed or option_facts.pydantic_accepts(key_spec.type, value)):
                    continue  # pydantic's lax mode reads "False" as false, "3" as 3 (or no validation at all)
                yield _loose_type_finding(sub.closed, key_spec, value, kit.span_of(scope.serve, option, key))


_MISSING = object()
