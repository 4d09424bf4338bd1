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
from qlint.rules.plan import Command

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
        "kernel.sched_migration_cost_ns no longer exist on recent kernels. Apply them on the host as "
        "root before starting the container.",
        zh="sysctl 参数和 CPU 调频策略属于宿主机内核。与 vllm serve 写在同一脚本里的这些命令会在 "
        "vllm-ascend 容器内执行，而容器中的 /proc/sys 与 /sys 是只读或隔离的：命令要么失败，要么不起作用；"
        "kernel.sched_migration_cost_ns 这类参数在较新的内核上也已不存在。请在启动容器前以 root 身份在宿主机上执行。",
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


@check(HOST_TUNING)
def host_tuning(scope: Scope):
    if not scope.plan.serve_commands():
        return
    for command in scope.plan.commands:
        what = _host_tuning(command)
        if what is not None:
            yield Finding(
                HOST_TUNING,
                Text(
                    en=f"'{what}' tunes the host kernel but runs in the same script as vllm serve, i.e. inside the "
                    "container, where it fails or has no effect",
                    zh=f"'{what}' 调整的是宿主机内核，却与 vllm serve 写在同一脚本中，即在容器内执行，"
                    "会失败或不起作用",
                ),
                command.span,
                Fix(Text(
                    en="run the kernel tuning on the host as root before starting the container, and remove it here",
                    zh="在启动容器前以 root 身份在宿主机上执行内核调优，并从此脚本中删除",
                )),
            )
