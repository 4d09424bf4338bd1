"""qlint: a knowledge-driven linter for vLLM-Ascend launch scripts.

The package root only carries the version. The work lives in the sub-packages:
``qlint.knowledge`` (cited facts), ``qlint.linter`` (shell parsing, CLI,
reporters), ``qlint.rules`` (the rule graph) and ``qlint.docgen`` (qdoc).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("qlint")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"
