"""Read shell text with tree-sitter-bash into simple commands with resolved words.

Nothing is executed, sourced or evaluated: variable values are taken from
literal assignments that appear earlier in the same script, and anything
else (``$1``, ``$(cmd)``, unset variables, arithmetic) stays *symbolic*,
i.e. ``Word.value`` is ``None``.

Positions are 1-based lines and columns counted in characters (not bytes);
end positions point one character past the end, as in ruff and LSP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import tree_sitter as ts

from qlint.linter.source import SourceText
from qlint.rules.plan import Span


class ShellSyntaxError(Exception):
    """The script cannot be parsed as bash. ``span`` says where."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.message = message
        self.span = span


@lru_cache(maxsize=1)
def _parser() -> ts.Parser:
    return ts.Parser(ts.Language(_bash_language()))


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
    return _parser().parse(data.translate(_ASCII_FOR_PARSER))


def _bash_language():
    """The tree-sitter-bash grammar (a capsule for ``ts.Language``).

    Loaded from the package's compiled ``_binding`` module directly: the package's
    ``__init__`` imports importlib.resources (and with it tempfile, shutil, zipfile...)
    for query files qlint never reads: several milliseconds of every ``qlint`` start.
    Any surprise in that layout falls back to the plain import.
    """
    try:
        from importlib.machinery import PathFinder

        package = PathFinder.find_spec("tree_sitter_bash")
        spec = PathFinder.find_spec("tree_sitter_bash._binding", package.submodule_search_locations)
        module = spec.loader.create_module(spec)
        spec.loader.exec_module(module)
        return module.language()
    except Exception:  # pragma: no cover - another installation layout
        import tree_sitter_bash

        return tree_sitter_bash.language()


@dataclass
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

    @property
    def known(self) -> bool:
        return self.value is not None


@dataclass
class Assignment:
    """``NAME=value`` (plain, ``export`` or command prefix). ``value`` as in Word."""

    name: str
    word: Word | None
    span: Span
    exported: bool


@dataclass
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


@dataclass
class Comment:
    text: str
    span: Span


@dataclass
class ParsedScript:
    """A whole script: its commands in order, comments, and the source text."""

    source: SourceText
    commands: list[SimpleCommand]
    comments: list[Comment]
    assignments: list[Assignment]
    unsets: dict[str, Span]
    glued_redirects: list[Span] = field(default_factory=list)


_SKIP_EXPANSION = {"command_substitution", "process_substitution", "arithmetic_expansion"}


class _Walker:
    def __init__(self, source: SourceText, bindings: dict[str, str]):
        self.source = source
        self.vars: dict[str, Assignment] = {}
        self.bindings = bindings  # positional / external bindings, e.g. {"1": "0,1"}
        self.commands: list[SimpleCommand] = []
        self.comments: list[Comment] = []
        self.assignments: list[Assignment] = []
        self.unsets: dict[str, Span] = {}
        self.glued_redirects: list[Span] = []

    # -- positions -------------------------------------------------------
    def span(self, node: ts.Node) -> Span:
        return self.source.span(node.start_byte, node.end_byte)

    def text(self, node: ts.Node) -> str:
        return self.source.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

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
            name = self._expansion_name(node)
            if name is None:
                return None, [self.text(node)]
            value = self.lookup(name)
            if value is None:
                default = self._expansion_default(node)
                if default is not None:
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
        return _unescape_dq(self.source.data[start:end].decode("utf-8", "replace"))

    def _expansion_name(self, node: ts.Node) -> str | None:
        for child in node.named_children:
            if child.type in ("variable_name", "special_variable_name"):
                return self.text(child)
        # positional parameters appear as plain text: $1, ${1}
        text = self.text(node).lstrip("$").strip("{}")
        if text.isdigit():
            return text
        return None

    def _expansion_default(self, node: ts.Node) -> tuple[str | None, list[str]] | None:
        """``${VAR:-default}`` / ``${VAR-default}``: use the default when VAR is unknown."""
        if node.type != "expansion":
            return None
        children = node.children
        for index, child in enumerate(children):
            if child.type in (":-", "-") and index + 1 < len(children):
                following = [c for c in children[index + 1 :] if c.type != "}"]
                if len(following) == 1:
                    return self.expand(following[0])
                if not following:
                    return "", []
        return None

    def make_word(self, node: ts.Node) -> Word:
        kind = node.type
        start = node.start_byte
        end = node.end_byte
        raw = self.source.data[start:end].decode("utf-8", "replace")
        content_start = None
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
        return Word(
            raw=raw,
            value=value,
            span=self.source.span(start, end),
            symbols=symbols,
            content_start=content_start,
        )

    # -- statements ------------------------------------------------------
    def assignment(self, node: ts.Node, exported: bool) -> Assignment:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = self.text(name_node) if name_node is not None else self.text(node).split("=")[0]
        word = self.make_word(value_node) if value_node is not None else Word("", "", self.span(node))
        return Assignment(name=name, word=word, span=self.span(node), exported=exported)

    def visit(self, node: ts.Node, background: bool = False) -> None:
        kind = node.type
        if kind == "comment":
            self.comments.append(Comment(self.text(node), self.span(node)))
            return
        if kind == "variable_assignment":
            assignment = self.assignment(node, exported=False)
            self._set(assignment)
            return
        if kind == "declaration_command":
            exported = self.text(node).startswith(("export", "declare -x"))
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
                    self.unsets[name] = self.span(child)
            return
        if kind == "command":
            self.command(node, background)
            return
        if kind == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is not None and body.type == "command":
                self.command(body, background, self.redirect_arguments(node))
                return
        if kind in ("function_definition",):
            return  # bodies run only when called; a launch script rarely relies on them
        children = node.children
        for index, child in enumerate(children):
            follows_amp = index + 1 < len(children) and children[index + 1].type == "&"
            self.visit(child, background=follows_amp)

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
            glued = child.start_byte > 0 and self.source.data[child.start_byte - 1 : child.start_byte] not in (b" ", b"\t", b"\n")
            following = redirects[index + 1] if index + 1 < len(redirects) else None
            placeholder = (
                kind == "<" and destinations and following is not None
                and following.start_byte == destinations[0].end_byte
                and following.children and following.children[0].type == ">"
            )
            if placeholder:
                span = self.source.span(child.start_byte, following.start_byte + 1)
                self.glued_redirects.append(span)
                text = self.text(child) + ">"
                extra.append(Word(raw=text, value=None, span=span, symbols=[text]))
                placeholder_ends.add(following.start_byte)
                continue
            if child.start_byte in placeholder_ends:  # the '>' closing a placeholder: all words are arguments
                extra.extend(self.make_word(d) for d in destinations)
                continue
            if kind in ("<", ">") and glued:
                end = destinations[0].end_byte if destinations else child.end_byte
                self.glued_redirects.append(self.source.span(child.start_byte, end))
            for destination in destinations[1:]:
                extra.append(self.make_word(destination))
        return extra

    def split_words(self, child: ts.Node) -> list[Word]:
        """An unquoted ``$VAR`` / ``${VAR}`` argument is split on blanks, as bash does."""
        word = self.make_word(child)
        if child.type not in ("simple_expansion", "expansion") or word.value is None:
            return [word]
        parts = word.value.split()
        if len(parts) == 1 and parts[0] == word.value:
            return [word]
        return [Word(raw=word.raw, value=part, span=word.span) for part in parts]

    def command(self, node: ts.Node, background: bool, extra: list[Word] | None = None) -> None:
        prefix: list[Assignment] = []
        words: list[Word] = []
        for child in node.children:
            kind = child.type  # (read once: every property of a tree-sitter node is a call)
            if kind == "variable_assignment":
                prefix.append(self.assignment(child, exported=True))
            elif kind == "command_name":
                inner = child.named_children[0] if child.named_children else child
                words.append(self.make_word(inner))
            elif kind in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                continue
            elif kind == "comment":
                self.comments.append(Comment(self.text(child), self.span(child)))
            elif child.is_named:
                if kind in ("simple_expansion", "expansion"):
                    words.extend(self.split_words(child))
                else:
                    words.append(self.make_word(child))
        words.extend(extra or [])
        env = dict(self.vars)
        for assignment in prefix:
            env[assignment.name] = assignment
        if not words:
            for assignment in prefix:
                self._set(assignment)
            return
        self.commands.append(
            SimpleCommand(words=words, span=self.span(node), env=env, prefix=prefix, background=background)
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


def parse_script(source: SourceText, bindings: dict[str, str] | None = None) -> ParsedScript:
    """Parse ``source`` and return its simple commands with resolved words.

    ``bindings`` supplies values for positional parameters or variables set
    outside the script (e.g. ``{"1": "0,1", "2": "7100"}`` from a launcher).

    Raises ShellSyntaxError (with a span) when bash would not parse the text,
    e.g. an unterminated quote or ``$(``.
    """
    data = source.data
    if data.rstrip(b" \t").endswith((b"\\\n", b"\\\r\n", b"\\")):
        # bash ends a command at EOF even after a line continuation; tree-sitter
        # wants one more newline. Appending at the end shifts no offset.
        data += b"\n\n"
    tree = parse_tree(data)
    root = tree.root_node
    if root.has_error:
        bad = _first_error(root)
        assert bad is not None
        span = source.span(bad.start_byte, max(bad.end_byte, bad.start_byte))
        region = source.data[bad.start_byte : bad.end_byte]
        quote = next((q for q in (b"'", b'"', b"`") if q in region), None)
        if quote is not None and not bad.is_missing:
            offset = bad.start_byte + region.index(quote)
            span = source.span(offset, offset + 1)
        snippet = quote.decode() if quote is not None else ""
        if bad.is_missing:
            message = f"unterminated construct: expected {bad.type!r} before the end"
        elif snippet in ("'", '"', "`"):
            message = f"unterminated quote {snippet} starting here (no matching closing quote)"
        else:
            message = "bash cannot parse this part of the script"
        raise ShellSyntaxError(message, span)
    walker = _Walker(source, bindings or {})
    walker.visit(root)
    return ParsedScript(
        source=source,
        commands=walker.commands,
        comments=walker.comments,
        assignments=walker.assignments,
        unsets=walker.unsets,
        glued_redirects=walker.glued_redirects,
    )
