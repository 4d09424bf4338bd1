"""The launch plan: what the linter read from a script, as the rules see it.

The linter (``qlint.linter``) builds these objects from shell text; the rules
only read them. ``Span`` values are opaque to the rules: a rule passes the
span of the item it blames into its finding and never computes positions.
Values that the script does not fix (``$1``, ``$(cmd)``, unset variables)
are ``None`` and rules that need them are skipped.
"""

from __future__ import annotations

from qlint.record import SlottedRecord, field, record
from qlint.rules.local_model import LocalModel

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Literal


class Span(metaclass=SlottedRecord, frozen=True):
    """1-based line/column range; ``end_column`` is one past the last character."""

    line: int
    column: int
    end_line: int
    end_column: int

    def __init__(self, line: int, column: int, end_line: int, end_column: int) -> None:
        _set_line(self, line)  # frozen: set through the slots' own descriptors (bound below the class)
        _set_column(self, column)
        _set_end_line(self, end_line)
        _set_end_column(self, end_column)


_set_line, _set_column, _set_end_line, _set_end_column = (
    Span.__dict__[name].__set__ for name in ("line", "column", "end_line", "end_column"))


class Value(metaclass=SlottedRecord):
    """A word of the script: expanded ``text`` (None when symbolic) and where it is."""

    text: str | None
    span: Span
    raw: str = ""
    symbols: list[str] = field(default_factory=list)

    def __init__(self, text: str | None, span: Span, raw: str = "", symbols: list[str] | None = None) -> None:
        self.text = text
        self.span = span
        self.raw = raw
        self.symbols = [] if symbols is None else symbols

    def as_int(self) -> int | None:
        """The value as an int, or None when symbolic or not an integer."""
        if self.text is None:
            return None
        try:
            return int(self.text.strip())
        except ValueError:
            return None

    def as_float(self) -> float | None:
        if self.text is None:
            return None
        try:
            return float(self.text.strip())
        except ValueError:
            return None


class JsonValue(metaclass=SlottedRecord):
    """A parsed JSON argument and the spans of its keys (dotted paths).

    ``key_spans["kv_connector_extra_config.decode.tp_size"]`` is the span of
    that key's value in the file when the mapping could be made, else absent.
    The rest is the author's layout, recorded by the planner for the edit
    builders of ``qlint.rules.kit`` (rules do not read it): ``entry_spans`` is
    what removing a key removes (the entry and one separator), ``objects`` maps
    the dotted path of each object (``""``: the top level) to where a new entry
    goes and whether the object is empty, ``item_separator`` / ``key_separator``
    are the separators the author wrote, and ``quote`` is the shell quoting of
    the word holding the JSON (``'``, ``"`` or ``""`` for a bare word; None when
    the JSON text does not map 1:1 onto the file, e.g. escaped quotes).

    ``layout``: when given, these six fields are left unset and the first read of one of them calls
    ``layout(self, name)`` to set it (the planner reads a JSON text's layout only when a finding or a fix
    asks where its keys are: most never do; a finding's span needs ``key_spans`` alone).
    """

    data: Any
    key_spans: dict[str, Span] = field(default_factory=dict)
    entry_spans: dict[str, Span] = field(default_factory=dict)
    objects: dict[str, tuple[Span, bool]] = field(default_factory=dict)
    item_separator: str = ", "
    key_separator: str = ": "
    quote: str | None = None
    layout: "Callable[[JsonValue, str | None], None] | None" = field(default=None, repr=False, compare=False)

    def __init__(self, data: Any, key_spans: dict[str, Span] | None = None,
                 entry_spans: dict[str, Span] | None = None, objects: dict[str, tuple[Span, bool]] | None = None,
                 item_separator: str = ", ", key_separator: str = ": ", quote: str | None = None,
                 layout: "Callable[[JsonValue, str | None], None] | None" = None) -> None:
        self.data = data
        self.layout = layout
        if layout is None:
            self.key_spans = {} if key_spans is None else key_spans
            self.entry_spans = {} if entry_spans is None else entry_spans
            self.objects = {} if objects is None else objects
            self.item_separator, self.key_separator, self.quote = item_separator, key_separator, quote

    def __getattr__(self, name: str) -> Any:
        """A layout field not read yet (only called for a slot that is not set): ``layout(self, name)`` sets it
        (and the fields read with it; ``layout`` becomes None once every field is set)."""
        if name not in _LAID_OUT:  # (first: unpickling asks for names while no slot is set yet)
            raise AttributeError(f"'JsonValue' object has no attribute {name!r}")
        layout = self.layout
        if layout is None:
            raise AttributeError(f"'JsonValue' object has no attribute {name!r}")
        layout(self, name)
        return getattr(self, name)

    def get(self, dotted: str, default: Any = None) -> Any:
        node = self.data
        if "." not in dotted:  # the common case: a top-level key
            return node[dotted] if isinstance(node, dict) and dotted in node else default
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node


_LAID_OUT = frozenset({"key_spans", "entry_spans", "objects", "item_separator", "key_separator", "quote"})


class Option(metaclass=SlottedRecord):
    """One command-line option as written.

    ``name`` is the canonical vLLM spelling (dashes, long form, e.g.
    ``--tensor-parallel-size``); ``spelled`` is what the script wrote
    (``-tp``, ``--max-num_seqs``). ``value`` is None for switches.
    ``negated`` is True for the ``--no-`` form of a boolean option.
    ``json`` holds the parsed value of JSON-valued options; ``json_error``
    says why parsing failed, with ``json_error_span``.
    """

    name: str
    spelled: str
    span: Span
    name_span: Span
    value: Value | None = None
    negated: bool = False
    known: bool = True
    json: JsonValue | None = None
    json_error: str | None = None
    json_error_span: Span | None = None

    def __init__(self, name: str, spelled: str, span: Span, name_span: Span, value: Value | None = None,
                 negated: bool = False, known: bool = True, json: JsonValue | None = None,
                 json_error: str | None = None, json_error_span: Span | None = None) -> None:
        self.name = name
        self.spelled = spelled
        self.span = span
        self.name_span = name_span
        self.value = value
        self.negated = negated
        self.known = known
        self.json = json
        self.json_error = json_error
        self.json_error_span = json_error_span


class EnvSetting(metaclass=SlottedRecord):
    """An environment variable in effect for a command (``export`` or prefix)."""

    name: str
    value: Value | None
    span: Span
    exported: bool

    def __init__(self, name: str, value: Value | None, span: Span, exported: bool) -> None:
        self.name = name
        self.value = value
        self.span = span
        self.exported = exported


class Command(metaclass=SlottedRecord):
    """Base for the commands a plan holds. ``span`` covers the whole command."""

    kind: str
    span: Span
    env: dict[str, EnvSetting]
    argv: list[Value]
    container: "DockerRun | None" = None  # the innermost docker/podman run whose command line holds it
    background: bool = False  # the script goes on without waiting for it (``cmd &``, ``docker run -d``)
    in_loop: bool = False  # inside a while/until loop: run again until its condition holds (a poll)

    def __init__(self, kind: str, span: Span, env: dict[str, EnvSetting], argv: list[Value],
                 container: "DockerRun | None" = None, background: bool = False, in_loop: bool = False) -> None:
        self.kind, self.span, self.env, self.argv = kind, span, env, argv
        self.container, self.background, self.in_loop = container, background, in_loop


class ServeCommand(Command, metaclass=SlottedRecord):
    """``vllm serve MODEL ...`` or ``python -m vllm.entrypoints.openai.api_server``.

    ``options`` maps canonical names to the last occurrence (argparse keeps the
    last); ``all_options`` keeps every occurrence in order.
    """

    model: Value | None = None
    local_model: LocalModel | None = None  # metadata of a local model directory (config.json)
    options: dict[str, Option] = field(default_factory=dict)
    all_options: list[Option] = field(default_factory=list)
    positionals: list[Value] = field(default_factory=list)
    wrappers: list[str] = field(default_factory=list)  # what runs it, outermost first: docker, sudo, ssh, bash...
    devices: list[Value] | None = None  # NPU device nodes a container maps (docker --device /dev/davinciN)
    # (line, indentation) of the first option on its own continuation line after the model: where a
    # new option is written as a line of its own (None: one-line command, or no such layout)
    option_line: tuple[int, str] | None = None

    def __init__(self, kind: str, span: Span, env: dict[str, EnvSetting], argv: list[Value],
                 container: "DockerRun | None" = None, background: bool = False, in_loop: bool = False,
                 model: Value | None = None, local_model: LocalModel | None = None,
                 options: dict[str, Option] | None = None, all_options: list[Option] | None = None,
                 positionals: list[Value] | None = None, wrappers: list[str] | None = None,
                 devices: list[Value] | None = None, option_line: tuple[int, str] | None = None) -> None:
        self.kind, self.span, self.env, self.argv = kind, span, env, argv
        self.container, self.background, self.in_loop = container, background, in_loop
        self.model, self.local_model = model, local_model
        self.options = {} if options is None else options
        self.all_options = [] if all_options is None else all_options
        self.positionals = [] if positionals is None else positionals
        self.wrappers = [] if wrappers is None else wrappers
        self.devices, self.option_line = devices, option_line

    def opt(self, name: str) -> Option | None:
        return self.options.get(name)

    def has(self, name: str) -> bool:
        option = self.options.get(name)
        return option is not None and not option.negated

    @property
    def option_first(self) -> bool:
        """Whether the first word after ``vllm serve`` is an option (``vllm serve --port 8000 MODEL``)."""
        argv = self.argv
        return len(argv) > 2 and (argv[2].text or "").startswith("-")


class ClientCommand(Command, metaclass=SlottedRecord):
    """A client that names a served model: ``curl`` with a JSON body, ``lm_eval``,
    ``vllm bench serve``. ``model_name`` is the name it asks for."""

    model_name: Value | None = None
    tool: Literal["curl", "lm_eval", "vllm-bench", "other"] = "other"


class DockerRun(Command, metaclass=SlottedRecord):
    """``docker run ... IMAGE``: the image and the ``--device`` nodes it maps."""

    image: Value | None = None
    devices: list[Value] = field(default_factory=list)


class LauncherCommand(Command, metaclass=SlottedRecord):
    """``python launch_online_dp.py --dp-size ...`` (vllm-ascend external DP launcher)."""

    options: dict[str, Value] = field(default_factory=dict)


class ProxyCommand(Command, metaclass=SlottedRecord):
    """``python load_balance_proxy[_layerwise]_server_example.py ...``."""

    layerwise: bool = False
    options: dict[str, list[Value]] = field(default_factory=dict)


class RayStartCommand(Command, metaclass=SlottedRecord):
    """``ray start --head [--port P] ...`` or ``ray start --address HOST:PORT ...``: one node of a Ray
    cluster. ``options`` maps each ``--option`` (dashes, as written) to its values (``[]`` for a switch)."""

    options: dict[str, list[Value]] = field(default_factory=dict)
    address_port: Value | None = None
    """The port part of ``--address HOST:PORT`` with its own span (None when not written literally)."""

    @property
    def head(self) -> bool:
        return "--head" in self.options

    def value(self, name: str) -> Value | None:
        """The last value written for ``--name`` (None when absent or a switch)."""
        values = self.options.get(name)
        return values[-1] if values else None


@record
class Directive:
    """A ``# qlint: key=value ...`` comment."""

    settings: dict[str, str]
    span: Span


class LaunchPlan(metaclass=SlottedRecord):
    """Everything the rules may read about one script.

    ``image_tags`` are vllm-ascend image references found anywhere in the
    script (``quay.io/ascend/vllm-ascend:v0.23.0rc1-a3``). ``shebang`` is the
    span and text of the first ``#!`` (or ``#/``) line found and the line it is on.
    ``dangling_continuations`` are spans of a trailing backslash followed by a
    blank line or end of file (the next non-blank line would be joined).
    ``crlf_endings`` are the carriage returns of lines ending in ``\\r\\n``, each with whether a
    backslash stands before it.
    ``glued_redirects`` are ``<x>``-style placeholders inside a word that bash
    reads as redirections (text, span).
    """

    path: str
    commands: list[Command] = field(default_factory=list)
    image_tags: list[Value] = field(default_factory=list)
    directives: list[Directive] = field(default_factory=list)
    shebang: tuple[str, Span] | None = None
    first_code_line: int | None = None
    dangling_continuations: list[Span] = field(default_factory=list)
    crlf_endings: list[tuple[Span, bool]] = field(default_factory=list)  # each CR of a CRLF line end; after a backslash?
    unterminated_heredocs: list[Span] = field(default_factory=list)  # heredoc starts closed only by the end of file
    glued_redirects: list[tuple[str, Span]] = field(default_factory=list)
    unsets: dict[str, Span] = field(default_factory=dict)
    unread: list[tuple[str, str, Span]] = field(default_factory=list)  # (kind, what, where) the reader could not follow
    kind: str = "shell"  # the file it came from: shell, markdown, kubernetes, compose, e2e-config

    def serve_commands(self) -> list[ServeCommand]:
        return [c for c in self.commands if isinstance(c, ServeCommand)]

    @property
    def odd_shebang(self) -> tuple[str, Span] | None:
        """The shebang when it selects no interpreter (written ``#/...``, or not at line 1, column 1), else None."""
        shebang = self.shebang
        if shebang is None:
            return None
        text, span = shebang
        return shebang if text.startswith("#/") or span.line != 1 or span.column != 1 else None

    def clients(self) -> list[ClientCommand]:
        return [c for c in self.commands if isinstance(c, ClientCommand)]
