"""Host tuning written into a launch script that runs inside the container.

Sources: the Qwen3.6-35B-A3B and Qwen3.5-397B-A17B tutorials (they run ``sysctl -w`` and a
cpufreq ``tee`` in the serve script); vllm-ascend main
``docs/source/developer_guide/performance_and_debug/optimization_and_tuning.md L156-220``
(kernel tuning must be applied on the host OS as root, not inside containers).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.plan import Command, DockerRun

HOST_TUNING = RuleMeta(
    id="QL108",
    name="host-tuning-in-launch-script",
    groups=("host",),
    severity="warning",
    scope="script",
    title=Text(en="Kernel tuning runs inside the serving container",
               zh="内核调优命令写在了容器内执行的启动脚本中"),
    why=Text(
        en="sysctl settings and the CPU frequency governor belong to the host kernel. A launch script "
        "that also starts vllm serve runs inside the vllm-ascend container, where /proc/sys and /sys are "
        "read-only or namespaced: the commands fail or change nothing, and keys such as "
        "kernel.sched_migration_cost_ns no longer exist on recent kernels. In a container started with "
        "--privileged they do work, but on the host: the setting changes for every process and container on "
        "the node and stays after the server stops. Either way, apply them on the host as root, on purpose, "
        "before starting the container.",
        zh="sysctl 参数和 CPU 调频策略属于宿主机内核。与 vllm serve 写在同一脚本里的这些命令会在 "
        "vllm-ascend 容器内执行，而容器中的 /proc/sys 与 /sys 是只读或隔离的：命令要么失败，要么不起作用；"
        "kernel.sched_migration_cost_ns 这类参数在较新的内核上也已不存在。在以 --privileged 启动的容器中，这些命令确实会生效，"
        "但改的是宿主机：节点上所有进程和容器都会受影响，且服务停止后设置仍然保留。无论哪种情况，"
        "都应在启动容器前以 root 身份在宿主机上有意识地执行。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm-ascend/blob/5500e45c4c4f3e160ce705a9c477d8de27611aa5/docs/source/tutorials/models/Qwen3.6-35B-A3B.md?plain=1#L81-L140",
        "https://github.com/vllm-project/vllm-ascend/blob/42c77b3ab50476800e48a67d93eb7404dd8649e7/docs/source/tutorials/models/Qwen3.5-397B-A17B.md?plain=1#L88-L149",
        "https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/docs/source/developer_guide/performance_and_debug/optimization_and_tuning.md?plain=1#L156-L220",
    ),
    examples=(
        Example(
            bad="sysctl -w vm.swappiness=0\nvllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend\n",
            good="vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend\n",
        ),
    ),
)


def _host_tuning(command: Command) -> str | None:
    """What host setting a command changes, or None."""
    words = [w.text or "" for w in command.argv]
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if program == "sysctl" and len(words) > 1:
        targets = [w for w in words[1:] if not w.startswith("-")]
        if any(w in ("-w", "--write") for w in words[1:]) or any("=" in w for w in targets):
            return "sysctl " + " ".join(targets)
    if program == "tee" and any(w.startswith(("/sys/", "/proc/sys/")) for w in words[1:]):
        return "tee " + " ".join(w for w in words[1:] if w.startswith("/"))
    if program == "cpupower":
        return "cpupower " + " ".join(words[1:])
    return None


def _privileged_container(command: Command) -> DockerRun | None:
    """The ``docker run --privileged`` whose command line holds ``command``, or None."""
    run = command.container
    if run is not None and any((w.text or "") in ("--privileged", "--privileged=true") for w in run.argv):
        return run
    return None


@check(HOST_TUNING, when=("command:other", "command:serve"))  # (sysctl, tee, cpupower: commands of no known kind)
def host_tuning(scope: Scope):
    if not scope.plan.serve_commands():
        return
    for command in scope.plan.commands:
        what = _host_tuning(command)
        if what is None:
            continue
        privileged = _privileged_container(command)
        if privileged is not None:
            message = Text(
                en=f"'{what}' runs in the --privileged container started on line {privileged.span.line}, where "
                "/proc/sys and /sys are the host's: it changes the host kernel for every process and container "
                "on the node, and the change stays after this server stops",
                zh=f"'{what}' 在第 {privileged.span.line} 行以 --privileged 启动的容器内执行，那里的 /proc/sys 与 /sys "
                "就是宿主机的：它会修改整个节点的宿主机内核设置，影响节点上所有进程和容器，且服务停止后仍然保留",
            )
        elif command.container is not None:
            line = command.container.span.line
            message = Text(
                en=f"'{what}' runs in the container started on line {line} without --privileged, where /proc/sys "
                "and /sys are read-only: it fails and the host keeps its setting",
                zh=f"'{what}' 在第 {line} 行未加 --privileged 启动的容器内执行，那里的 /proc/sys 与 /sys 只读："
                "命令会失败，宿主机设置不变",
            )
        else:
            message = Text(
                en=f"'{what}' tunes the host kernel but runs in the same script as vllm serve, i.e. inside the "
                "container: without --privileged it fails (/proc/sys and /sys are read-only there); with "
                "--privileged it changes the whole host",
                zh=f"'{what}' 调整的是宿主机内核，却与 vllm serve 写在同一脚本中，即在容器内执行："
                "没有 --privileged 时会失败（容器内 /proc/sys 与 /sys 只读）；有 --privileged 时会修改整个宿主机",
            )
        yield Finding(
            HOST_TUNING,
            message,
            command.span,
            Fix(Text(
                en="run the kernel tuning on the host as root before starting the container, and remove it here",
                zh="在启动容器前以 root 身份在宿主机上执行内核调优，并从此脚本中删除",
            )),
        )
