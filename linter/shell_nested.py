"""The scripts a shell script runs that are not its own lines, read as scripts of their own.

* what a wrapper command runs (``nohup``, ``sudo``, ``docker run/exec``, ``ssh``, ``bash -c``...: the layers
  ``qlint.linter.wrappers.unwrap`` finds), in the environment the layers give it: a command string, a script
  file, or the heredoc / here-string fed to a shell; ``docker --env-file`` files are read for their variables;
* text echoed into a shell (``echo '...' | bash``);
* files named by ``source FILE`` / ``. FILE`` that the repository holds (read, never run).

The reader (``shell._Walker``) hands these over when it meets one, so that a script with none of them does
not load this module. A nested script is read by a child walker whose positions map back into the file
(``origins``, byte by byte) or, where no 1:1 mapping exists, to the whole construct (``coarse``).
"""

from __future__ import annotations

from qlint.linter.shell import _MAX_DEPTH, _SKIP_EXPANSION, Assignment, SimpleCommand, Unread, Word, _Walker, parse_tree
from qlint.rules.plan import Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    import tree_sitter as ts

    from qlint.linter.wrappers import Layer, Unwrapped


def wrapped(walker: _Walker, unwrapped: Unwrapped, env: dict[str, Assignment], prefix: list[Assignment], span: Span,
            background: bool, stdin: ts.Node | None) -> None:
    """A command under wrappers (``unwrap`` found its layers): what it runs, read in the environment the
    layers give it: a command string or script file (``bash -c``, ``ssh HOST CMD``, ``docker exec C sh
    run.sh``), the heredoc or here-string fed to a shell, else the command itself with its layers."""
    layers = unwrapped.layers
    for layer in layers:
        if layer.kind in ("docker", "podman"):
            if layer.subcommand == "run" and layer.container:
                walker.containers[layer.container] = layer
            elif layer.subcommand == "exec" and layer.container in walker.containers:
                started = walker.containers[layer.container]
                layer.image = layer.image or started.image
                layer.devices = started.devices + layer.devices
                layer.env = started.env + layer.env
                layer.env_files = started.env_files + layer.env_files
        env = _layer_env(walker, layer, env)
    if unwrapped.script_words:
        text, origins = _joined_script(walker, unwrapped.script_words)
        first, last = unwrapped.script_words[0].span, unwrapped.script_words[-1].span
        nested(walker, text, origins, Span(first.line, first.column, last.end_line, last.end_column),
           vars=_exported(env), positional=[], layers=layers, what="command string")
        return
    if unwrapped.script is not None:
        text, origins = _script_text(walker, unwrapped.script)
        nested(walker, text, origins, unwrapped.script.span, vars=_exported(env), positional=unwrapped.script_args[1:],
           layers=layers, what="command string")
        return
    if unwrapped.stdin_script and stdin is not None:
        piped, origins = _stdin_text(walker, stdin)
        if piped is not None:
            nested(walker, piped, origins, walker.span(stdin), vars=_exported(env), positional=unwrapped.script_args,
               layers=layers, what="standard input")
            return
    if unwrapped.script_file is not None:
        path = resolve_sourced(walker.source.path, unwrapped.script_file.value)
        if path is not None and path not in walker.sourcing:
            try:
                with open(path, "rb") as handle:
                    data = handle.read(5 * 1024 * 1024 + 1)
                data.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                data = None
            if data is not None:
                walker.sourcing.append(path)
                try:
                    nested(walker, data, None, span, vars=_exported(env), positional=unwrapped.argv[1:],
                       layers=layers, what=path)
                finally:
                    walker.sourcing.pop()
                return
    argv = unwrapped.argv
    if argv and argv[0].value is not None and walker.enter(argv[0].value.rsplit("/", 1)[-1], argv, env, span,
                                                          prefix, background):
        return
    walker.commands.append(
        SimpleCommand(words=argv or [], span=span, env=env, prefix=prefix, background=background,
                      in_loop=walker.polling > 0,
                      layers=list(walker.layers) + layers)
    )


def read_piped(walker: _Walker, argument: ts.Node, shell: list[Word]) -> bool:
    """``echo '...' | bash``: the text of ``argument`` (echo's one argument) read as the script the shell
    command ``shell`` runs from its standard input. False when that command reads no script from it."""
    from qlint.linter.wrappers import unwrap

    unwrapped = unwrap(shell)
    if not unwrapped.stdin_script:
        return False
    env = dict(walker.vars)
    for layer in unwrapped.layers:
        env = _layer_env(walker, layer, env)
    out, origins = bytearray(), list[int]()
    _origins(walker, argument, out, origins)
    nested(walker, bytes(out) + b"\n", origins + [origins[-1] + 1 if origins else argument.end_byte],
           walker.span(argument), vars=_exported(env), layers=unwrapped.layers, what="standard input")
    return True


def source_file(walker: _Walker, words: list[Word], span: Span) -> None:
    """``source FILE`` / ``. FILE``: read the file (never run it) when the repository holds it."""
    target = words[1]
    path = resolve_sourced(walker.source.path, target.value)
    if path is None:
        if not (target.value or "").startswith(_SYSTEM_SOURCES):
            walker.unread.append(Unread("source", target.value or target.raw, target.span))
        return
    if path in walker.sourcing:
        walker.unread.append(Unread("source-cycle", target.value or target.raw, target.span))
        return
    try:
        with open(path, "rb") as handle:
            data = handle.read(5 * 1024 * 1024 + 1)
        data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        walker.unread.append(Unread("source", target.value or target.raw, target.span))
        return
    walker.sourcing.append(path)
    try:
        nested(walker, data, None, span, vars=None, positional=words[2:] or None, what=path)
    finally:
        walker.sourcing.pop()


_SYSTEM_SOURCES = ("/usr/local/Ascend/", "/etc/", "~/", "$HOME", "/root/.bashrc", "/opt/")
"""Files sourced from the system (CANN's set_env.sh, profiles): toolkit paths, no launch; not noted."""


def nested(walker: _Walker, data: bytes, origins: list[int] | None, span: Span, *, vars: dict[str, Assignment] | None,
           positional: list[Word] | None = None, layers: list[Layer] | None = None, what: str = "script") -> None:
    """Read ``data`` (a command string, heredoc, function body...) as a script of its own.

    ``origins`` maps each byte of ``data`` to this walker's text (None: no 1:1
    mapping, every position becomes ``span``); ``vars`` is the environment it
    starts with (None: this walker's variables).
    """
    if walker.depth >= _MAX_DEPTH:
        walker.unread.append(Unread("too-deep", what, span))
        return
    coarse = walker.coarse
    mapped = None
    if coarse is None:
        if origins is None:
            coarse = span
            walker.opaque.append(span)
        else:
            mapped = _to_file(walker, origins)
            mapped.append(mapped[-1] + 1 if mapped else 0)
    child = _child(walker, data, mapped, coarse)
    if vars is not None:
        child.vars = dict(vars)
        child.arrays = {}
    if positional is not None:
        child.positional = positional
        child.bindings = {str(i + 1): w.value for i, w in enumerate(positional)}
    child.layers = walker.layers + (layers or [])
    tree = parse_tree(data)
    if tree.root_node.has_error:
        walker.unread.append(Unread("unparsable", what, span))
        return
    child.visit(tree.root_node)
    if vars is None and not layers:  # the same shell (a function body, a sourced file): assignments stay
        walker.vars = child.vars
        walker.arrays = child.arrays


def _child(walker: _Walker, data: bytes, origins: list[int] | None, coarse: Span | None) -> "_Walker":
    child = object.__new__(_Walker)
    child.__dict__.update(walker.__dict__)
    child.data = data
    child.origins = origins
    child.coarse = coarse
    child.depth = walker.depth + 1
    child.vars = dict(walker.vars)
    child.arrays = dict(walker.arrays)
    walker.family.append(child)
    return child


def _to_file(walker: _Walker, origins: list[int]) -> list[int]:
    """Compose offsets in this walker's text with this walker's own mapping."""
    if walker.origins is None:
        return origins
    mine = walker.origins
    return [mine[o] for o in origins]


def file_offset(walker: _Walker, start: int, end: int) -> int | None:
    """The file offset of ``start`` when bytes ``start..end`` map 1:1 onto the file, else None."""
    if walker.coarse is not None or walker.origins is None:
        return None if walker.coarse is not None else start
    origins = walker.origins
    first = origins[start]
    for step in range(end - start):
        if origins[start + step] != first + step:
            return None
    return first


def _layer_env(walker: _Walker, layer: Layer, env: dict[str, Assignment]) -> dict[str, Assignment]:
    """The environment the wrapped command starts with."""
    outer = env
    if layer.fresh_env:
        env = {name: value for name, value in env.items() if name in layer.preserved}
    else:
        env = dict(env)
    for name in layer.unset:
        env.pop(name, None)
    for name, word in layer.passthrough:
        if name in outer:
            env[name] = outer[name]
    for part in layer.env_files:
        for assignment in _env_file(walker, _sub_word(walker, part)):
            env[assignment.name] = assignment
    for name, part in layer.env:
        word = _sub_word(walker, part)
        env[name] = Assignment(name=name, word=word, span=part.word.span, exported=True)
    return env


def _env_file(walker: _Walker, word: Word) -> list[Assignment]:
    """``--env-file FILE``: its ``NAME=value`` lines (read, never run), at the option's position."""
    path = resolve_sourced(walker.source.path, word.value)
    if path is None:
        walker.unread.append(Unread("env-file", word.value or word.raw, word.span))
        return []
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read(1024 * 1024).splitlines()
    except (OSError, UnicodeDecodeError):
        walker.unread.append(Unread("env-file", word.value or word.raw, word.span))
        return []
    out = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.partition("=")
        out.append(Assignment(name=name.strip(), word=Word(raw=value, value=value, span=word.span),
                              span=word.span, exported=True))
    walker.opaque.append(word.span)
    return out


def _sub_word(walker: _Walker, part) -> Word:
    """The Word for a value inside a word (``A=1`` of ``docker -e A=1``, ``env A=1``)."""
    word, skip = part.word, part.skip
    if skip is None or word.value is None:
        return Word(raw=word.raw, value=None, span=word.span, symbols=list(word.symbols) or [word.raw])
    value = word.value[skip:]
    span, content_start = word.span, None
    if word.content_start is not None:
        begin = walker.source.offset_after_chars(word.content_start, skip)
        finish = walker.source.offset_after_chars(begin, len(value))
        span, content_start = walker.source.span(begin, finish), begin
    return Word(raw=value, value=value, span=span, content_start=content_start)


def resolve_sourced(script_path: str, target: str | None) -> str | None:
    """The file a ``source``/``--env-file`` argument names, when the repository holds it.

    Relative paths are tried from the script's folder, then from the current folder;
    the file must lie inside the script's repository (the folder holding ``.git``
    above the script, else the script's own folder). None otherwise.
    """
    import os

    if not target or script_path in ("-", "<stdin>") or target.startswith(("/", "~")) and not os.path.isabs(target):
        return None
    folder = os.path.dirname(os.path.abspath(script_path))
    root = folder
    probe = folder
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            root = probe
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    candidates = [target] if os.path.isabs(target) else [os.path.join(folder, target), os.path.abspath(target)]
    for candidate in candidates:
        real = os.path.realpath(candidate)
        if os.path.isfile(real) and (real == root or real.startswith(root.rstrip(os.sep) + os.sep)):
            return real
    return None


def _exported(env: dict[str, Assignment]) -> dict[str, Assignment]:
    return {name: value for name, value in env.items() if value.exported}


def _stdin_text(walker: _Walker, redirect: ts.Node) -> tuple[bytes | None, list[int] | None]:
    """The script a heredoc or here-string feeds to a shell."""
    if redirect.type == "heredoc_redirect":
        body = next((c for c in redirect.children if c.type == "heredoc_body"), None)
        if body is None:
            return None, None
        return walker.data[body.start_byte : body.end_byte], list(range(body.start_byte, body.end_byte))
    target = redirect.named_children[-1] if redirect.named_children else None
    if target is None:
        return None, None
    out, origins = bytearray(), list[int]()
    _origins(walker, target, out, origins)
    return bytes(out) + b"\n", origins + [origins[-1] + 1 if origins else target.end_byte]


def _script_text(walker: _Walker, word: Word) -> tuple[bytes, list[int] | None]:
    """The text a shell would run for a command-string word, with its offsets (None: not 1:1)."""
    node = word.node
    owner = word.walker
    if node is not None and owner is walker:
        out, origins = bytearray(), list[int]()
        _origins(walker, node, out, origins)
        return bytes(out), origins
    if word.origins is not None and word.value is not None:
        return word.value.encode("utf-8"), list(word.origins)
    return (word.value or "").encode("utf-8"), None


def _joined_script(walker: _Walker, words: list[Word]) -> tuple[bytes, list[int] | None]:
    """The command ssh sends for ``words``: their texts joined with spaces (offsets kept
    when every word maps 1:1; a joining space maps to the end of the word before it)."""
    out, origins = bytearray(), list[int]()
    exact = True
    for index, word in enumerate(words):
        text, mapped = _script_text(walker, word)
        if index:
            out += b" "
            origins.append(origins[-1] + 1 if origins else 0)
        out += text
        if mapped is None or len(mapped) != len(text):
            exact = False
        else:
            origins.extend(mapped)
    return bytes(out), origins if exact else None


def _origins(walker: _Walker, node: ts.Node, out: bytearray, origins: list[int]) -> None:
    kind = node.type
    data = walker.data
    start, end = node.start_byte, node.end_byte
    if kind in ("word", "number"):
        _unescaped(walker, start, end, out, origins, None)
    elif kind == "raw_string":
        out += data[start + 1 : end - 1]
        origins.extend(range(start + 1, end - 1))
    elif kind == "string":
        cursor = start + 1
        for child in node.named_children:
            _dq(walker, cursor, child.start_byte, out, origins)
            if child.type == "string_content":
                _dq(walker, child.start_byte, child.end_byte, out, origins)
            else:
                _expanded(walker, child, out, origins)
            cursor = child.end_byte
        _dq(walker, cursor, end - 1, out, origins)
    elif kind == "concatenation":
        for child in node.children:
            _origins(walker, child, out, origins)
    elif kind in ("simple_expansion", "expansion", "ansi_c_string") or kind in _SKIP_EXPANSION:
        _expanded(walker, node, out, origins)
    else:
        out += data[start:end]
        origins.extend(range(start, end))


def _dq(walker: _Walker, start: int, end: int, out: bytearray, origins: list[int]) -> None:
    _unescaped(walker, start, end, out, origins, b'$`"\\\n')


def _unescaped(walker: _Walker, start: int, end: int, out: bytearray, origins: list[int], escapable: bytes | None) -> None:
    """Copy ``data[start:end]`` into ``out`` with backslash escapes removed, recording where each
    byte came from. ``escapable``: the bytes a backslash escapes (inside double quotes), None for
    any byte (an unquoted word); a backslash-newline is a line continuation and vanishes."""
    data = walker.data
    index = start
    while index < end:
        byte = data[index]
        if byte == 0x5C and index + 1 < end and (escapable is None or data[index + 1] in escapable):
            if data[index + 1] != 0x0A:
                out.append(data[index + 1])
                origins.append(index + 1)
            index += 2
            continue
        out.append(byte)
        origins.append(index)
        index += 1


def _expanded(walker: _Walker, node: ts.Node, out: bytearray, origins: list[int]) -> None:
    """A known expansion gives its value (the outer shell expands it), an unknown one stays as written."""
    value, _ = walker.expand(node)
    start, end = node.start_byte, node.end_byte
    if value is None or node.type in _SKIP_EXPANSION:
        out += walker.data[start:end]
        origins.extend(range(start, end))
        return
    encoded = value.encode("utf-8")
    out += encoded
    origins.extend(start if i == 0 else end - 1 for i in range(len(encoded)))
