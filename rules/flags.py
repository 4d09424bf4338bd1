"""Rules about the options themselves: unknown flags, bad JSON, bad values, bad keys.

Sources: ``vllm_ascend_facts.md section 5`` (FlexibleArgumentParser, argparse
``unrecognized arguments``), ``section 4.4`` (vLLM sub-configs are pydantic
dataclasses with ``extra="forbid"``), ``section 2`` (``--additional-config`` is
free-form and silently ignores unknown keys).
"""

from __future__ import annotations

import difflib
import json
import re

from qlint.knowledge.base import parse_version
from qlint.knowledge.text import Text
from qlint.rules.base import Edit, Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check

INVALID_JSON = RuleMeta(
    id="QL101",
    name="invalid-json-in-config-flag",
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
    sources=("vllm@v0.23.0:vllm/engine/arg_utils.py L1465-1489", "vllm_ascend_facts.md section 5"),
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
    severity="error",
    fix="unsafe",
    title=Text(en="vllm serve does not know this option", zh="vllm serve 不认识该参数"),
    why=Text(
        en="argparse stops vllm serve with 'unrecognized arguments' when an option is misspelt. "
        "Underscores and dashes are interchangeable in vLLM flag names, and unambiguous prefixes "
        "are accepted, so only names that match nothing are reported.",
        zh="参数拼写错误时 argparse 会以 “unrecognized arguments” 终止 vllm serve。"
        "vLLM 参数名中的下划线与连字符等价，且接受无歧义的前缀，因此只报告完全无法匹配的名称。",
    ),
    sources=("vllm@v0.23.0:vllm/utils/argparse_utils.py L302-320", "vllm_ascend_facts.md section 5"),
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
    severity="error",
    title=Text(en="An option or JSON key has a value vLLM rejects", zh="参数或 JSON 键的取值会被 vLLM 拒绝"),
    why=Text(
        en="Integer options given text, and choice options given a value outside their list "
        "(--dtype, --kv-cache-dtype, cudagraph_mode, kv_role, ...) fail argument or config "
        "validation before the model loads.",
        zh="整数参数传入文本、或枚举参数（--dtype、--kv-cache-dtype、cudagraph_mode、kv_role 等）"
        "取了列表之外的值，都会在加载模型之前的参数校验阶段失败。",
    ),
    sources=("vllm@v0.23.0:vllm/config/compilation.py L53-63", "vllm@v0.23.0:vllm/config/kv_transfer.py"),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE\"}'\n",
            good="vllm serve Qwen/Qwen3.6-27B --compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'\n",
        ),
    ),
)

UNKNOWN_KEY = RuleMeta(
    id="QL105",
    name="unknown-config-key",
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
    sources=("vllm@v0.23.0:vllm/config/utils.py L58-74", "vllm_ascend_facts.md section 2"),
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
            yield Finding(INVALID_JSON, option.json_error, option.json_error_span or option.span)


@check(UNKNOWN_FLAG)
def unknown_flag(scope: Scope):
    names = [spec.name for spec in scope.kb.flags]
    for option in scope.serve.all_options:
        if option.known:
            continue
        written = option.spelled.split(".", 1)[0]
        candidate = "--" + written.lstrip("-").replace("_", "-")
        close = difflib.get_close_matches(candidate, names, n=1, cutoff=0.75)
        message = f"unknown option {written}"
        fix = None
        if close:
            message += f"; did you mean {close[0]}?"
            fix = Fix(f"rename to {close[0]}", [Edit(option.name_span, close[0] + option.spelled[len(written):])], "unsafe")
        yield Finding(UNKNOWN_FLAG, message, option.name_span, fix)


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
        return Finding(BAD_VALUE, f"{key_spec.key} should be {key_spec.type}, got {json.dumps(value)}", span)
    if key_spec.type == "bool" and isinstance(value, str):
        if value.strip().lower() in _TRUE_WORDS:
            return Finding(
                BAD_VALUE,
                f"{key_spec.key} is the string {json.dumps(value)}, not the JSON boolean true; vllm-ascend only "
                "tests it for truth, so it works, but write true",
                span,
                severity="info",
            )
        return Finding(
            BAD_VALUE,
            f"{key_spec.key} is the string {json.dumps(value)}: vllm-ascend only tests it for truth and every "
            f"non-empty string is true, so this turns {key_spec.key} on; write false (a JSON boolean)",
            span,
        )
    if key_spec.type == "bool" and isinstance(value, (int, float)):
        return Finding(
            BAD_VALUE,
            f"{key_spec.key} is the number {json.dumps(value)}, which vllm-ascend reads as "
            f"{json.dumps(bool(value))}; write {json.dumps(bool(value))}",
            span,
            severity="info",
        )
    if key_spec.type in ("int", "float") and isinstance(value, bool):
        return Finding(
            BAD_VALUE,
            f"{key_spec.key} is {json.dumps(value)}, which Python reads as {int(value)}; write {int(value)}",
            span,
            severity="info",
        )
    return Finding(BAD_VALUE, f"{key_spec.key} should be {key_spec.type}, got {json.dumps(value)}", span)


@check(BAD_VALUE)
def bad_value(scope: Scope):
    index = scope.kb.flag_index
    for option in scope.serve.all_options:
        spec = index.get(option.name) if option.known else None
        if spec is None or option.value is None or option.value.text is None:
            continue
        text = option.value.text
        if spec.type == "int" and option.value.as_int() is None and not _human_readable_int_ok(spec.name, text):
            yield Finding(BAD_VALUE, f"{option.spelled} expects an integer, got {text!r}", option.value.span)
        elif spec.type == "float" and option.value.as_float() is None:
            yield Finding(BAD_VALUE, f"{option.spelled} expects a number, got {text!r}", option.value.span)
        elif spec.type == "choice" and spec.choices and text not in spec.choices:
            close = difflib.get_close_matches(text, spec.choices, n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            yield Finding(
                BAD_VALUE,
                f"{option.spelled} {text!r} is not one of {', '.join(spec.choices)}{hint}",
                option.value.span,
            )
        if option.json is None:
            continue
        if not isinstance(option.json.data, dict):
            hint = " (for a compilation level use --optimization-level / -O)" if option.name == "--compilation-config" else ""
            yield Finding(
                BAD_VALUE,
                f"{option.spelled} expects a JSON object, got {text.strip()!r}; vLLM 0.23.0 rejects it{hint}",
                option.value.span,
            )
            continue
        sub = scope.kb.sub_config(option.name)
        if sub is None:
            continue
        for key_spec in sub.keys:
            value = option.json.get(key_spec.key, _MISSING)
            if value is _MISSING:
                continue
            span = option.json.key_spans.get(key_spec.key, option.value.span)
            compare = value.upper() if key_spec.key == "cudagraph_mode" and isinstance(value, str) else value
            if key_spec.choices and isinstance(value, str) and compare not in key_spec.choices:
                # speculative methods grow with every vLLM release: the list is vLLM 0.23.0's
                open_list = key_spec.key == "method"
                shown = ", ".join(key_spec.choices[:8]) + (", ..." if len(key_spec.choices) > 8 else "")
                close = difflib.get_close_matches(compare, key_spec.choices, n=1)
                hint = f"; did you mean {close[0]}?" if close else ""
                yield Finding(
                    BAD_VALUE,
                    f"{option.spelled} {key_spec.key} {json.dumps(value)} is not one vLLM 0.23.0 accepts "
                    f"({shown}){hint}",
                    span,
                    severity="warning" if open_list else None,
                )
            elif not _type_ok(key_spec.type, value) and not (key_spec.type == "int" and isinstance(value, str) and value.isdigit()):
                yield _loose_type_finding(sub.closed, key_spec, value, span)


_MISSING = object()


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
        sub = scope.kb.sub_config(option.name)
        if sub is None:
            continue
        known = {k.key: k for k in sub.keys}
        for dotted, _ in _walk_keys(option.json.data):
            parent = dotted.rsplit(".", 1)[0] if "." in dotted else None
            span = option.json.key_spans.get(dotted, option.span)
            spec = known.get(dotted)
            if spec is None:
                if parent is not None and parent in known and known[parent].type in ("dict", "any"):
                    if not any(k.startswith(parent + ".") for k in known):
                        continue  # free-form nested dict
                if parent is not None and parent not in known:
                    continue  # reported at its parent
                if sub.closed:
                    close = difflib.get_close_matches(dotted, list(known), n=1)
                    hint = f"; did you mean {close[0]}?" if close else ""
                    yield Finding(UNKNOWN_KEY, f"{option.spelled} has no key {dotted!r}{hint}", span)
                continue
            if spec.removed_in and version >= parse_version(spec.removed_in):
                where = "ignored" if not sub.closed else "rejected"
                yield Finding(
                    UNKNOWN_KEY,
                    f"{option.spelled} key {dotted!r} was removed in vllm-ascend {spec.removed_in} and is "
                    f"{where} at {scope.get('version')}",
                    span,
                    severity="warning" if not sub.closed else None,
                )
            elif spec.added_in and version < parse_version(spec.added_in):
                yield Finding(
                    UNKNOWN_KEY,
                    f"{option.spelled} key {dotted!r} arrived in vllm-ascend {spec.added_in}; "
                    f"{scope.get('version')} does not read it",
                    span,
                    severity="warning" if not sub.closed else None,
                )
