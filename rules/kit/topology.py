"""The deployment's layout as ``linter/topology.py`` models it, for the cross-node rules.

``kit.topology(scope)`` is the Topology the deployment pass read from the scripts of a deployment
scope (``linter/deployment.py`` builds it once); read again for a scope it was not given to
(a rule example evaluated on its own). ``kit.node_topology(scope)`` is the layout of the one
script of a script scope: one node, the engines it starts.
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules.base import Finding, Fix, RuleMeta
from qlint.rules.kit.edits import point, replace, shell_word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from qlint.linter.topology import Topology
    from qlint.rules.graph import Scope
    from qlint.rules.plan import LauncherCommand

KEY = "__topology__"
LAUNCHER_SOURCES = (  # launch_online_dp.py's options and rank loop, a group over two nodes
    "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/examples/external_online_dp/launch_online_dp.py#L8-L17",
    "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/examples/external_online_dp/launch_online_dp.py#L53-L61",
    "https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/docs/source/tutorials/features/pd_disaggregation_mooncake_multi_node.md?plain=1#L759-L761",
)


def topology(scope: Scope) -> Topology:
    """The Topology of a deployment scope's scripts (built once per scope)."""
    found = scope.values.get(KEY)
    if found is None:
        from qlint.linter.topology_read import read_topology

        found = scope.values[KEY] = read_topology(scope)
    return found


def node_topology(scope: Scope) -> Topology:
    """The Topology of a script scope's one script: the engines of one node."""
    from qlint.rules.graph import Scope as _Scope

    return topology(_Scope(plan=scope.plan, kb=scope.kb, settings=scope.settings, deployment=[scope.plan]))


def launcher_finding(rule: RuleMeta, command: LauncherCommand, path: str, text: Text, flag: str | None,
                     want: str | None, advice: Text, write: str | None = None) -> Finding:
    """A group problem at a ``launch_online_dp.py`` call's option (else at the call). With ``want`` the fix
    (unsafe: it moves ranks or endpoints) writes ``write`` (the word, ``want`` when not given) over the value,
    or adds the option at the end of the call; without, ``advice``."""
    value = command.options.get(flag) if flag is not None else None
    span = value.span if value is not None else command.span
    if want is None or flag is None:
        return Finding(rule, text, span, Fix(advice, safety="unsafe"), path=path)  # (advice: no edit)
    word = write or shell_word(want)
    if value is not None:
        edits = replace(value.span, word) if value.raw != word else []
    else:
        edits = replace(point(command.argv[-1].span), f" {flag} {word}")
    return Finding(rule, text, span, Fix(Text(en=f"set {flag} {want}", zh=f"设置 {flag} {want}"), edits,
                                         safety="unsafe"), path=path)
