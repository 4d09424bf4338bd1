"""Capture-size arithmetic shared by the graph rules (mirrors vLLM / vllm-ascend): vLLM's
default capture grid on Ascend and its spec-decode rounding
(``vllm@v0.23.0:vllm/config/vllm.py L1661-1770``,
``vllm@v0.23.0:vllm/config/compilation.py L1432-1518``,
``vllm-ascend@v0.23.0:vllm_ascend/platform.py L207-241``).
"""

from __future__ import annotations

FULL_ONLY_MODES = ("FULL", "FULL_DECODE_ONLY")
FULL_DECODE_MODES = ("FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")
ASCEND_DEFAULT_CAPTURE_CAP = 512  # tokens; Ascend drops vLLM's CUDA "x 2" (platform.py L207-241)
NPU_DEFAULT_BATCHED_TOKENS = 2048  # vllm serve default when the NPU memory query fails (facts section 5)


ENUMERATION_CAP = 1 << 16
"""Capture sizes are listed up to this many tokens at most: vLLM would try to capture a graph for each
of a limit of 10^9, which no launch asks for on purpose; listing them would hang the linter."""


def divisors(number: int) -> list[int]:
    """The divisors of ``number`` (>= 1), ascending, in O(sqrt(number)) steps."""
    if number < 1:
        return []
    small, large, candidate = [], [], 1
    while candidate * candidate <= number:
        if number % candidate == 0:
            small.append(candidate)
            if candidate != number // candidate:
                large.append(number // candidate)
        candidate += 1
    return small + large[::-1]


def round_up(value: int, multiple: int) -> int:
    """Smallest multiple of ``multiple`` that is >= ``value``."""
    return -(-value // multiple) * multiple


def default_capture_sizes(limit: int, batched_tokens: int) -> list[int]:
    """vLLM's default capture list (token counts) for a maximum capture size ``limit``.

    [1, 2, 4], multiples of 8 below 256, multiples of 16 from 256, all <= limit
    (limit already clipped to ``batched_tokens``), plus ``batched_tokens`` itself
    when it fits under the limit.
    """
    limit = min(limit, batched_tokens, ENUMERATION_CAP)
    sizes = [size for size in (1, 2, 4) if size <= limit]
    if limit >= 8:
        sizes += list(range(8, min(limit + 1, 256), 8))
    if limit >= 256:
        sizes += list(range(256, limit + 1, 16))
    if batched_tokens <= limit:
        sizes.append(batched_tokens)
    return sorted(set(sizes))


def round_for_spec(sizes: list[int], multiple: int) -> list[int]:
    """vLLM's rounding of capture sizes for FULL decode graphs with k+1 tokens per step.

    Each size is rounded up to a multiple; results above the largest size are
    dropped; if none is left but ``multiple`` itself fits, ``[multiple]``.
    An empty result means vLLM raises ``ValueError("No valid cudagraph sizes ...")``.
    """
    if not sizes or multiple <= 1:
        return list(sizes)
    largest = max(sizes)
    rounded = sorted({round_up(size, multiple) for size in sizes if round_up(size, multiple) <= largest})
    if not rounded and multiple <= largest:
        rounded = [multiple]
    return rounded
