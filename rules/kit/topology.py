"""The deployment's layout as ``linter/topology.py`` models it, for the cross-node rules.

``kit.topology(scope)`` is the Topology the deployment pass read from the scripts of a deployment
scope (``linter/deployment.py`` builds it once); read again for a scope it was not given to
(a rule example evaluated on its own). ``kit.node_topology(scope)`` is the layout of the one
script of a script scope: one node, the engines it starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qlint.linter.topology import Topology
    from qlint.rules.graph import Scope

KEY = "__topology__"


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
