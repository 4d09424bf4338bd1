"""A ``linter/topology.py`` Topology read from the scripts of one deployment.

Every engine command is one share of one instance, on the node its script runs on (a script is a
node). Instances:

- a DP group over nodes found by its ranks: engines of one role that name the same
  ``--data-parallel-size``, each a ``--data-parallel-size-local`` below it, exactly one of them not
  ``--headless``, the local sizes adding up to the size (the head's address and RPC port are the
  group's; a node naming others is reported, QL617);
- else the engines that name one DP group (``--data-parallel-address`` as text or as one variable,
  the RPC port, the role) with ``--data-parallel-size-local`` (QL612 checks their sizes and ranks);
- ranks an external launcher starts (``--data-parallel-rank``, ``launch_online_dp.py``): one
  ``external`` instance per role, address, RPC port and size;
- the ``launch_online_dp.py`` calls of one external DP group over nodes (``launch_groups``): calls that start
  part of ``--dp-size`` (``--dp-size-local`` below it) and name one ``--dp-address`` and ``--dp-rpc-port``; a
  call alone with its pair joins the one group of its size still short of ranks that agrees on either;
- any other engine: an instance of its own (``single``).

Proxies list the (host, port) they send to; launchers the ranks they start on their node. The
deployment pass (``linter/deployment.py``) builds it once; the cross-node rules read it through
``kit.topology(scope)``.
"""

from __future__ import annotations

from qlint.linter.topology import Engine, Instance, Launch, Proxy, Share, Topology
from qlint.rules import kit
from qlint.rules.graph import Scope, serve_scopes
from qlint.rules.plan import LauncherCommand, ProxyCommand, RayStartCommand, ServeCommand, Value

ROLES = {"kv_producer": "prefill", "kv_consumer": "decode"}
DEFAULT_RPC_PORT = "29550"
LAUNCH_RPC_PORT = "12345"
"""``--dp-rpc-port``'s default in ``launch_online_dp.py`` (L15 at v0.23.0)."""


def endpoint(serve: ServeCommand, flag: str, default: str | None) -> str | None:
    """The text of an option, or the variable it names (``$NODE0_IP``) when it is one symbol."""
    option = serve.opt(flag)
    if option is None or option.value is None:
        return default
    return word(option.value)


def word(value: Value) -> str | None:
    """A value's text, or ``$NAME`` when it is one variable the script does not fix (None otherwise)."""
    if value.text is not None:
        return value.text
    if len(value.symbols) == 1:
        return variable(value.symbols[0])
    return None


def variable(symbol: str) -> str:
    """``${NODE0_IP:?set ...}`` -> ``$NODE0_IP``: the same variable names the same address in every script."""
    return "$" + symbol.lstrip("${").split(":", 1)[0].rstrip("}")


def _devices(serve: ServeCommand) -> frozenset[int] | None:
    """The NPUs the engine's ASCEND_RT_VISIBLE_DEVICES gives it; None for a Ray-backed engine (its workers
    sit wherever Ray places them, not on this node's list: QL623's)."""
    backend = serve.opt("--distributed-executor-backend")
    if backend is not None and backend.value is not None and backend.value.text == "ray":
        return None
    setting = serve.env.get("ASCEND_RT_VISIBLE_DEVICES")
    if setting is None or setting.value is None or setting.value.text is None:
        return None
    try:
        return frozenset(int(part) for part in setting.value.text.split(",") if part.strip())
    except ValueError:
        return None


def read_engine(path: str, serve_scope: Scope, index: int) -> Engine:
    serve = serve_scope.serve
    role = serve_scope.known("kv_role")
    tp = kit.integer(serve, "--tensor-parallel-size", strict=False).value or 1
    dp = kit.integer(serve, "--data-parallel-size", strict=False).value
    local = kit.integer(serve, "--data-parallel-size-local", strict=False).value
    engine = Engine(path, serve, serve_scope, index, role=role.value if role is not None else None,
                    port=kit.integer(serve, "--port", strict=False).value,
                    rpc_port=endpoint(serve, "--data-parallel-rpc-port", DEFAULT_RPC_PORT),
                    address=endpoint(serve, "--data-parallel-address", None), dp=dp,
                    api_server_count=serve.opt("--api-server-count") is not None, devices=_devices(serve),
                    rpc_number=kit.integer(serve, "--data-parallel-rpc-port", strict=False).value, dp_local=local)
    config = serve_scope.known("kv_transfer")
    if config is not None and isinstance(config.value, dict) and "kv_port" in config.value:
        try:
            engine.kv_port = int(config.value["kv_port"])
        except (TypeError, ValueError, OverflowError):  # (a JSON 1e999 is an infinite float)
            pass
        engine.kv_ranks = tp * (local or dp or 1)
    return engine


def _share(engine: Engine, node: str) -> Share:
    serve = engine.serve
    start = kit.integer(serve, "--data-parallel-start-rank", strict=False).value or 0
    tp = kit.integer(serve, "--tensor-parallel-size", strict=False).value or 1
    return Share(node, engine.dp_local or engine.dp or 1, start, tp, serve.has("--headless"), engine)


def _instance(name: str, members: list[Engine], group: str, head: Engine | None = None) -> Instance:
    head = head or members[0]
    serve = head.serve
    return Instance(
        name, ROLES.get(head.role or "", "mixed"), head.dp or 1,
        kit.integer(serve, "--tensor-parallel-size", strict=False).value or 1,
        serve.has("--enable-expert-parallel"), head.port or 8000, head.rpc_port, head.address,
        [_share(engine, engine.path) for engine in members], head.kv_port, group)


def _ranked_groups(engines: list[Engine]) -> list[tuple[Engine, list[Engine]]]:
    """DP groups over nodes found by their ranks: (head, members).

    Engines of one role and ``--data-parallel-size``, each a ``--data-parallel-size-local`` below it: every
    one not ``--headless`` heads a group. A headless node joins the head it names (address and RPC port),
    else the one head it agrees with on either, else the one group still short of ranks; a group whose
    local sizes add up to the size is one instance (its nodes may disagree with the head: QL617).
    """
    clusters: dict[tuple, list[Engine]] = {}
    for engine in engines:
        if engine.dp is None or engine.dp_local is None or engine.dp_local >= engine.dp \
                or engine.serve.opt("--data-parallel-rank") is not None:
            continue
        clusters.setdefault((engine.role, engine.dp), []).append(engine)
    out = []
    for (_, size), members in clusters.items():
        heads = [m for m in members if not m.serve.has("--headless")]
        groups: dict[int, list[Engine]] = {id(head): [head] for head in heads}
        waiting = [m for m in members if m.serve.has("--headless")]
        tests = (lambda m, h: (m.address, m.rpc_port) == (h.address, h.rpc_port),
                 lambda m, h: m.address == h.address or m.rpc_port == h.rpc_port,
                 lambda m, h: sum(g.dp_local or 0 for g in groups[id(h)]) < size)
        for agrees in tests:
            left = []
            for member in waiting:
                found = [head for head in heads if agrees(member, head)]
                if len(found) == 1:
                    groups[id(found[0])].append(member)
                else:
                    left.append(member)
            waiting = left
        for head in heads:
            group = sorted(groups[id(head)], key=lambda m: m.order)
            if len(group) >= 2 and sum(m.dp_local or 0 for m in group) == size:
                out.append((head, group))
    return out


def _address_key(engine: Engine) -> tuple | None:
    """The DP group an engine names: (address, RPC port, role); None when it names none readable."""
    serve = engine.serve
    if serve.opt("--data-parallel-size-local") is None or serve.opt("--data-parallel-rank") is not None:
        return None
    written = serve.opt("--data-parallel-address")
    value = written.value if written is not None else None
    if value is None or (value.text is None and len(value.symbols) != 1):
        return None
    rpc = serve.opt("--data-parallel-rpc-port")
    # a prefill and a decode engine never share a DP group, even when both write the node's own IP
    # as one placeholder (the Qwen3.5-397B-A17B tutorial's "--data-parallel-address ${IP_ADDRESS}")
    return (engine.address, rpc.value.text if rpc is not None and rpc.value is not None else DEFAULT_RPC_PORT,
            engine.role)


def read_topology(scope: Scope, npus_per_node: int = 0) -> Topology:
    """The Topology of the scripts of a deployment scope (``scope.deployment``)."""
    engines: list[Engine] = []
    counts: dict[int, int] = {}
    for plan, serve_scope in serve_scopes(scope):
        counts[id(plan)] = counts.get(id(plan), 0) + 1
        engines.append(read_engine(plan.path, serve_scope, counts[id(plan)]))
        engines[-1].order = len(engines)
    instances: list[Instance] = []
    taken: set[int] = set()
    for head, members in _ranked_groups(engines):
        instances.append(_instance(f"dp-group-{len(instances)}", members, "dp", head))
        taken |= {id(m) for m in members}
    named: dict[tuple, list[Engine]] = {}
    external: dict[tuple, list[Engine]] = {}
    for engine in engines:
        if id(engine) in taken:
            continue
        key = _address_key(engine)
        if key is not None:
            named.setdefault(key, []).append(engine)
        elif engine.serve.opt("--data-parallel-rank") is not None:
            external.setdefault((engine.role, engine.address, engine.rpc_port, engine.dp), []).append(engine)
        else:
            instances.append(_instance(f"{engine.script}:{engine.index}", [engine], "single"))
    for key, members in named.items():
        instances.append(_instance(f"dp-group-{len(instances)}", members, "dp"))
    for key, members in external.items():
        instance = _instance(f"external-{len(instances)}", members, "external")
        instance.shares = [Share(m.path, 1, kit.integer(m.serve, "--data-parallel-rank", strict=False).value or 0,
                                 instance.tp, False, m) for m in members]
        instances.append(instance)
    instances.sort(key=lambda i: min(s.engine.order for s in i.shares if s.engine is not None))
    topology = Topology(instances, npus_per_node)
    if any(isinstance(command, RayStartCommand) for plan in scope.deployment for command in plan.commands):
        from qlint.linter.ray_cluster import clusters  # (only for a deployment that starts Ray)

        topology.ray = clusters(scope.deployment)
        _ray_instances(topology)
    else:
        topology.ray = []  # what clusters() gives when no script starts Ray
    for plan in scope.deployment:
        for command in plan.commands:
            if isinstance(command, ProxyCommand):
                topology.proxies.append(_proxy(plan.path, command))
            elif isinstance(command, LauncherCommand):
                share = launcher_share(plan.path, command, read_launch(plan.path, command, len(topology.launchers)))
                if share is not None:
                    topology.launchers.append(share)
    topology.launch_groups = launch_groups(topology.launchers)
    return topology


def read_launch(path: str, command: LauncherCommand, order: int = 0) -> Launch:
    """What a ``launch_online_dp.py`` call writes: the group's size, its local size, address and RPC port."""
    address = command.options.get("--dp-address")
    rpc = command.options.get("--dp-rpc-port")
    local = command.options.get("--dp-size-local")
    return Launch(path, command, _int(command.options.get("--dp-size")), _int(local) if local is not None else None,
                  word(address) if address is not None else None,
                  word(rpc) if rpc is not None else LAUNCH_RPC_PORT, order)


def launch_groups(launchers: list[Share]) -> list[Instance]:
    """External DP groups over nodes: the launcher calls that start part of one group (``launch`` instances).

    Calls naming one ``--dp-address`` and ``--dp-rpc-port`` are one group; a call alone with its pair joins
    the one group of its ``--dp-size`` still short of ranks that names its address or its RPC port (the node
    that names another is then reported, QL617). A call that starts all of ``--dp-size`` is a group of its
    own, compared with nothing.
    """
    named: dict[tuple, list[Share]] = {}
    for share in launchers:
        launch = share.launch
        if launch is None or launch.dp is None or launch.address is None or not 0 < share.dp_local < launch.dp:
            continue
        named.setdefault((launch.address, launch.rpc_port), []).append(share)
    groups = list(named.values())

    def size(group: list[Share]) -> int | None:
        sizes = {s.launch.dp for s in group if s.launch is not None}
        return sizes.pop() if len(sizes) == 1 else None

    for group in groups:
        if len(group) != 1 or group[0].launch is None:
            continue
        alone = group[0].launch
        wanted = alone.dp or 0  # (grouped calls all write --dp-size)
        found = [other for other in groups if other is not group and other and size(other) == wanted
                 and sum(s.dp_local for s in other) < wanted
                 and any(s.launch is not None and (s.launch.address == alone.address or s.launch.rpc_port == alone.rpc_port)
                         for s in other)]
        if len(found) == 1:
            found[0].append(group.pop())
    out: list[Instance] = []
    for group in groups:
        if len(group) < 2:
            continue
        group.sort(key=lambda s: s.launch.order if s.launch is not None else 0)
        head = next((s for s in group if s.dp_start == 0), group[0])
        launch = head.launch
        assert launch is not None and launch.dp is not None
        port = _int(launch.command.options.get("--vllm-start-port")) or 9000
        out.append(Instance(f"launch-group-{len(out)}", "mixed", launch.dp, head.tp, False, port, launch.rpc_port,
                            launch.address, group, None, "launch"))
    return out


def _ray_instances(topology: Topology) -> None:
    """A Ray-backed engine on a cluster with a head: its instance becomes a ``ray`` one, one share per node."""
    from qlint.linter.ray_cluster import ray_instance

    placed = {id(found.serve): cluster for cluster in topology.ray if cluster.head is not None
              for found in cluster.serves}
    for index, instance in enumerate(topology.instances):
        engine = instance.shares[0].engine if instance.group == "single" else None
        cluster = placed.get(id(engine.serve)) if engine is not None else None
        if engine is None or cluster is None:
            continue
        serve = engine.serve
        pp = kit.integer(serve, "--pipeline-parallel-size", strict=False).value or 1
        topology.instances[index] = ray_instance(instance.name, cluster, instance.tp, instance.dp,
                                                 instance.expert_parallel, instance.port, topology.npus_per_node,
                                                 engine, pp)


def _proxy(path: str, command: ProxyCommand) -> Proxy:
    proxy = Proxy(path, command, command.layerwise)
    for side, role in (("prefiller", "prefill"), ("decoder", "decode")):
        hosts = [word(value) for value in command.options.get(f"--{side}-hosts", [])]
        ports = [value.as_int() for value in command.options.get(f"--{side}-ports", [])]
        proxy.targets[role] = list(zip(hosts, ports)) if len(hosts) == len(ports) else [(None, p) for p in ports]
    return proxy


def _int(value) -> int | None:
    try:
        return int(value.text) if value is not None and value.text is not None else None
    except (TypeError, ValueError):
        return None


def launcher_share(node: str, command: LauncherCommand, launch: Launch | None = None) -> Share | None:
    """The ranks a ``launch_online_dp.py`` call starts on its node (None when a size is not readable):
    ``--dp-size-local`` ranks (all of ``--dp-size`` when it is not set) of ``--tp-size`` NPUs each,
    from ``--dp-rank-start``; ``launch`` is what the call writes (``read_launch``)."""
    size = command.options.get("--dp-size")
    local_value = command.options.get("--dp-size-local")
    tp_value = command.options.get("--tp-size")
    local = _int(local_value) if local_value is not None else _int(size)
    tp = _int(tp_value) if tp_value is not None else 1
    start = _int(command.options.get("--dp-rank-start")) or 0
    if local is None or tp is None:
        return None
    return Share(node, local, start, tp, launch=launch)
