"""Edit builders: each returns the edits of one whole change, or ``[]`` when the change
cannot be made exactly (the fix is then advice only).

They keep the author's text: only the tokens that change are replaced, new options go
after the model argument (on a continuation line of their own when the command is written one
option per line), and JSON keys are written with the separators and the shell
quoting the planner recorded for that option (``JsonValue``). A change that would need
characters the quoting cannot hold (a ``'`` inside ``'...'``) is refused. The fixer
applies a fix's edits together or not at all.
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)

from qlint.rules.base import Edit
from qlint.rules.plan import JsonValue, Option, ServeCommand, Span, Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def point(span: Span) -> Span:
    """The zero-width span just after ``span`` (where text is inserted)."""
    return Span(span.end_line, span.end_column, span.end_line, span.end_column)


def replace(span: Span | None, text: str) -> list[Edit]:
    """Replace the text at ``span`` (no edit when there is no span)."""
    return [] if span is None else [Edit(span, text)]


def set_word(value: Value, text: str) -> list[Edit]:
    """Replace a word the script writes literally (no quotes, no expansion) by ``text``;
    ``[]`` when it is quoted or built from parts, or already ``text``."""
    if value.text is None or value.raw != value.text or value.text == text:
        return []
    return [Edit(value.span, text)]


def shell_word(text: str) -> str:
    """``text`` as one shell word (quoted only when it needs to be)."""
    from shlex import quote  # only when a fix writes a word

    return quote(text)


# -- options -------------------------------------------------------------------------

def insert_option(serve: ServeCommand, text: str) -> list[Edit]:
    """Add the option ``text`` (e.g. ``--enforce-eager``, ``--quantization ascend``) after the model
    argument, in the command's own layout: a continuation line of its own, indented as the option
    lines are, when the command writes one option per line; else `` text`` on the model's line.
    None without a model argument. Only the new text is written: no other line changes."""
    if serve.model is None:
        return []
    if serve.option_line is not None:
        line, indent = serve.option_line
        return [Edit(Span(line, 1, line, 1), f"{indent}{text} \\\n")]
    return [Edit(point(serve.model.span), " " + text)]


def drop_option(option: Option | None) -> list[Edit]:
    """Remove a whole option with its value (the fixer also drops a line left empty)."""
    return [] if option is None else [Edit(option.span, "")]


def set_value(serve: ServeCommand, flag: str, text: str, *, default: str | None = None) -> list[Edit]:
    """Give ``flag`` the value ``text``: replace the value written, or add the option after the
    model argument (nothing when it is absent and ``text`` is its ``default``, or already set)."""
    option = serve.options.get(flag)
    if option is not None and option.value is not None:
        return [] if option.value.text == text else [Edit(option.value.span, text)]
    if option is not None or text == default:
        return []
    if serve.model is not None:
        return insert_option(serve, f"{flag} {text}")
    return [Edit(point(serve.argv[-1].span), f" {flag} {text}")]


def set_env(serve: ServeCommand, name: str, text: str) -> list[Edit]:
    """Replace the value of the ``NAME=value`` setting in effect (none when it is not set)."""
    setting = serve.env.get(name)
    if setting is None or setting.value is None:
        return []
    return [Edit(setting.value.span, text)]


# -- JSON keys -----------------------------------------------------------------------

def _json(serve: ServeCommand, flag: str) -> JsonValue | None:
    """The option's JSON when its keys map onto the file (a whole JSON word, not ``--flag.key``)."""
    option = serve.options.get(flag)
    if option is None or option.json is None or option.value is None or "." in option.spelled:
        return None
    return option.json if option.json.quote is not None else None


def json_text(value: Any, layout: JsonValue | None = None, like: str | None = None) -> str:
    """A JSON value written with the author's separators (``like``: the text it replaces,
    whose list separator wins for lists, e.g. ``[1,8]`` stays unspaced)."""
    item = layout.item_separator if layout is not None else ", "
    key = layout.key_separator if layout is not None else ": "
    if like is not None and isinstance(value, list) and like.startswith("[") and "," in like:
        item = ", " if ", " in like else ","
    return json.dumps(value, separators=(item, key), ensure_ascii=False)


def _fits(found: JsonValue, text: str) -> bool:
    """True when ``text`` can go inside the option's shell quoting unchanged."""
    if found.quote == "'":
        return "'" not in text
    if found.quote == '"':
        return not any(char in text for char in '"$`\\')
    return not any(char in text for char in " \t\n'\"$`\\;&|<>(){}*?[]#~")


def set_key(serve: ServeCommand, flag: str, dotted: str, value: Any, *, text: str | None = None) -> list[Edit]:
    """Set the JSON key ``dotted`` of ``flag`` to ``value`` (``text``: its JSON spelling, when given).

    Replaces the value written for the key, or inserts the key into its object (creating
    the missing objects on the way). ``[]`` when the key's place in the file is not known.
    """
    found = _json(serve, flag)
    if found is None:
        return []
    if dotted in found.key_spans:
        span = found.key_spans[dotted]
        new = text if text is not None else json_text(value, found, _written(serve, flag, span))
        return [Edit(span, new)] if _fits(found, new) else []
    parts = dotted.split(".")
    for depth in range(len(parts) - 1, -1, -1):  # the deepest existing object
        parent = ".".join(parts[:depth])
        if parent in found.objects:
            break
    else:
        return []
    nested: Any = value
    for part in reversed(parts[depth + 1:]):
        nested = {part: nested}
    inner = text if text is not None and depth == len(parts) - 1 else json_text(nested, found)
    at, empty = found.objects[parent]
    entry = json.dumps(parts[depth]) + found.key_separator + inner
    new = entry if empty else found.item_separator + entry
    return [Edit(at, new)] if _fits(found, new) else []


def _written(serve: ServeCommand, flag: str, span: Span) -> str | None:
    """The text of a one-line span inside the option's value (for keeping a list's spacing)."""
    option = serve.options[flag]
    value = option.value
    if value is None or span.line != span.end_line or value.span.line != span.line or value.raw is None:
        return None
    start = span.column - value.span.column
    return value.raw[start:start + span.end_column - span.column] if start >= 0 else None


def drop_key(serve: ServeCommand, flag: str, dotted: str) -> list[Edit]:
    """Remove the JSON key ``dotted`` (and an object it leaves empty, and the whole option
    when nothing is left); ``[]`` when its place in the file is not known."""
    found = _json(serve, flag)
    if found is None or found.get(dotted, _MISSING) is _MISSING:
        return []
    parts = dotted.split(".")
    while len(parts) > 1:
        parent = found.get(".".join(parts[:-1]))
        if not isinstance(parent, dict) or len(parent) > 1:
            break
        parts = parts[:-1]  # the key is the only one of its object: remove the object
    key = ".".join(parts)
    if len(parts) == 1 and isinstance(found.data, dict) and len(found.data) == 1:
        return drop_option(serve.options[flag])
    span = found.entry_spans.get(key)
    return [] if span is None else [Edit(span, "")]


_MISSING = object()
