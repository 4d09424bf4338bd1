"""Sub-config keys (JSON options) the release does not read (QL106).
"""

from __future__ import annotations

from qlint.knowledge.base import parse_version
from qlint.knowledge.text import Text
from qlint.rules import kit
from qlint.rules.kit import options as option_facts
from qlint.rules.base import Example, Finding, RuleMeta
from qlint.rules.graph import Scope, check

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
        "silently does nothing, which is reported as a warning. So does a key no table knows that is one "
        "typo away from a key the release reads (ascend_scheduler_confg): it is ignored as well.",
        zh="--speculative-config、--compilation-config 与 --kv-transfer-config 禁止多余的键，未知键会让启动失败。"
        "--additional-config 会忽略它不读取的键：已移除的键（如 ascend_scheduler_config、"
        "torchair_graph_config）不会生效，因此以警告报告。与该版本读取的某个键只差一处拼写、且没有任何表认识的键"
        "（如 ascend_scheduler_confg）同样会被忽略，也以警告报告。",
    ),
    sources=("https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/config/utils.py#L58-L74",),
    examples=(
        Example(
            bad="vllm serve Qwen/Qwen3.6-27B --speculative-config '{\"method\": \"mtp\", \"num_spec_tokens\": 1}'\n",
            good="vllm serve Qwen/Qwen3.6-27B --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'\n",
        ),
    ),
)


def _walk_keys(data: dict, prefix: str = ""):
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        yield dotted, value
        if isinstance(value, dict):
            yield from _walk_keys(value, dotted + ".")


def _read_spelling(release, known: dict, written: str, version) -> str | None:
    """A key of the release's --additional-config close to ``written`` (a key neither the hand-kept table nor
    the release's own reader knows, nor any other release's): one the release reads, by its extracted reader
    (else by the table's dates)."""
    extracted = release.additional_config if release is not None else None
    if extracted is not None and written in extracted:
        return None  # read by this release, though the hand-kept table lacks it
    from qlint.rules.kit.options import releases_reading  # only for a key this release does not read

    if releases_reading(written):
        return None  # a key of other releases (enable_sparse_c8, renamed at v0.23.0): not a misspelling
    if extracted is not None:
        names = set(extracted)  # what this release's reader reads
    else:
        names = set()
        for key, spec in known.items():
            if "." in key or (spec.removed_in and version >= parse_version(spec.removed_in)):
                continue
            if spec.added_in and version < parse_version(spec.added_in):
                continue
            names.add(key)
    from qlint.rules.kit.spelling import close_matches

    found = close_matches(written, tuple(sorted(names)), n=1, cutoff=0.85)
    return found[0] if found else None


_KNOWN: dict[int, tuple[object, list, dict]] = {}


def _known_keys(sub) -> dict:
    """Key table ``sub``'s keys by dotted key, made once per table (the entry holds it: no id reuse)."""
    keys = sub.keys
    held = _KNOWN.get(id(sub))
    if held is None or held[0] is not sub or held[1] is not keys:
        if len(_KNOWN) > 256:
            _KNOWN.clear()
        held = _KNOWN[id(sub)] = (sub, keys, {k.key: k for k in keys})
    return held[2]


@check(UNKNOWN_KEY)
def unknown_key(scope: Scope):
    version = parse_version(scope.get("version"))
    for option in scope.serve.all_options:
        if option.json is None or not isinstance(option.json.data, dict):
            continue
        release = option_facts.facts(scope)
        fact = option_facts.resolve(release, option) if release is not None else None
        sub = option_facts.key_table(scope, release, fact, option)
        if sub is None:
            continue
        known = _known_keys(sub)
        for dotted, _ in _walk_keys(option.json.data):
            parent = dotted.rsplit(".", 1)[0] if "." in dotted else None
            spec = known.get(dotted)
            if spec is None:
                if parent is not None and parent in known and known[parent].type in ("dict", "any"):
                    if not any(k.startswith(parent + ".") for k in known):
                        continue  # free-form nested dict
                if parent is not None and parent not in known:
                    continue  # reported at its parent
                if parent is not None and known[parent].type not in ("dict", "any"):
                    continue  # a value of the wrong type: QL106 reports it
                if not sub.closed:
                    if parent is None and option.name == "--additional-config":
                        likely = _read_spelling(release, known, dotted, version)
                        if likely is not None:
                            yield Finding(UNKNOWN_KEY, Text(
                                en=f"{option.spelled} key {dotted!r} is not one vllm-ascend {scope.get('version')} "
                                f"reads, so it is ignored; did you mean {likely}?",
                                zh=f"{option.spelled} 的键 {dotted!r} 不是 vllm-ascend {scope.get('version')} 读取的键，"
                                f"会被忽略；是否想写 {likely}？",
                            ), kit.span_of(scope.serve, option, dotted), severity="warning")
                    continue
                if sub.closed:
                    from difflib import get_close_matches  # imported when a spelling is wrong
                    close = get_close_matches(dotted, list(known), n=1)
                    hint = f"; did you mean {close[0]}?" if close else ""
                    hint_zh = f"；是否想写 {close[0]}？" if close else ""
                    yield Finding(UNKNOWN_KEY, Text(
                        en=f"{option.spelled} has no key {dotted!r}{hint}",
                        zh=f"{option.spelled} 没有键 {dotted!r}{hint_zh}",
                    ), kit.span_of(scope.serve, option, dotted), sources=tuple(sub.sources))  # the config class that rejects unknown keys
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
                    kit.span_of(scope.serve, option, dotted),
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
                    kit.span_of(scope.serve, option, dotted),
                    severity="warning" if not sub.closed else None,
                )
