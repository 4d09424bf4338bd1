"""qlint: a knowledge-driven linter for vLLM-Ascend launch scripts.

The package root only carries the version (the one version source: pyproject
reads it from here). The work lives in the sub-packages: ``qlint.knowledge``
(cited facts), ``qlint.linter`` (shell parsing, CLI, reporters),
``qlint.rules`` (the rule graph) and ``qlint.docgen`` (qdoc); ``qlint.testing``
holds hypothesis strategies for users' own config generators.
"""

__version__ = "0.1.0"
