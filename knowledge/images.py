"""vllm-ascend container image references.

Images are ``quay.io/ascend/vllm-ascend:<tag>[-a3|-310p][-openeuler]``; the
suffix selects the hardware build (none: Atlas A2). Sources:
the installation guide's image table and the tutorials' Docker sections (``hardware.toml``).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_IMAGE = r"vllm-ascend:(?P<tag>v\d+\.\d+\.\d+(?:\.\d+)?(?:rc\d+|\.post\d+)?|main)(?P<suffix>-a3|-310p)?(?:-openeuler|-ubuntu[\w.]*)?$"
_COMPILED: list[Any] = []  # _IMAGE, compiled when a reference first names vllm-ascend


def parse_image(reference: str) -> tuple[str, str | None] | None:
    """``quay.io/ascend/vllm-ascend:v0.23.0rc1-a3`` -> ``("v0.23.0rc1", "-a3")``.

    Returns None when the text is not a vllm-ascend image reference.
    """
    if "vllm-ascend:" not in reference:
        return None
    if not _COMPILED:
        import re

        _COMPILED.append(re.compile(_IMAGE))
    match = _COMPILED[0].search(reference.strip())
    if match is None:
        return None
    return match.group("tag"), match.group("suffix")
