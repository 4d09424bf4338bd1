"""The common ``qlint`` invocation read without click (importing click costs a cold run tens
of milliseconds):

    qlint [check] [--format F] [--hardware H] [--vllm-ascend-version V] [-q|--quiet] [--exit-zero] PATH...

``parse`` returns the arguments of ``cli_check.run`` for exactly these shapes (each option at
most once, ``--opt value`` or ``--opt=value``, values click would accept) and None for anything
else: another subcommand, ``--help``, any other option, a value click would refuse, ``--``, an
argument starting with ``-`` other than ``-`` (stdin), shell completion. None means "let click
do it", so help, usage errors and every other option keep click's behaviour and messages.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

COMMANDS = frozenset({"check", "config", "rules", "explain", "generate"})
"""The group's subcommands (a test checks this against the click group)."""
FORMATS = ("text", "json", "sarif", "github")
HARDWARE = ("a2", "a3", "310p")
_VALUED = {"--format": "output_format", "--hardware": "hardware", "--vllm-ascend-version": "version"}
_FLAGS = {"-q": "quiet", "--quiet": "quiet", "--exit-zero": "exit_zero"}


def parse(argv: list[str]) -> dict[str, Any] | None:
    """``cli_check.run`` keyword arguments for ``argv`` (without the program name), or None."""
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return None  # click's shell completion
    explicit = bool(argv) and argv[0] == "check"
    if argv and argv[0] in COMMANDS:
        if not explicit:
            return None
        argv = argv[1:]
    options: dict[str, Any] = {}
    paths: list[str] = []
    index = 0
    while index < len(argv):
        token = argv[index]
        index += 1
        if token == "-" or not token.startswith("-"):
            paths.append(token)
            continue
        name, equals, value = token.partition("=")
        if name in _VALUED:
            if not equals:
                if index >= len(argv) or argv[index].startswith("-"):
                    return None
                value = argv[index]
                index += 1
            key = _VALUED[name]
            if key in options:
                return None
            if key == "output_format" and value not in FORMATS:
                return None
            if key == "hardware":
                if value.lower() not in HARDWARE:
                    return None
                value = value.lower()  # click's case-insensitive Choice answers the choice as declared
            options[key] = value
        elif token in _FLAGS:
            options[_FLAGS[token]] = True
        else:
            return None
    if not paths or (not explicit and any(path in COMMANDS for path in paths)):
        return None  # a subcommand after options (qlint --lang zh explain QL201): click moves it first
    return {"paths": tuple(paths), **options}
