"""The rule-authoring kit: what rule modules use besides their metadata.

``from qlint.rules import kit``, then:

* reading the plan (``read``): ``kit.span_of(serve, flag, key)``, ``kit.option_span``, ``kit.env_span``,
  ``kit.option`` / ``kit.integer`` / ``kit.json_key`` / ``kit.env`` / ``kit.positional``
  (each a ``Read(value, span)``), ``kit.env_on``, ``kit.key_mapped``, ``kit.model_span``;
* the release (``release``): ``kit.release``, ``kit.since``, ``kit.before``, ``kit.between``,
  ``kit.is_main``, ``kit.at_version`` (a bilingual ``Text``), ``kit.paired_vllm``;
* release behaviour as data (``release`` too, knowledge/data/behaviours.toml): ``kit.holds(scope, name)``,
  ``kit.first_release``, ``kit.last_release``, ``kit.describe_range``, ``kit.model_first_release``
  (a rule asks a behaviour by name instead of comparing release literals);
* building whole fixes (``edits``): ``kit.replace``, ``kit.set_value``, ``kit.insert_option``,
  ``kit.drop_option``, ``kit.set_env``, ``kit.set_word``, ``kit.set_key``, ``kit.drop_key``, ``kit.json_text``,
  ``kit.shell_word``, and ``kit.resize`` (TP/DP with every value that follows them);
* messages (below): ``Text``, ``kit.kv_role_phrase``, ``kit.sizes``;
* capture-size arithmetic shared by the graph rules (``capture``);
* the deployment's layout (``topology``): ``kit.topology(scope)`` (the ``linter/topology.py`` Topology the
  deployment pass read: instances, shares per node, engines, proxies, launchers), ``kit.node_topology``,
  ``kit.launcher_finding`` (a group problem at a ``launch_online_dp.py`` call's option, with its fix).

A rule module imports ``qlint.rules.base`` (metadata, findings), ``qlint.rules.graph``
(``check``, ``fact``, ``Scope``), this kit and the plan's types, never another rule family
(``tests/rules/test_imports.py`` checks it).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules.kit.capture import (
    ASCEND_DEFAULT_CAPTURE_CAP,
    ENUMERATION_CAP,
    FULL_DECODE_MODES,
    FULL_ONLY_MODES,
    NPU_DEFAULT_BATCHED_TOKENS,
    default_capture_sizes,
    divisors,
    round_for_spec,
    round_up,
)
from qlint.rules.kit.edits import (
    drop_key,
    drop_option,
    insert_option,
    json_text,
    point,
    replace,
    set_env,
    set_key,
    set_value,
    set_word,
    shell_word,
)
from qlint.rules.kit.read import (
    Read,
    env,
    env_on,
    env_span,
    first_option,
    integer,
    json_key,
    key_mapped,
    model_span,
    name_span,
    option,
    option_span,
    positional,
    script_name,
    span_of,
)
from qlint.rules.kit.release import (
    at_least,
    at_version,
    before,
    between,
    describe_range,
    first_release,
    holds,
    is_main,
    last_release,
    model_first_release,
    paired_vllm,
    release,
    since,
)
from qlint.rules.kit.topology import LAUNCHER_SOURCES, launcher_finding, node_topology, topology

TYPE_CHECKING = False
if TYPE_CHECKING:
    from qlint.rules.graph import Scope
    from qlint.rules.kit.resizing import Resize


def kv_role_phrase(role: str | None) -> Text:
    """How a message names the instance's kv_role."""
    if role is None:
        return Text(en="no --kv-transfer-config", zh="未设置 --kv-transfer-config")
    return Text(en=f"kv_role {role}", zh=f"kv_role {role}")


def sizes(values: list[int], spaced: bool = True) -> str:
    """A capture-size list as written in JSON: ``[1, 8]`` (``[1,8]`` unspaced)."""
    return "[" + (", " if spaced else ",").join(str(value) for value in values) + "]"


def resize(scope: Scope, tp: int, dp: int) -> Resize:
    """The edits that make the serve command run TP ``tp`` x DP ``dp`` with every value that follows
    them, or a refusal (``kit/resizing.py``, imported when a rule builds such a fix: few runs do)."""
    from qlint.rules.kit.resizing import resize as resized

    return resized(scope, tp, dp)


__all__ = [
    "ENUMERATION_CAP", "divisors",
    "ASCEND_DEFAULT_CAPTURE_CAP", "FULL_DECODE_MODES", "FULL_ONLY_MODES", "NPU_DEFAULT_BATCHED_TOKENS",
    "Read", "Text",
    "at_least", "at_version", "before", "between", "default_capture_sizes", "describe_range", "first_release",
    "holds", "last_release", "model_first_release", "drop_key", "drop_option", "env",
    "env_on", "env_span", "first_option", "insert_option", "integer", "is_main", "json_key", "json_text",
    "key_mapped", "kv_role_phrase", "model_span", "name_span", "option", "option_span", "paired_vllm", "point", "positional", "release",
    "replace", "resize", "round_for_spec", "round_up", "script_name", "set_env", "set_key", "set_value", "set_word", "shell_word", "since",
    "sizes", "span_of", "node_topology", "topology", "LAUNCHER_SOURCES", "launcher_finding",
]
