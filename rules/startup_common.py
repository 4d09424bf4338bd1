"""Helpers shared by the startup-validation rule families (QL520-QL549): release gates,
spans of option values and JSON keys, environment variables, integer options, the edit that
drops an option, and how a message names a kv_role.

The families check what vllm-ascend and vLLM raise or warn about while the server starts,
for the items of ``vllm_ascend_facts.md`` sections 4 and 7 (plus 2.1, 3.3 and 5) that no
other rule family covers; ``docs/startup-validations.md`` maps every item to its rule.
Every version-dependent message names the release it assumed.
"""

from __future__ import annotations

from qlint.knowledge.base import parse_version
from qlint.rules.base import Edit
from qlint.rules.graph import Scope, Unknown
from qlint.rules.plan import Option, ServeCommand, Span
from qlint.rules.platform_310p import release

FULL_ONLY_MODES = ("FULL", "FULL_DECODE_ONLY")


def since(scope: Scope, tag: str) -> bool:
    """True when the release in use is ``tag`` or later (Unknown when the version is not a release)."""
    return release(scope) >= parse_version(tag)


def value_span(serve: ServeCommand, flag: str) -> Span:
    """The span of an option's value, else of the option, else of the command."""
    return serve.value_span(flag)


def key_span(serve: ServeCommand, flag: str, dotted: str) -> Span:
    """The span of a JSON key's value in a JSON option, else of the option's value."""
    return serve.key_span(flag, dotted)


def env_text(serve: ServeCommand, name: str) -> str | None:
    """The value of an environment variable for the command; None when unset, Unknown when symbolic."""
    setting = serve.env.get(name)
    if setting is None or setting.value is None:
        return None
    if setting.value.text is None:
        raise Unknown(name)
    return setting.value.text.strip()


def int_option(serve: ServeCommand, flag: str) -> int | None:
    """An integer option's value; None when absent; Unknown when symbolic or not an integer."""
    option = serve.opt(flag)
    if option is None or option.value is None:
        return None
    number = option.value.as_int()
    if number is None:
        raise Unknown(flag)
    return number


def drop(option: Option | None) -> list[Edit]:
    """An edit that removes a whole option (the fixer drops an emptied line)."""
    return [] if option is None else [Edit(option.span, "")]


def kv_role_phrase(role: str | None) -> str:
    """How a message names the instance's kv_role (English)."""
    return "no --kv-transfer-config" if role is None else f"kv_role {role}"


def kv_role_phrase_zh(role: str | None) -> str:
    """How a message names the instance's kv_role (Chinese)."""
    return "未设置 --kv-transfer-config" if role is None else f"kv_role {role}"
