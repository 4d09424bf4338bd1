"""Which files are one deployment, so that cross-file rules compare only what runs together.

- ``[tool.qlint] deployments`` globs (relative to the configuration file's folder): the files
  each glob matches are one deployment, whatever else holds;
- a directory argument is one deployment with all its subfolders (``prefill/``, ``decode/``
  and a proxy under one folder), except a subfolder that holds a complete deployment of its own
  beside others (a proxy and every engine it sends to: ``folder_deployments``);
- files named one by one are one deployment only when they reference each other: a proxy
  lists an engine's host and port, engines share a DP group (``--data-parallel-address``),
  a KV producer and a KV consumer serve the same model through the same connector,
  a ``launch_online_dp.py`` launcher runs a DP template (``$1..$7``), or a Ray worker's
  ``ray start --address`` names the port a ``ray start --head`` listens on.

``links(plan)`` gives what a plan offers and what it asks for; components are found with a
small union-find. Nothing here reads files: it works on plans already built.
"""

from __future__ import annotations

import os

from qlint.rules.plan import LauncherCommand, LaunchPlan, ProxyCommand, RayStartCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from qlint.linter.ray_cluster import RayNode

_LOCAL = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", ""})


def _text(value) -> str | None:
    return None if value is None else value.text


def ray_nodes(plan: LaunchPlan) -> list[RayNode]:
    started = [command for command in plan.commands if isinstance(command, RayStartCommand)]
    if not started:
        return []  # (linter.ray_cluster is imported for a script that starts Ray)
    from qlint.linter.ray_cluster import RayNode

    return [RayNode(plan, start) for start in started]


def offers(plan: LaunchPlan) -> set[tuple]:
    """Tokens a plan offers: its endpoints, DP groups, KV pairs, being a DP template."""
    from qlint.linter.deployment import is_template

    tokens: set[tuple] = set()
    for serve in plan.serve_commands():
        option = serve.options.get("--port")
        port = _text(option.value) if option is not None and option.value is not None else "8000"
        hosts = set()
        for name in ("HCCL_IF_IP", "LOCAL_IP", "NODE_IP", "POD_IP", "HOST_IP"):
            setting = serve.env.get(name)
            if setting is not None and setting.value is not None and setting.value.text:
                hosts.add(setting.value.text)
        for flag in ("--host", "--data-parallel-address"):
            option = serve.options.get(flag)
            if option is not None and option.value is not None and option.value.text:
                hosts.add(option.value.text)
        if port:
            for host in hosts:
                tokens.add(("endpoint", host, port))
            tokens.add(("port", port))
        address = serve.options.get("--data-parallel-address")
        if address is not None and address.value is not None and address.value.text:
            # the address alone: nodes of one DP group that disagree on the RPC port or the sizes
            # are still one deployment, and QL612 says where they disagree
            tokens.add(("dp", address.value.text))
        kv = serve.options.get("--kv-transfer-config")
        if kv is not None and kv.json is not None and isinstance(kv.json.data, dict):
            role = kv.json.data.get("kv_role")
            if role in ("kv_producer", "kv_consumer", "kv_both"):
                named = serve.options.get("--served-model-name")
                model = _text(named.value) if named is not None and named.value is not None else _text(serve.model)
                tokens.add(("kv", str(kv.json.data.get("kv_connector")), model))
    if is_template(plan):
        tokens.add(("dp-template",))
    for command in plan.commands:
        # the launch_online_dp.py calls of one external DP group over nodes all name the head's --dp-address
        dp_address = command.options.get("--dp-address") if isinstance(command, LauncherCommand) else None
        if dp_address is not None and dp_address.text:
            tokens.add(("dp", dp_address.text))
    for node in ray_nodes(plan):
        if node.head and node.port is not None:
            tokens.add(("ray-head", node.port))
    return tokens


def wants(plan: LaunchPlan) -> set[tuple]:
    """Tokens a plan asks for: the engines a proxy sends to, the template a launcher runs."""
    tokens: set[tuple] = set()
    for command in plan.commands:
        if isinstance(command, ProxyCommand):
            for side in ("prefiller", "decoder"):
                hosts = [_text(v) for v in command.options.get(f"--{side}-hosts", [])]
                ports = [_text(v) for v in command.options.get(f"--{side}-ports", [])]
                if len(hosts) == 1 and len(ports) > 1:
                    hosts = hosts * len(ports)
                if len(ports) == 1 and len(hosts) > 1:
                    ports = ports * len(hosts)
                for host, port in zip(hosts, ports):
                    if port is None:
                        continue
                    tokens.add(("port", port) if host is None or host in _LOCAL else ("endpoint", host, port))
        elif isinstance(command, LauncherCommand):
            tokens.add(("dp-template",))
    nodes = ray_nodes(plan)
    if nodes:
        from qlint.linter.ray_cluster import DEFAULT_PORT
    for node in nodes:
        _, ray_port, written = node.target()
        if not node.head and (ray_port is not None or not written):
            tokens.add(("ray-head", ray_port if ray_port is not None else DEFAULT_PORT))
    return tokens


def linked_groups(plans: list[LaunchPlan | None]) -> list[list[int]]:
    """Indices of ``plans`` grouped into deployments by the references between them (in order)."""
    return groups_of_links([links(plan) for plan in plans])


def links(plan: LaunchPlan | None) -> tuple[set[tuple], set[tuple]]:
    """What a plan offers and what it asks for (``offers``, ``wants``); nothing for no plan."""
    return (offers(plan), wants(plan)) if plan is not None else (set(), set())


def may_join(plan_links: tuple[set[tuple], set[tuple]]) -> bool:
    """Whether a file can be linked to another by what it shares (a DP group, a KV pair, being a DP
    template) or asks for. A file that only offers endpoints is linked only by a proxy that names one."""
    offered, wanted = plan_links
    return bool(wanted) or any(token[0] not in ("endpoint", "port") for token in offered)


def groups_of_links(all_links: list[tuple[set[tuple], set[tuple]]]) -> list[list[int]]:
    """Indices grouped into deployments by ``links`` (what each offers and wants), in order."""
    parent = list(range(len(all_links)))

    def find(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    def union(left: int, right: int) -> None:
        a, b = find(left), find(right)
        if a != b:
            parent[max(a, b)] = min(a, b)

    offered = [offer for offer, _ in all_links]
    wanted = [want for _, want in all_links]
    by_token: dict[tuple, list[int]] = {}
    for index, tokens in enumerate(offered):
        for token in tokens:
            if token[0] in ("dp", "kv"):  # shared tokens link the files that offer them
                by_token.setdefault(token, []).append(index)
    for members in by_token.values():
        for other in members[1:]:
            union(members[0], other)
    for index, tokens in enumerate(wanted):
        for token in tokens:
            for other, offer in enumerate(offered):
                if other != index and token in offer:
                    union(index, other)
    groups: dict[int, list[int]] = {}
    for index in range(len(all_links)):
        groups.setdefault(find(index), []).append(index)
    return [groups[key] for key in sorted(groups)]


def folder_deployments(paths: list[str], all_links: list[tuple[set[tuple], set[tuple]]],
                       proxies: list[bool]) -> list[list[int]]:
    """A directory argument's files (indices) split into deployments by folder, in order.

    The directory is one deployment, except that a subfolder holding a complete deployment of its own
    beside other subfolders is its own: it has a proxy and every engine its proxies send to is served
    by its own files (``qlint generate -o deploy/a`` and ``-o deploy/b`` side by side). Generated trees
    name their nodes by the same placeholders (``${DECODE0_IP:?...}``) and ports, so by what they
    reference alone two such trees would read as one. The rest of the folder (its own files and the
    subfolders that are not complete, ``prefill/`` and ``decode/`` beside a ``proxy.sh``) stays one.
    """
    folders = [os.path.dirname(os.path.abspath(path)) for path in paths]

    def complete(members: list[int]) -> bool:
        have = set().union(*(all_links[i][0] for i in members))
        found = [i for i in members if proxies[i]]
        return bool(found) and all(token in have for i in found for token in all_links[i][1])

    def split(members: list[int], folder: str) -> list[list[int]]:
        children: dict[str, list[int]] = {}
        for index in members:
            if folders[index] != folder:
                child = os.path.relpath(folders[index], folder).split(os.sep, 1)[0]
                children.setdefault(child, []).append(index)
        if len(children) < 2:
            return [members]
        out: list[list[int]] = []
        rest: list[int] = []
        for child, inside in children.items():
            if complete(inside):
                out += split(inside, os.path.join(folder, child))
            else:
                rest += inside
        rest += [index for index in members if folders[index] == folder]
        if rest:
            out.append(sorted(rest))
        return sorted(out, key=min)

    if not paths:
        return []
    return split(list(range(len(paths))), os.path.commonpath(folders))


def glob_key(path: str, patterns: list[str], root: str | None) -> str | None:
    """The ``[tool.qlint] deployments`` glob ``path`` matches (relative to ``root``), or None."""
    if not patterns or root is None or path == "-":
        return None
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, root)
    if relative.startswith(".."):
        return None
    relative = relative.replace(os.sep, "/")
    import fnmatch  # only with [tool.qlint] deployments

    for pattern in patterns:
        cleaned = pattern.strip().lstrip("./")
        if fnmatch.fnmatchcase(relative, cleaned) or fnmatch.fnmatchcase(relative, cleaned.rstrip("/") + "/*") \
                or (cleaned.endswith("/**") and relative.startswith(cleaned[:-3] + "/")):
            return f"{root}:{pattern}"
    return None


def deployment_folder_files(path: str, walk) -> list[str]:
    """For pre-commit: the launch files that may belong with ``path``: its folder's and, when the
    folder sits beside other folders (``prefill/``, ``decode/``), its parent's tree."""
    folder = os.path.dirname(os.path.abspath(path))
    parent = os.path.dirname(folder)
    from pathlib import Path

    # a repository's (or a configured project's) own folder is the top: its parent holds other projects;
    # outside any project (a file under /tmp or a home folder) the parent is not climbed to at all
    inside = _project_top(folder) not in (None, folder)
    root = Path(parent) if inside and _has_sibling_folders(folder) else Path(folder)
    return [str(found) for found in walk(root, unreadable=[])]


_PROJECT_MARKS = (".git", ".qlint.toml", "pyproject.toml")


def _project_top(folder: str) -> str | None:
    """The nearest folder at or above ``folder`` that is a repository's or a configured project's own."""
    while True:
        if any(os.path.exists(os.path.join(folder, name)) for name in _PROJECT_MARKS):
            return folder
        up = os.path.dirname(folder)
        if up == folder:
            return None
        folder = up


def _has_sibling_folders(folder: str) -> bool:
    parent = os.path.dirname(folder)
    try:
        names = [n for n in os.listdir(parent) if not n.startswith(".")]
    except OSError:
        return False
    return any(os.path.isdir(os.path.join(parent, n)) and os.path.join(parent, n) != folder for n in names) \
        and os.path.exists(os.path.join(parent, names[0])) and not os.path.exists(os.path.join(parent, ".git"))
