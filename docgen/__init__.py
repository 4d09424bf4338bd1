"""qdoc: qlint's bilingual documentation, rendered from the knowledge base and the rules.

``site.render_tree`` writes every page (deployment guides, rule pages, FAQ,
support matrix, disagreements, CLI reference) for one language as MyST (Sphinx)
or plain Markdown (MkDocs); ``build`` lints the guides' shell blocks, keeps
``docs/_generated`` current and runs Sphinx; ``markdown_blocks`` finds and lints
the shell blocks of any Markdown file; ``cli`` is the ``qdoc`` command. docgen
only reads ``qlint.knowledge``, ``qlint.rules`` and ``qlint.linter``.
"""
