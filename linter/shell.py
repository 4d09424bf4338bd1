"""Read shell text with tree-sitter-bash into simple commands with resolved words.

Nothing is executed, sourced or evaluated: variable values are taken from
literal assignments that appear earlier in the same script, and anything
else (``$1``, ``$(cmd)``, unset variables, arithmetic) stays *symbolic*,
i.e. ``Word.value`` is ``None``.

Positions are 1-based lines and columns counted in characters (not bytes);
end positions point one character past the end, as in ruff and LSP.

The scripts a script runs beyond its own lines (what wrappers such as ``sudo``, ``docker`` or
``bash -c`` run, text piped into a shell, sourced files) are read by ``shell_nested``, imported
when the reader meets one.
"""

from __future__ import annotations

import sys
from functools import lru_cache

from qlint.linter.source import SourceText
from qlint.record import field, record
from qlint.rules.plan import Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    import tree_sitter as ts

    from qlint.linter.wrappers import Layer

SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh"})
WRAPPERS = frozenset({"nohup", "setsid", "exec", "time", "command", "nice", "stdbuf", "timeout", "ionice", "chrt",
                      "taskset", "numactl", "env", "sudo", "doas", "docker", "podman", "ssh", "su"}) | SHELLS
"""Programs that run another command, which ``qlint.linter.wrappers.unwrap`` looks into (that module is
imported for a command naming one of them)."""


class ShellSyntaxError(Exception):
    """The script cannot be parsed as bash. ``span`` says where."""

    def __init__(self, message: str, span: Span, zh: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.zh = zh


@lru_cache(maxsize=1)
def _parser() -> ts.Parser:
    binding = _tree_sitter()
    return binding.Parser(binding.Language(_bash_language()))


# Every byte of a multi-byte UTF-8 character becomes "." for the parser only.
_ASCII_FOR_PARSER = bytes(range(128)) + b"." * 128


def parse_tree(data: bytes) -> ts.Tree:
    """Parse ``data`` with tree-sitter-bash, never handing it a non-ASCII byte.

    tree-sitter-bash's scanner crashes the process (SIGSEGV, seen with 0.23.3 to
    0.25.1) on a ``{`` followed by a code point of the upper Unicode planes, e.g.
    ``"{\U000D0000}"``. No non-ASCII character is shell syntax, so each of its bytes
    is replaced by ``.`` in the parser's copy: offsets, and so every span and every
    word (always sliced from the original bytes), stay as they were.
    """
    tree = _TREES.get(data)
    if tree is None:
        tree = _parser().parse(data.translate(_ASCII_FOR_PARSER))
        if len(data) <= _TREE_CACHE_BYTES:
            if len(_TREES) >= _TREE_CACHE_SIZE:
                _TREES.clear()
            _TREES[data] = tree
    return tree


_TREES: dict[bytes, ts.Tree] = {}
"""The trees of the last texts parsed, by text: the deployment pass reads a DP template once per local rank,
the same bytes each time (and a dangling continuation looks at the script's tree again). A tree is never
edited, and nothing read from it changes it."""
_TREE_CACHE_SIZE = 8
_TREE_CACHE_BYTES = 64 * 1024


def _find_spec(name: str, path=None):
    """The spec ``import name`` would use (the finders of ``sys.meta_path``, in order), found without
    importing importlib (``importlib.util.find_spec`` without its imports)."""
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        spec = find_spec(name, path) if find_spec is not None else None
        if spec is not None:
            return spec
    return None


def _extension(package: str, name: str):
    """The compiled module ``package.name``, loaded without running ``package/__init__.py`` and
    registered in ``sys.modules`` under its real name, so that a later ``import package`` (whose
    ``__init__`` imports it) reuses it. Raises ImportError where the layout is not that."""
    full = f"{package}.{name}"
    module = sys.modules.get(full)
    if module is not None:
        return module
    found = _find_spec(package)
    spec = _find_spec(full, found.submodule_search_locations) if found is not None else None
    module = spec.loader.create_module(spec) if spec is not None and spec.loader is not None else None
    if spec is None or spec.loader is None or module is None:
        raise ImportError(full)
    module.__spec__ = spec
    module.__loader__ = spec.loader
    spec.loader.exec_module(module)
    sys.modules[full] = module
    return module


def _tree_sitter():
    """py-tree-sitter's classes (``Parser``, ``Language``...), from its compiled ``_binding``: the
    package's ``__init__`` imports typing (for one Protocol) and only re-exports them."""
    try:
        return _extension("tree_sitter", "_binding")
    except Exception:  # pragma: no cover - another installation layout
        import tree_sitter

        return tree_sitter


def _bash_language():
    """The tree-sitter-bash grammar (a capsule for ``ts.Language``).

    Loaded from the package's compiled ``_binding`` module directly: the package's
    ``__init__`` imports importlib.resources (and with it tempfile, shutil, zipfile...)
    for query files qlint never reads: several milliseconds of every ``qlint`` start.
    Any surprise in that layout falls back to the plain import.
    """
    try:
        return _extension("tree_sitter_bash", "_binding").language()
    except Exception:  # pragma: no cover - another installation layout
        import tree_sitter_bash

        return tree_sitter_bash.language()


@record
class Word:
    """One shell word after quote removal and known-variable expansion.

    ``value`` is the expanded text, or ``None`` when any part is symbolic
    (``$1``, an unknown variable, a command substitution). ``symbols`` names
    the unknown parts (e.g. ``["$1"]``). ``content_start`` is the position of
    the first character of the value when the word is one quoted string or a
    plain word, so that offsets inside the value (e.g. a JSON error) can be
    mapped back to the file; it is ``None`` when the mapping is not 1:1.
    """

    raw: str
    value: str | None
    span: Span
    symbols: list[str] = field(default_factory=list)
    content_start: int | None = None  # byte offset in the file
    node: ts.Node | None = field(default=None, repr=False, compare=False)  # the tree-sitter node it came from
    walker: _Walker | None = field(default=None, repr=False, compare=False)  # the reader that made it
    origins: list[int] | None = field(default=None, repr=False, compare=False)  # byte -> file offset (YAML values)

    def __init__(self, raw: str, value: str | None, span: Span, symbols: list[str] | None = None,
                 content_start: int | None = None, node: ts.Node | None = None, walker: _Walker | None = None,
                 origins: list[int] | None = None) -> None:
        self.raw = raw
        self.value = value
        self.span = span
        self.symbols = [] if symbols is None else symbols
        self.content_start = content_start
        self.node = node
        self.walker = walker
        self.origins = origins

    @property
    def known(self) -> bool:
        return self.value is not None


@record
class Assignment:
    """``NAME=value`` (plain, ``export`` or command prefix). ``value`` as in Word."""

    name: str
    word: Word | None
    span: Span
    exported: bool

    def __init__(self, name: str, word: Word | None, span: Span, exported: bool) -> None:
        self.name = name
        self.word = word
        self.span = span
        self.exported = exported


@record
class SimpleCommand:
    """A simple command: argv words, prefix assignments and the variables in scope.

    ``env`` maps names to the Assignment in effect when the command runs
    (script-level assignments and exports so far, plus prefix assignments).
    """

    words: list[Word]
    span: Span
    env: dict[str, Assignment]
    prefix: list[Assignment] = field(default_factory=list)
    background: bool = False
    layers: list[Layer] = field(default_factory=list)  # wrappers around it, outermost first (docker, ssh...)
    in_loop: bool = False  # inside a while/until loop (its condition or body): repeated until something holds

    def __init__(self, words: list[Word], span: Span, env: dict[str, Assignment], prefix: list[Assignment] | None = None,
                 background: bool = False, layers: list[Layer] | None = None, in_loop: bool = False) -> None:
        self.words, self.span, self.env = words, span, env
        self.prefix = [] if prefix is None else prefix
        self.background = background
        self.layers = [] if layers is None else layers
        self.in_loop = in_loop


@record
class Unread:
    """Something the reader could not follow: ``kind`` (``eval``, ``dynamic-command``,
    ``source``, ``source-cycle``, ``env-file``, ``unparsable``, ``too-deep``,
    ``recursive-function``), ``detail`` (what it was) and where."""

    kind: str
    detail: str
    span: Span


@record
class Comment:
    text: str
    span: Span

    def __init__(self, text: str, span: Span) -> None:
        self.text = text
        self.span = span


@record
class ParsedScript:
    """A whole script: its commands in order, comments, and the source text."""

    source: SourceText
    commands: list[SimpleCommand]
    comments: list[Comment]
    assignments: list[Assignment]
    unsets: dict[str, Span]
    glued_redirects: list[Span] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)
    opaque: list[Span] = field(default_factory=list)  # text read through a mapping that is not 1:1: no edits there
    text: bytes | None = None  # what was parsed when it is not source.data (a Markdown file's masked copy)
    unterminated_heredocs: list[Span] = field(default_factory=list)  # heredoc starts bash closes at end of file


_SKIP_EXPANSION = {"command_substitution", "process_substitution", "arithmetic_expansion"}
_MAX_DEPTH = 8
"""Nesting limit for scripts inside scripts (bash -c, heredocs, functions, source)."""
_MAX_LOOP_VALUES = 32
"""A ``for`` loop over more literal values than this is read once with its variable unknown."""
_SOURCE_COMMANDS = frozenset({"source", "."})
_DYNAMIC = frozenset({"eval"})


class _Walker:
    def __init__(self, source: SourceText, bindings: dict[str, str | None], data: bytes | None = None):
        self.source = source  # the file: spans are positions in it
        self.data = source.data if data is None else data  # the bytes parsed (a masked copy for Markdown/YAML)
        self.origins: list[int] | None = None  # nested text: byte -> offset in the file
        self.coarse: Span | None = None  # nested text with no 1:1 mapping: every span is this one
        self.vars: dict[str, Assignment] = {}
        self.arrays: dict[str, list[Word]] = {}
        self.bindings = bindings  # positional / external bindings, e.g. {"1": "0,1"}
        self.positional: list[Word] | None = None  # "$@" inside a function call or bash -c
        self.layers: list[Layer] = []  # wrappers around a nested script (docker, ssh, sudo...)
        self.depth = 0
        self.polling = 0  # depth of while/until loops around the commands being read
        self.commands: list[SimpleCommand] = []
        self.comments: list[Comment] = []
        self.assignments: list[Assignment] = []
        self.unsets: dict[str, Span] = {}
        self.glued_redirects: list[Span] = []
        self.unread: list[Unread] = []
        self.opaque: list[Span] = []
        self.functions: dict[str, ts.Node] = {}
        self.called: set[str] = set()
        self.calling: list[str] = []
        self.containers: dict[str, Layer] = {}
        self.sourcing: list[str] = [source.path]
        self.family: list[_Walker] = [self]  # this walker and those reading its nested scripts (release)

    def release(self) -> None:
        """Once the script is read: let go of what the reading held (variables, commands, comments...) in
        this walker and its nested ones. The words keep their walker for positions (``text``, ``map``), and
        nothing they reach leads back to them: a read script is freed by refcounting, not left to the
        cyclic garbage collector (a batch made about a hundred such objects per file)."""
        for walker in self.family:
            walker.vars, walker.arrays, walker.positional, walker.layers = {}, {}, None, []
            walker.commands, walker.comments, walker.assignments, walker.unsets = [], [], [], {}
            walker.glued_redirects, walker.unread, walker.opaque = [], [], []
            walker.functions, walker.called, walker.calling, walker.containers = {}, set(), [], {}
        for walker in self.family:
            walker.family = []

    # -- positions -------------------------------------------------------
    def map(self, start: int, end: int) -> Span:
        if self.coarse is not None:
            return self.coarse
        if self.origins is None:
            return self.source.span(start, end)
        origins = self.origins
        first = origins[start]
        last = origins[end - 1] + 1 if end > start else first
        return self.source.span(first, last)

    def span(self, node: ts.Node) -> Span:
        if self.coarse is None and self.origins is None:  # map() inlined: the script itself
            return self.source.span(node.start_byte, node.end_byte)
        return self.map(node.start_byte, node.end_byte)

    def text(self, node: ts.Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    # -- words -----------------------------------------------------------
    def lookup(self, name: str) -> str | None:
        if name in self.bindings:
            return self.bindings[name]
        assignment = self.vars.get(name)
        if assignment is None or assignment.word is None:
            return None
        return assignment.word.value

    def expand(self, node: ts.Node) -> tuple[str | None, list[str]]:
        """Return (value or None, symbolic parts) for a word-like node."""
        kind = node.type
        if kind in ("word", "number"):
            return _unescape(self.text(node)), []
        if kind == "raw_string":
            return self.text(node)[1:-1], []
        if kind == "ansi_c_string":
            return _ansi_c(self.text(node)[2:-1]), []
        if kind == "string":
            parts: list[str] = []
            symbols: list[str] = []
            known = True
            cursor = node.start_byte + 1
            for child in node.named_children:
                # text between children is literal string content
                parts.append(self._literal_in_string(cursor, child.start_byte))
                value, syms = self.expand(child)
                if value is None:
                    known = False
                    symbols += syms
                else:
                    parts.append(value)
                cursor = child.end_byte
            parts.append(self._literal_in_string(cursor, node.end_byte - 1))
            return ("".join(parts) if known else None), symbols
        if kind == "string_content":
            return _unescape_dq(self.text(node)), []
        if kind in ("simple_expansion", "expansion"):
            elements = self._array_elements(node)
            if elements is not None:
                values = [w.value for w in elements]
                if any(v is None for v in values):
                    return None, [self.text(node)]
                return " ".join(values), []  # type: ignore[arg-type]
            name = self._expansion_name(node)
            if name is None:
                return None, [self.text(node)]
            value = self.lookup(name)
            operator = self._expansion_operator(node)
            if operator in (":+", "+"):  # ${VAR:+alt}: alt when VAR is set (and not empty)
                if value is None:
                    return None, [self.text(node)]
                if operator == ":+" and value == "":
                    return "", []
                return self._operand(node)
            if value is None or (value == "" and operator in (":-", ":=")):
                default = self._expansion_default(node)
                if default is not None:
                    if operator in (":=", "=") and default[0] is not None and name not in self.bindings:
                        word = Word(raw=default[0], value=default[0], span=self.span(node))
                        self._set(Assignment(name=name, word=word, span=self.span(node), exported=False))
                    return default
                return None, [self.text(node)]
            return value, []
        if kind == "concatenation":
            parts = []
            symbols = []
            known = True
            for child in node.children:
                value, syms = self.expand(child)
                if value is None:
                    known = False
                    symbols += syms
                else:
                    parts.append(value)
            return ("".join(parts) if known else None), symbols
        if kind in _SKIP_EXPANSION:
            return None, [self.text(node)]
        # anything else (brace expansion, globs...) is kept literally
        return self.text(node), []

    def _literal_in_string(self, start: int, end: int) -> str:
        if end <= start:
            return ""
        return _unescape_dq(self.data[start:end].decode("utf-8", "replace"))

    def _expansion_name(self, node: ts.Node) -> str | None:
        for child in node.named_children:
            if child.type in ("variable_name", "special_variable_name"):
                return self.text(child)
        # positional parameters appear as plain text: $1, ${1}
        text = self.text(node).lstrip("$").strip("{}")
        if text.isdigit():
            return text
        return None

    def _expansion_operator(self, node: ts.Node) -> str | None:
        if node.type != "expansion":
            return None
        for child in node.children:
            if child.type in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
                return child.type
        return None

    def _operand(self, node: ts.Node) -> tuple[str | None, list[str]]:
        children = node.children
        for index, child in enumerate(children):
            if child.type in (":-", "-", ":=", "=", ":+", "+"):
                following = [c for c in children[index + 1 :] if c.type != "}"]
                if len(following) == 1:
                    return self.expand(following[0])
                if not following:
                    return "", []
                break
        return None, [self.text(node)]

    def _expansion_default(self, node: ts.Node) -> tuple[str | None, list[str]] | None:
        """``${VAR:-default}`` / ``${VAR-default}`` / ``${VAR:=default}``: the default when VAR is unknown."""
        if node.type != "expansion" or self._expansion_operator(node) not in (":-", "-", ":=", "="):
            return None
        value = self._operand(node)
        return value if value[0] is not None or value[1] != [self.text(node)] else None

    def _array_elements(self, node: ts.Node) -> list[Word] | None:
        """``${ARR[@]}`` / ``${ARR[*]}`` / ``$@``: the words they stand for, or None."""
        if node.type == "simple_expansion":
            named = node.named_children
            if named and named[0].type == "special_variable_name" and self.text(named[0]) in ("@", "*"):
                return list(self.positional) if self.positional is not None else None
            return None
        if node.type != "expansion":
            return None
        children = node.named_children
        if len(children) == 1 and children[0].type == "subscript":
            subscript = children[0]
            name = subscript.child_by_field_name("name")
            index = subscript.child_by_field_name("index")
            if name is None or index is None:
                return None
            array = self.arrays.get(self.text(name))
            if array is None:
                return None
            position = self.text(index)
            if position in ("@", "*"):
                return list(array)
            if position.isdigit():
                return array[int(position) : int(position) + 1]
            return None
        if len(children) == 1 and children[0].type == "special_variable_name" and self.text(children[0]) in ("@", "*"):
            return list(self.positional) if self.positional is not None else None
        return None

    def make_word(self, node: ts.Node) -> Word:
        kind = node.type
        start = node.start_byte
        end = node.end_byte
        raw = self.data[start:end].decode("utf-8", "replace")
        content_start = None
        value: str | None
        symbols: list[str]
        if kind == "word" or kind == "number":  # the common case, without a second walk
            value, symbols = _unescape(raw), []
            if "\\" not in raw:
                content_start = start
        else:
            value, symbols = self.expand(node)
            if kind == "raw_string":
                content_start = start + 1
            elif kind == "string":
                named = node.named_children
                if not named or (all(c.type == "string_content" for c in named) and "\\" not in raw):
                    content_start = start + 1
        if self.coarse is None and self.origins is None:  # the script itself (map() inlined)
            return Word(raw, value, self.source.span(start, end), symbols, content_start, node, self)
        if content_start is not None:
            from qlint.linter.shell_nested import file_offset  # (a nested script's walker: loaded)

            content_start = file_offset(self, content_start, end)
        return Word(raw, value, self.map(start, end), symbols, content_start, node, self)

    # -- statements ------------------------------------------------------
    def assignment(self, node: ts.Node, exported: bool) -> Assignment:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = self.text(name_node) if name_node is not None else self.text(node).split("=")[0]
        if value_node is not None and value_node.type == "array":
            elements = self.array_words(value_node)
            appending = any(child.type == "+=" for child in node.children)
            if appending:
                elements = self.arrays.get(name, []) + elements
            self.arrays[name] = elements
            values = [w.value for w in elements]
            joined = None if any(v is None for v in values) else (values[0] if values else "")
            word = Word(self.text(value_node), joined, self.span(value_node))
            return Assignment(name=name, word=word, span=self.span(node), exported=exported)
        word = self.make_word(value_node) if value_node is not None else Word("", "", self.span(node))
        if name in self.arrays and "[" not in name:
            self.arrays.pop(name, None)
        return Assignment(name, word, self.span(node), exported)

    def array_words(self, node: ts.Node) -> list[Word]:
        out: list[Word] = []
        for child in node.named_children:
            if child.type == "comment":
                continue
            out.extend(self.argument_words(child))
        return out

    def visit(self, node: ts.Node, background: bool = False) -> None:
        kind = node.type
        if kind == "comment":
            if self.coarse is None:  # a 1:1 map (a quoted heredoc's body) keeps its comments' places
                self.comments.append(Comment(self.text(node), self.span(node)))
            return
        if kind == "variable_assignment":
            assignment = self.assignment(node, exported=False)
            self._set(assignment)
            return
        if kind == "declaration_command":
            exported = self.data.startswith((b"export", b"declare -x"), node.start_byte, node.end_byte)
            for child in node.named_children:
                if child.type == "variable_assignment":
                    self._set(self.assignment(child, exported=exported or True))
                elif child.type == "variable_name" and exported:
                    name = self.text(child)
                    previous = self.vars.get(name)
                    if previous is not None:
                        previous.exported = True
            return
        if kind == "unset_command":
            for child in node.named_children:
                if child.type in ("variable_name", "word"):
                    name = self.text(child)
                    self.vars.pop(name, None)
                    self.arrays.pop(name, None)
                    self.unsets[name] = self.span(child)
            return
        if kind == "command":
            self.command(node, background)
            return
        if kind == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is not None and body.type == "command" and self.heredoc_piped(node, body, background):
                return
            if body is not None and body.type == "command":
                self.command(body, background, self.redirect_arguments(node), redirects=node)
                return
        if kind == "function_definition":
            name_node = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name_node is not None and body is not None:
                self.functions[self.text(name_node)] = body  # read where it is called
            return
        if kind == "for_statement":
            self.for_loop(node)
            return
        if kind == "pipeline":
            if self.piped_heredoc(node):
                return
        if kind == "while_statement":  # while and until: a loop that waits for its condition
            self.polling += 1
            try:
                for child in node.children:
                    self.visit(child)
            finally:
                self.polling -= 1
            return
        children = node.children
        for index, child in enumerate(children):
            follows_amp = index + 1 < len(children) and children[index + 1].type == "&"
            self.visit(child, background=follows_amp)

    def for_loop(self, node: ts.Node) -> None:
        """``for NAME in WORDS; do BODY; done``: the body once per literal value, else once with NAME unknown."""
        variable = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        if variable is None or body is None:
            for child in node.children:
                self.visit(child)
            return
        name = self.text(variable)
        values_nodes = node.children_by_field_name("value")
        has_in = any(child.type == "in" for child in node.children)
        values: list[Word] | None
        if not has_in:
            values = list(self.positional) if self.positional is not None else None
        else:
            values = [word for child in values_nodes for word in self.argument_words(child)]
        if values is None or len(values) > _MAX_LOOP_VALUES or any(w.value is None for w in values) or not values:
            unknown = Word(raw="$" + name, value=None, span=self.span(variable), symbols=["$" + name])
            self._set(Assignment(name=name, word=unknown, span=self.span(variable), exported=False))
            self.visit(body)
            return
        for value in values:
            self._set(Assignment(name=name, word=value, span=value.span, exported=False))
            self.visit(body)

    def _set(self, assignment: Assignment) -> None:
        self.vars[assignment.name] = assignment
        self.assignments.append(assignment)

    def redirect_arguments(self, node: ts.Node) -> list[Word]:
        """Words tree-sitter files under a redirect that bash treats as arguments.

        A redirect takes exactly one target word; tree-sitter-bash attaches the
        following words too (``cmd <x> -H y`` -> ``-H``, ``y``). A ``<name>``
        placeholder (``<`` whose target runs straight into a ``>``, as in
        ``--port <port>`` or ``http://<server_ip>:8000``) is what the author meant
        as a value: it becomes one symbolic word, the words after it stay
        arguments, and its span is recorded so that QL107 can say bash would read
        it as redirections.
        """
        extra: list[Word] = []
        redirects = [child for child in node.children if child.type == "file_redirect"]
        placeholder_ends: set[int] = set()
        for index, child in enumerate(redirects):
            destinations = child.children_by_field_name("destination")
            operator = child.children[0] if child.children else None
            kind = operator.type if operator is not None else ""
            glued = child.start_byte > 0 and self.data[child.start_byte - 1 : child.start_byte] not in (b" ", b"\t", b"\n")
            following = redirects[index + 1] if index + 1 < len(redirects) else None
            placeholder = (
                kind == "<" and destinations and following is not None
                and following.start_byte == destinations[0].end_byte
                and following.children and following.children[0].type == ">"
            )
            if placeholder and following is not None:
                span = self.map(child.start_byte, following.start_byte + 1)
                self.glued_redirects.append(span)
                text = self.text(child) + ">"
                extra.append(Word(raw=text, value=None, span=span, symbols=[text]))
                placeholder_ends.add(following.start_byte)
                continue
            if child.start_byte in placeholder_ends:  # the '>' closing a placeholder: all words are arguments
                for destination in destinations:  # unquoted ${ARGS} still splits on blanks
                    extra.extend(self.argument_words(destination))
                continue
            if kind in ("<", ">") and glued:
                end = destinations[0].end_byte if destinations else child.end_byte
                self.glued_redirects.append(self.map(child.start_byte, end))
            for destination in destinations[1:]:
                extra.extend(self.argument_words(destination))
        return extra

    def split_words(self, child: ts.Node) -> list[Word]:
        """An unquoted ``$VAR`` / ``${VAR}`` argument is split on blanks, as bash does."""
        elements = self._array_elements(child)
        if elements is not None:
            out: list[Word] = []
            for element in elements:
                if element.value is None or len(element.value.split()) == 1 and element.value.split()[0] == element.value:
                    out.append(element)
                else:
                    out.extend(Word(raw=element.raw, value=part, span=element.span) for part in element.value.split())
            return out
        word = self.make_word(child)
        if child.type not in ("simple_expansion", "expansion") or word.value is None:
            return [word]
        parts = word.value.split()
        if len(parts) == 1 and parts[0] == word.value:
            return [word]
        return [Word(raw=word.raw, value=part, span=word.span) for part in parts]

    def argument_words(self, child: ts.Node) -> list[Word]:
        """The words one argument node stands for (arrays and ``"$@"`` give several)."""
        kind = child.type
        if kind in ("simple_expansion", "expansion"):
            return self.split_words(child)
        if kind == "string":
            named = child.named_children
            if len(named) == 1 and named[0].type in ("simple_expansion", "expansion") \
                    and named[0].start_byte == child.start_byte + 1 and named[0].end_byte == child.end_byte - 1:
                elements = self._array_elements(named[0])
                if elements is not None:
                    if self.text(named[0]).endswith(("*}", "$*")):  # "${A[*]}": one word
                        values = [w.value for w in elements]
                        value = None if any(v is None for v in values) else " ".join(values)  # type: ignore[arg-type]
                        return [Word(raw=self.text(child), value=value, span=self.span(child))]
                    return elements
        return [self.make_word(child)]

    def command(self, node: ts.Node, background: bool, extra: list[Word] | None = None,
                redirects: ts.Node | None = None, stdin_override: ts.Node | None = None) -> None:
        prefix: list[Assignment] = []
        words: list[Word] = []
        stdin: ts.Node | None = stdin_override
        for child in node.children:
            kind = child.type  # (read once: every property of a tree-sitter node is a call)
            if kind == "variable_assignment":
                prefix.append(self.assignment(child, exported=True))
            elif kind == "command_name":
                inner = child.named_children[0] if child.named_children else child
                words.extend(self.argument_words(inner) if inner.type in ("string", "expansion", "simple_expansion")
                             else [self.make_word(inner)])
            elif kind == "herestring_redirect":
                stdin = child
            elif kind in ("file_redirect", "heredoc_redirect"):
                continue
            elif kind == "comment":
                if self.coarse is None:
                    self.comments.append(Comment(self.text(child), self.span(child)))
            elif child.is_named:
                words.extend(self.argument_words(child))
        words.extend(extra or [])
        if redirects is not None and stdin is None:
            stdin = next((c for c in redirects.children if c.type in ("heredoc_redirect", "herestring_redirect")), None)
        if not words:
            for assignment in prefix:
                self._set(assignment)
            return
        self.run(words, prefix, self.span(node), background, stdin)

    def run(self, words: list[Word], prefix: list[Assignment], span: Span, background: bool = False,
            stdin: ts.Node | None = None) -> None:
        """Record what a command runs: the command itself, or the script it reads."""
        env = dict(self.vars)
        for assignment in prefix:
            env[assignment.name] = assignment
        first = words[0].value
        name = first.rsplit("/", 1)[-1] if first else None
        if name is not None and name in WRAPPERS:
            from qlint.linter.wrappers import unwrap

            unwrapped = unwrap(words)
            if unwrapped.layers:
                from qlint.linter.shell_nested import wrapped

                wrapped(self, unwrapped, env, prefix, span, background, stdin)
                return
        if name is not None and self.enter(name, words, env, span, prefix, background):
            return
        if first is None and words[0].symbols and words[0].raw.startswith(("$", '"$')):
            self.unread.append(Unread("dynamic-command", words[0].raw, words[0].span))
        self.commands.append(
            SimpleCommand(words=words, span=span, env=env, prefix=prefix, background=background,
                          in_loop=self.polling > 0,
                          layers=list(self.layers))
        )

    def enter(self, name: str, words: list[Word], env: dict[str, Assignment], span: Span,
              prefix: list[Assignment], background: bool) -> bool:
        """Functions, ``source`` and ``eval``: read what they run. True when handled."""
        if name in self.functions and words[0].raw == name:
            if name in self.calling:
                self.unread.append(Unread("recursive-function", name, words[0].span))
                return True
            self.called.add(name)
            self.calling.append(name)
            body = self.functions[name]
            saved = (self.bindings, self.positional)
            self.positional = words[1:]
            self.bindings = {str(i + 1): w.value for i, w in enumerate(words[1:])}
            try:
                if self.depth >= _MAX_DEPTH:
                    self.unread.append(Unread("too-deep", name, span))
                else:
                    self.depth += 1
                    self.visit(body)
                    self.depth -= 1
            finally:
                self.bindings, self.positional = saved
                self.calling.pop()
            return True
        if name in _SOURCE_COMMANDS and len(words) >= 2 and words[0].raw in _SOURCE_COMMANDS:
            from qlint.linter.shell_nested import source_file

            source_file(self, words, span)
            return True
        if name in _DYNAMIC:
            self.unread.append(Unread("eval", " ".join(w.raw for w in words), span))
            return False
        return False

    def piped_heredoc(self, node: ts.Node) -> bool:
        """``echo '...' | bash``: the echoed text is the script (``printf`` too, with no format escapes)."""
        commands = [c for c in node.named_children if c.type in ("command", "redirected_statement")]
        if len(commands) != 2 or commands[0].type != "command" or commands[1].type != "command":
            return False
        feeder, reader = commands
        name_node = feeder.child_by_field_name("name")
        if name_node is None or self.text(name_node) not in ("echo", "printf"):
            return False
        arguments = [c for c in feeder.children_by_field_name("argument")]
        if len(arguments) != 1:
            return False
        shell = [self.make_word(c.named_children[0] if c.type == "command_name" and c.named_children else c)
                 for c in reader.children if c.is_named and c.type not in ("comment",)]
        if not shell or (shell[0].value or "").rsplit("/", 1)[-1] not in WRAPPERS:
            return False
        from qlint.linter.shell_nested import read_piped

        return read_piped(self, arguments[0], shell)

    def heredoc_piped(self, node: ts.Node, body: ts.Node, background: bool) -> bool:
        """``cat <<EOF | bash`` (``| ssh HOST``, ``| docker exec -i C sh``): tree-sitter files the pipe
        under the heredoc; the command after ``cat`` reads the heredoc as its script."""
        heredoc = next((c for c in node.children if c.type == "heredoc_redirect"), None)
        if heredoc is None:
            return False
        pipeline = next((c for c in heredoc.named_children if c.type == "pipeline"), None)
        if pipeline is None:
            return False
        name_node = body.child_by_field_name("name")
        readers = [c for c in pipeline.named_children if c.type == "command"]
        if name_node is None or self.text(name_node) != "cat" or not readers:
            for reader in readers:
                self.command(reader, background)
            return bool(readers) and False
        self.command(readers[0], background, stdin_override=heredoc)
        for reader in readers[1:]:
            self.command(reader, background)
        return True

    def read_uncalled(self) -> None:
        """Functions never called: read once with their arguments unknown (a launch may hide there)."""
        for name, body in list(self.functions.items()):
            if name in self.called:
                continue
            self.called.add(name)
            saved = (self.bindings, self.positional, dict(self.vars))
            self.bindings = {str(i): None for i in range(1, 10)}
            self.positional = None
            self.calling.append(name)
            try:
                self.visit(body)
            finally:
                self.calling.pop()
                self.bindings, self.positional, self.vars = saved

    def result(self) -> "ParsedScript":
        return ParsedScript(
            source=self.source,
            commands=self.commands,
            comments=self.comments,
            assignments=self.assignments,
            unsets=self.unsets,
            glued_redirects=self.glued_redirects,
            unread=self.unread,
            opaque=self.opaque,
        )


def _unescape(text: str) -> str:
    """Remove backslash escapes from an unquoted word (``\\x`` -> ``x``)."""
    if "\\" not in text:
        return text
    out = []
    chars = iter(text)
    for char in chars:
        if char == "\\":
            nxt = next(chars, "")
            if nxt != "\n":
                out.append(nxt)
        else:
            out.append(char)
    return "".join(out)


def _unescape_dq(text: str) -> str:
    """Inside double quotes only ``\\$ \\` \\" \\\\`` and newline are escapes."""
    if "\\" not in text:
        return text
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and text[index + 1] in '$`"\\\n':
            if text[index + 1] != "\n":
                out.append(text[index + 1])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


def _ansi_c(text: str) -> str:
    try:
        return text.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return text


def _first_error(node: ts.Node) -> ts.Node | None:
    if node.type == "ERROR" or node.is_missing:
        return node
    if not node.has_error:
        return None
    for child in node.children:
        found = _first_error(child)
        if found is not None:
            return found
    return node


def parse_script(source: SourceText, bindings: dict[str, str] | None = None, text: bytes | None = None) -> ParsedScript:
    """Parse ``source`` and return its simple commands with resolved words.

    ``bindings`` supplies values for positional parameters or variables set
    outside the script (e.g. ``{"1": "0,1", "2": "7100"}`` from a launcher).

    ``text`` is what to parse when it is not ``source.data`` itself: a copy of
    the same length with everything but the shell code blanked (a Markdown
    file's shell blocks), so that offsets are positions in ``source``.

    Raises ShellSyntaxError (with a span) when bash would not parse the text,
    e.g. an unterminated quote or ``$(``.
    """
    data = source.data if text is None else text
    if data.rstrip(b" \t").endswith((b"\\\n", b"\\\r\n", b"\\")):
        # bash ends a command at EOF even after a line continuation; tree-sitter
        # wants one more newline. Appending at the end shifts no offset.
        data += b"\n\n"
    tree = parse_tree(data)
    root = tree.root_node
    unterminated: list[Span] = []
    if root.has_error:
        data, tree, unterminated = _recover_heredocs(source, data, tree)
        root = tree.root_node
    if root.has_error:
        bad = _first_error(root)
        assert bad is not None
        span = source.span(bad.start_byte, max(bad.end_byte, bad.start_byte))
        region = data[bad.start_byte : bad.end_byte]
        quote = next((q for q in (b"'", b'"', b"`") if q in region), None)
        if quote is not None and not bad.is_missing:
            offset = bad.start_byte + region.index(quote)
            span = source.span(offset, offset + 1)
        snippet = quote.decode() if quote is not None else ""
        if bad.is_missing:
            message = f"unterminated construct: expected {bad.type!r} before the end"
            zh = f"结构未结束：在结尾之前应有 {bad.type!r}"
        elif snippet in ("'", '"', "`"):
            message = f"unterminated quote {snippet} starting here (no matching closing quote)"
            zh = f"引号 {snippet} 从这里开始却没有结束（缺少配对的闭合引号）"
        else:
            message = "bash cannot parse this part of the script"
            zh = "bash 无法解析脚本的这一部分"
        raise ShellSyntaxError(message, span, zh)
    walker = _Walker(source, dict(bindings or {}), data=None if data is source.data else data)
    walker.visit(root)
    walker.read_uncalled()
    parsed = walker.result()
    walker.release()
    parsed.unterminated_heredocs = unterminated
    if text is not None:
        parsed.text = text
    return parsed


def _recover_heredocs(source: SourceText, data: bytes, tree: ts.Tree) -> tuple[bytes, ts.Tree, list[Span]]:
    """Two heredoc forms bash accepts and tree-sitter-bash does not, read from the parser's copy.

    * A heredoc with no command (``<<'END'`` ... ``END`` on lines of their own, a common way to
      comment out a block): bash runs nothing, so its bytes are blanked (newlines kept, so every
      offset stays).
    * A heredoc never closed: bash warns ("here-document delimited by end-of-file") and takes the
      rest of the file as its body, so the delimiter is appended after the end (no offset moves);
      its start is returned for QL110.

    Returns the text to use, its tree and the spans of unterminated heredoc starts; the original
    text and tree when neither form explains the error.
    """
    copy = bytearray(data)
    changed = False
    lines = data.split(b"\n")
    offset, index = 0, 0
    starts = []
    for line in lines:  # line starts, to walk the text line by line without re-splitting
        starts.append(offset)
        offset += len(line) + 1
    while index < len(lines):
        line = lines[index]
        stripped = line.lstrip(b" \t")
        if stripped.startswith(b"<<") and not stripped.startswith(b"<<<"):
            strip_tabs = stripped.startswith(b"<<-")
            word = stripped[3 if strip_tabs else 2 :].strip(b" \t\r").split(b" ")[0]
            delimiter = _delimiter(word)
            if delimiter:
                for end in range(index + 1, len(lines)):
                    candidate = lines[end].rstrip(b"\r")
                    if (candidate.lstrip(b"\t") if strip_tabs else candidate) == delimiter:
                        first, last = starts[index] + len(line) - len(stripped), starts[end] + len(lines[end])
                        for at in range(first, last):
                            if copy[at] != 0x0A:  # newlines stay: lines and offsets do not move
                                copy[at] = 0x20
                        changed = True
                        index = end
                        break
        index += 1
    if changed:
        recovered = bytes(copy)
        again = parse_tree(recovered)
        if not again.root_node.has_error:
            return recovered, again, []
        data, tree = recovered, again
    bad = _first_error(tree.root_node)
    if bad is not None and bad.is_missing and bad.type == "heredoc_end":
        start = _last_heredoc_start(tree.root_node, bad.start_byte)
        if start is not None:
            closer = _delimiter(source.data[start.start_byte : start.end_byte]).lstrip(b"-").strip()
            if closer:
                closed = data + (b"" if data.endswith(b"\n") else b"\n") + closer + b"\n"
                again = parse_tree(closed)
                if not again.root_node.has_error:
                    return closed, again, [source.span(start.start_byte, start.end_byte)]
    return data, tree, []


def _delimiter(word: bytes) -> bytes:
    """A heredoc's delimiter as its closing line spells it: ``\\END``, ``'END'``, ``"END"`` -> ``END``."""
    return word.replace(b"\\", b"").replace(b"'", b"").replace(b'"', b"")


def _last_heredoc_start(node: ts.Node, before: int) -> ts.Node | None:
    """The last ``heredoc_start`` node that begins before byte ``before``."""
    found = None
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "heredoc_start" and current.start_byte < before:
            if found is None or current.start_byte > found.start_byte:
                found = current
        stack.extend(current.children)
    return found


