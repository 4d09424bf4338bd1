"""Read the launch plan: a value and the span to blame, under one fallback policy.

Every span a rule reports comes from ``span_of`` / ``option_span`` / ``env_span``, under one
fallback policy: the JSON key's value, else the option's value, else the whole option, else
``absent`` (default: the whole command); ``option_span`` starts at the whole option. A value the script does not fix (``$1``, ``$(cmd)``) raises ``Unknown``, which
skips the rule for that command; ``strict=False`` reads it as None instead (for rules
that look at many commands and must not stop at one).
"""

from __future__ import annotations

from collections import namedtuple

from qlint.rules.graph import Unknown
from qlint.rules.plan import LaunchPlan, Option, ServeCommand, Span, Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NamedTuple

    class Read(NamedTuple):
        """A value read from the plan and the span a finding about it points at."""

        value: Any
        span: Span
else:  # the class typing.NamedTuple builds, without importing typing on the check path
    Read = namedtuple("Read", ("value", "span"), module=__name__)
    Read.__doc__ = "A value read from the plan and the span a finding about it points at."


# -- spans -------------------------------------------------------------------------

def model_span(serve: ServeCommand) -> Span:
    """The model argument, else the whole command."""
    return serve.model.span if serve.model is not None else serve.span


def span_of(serve: ServeCommand, flag: str | tuple[str, ...] | Option, key: str | None = None, *,
            absent: Span | None = None) -> Span:
    """Where a finding about ``flag`` (or the JSON ``key`` inside it) points.

    The key's value, else the option's value, else the option, else ``absent``
    (default: the whole command) when the script does not pass ``flag``. ``flag`` may
    be a tuple (the first of them the command passes) or one occurrence of an option
    (an ``Option`` of ``serve.all_options``).
    """
    if isinstance(flag, Option):
        option: Option | None = flag
    elif isinstance(flag, tuple):
        option = first_option(serve, *flag)
    else:
        option = serve.options.get(flag)
    if option is None:
        return serve.span if absent is None else absent
    if key is not None and option.json is not None:
        found = option.json.key_spans.get(key)
        if found is not None:
            return found
    return option.value.span if option.value is not None else option.span


def option_span(serve: ServeCommand, *flags: str, absent: Span | None = None) -> Span:
    """The whole option (name and value) of the first of ``flags`` the command passes, else
    ``absent`` (default: the whole command)."""
    for flag in flags:
        found = serve.options.get(flag)
        if found is not None:
            return found.span
    return serve.span if absent is None else absent


def name_span(serve: ServeCommand, flag: str, *, absent: Span | None = None) -> Span:
    """The option's name as written (``--kv-transfer-config``), else ``absent`` (default: the command)."""
    found = serve.options.get(flag)
    if found is None:
        return serve.span if absent is None else absent
    return found.name_span


def env_span(serve: ServeCommand, name: str, *, absent: Span | None = None) -> Span:
    """The ``NAME=value`` setting in effect for the command, else ``absent`` (default: the command)."""
    setting = serve.env.get(name)
    if setting is None:
        return serve.span if absent is None else absent
    return setting.span


def key_mapped(serve: ServeCommand, flag: str, key: str) -> bool:
    """True when the JSON ``key`` of ``flag`` has its own span in the file (edits can target it)."""
    option = serve.options.get(flag)
    return option is not None and option.json is not None and key in option.json.key_spans


def script_name(plan: LaunchPlan) -> str:
    """How a message names a script of a deployment: its file name (``run_p.sh``)."""
    return plan.path.rsplit("/", 1)[-1]


# -- values ------------------------------------------------------------------------

def _text(value: Value | None, name: str, strict: bool) -> str | None:
    if value is None:
        return None
    if value.text is None:
        if strict:
            raise Unknown(name)
        return None
    return value.text


def option(serve: ServeCommand, flag: str, default: Any = None, *, strict: bool = True) -> Read:
    """The text of an option's value (``default`` when absent or a switch) and its span."""
    found = serve.options.get(flag)
    if found is None or found.value is None:
        return Read(default, span_of(serve, flag))
    return Read(_text(found.value, flag, strict), found.value.span)


def integer(serve: ServeCommand, flag: str, default: Any = None, *, strict: bool = True) -> Read:
    """An integer option (``default`` when absent or given without a value) and its span.

    Raises Unknown when the value is symbolic or not an integer (None with ``strict=False``).
    """
    found = serve.options.get(flag)
    if found is None or found.value is None:
        return Read(default, span_of(serve, flag))
    number = found.value.as_int()
    if number is None and strict:
        raise Unknown(flag)
    return Read(number, found.value.span)


def json_key(serve: ServeCommand, flag: str, key: str, default: Any = None) -> Read:
    """The value of a dotted ``key`` in a JSON option (``default`` when missing) and its span."""
    found = serve.options.get(flag)
    value = default
    if found is not None and found.json is not None:
        value = found.json.get(key, default)
    return Read(value, span_of(serve, flag, key))


def env(serve: ServeCommand, name: str, *, strict: bool = True) -> Read:
    """An environment variable's value for the command, blanks stripped (None when unset) and its span.

    Raises Unknown when the value is symbolic (None with ``strict=False``).
    """
    setting = serve.env.get(name)
    if setting is None or setting.value is None:
        return Read(None, env_span(serve, name))
    text = _text(setting.value, name, strict)
    return Read(None if text is None else text.strip(), setting.span)


def env_on(serve: ServeCommand, name: str) -> bool:
    """True when a 0/1 variable is ``1`` or ``true``; Unknown when symbolic."""
    text = env(serve, name).value
    return text is not None and text.lower() in ("1", "true")


def positional(serve: ServeCommand, index: int, *, strict: bool = True) -> Read | None:
    """The ``index``-th positional argument after ``serve`` (0: the model), None when there is none."""
    if index >= len(serve.positionals):
        return None
    value = serve.positionals[index]
    return Read(_text(value, f"${index}", strict), value.span)


def first_option(serve: ServeCommand, *flags: str) -> Option | None:
    """The first of ``flags`` the command passes (in the order given), else None."""
    for flag in flags:
        found = serve.options.get(flag)
        if found is not None:
            return found
    return None
