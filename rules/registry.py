"""The explicit list of rule modules (yamllint style): importing this registers
every fact and rule with ``qlint.rules.graph``. Add a new family here."""

from qlint.rules import facts  # noqa: F401
from qlint.rules import flags  # noqa: F401
from qlint.rules import script  # noqa: F401
from qlint.rules import unread  # noqa: F401
from qlint.rules import parallelism  # noqa: F401
from qlint.rules import platform_310p  # noqa: F401
from qlint.rules import weights  # noqa: F401
from qlint.rules import quantization  # noqa: F401
from qlint.rules import release  # noqa: F401
from qlint.rules import graph_capture  # noqa: F401
from qlint.rules import rope_scaling  # noqa: F401
from qlint.rules import scheduling  # noqa: F401
from qlint.rules import kv_transfer  # noqa: F401
from qlint.rules import prefix_cache  # noqa: F401
from qlint.rules import clients  # noqa: F401
from qlint.rules import host  # noqa: F401
from qlint.rules import redundant  # noqa: F401
from qlint.rules import memory  # noqa: F401
from qlint.rules import unknown_model  # noqa: F401
from qlint.rules import npu_env  # noqa: F401
from qlint.rules import additional_config  # noqa: F401
from qlint.rules import scheduler_switches  # noqa: F401
from qlint.rules import kv_transfer_fields  # noqa: F401
from qlint.rules import speculative  # noqa: F401
from qlint.rules import compilation_config  # noqa: F401
from qlint.rules import serve_cli  # noqa: F401
from qlint.rules import mamba_cache  # noqa: F401
from qlint.rules import context_parallel  # noqa: F401
from qlint.rules import kernel_limits  # noqa: F401
from qlint.rules import versions  # noqa: F401
from qlint.rules import pd_deployment  # noqa: F401
from qlint.rules import known_defects  # noqa: F401
