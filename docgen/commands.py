"""Long shell commands shown on several lines, so that nothing is cut off on a page.

A command line wider than ``WIDTH`` is broken before each of its options
(``--tensor-parallel-size 2``) with a ``\\`` line continuation, the way the tutorials
write launch commands. The words come from tree-sitter-bash (``linter.shell.parse_tree``):
a break never falls inside a quoted JSON value, and the shown text runs as the original.
"""

from __future__ import annotations

from qlint.linter.shell import parse_tree

WIDTH = 88
INDENT = "  "


def _option_starts(node, data: bytes, out: list[int]) -> None:
    """Byte offsets of the option words of every command in the tree (children starting with ``-``)."""
    if node.type == "command":
        for child in node.children[1:]:  # the first child is the env prefix or the command name
            if child.type in ("word", "concatenation") and data[child.start_byte:child.start_byte + 1] == b"-":
                out.append(child.start_byte)
    for child in node.children:
        _option_starts(child, data, out)


def multiline(text: str, width: int = WIDTH) -> str:
    """``text`` with every line longer than ``width`` broken before its options."""
    data = text.encode()
    tree = parse_tree(data)
    if tree.root_node.has_error:
        return text  # not bash we can read: shown as written
    starts: list[int] = []
    _option_starts(tree.root_node, data, starts)
    breaks = sorted(set(starts))
    out: list[str] = []
    offset = 0
    for line in data.split(b"\n"):
        end = offset + len(line)
        if len(line.decode(errors="replace")) > width and not line.lstrip().startswith(b"#"):
            cuts = [b - offset for b in breaks if offset < b < end and line[:b - offset].strip()]
            pieces, last = [], 0
            for cut in cuts:
                pieces.append(line[last:cut].rstrip(b" \t"))
                last = cut
            pieces.append(line[last:])
            out.append((b" \\\n" + INDENT.encode()).join(pieces).decode())
        else:
            out.append(line.decode())
        offset = end + 1
    return "\n".join(out)
