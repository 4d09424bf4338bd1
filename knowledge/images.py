"""vllm-ascend container image references.

Images are ``quay.io/ascend/vllm-ascend:<tag>[-a3|-310p][-openeuler]``; the
suffix selects the hardware build (none: Atlas A2). Sources:
the installation guide's image table and the tutorials' Docker sections (``hardware.toml``).
"""

from __future__ import annotations

import re

_IMAGE = re.compile(
    r"vllm-ascend:(?P<tag>v\d+\.\d+\.\d+(?:\.\d+)?(?:rc\d+|\.post\d+)?|main)(?P<suffix>-a3|-310p)?(?:-openeuler|-ubuntu[\w.]*)?$"
)


def parse_image(reference: str) -> tuple[str, str | None] | None:
    """``quay.io/ascend/vllm-ascend:v0.23.0rc1-a3`` -> ``("v0.23.0rc1", "-a3")``.

    Returns None when the text is not a vllm-ascend image reference.
    """
    match = _IMAGE.search(reference.strip())
    if match is None:
        return None
    return match.group("tag"), match.group("suffix")
