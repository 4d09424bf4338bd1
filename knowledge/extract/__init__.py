"""Knowledge extraction: read vLLM sdists and vllm-ascend tags statically, write per-release data.

Run by hand when a release appears (never at lint time, not in CI by default)::

    python -m qlint.knowledge.extract --vllm-sdist /work/sdists/vllm-0.25.1.tar.gz \\
        --vllm-ascend-repo /path/to/vllm-ascend.git --tag v0.25.1rc1
    python -m qlint.knowledge.extract --all --sdists /work/sdists --vllm-ascend-repo /path/to/vllm-ascend.git

Nothing here imports vllm, vllm-ascend or torch: sources are read with ``ast`` and as text.
"""
