"""Launches kept in files that are not shell scripts.

- Markdown guides: the fenced shell blocks (``bash``, ``sh``, ``shell``, ``console``...)
  found with markdown-it-py, read in document order as one shell session; the parser
  sees a copy of the file with everything else blanked (same length, same lines), so
  every position is the position in the ``.md`` file.
- Kubernetes manifests (Pod, Deployment, StatefulSet, Job, CronJob, LeaderWorkerSet...):
  each container's ``command`` + ``args`` with its ``env`` and ``image``.
- docker-compose files: each service's ``entrypoint`` + ``command``, ``environment``,
  ``env_file``, ``devices`` and ``image``.
- vllm-ascend's e2e test configs (``tests/e2e/**/configs/*.yaml``): each test case runs
  ``vllm serve MODEL *server_cmd *server_cmd_extra`` with ``envs``, ``$VAR`` taken from
  ``envs`` as the harness does (tests/e2e/nightly/single_node/models/scripts/
  single_node_config.py ``_expand_values``, vllm-ascend@182b75ea84ff13ece27b57391331ef8935410aea);
  a multi-node config's ``deployment`` entries each run their ``server_cmd`` string with their
  ``envs`` (tests/e2e/nightly/multi_node/internal_dp/scripts/multi_node_config.py, same commit).

YAML is read with PyYAML's composer: nodes keep their start and end marks, so
each word is reported where it is written (an anchor's value where the anchor is).
Nothing is executed or evaluated.
"""

from __future__ import annotations

from qlint.linter.shell import Assignment, Comment, ParsedScript, Unread, Word, _Walker, parse_tree
from qlint.linter.source import MARKDOWN_SUFFIXES, YAML_SUFFIXES, InputError, SourceText, kind_of
from qlint.linter.wrappers import Layer, Part
from qlint.record import field, record
from qlint.rules.plan import Span

SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console", "zsh", "ksh", "shell-session", "shellsession"})
_PROMPTED = frozenset({"console", "shell-session", "shellsession"})
_BLANK = bytes(13 if byte == 13 else 32 for byte in range(256))  # every byte but CR becomes a space


@record
class Launch:
    """One command a document runs: its words, the environment it starts with, its container."""

    words: list[Word]
    env: list[Assignment]
    span: Span
    layer: Layer | None = None


@record
class Document:
    """What a non-shell file holds. ``kind``: markdown, kubernetes, compose, e2e-config, yaml.

    ``text`` is the masked copy the shell parser reads (Markdown); ``launches`` the
    commands of a YAML file; ``found`` says what the file holds when it runs no command.
    """

    kind: str
    text: bytes | None = None
    launches: list[Launch] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)
    found: str = ""


def read_document(source: SourceText, kind: str | None = None) -> Document | None:
    """The document of a Markdown or YAML file, None for a shell script.

    ``kind`` forces ``shell``, ``markdown`` or ``yaml`` (None: from the file name).
    Raises InputError (with a location) for YAML that does not parse.
    """
    kind = kind or kind_of(source.path, source.data)
    if kind == "markdown":
        return _markdown(source)
    if kind == "yaml":
        return _yaml(source)
    return None


# -- Markdown ----------------------------------------------------------------------------

def parse_launches(source: SourceText, launches: list[Launch], bindings: dict[str, str] | None = None) -> ParsedScript:
    """Read commands given as words (a YAML file's containers): each starts with its own environment.

    A ``bash -c`` or string command among their words is read as a script, as in a shell file.
    """
    walker = _Walker(source, dict(bindings or {}))
    for launch in launches:
        walker.vars = {}
        walker.arrays = {}
        for assignment in launch.env:
            walker._set(assignment)
        walker.layers = [launch.layer] if launch.layer is not None else []
        if launch.words:
            walker.run(list(launch.words), [], launch.span)
    walker.layers = []
    walker.read_uncalled()
    parsed = walker.result()
    walker.release()
    return parsed


def _markdown(source: SourceText) -> Document:
    from markdown_it import MarkdownIt

    text = source.text
    lines = source.data.split(b"\n")
    keep = [False] * len(lines)
    prompts: dict[int, int] = {}  # line index -> bytes of prompt to blank
    document = Document(kind="markdown")
    blocks = 0
    for token in MarkdownIt("commonmark").parse(text):
        if token.type != "fence" or token.map is None:
            continue
        info = token.info.strip()
        language = info.split(maxsplit=1)[0].strip("{}").lower() if info else ""
        if language not in SHELL_LANGUAGES:
            continue
        first, last = token.map[0] + 1, token.map[1]  # content lines: after the opening fence...
        closing = lines[last - 1].lstrip() if last - 1 < len(lines) and last - 1 >= first else b""
        if closing.startswith((b"```", b"~~~")):
            last -= 1  # ...and before the closing one (an unclosed fence runs to the end)
        block_lines = list(range(first, min(last, len(lines))))
        chosen: list[int] = []
        if language in _PROMPTED:
            continuing = False
            for index in block_lines:
                stripped = lines[index].lstrip()
                if stripped.startswith(b"$ ") or continuing:
                    if stripped.startswith(b"$ ") and not continuing:
                        prompts[index] = len(lines[index]) - len(stripped) + 2
                    chosen.append(index)
                    continuing = lines[index].rstrip(b"\r").endswith(b"\\")
        else:
            chosen = block_lines
        body = b"\n".join(lines[i][prompts.get(i, 0):] for i in chosen) + b"\n"
        if parse_tree(body).root_node.has_error:
            if chosen:
                start = _line_start(lines, chosen[0])
                span = source.span(start, start + len(lines[chosen[0]]))
                document.unread.append(Unread("unparsable", "shell block", span))
            continue
        blocks += 1
        for index in chosen:
            keep[index] = True
    masked = bytearray()
    for index, line in enumerate(lines):
        if keep[index]:
            blank = prompts.get(index, 0)
            masked += b" " * blank + line[blank:]
        else:
            masked += line.translate(_BLANK)
        if index < len(lines) - 1:
            masked += b"\n"
    document.text = bytes(masked)
    document.found = "no shell code block" if blocks == 0 else f"{blocks} shell block(s)"
    for index, line in enumerate(lines):  # <!-- qlint: hardware=a2 --> directives
        stripped = line.strip()
        if stripped.startswith(b"<!--") and stripped.endswith(b"-->") and b"qlint:" in stripped:
            inner = stripped[4:-3].strip().decode("utf-8", "replace")
            start = _line_start(lines, index) + line.index(b"<!--")
            document.comments.append(Comment("# " + inner, source.span(start, start + len(stripped))))
    return document


def _line_start(lines: list[bytes], index: int) -> int:
    return sum(len(line) + 1 for line in lines[:index])


# -- YAML --------------------------------------------------------------------------------

class _Marks:
    """Character index (PyYAML marks) -> byte offset in the file."""

    def __init__(self, source: SourceText):
        self.source = source
        self.text = source.text
        self.ascii = source.data.isascii()
        self._offsets: list[int] | None = None

    def offset(self, index: int) -> int:
        if self.ascii:
            return index
        if self._offsets is None:
            offsets, total = [], 0
            for char in self.text:
                offsets.append(total)
                total += len(char.encode("utf-8"))
            offsets.append(total)
            self._offsets = offsets
        return self._offsets[min(index, len(self._offsets) - 1)]

    def span(self, node) -> Span:
        return self.source.span(self.offset(node.start_mark.index), self.offset(node.end_mark.index))


def _yaml(source: SourceText) -> Document:
    import yaml

    try:
        roots = list(yaml.compose_all(source.text, Loader=yaml.SafeLoader))
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise InputError(f"YAML does not parse: {error.problem or error.context}", line, column,
                         zh=f"YAML 无法解析：{error.problem or error.context}") from None
    except yaml.YAMLError as error:
        raise InputError(f"YAML does not parse: {error}") from None
    marks = _Marks(source)
    reader = _YamlReader(source, marks)
    for root in roots:
        reader.read(root)
    document = Document(kind=reader.kind or "yaml", launches=reader.launches, unread=reader.unread)
    document.comments = _yaml_comments(source)
    if not reader.launches:
        document.found = reader.found or "YAML without containers, services or server_cmd"
    return document


def looks_like_launch_yaml(data: bytes) -> bool:
    """Whether YAML content is a manifest, compose file or e2e config qlint reads (for folders)."""
    try:
        source = SourceText.from_bytes("probe.yaml", data)
        document = _yaml(source)
    except InputError:
        return False
    return document.kind in ("kubernetes", "compose", "e2e-config")


def _yaml_comments(source: SourceText) -> list[Comment]:
    comments = []
    offset = 0
    for line in source.data.split(b"\n"):
        stripped = line.lstrip()
        if stripped.startswith(b"#") and b"qlint:" in stripped:
            start = offset + len(line) - len(stripped)
            text = stripped.rstrip(b"\r").decode("utf-8", "replace")
            comments.append(Comment(text, source.span(start, start + len(stripped.rstrip(b"\r")))))
        offset += len(line) + 1
    return comments


def _get(node, key: str):
    """The value node of ``key`` in a mapping node (merge keys ``<<`` followed), or None."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    merged = None
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode):
            if key_node.value == key:
                return value_node
            if key_node.value == "<<" and merged is None:
                for candidate in value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]:
                    found = _get(candidate, key)
                    if found is not None:
                        merged = found
                        break
    return merged


def _items(node) -> list[tuple[str, object]]:
    """(key, value node) of a mapping, merge keys expanded (later keys win)."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return []
    out: dict[str, object] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        if key_node.value == "<<":
            for candidate in value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]:
                for key, value in _items(candidate):
                    out.setdefault(key, value)
        else:
            out[key_node.value] = value_node
    return list(out.items())


class _YamlReader:
    def __init__(self, source: SourceText, marks: _Marks):
        self.source = source
        self.marks = marks
        self.launches: list[Launch] = []
        self.unread: list[Unread] = []
        self.kind: str | None = None
        self.found = ""

    # -- words ---------------------------------------------------------------------
    def word(self, node, variables: dict[str, Word] | None = None) -> Word:
        """A Word for a scalar node: its value, its span, and its byte offsets when they map 1:1."""
        import yaml

        span = self.marks.span(node)
        if not isinstance(node, yaml.ScalarNode):
            return Word(raw="", value=None, span=span, symbols=["<not a string>"])
        value = node.value
        start = self.marks.offset(node.start_mark.index)
        end = self.marks.offset(node.end_mark.index)
        raw = self.source.data[start:end].decode("utf-8", "replace")
        origins = _scalar_origins(self.source.data, start, end, node.style, value)
        content_start = None
        if origins and origins == list(range(origins[0], origins[0] + len(origins))):
            content_start = origins[0]
        word = Word(raw=raw, value=value, span=span, content_start=content_start, origins=origins)
        if variables is not None and "$" in value:
            word = _interpolate(word, variables)
        return word

    def env(self, node) -> list[Assignment]:
        """Kubernetes ``env: [{name, value}]``, compose ``environment`` (mapping or ``K=V`` list), e2e ``envs``."""
        import yaml

        out: list[Assignment] = []
        if isinstance(node, yaml.MappingNode):
            for key, value in _items(node):
                word = self.word(value) if isinstance(value, yaml.ScalarNode) and value.value is not None else \
                    Word(raw="", value=None, span=self.marks.span(value), symbols=[f"${key}"])
                if isinstance(value, yaml.ScalarNode) and value.tag.endswith(":null"):
                    word = Word(raw="", value=None, span=self.marks.span(value), symbols=[f"${key}"])
                out.append(Assignment(name=key, word=word, span=self.marks.span(value), exported=True))
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                if isinstance(item, yaml.MappingNode):
                    name = _get(item, "name")
                    value = _get(item, "value")
                    if not isinstance(name, yaml.ScalarNode):
                        continue
                    if isinstance(value, yaml.ScalarNode):
                        word = self.word(value)
                    else:  # valueFrom: a secret or a field, known only at run time
                        word = Word(raw="", value=None, span=self.marks.span(item), symbols=[f"${name.value}"])
                    out.append(Assignment(name=name.value, word=word, span=self.marks.span(item), exported=True))
                elif isinstance(item, yaml.ScalarNode) and "=" in item.value:
                    whole = self.word(item)
                    key = item.value.partition("=")[0]
                    value = _sub(self.source, whole, len(key) + 1)
                    out.append(Assignment(name=key, word=value, span=whole.span, exported=True))
        return out

    def argv(self, *nodes, variables=None) -> list[Word] | None:
        """Words of ``command``/``args`` nodes: a list of strings, or one string split as a shell would."""
        import yaml

        words: list[Word] = []
        for node in nodes:
            if node is None:
                continue
            if isinstance(node, yaml.SequenceNode):
                words.extend(self.word(item, variables) for item in node.value)
            elif isinstance(node, yaml.ScalarNode) and node.value:
                return None  # a string command: read as a script (see launch_string)
        return words

    # -- documents -----------------------------------------------------------------
    def read(self, root) -> None:
        import yaml

        if not isinstance(root, yaml.MappingNode):
            return
        if _get(root, "test_cases") is not None:
            self.kind = self.kind or "e2e-config"
            self.e2e(root)
            return
        deployment = _get(root, "deployment")
        if isinstance(deployment, yaml.SequenceNode) and _get(root, "model") is not None:
            self.kind = self.kind or "e2e-config"  # multi-node (internal DP): one server_cmd per node
            for node in deployment.value:
                command = _get(node, "server_cmd")
                if command is not None:
                    self.launch(None, command, self.env(_get(node, "envs")), None, node)
            if not self.launches:
                self.found = "an e2e config whose server commands are templates (server_cmd_template), not read"
            return
        services = _get(root, "services")
        if isinstance(services, yaml.MappingNode):
            self.kind = self.kind or "compose"
            for name, service in _items(services):
                self.compose_service(name, service)
            return
        if _get(root, "apiVersion") is not None and _get(root, "kind") is not None:
            self.kind = self.kind or "kubernetes"
            kind = _get(root, "kind").value if isinstance(_get(root, "kind"), yaml.ScalarNode) else "?"
            containers = list(self.containers(root))
            if not containers:
                self.found = self.found or f"a Kubernetes {kind} without containers"
            for container in containers:
                self.container(container)

    def containers(self, node, seen: set[int] | None = None):
        """Every container of a manifest, wherever its kind keeps the pod template (each node
        once: aliases share nodes, and a chain of them must not be walked exponentially)."""
        import yaml

        seen = set() if seen is None else seen
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in _items(node):
                if key in ("containers", "initContainers") and isinstance(value, yaml.SequenceNode):
                    for item in value.value:
                        if isinstance(item, yaml.MappingNode):
                            yield item
                else:
                    yield from self.containers(value, seen)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                yield from self.containers(item, seen)

    def _layer(self, kind: str, image_node, devices: list | None = None) -> Layer:
        import yaml

        layer = Layer(kind=kind, fresh_env=True)
        if isinstance(image_node, yaml.ScalarNode):
            layer.image = self.word(image_node)
            layer.words = [layer.image]
        if devices:
            layer.subcommand = "run"
            layer.devices = devices
        return layer

    def container(self, node) -> None:
        env = self.env(_get(node, "env"))
        layer = self._layer("kubernetes", _get(node, "image"))
        self.launch(_get(node, "command"), _get(node, "args"), env, layer, node)

    def compose_service(self, name: str, node) -> None:
        import yaml

        env = []
        env_file = _get(node, "env_file")
        files = env_file.value if isinstance(env_file, yaml.SequenceNode) else [env_file] if env_file is not None else []
        layer_files = [Part(self.word(item), 0) for item in files if isinstance(item, yaml.ScalarNode)]
        env += self.env(_get(node, "environment"))
        devices = []
        device_node = _get(node, "devices")
        if isinstance(device_node, yaml.SequenceNode):
            for item in device_node.value:
                if isinstance(item, yaml.ScalarNode):
                    word = self.word(item)
                    host = item.value.split(":", 1)[0]
                    devices.append(Part(_sub(self.source, word, 0, len(host)), 0))
        layer = self._layer("compose", _get(node, "image"), devices)
        layer.env_files = layer_files
        self.launch(_get(node, "entrypoint"), _get(node, "command"), env, layer, node)

    def e2e(self, root) -> None:
        import yaml

        cases = _get(root, "test_cases")
        if not isinstance(cases, yaml.SequenceNode):
            return
        for case in cases.value:
            model = _get(case, "model")
            if not isinstance(model, yaml.ScalarNode):
                continue
            env = self.env(_get(case, "envs"))
            variables = {a.name: a.word for a in env if a.word is not None}
            words = [Word(raw="vllm", value="vllm", span=self.marks.span(model)),
                     Word(raw="serve", value="serve", span=self.marks.span(model)), self.word(model)]
            for key in ("server_cmd", "server_cmd_extra"):
                found = self.argv(_get(case, key), variables=variables)
                words += found or []
            self.launches.append(Launch(words=words, env=env, span=self.marks.span(case)))

    def launch(self, command, args, env: list[Assignment], layer: Layer | None, node) -> None:
        import yaml

        span = self.marks.span(node)
        words: list[Word] = []
        for part in (command, args):
            if part is None:
                continue
            if isinstance(part, yaml.SequenceNode):
                words.extend(self.word(item) for item in part.value)
            elif isinstance(part, yaml.ScalarNode) and part.value:
                # compose splits a string command like a shell: read it as a command string
                script = self.word(part)
                words += [Word(raw="sh", value="sh", span=script.span), Word(raw="-c", value="-c", span=script.span),
                          script]
        if not words:
            return
        self.launches.append(Launch(words=words, env=env, span=span, layer=layer))


def _sub(source: SourceText, word: Word, skip: int, length: int | None = None) -> Word:
    """The part of a scalar word after ``skip`` characters (``K=V`` -> ``V``)."""
    if word.value is None:
        return word
    value = word.value[skip:] if length is None else word.value[skip:skip + length]
    span, content_start, origins = word.span, None, None
    if word.origins is not None:
        prefix = len(word.value[:skip].encode("utf-8"))
        size = len(value.encode("utf-8"))
        origins = word.origins[prefix:prefix + size]
        if origins:
            span = source.span(origins[0], origins[-1] + 1)
            if origins == list(range(origins[0], origins[0] + len(origins))):
                content_start = origins[0]
    return Word(raw=value, value=value, span=span, content_start=content_start, origins=origins)


def _interpolate(word: Word, variables: dict[str, Word]) -> Word:
    """``$VAR`` / ``${VAR}`` from the case's envs, as the e2e harness does; unknown ones stay symbolic."""
    value = word.value or ""
    out, index, symbols = [], 0, []
    while index < len(value):
        char = value[index]
        if char == "$" and index + 1 < len(value):
            braced = value[index + 1] == "{"
            start = index + 2 if braced else index + 1
            end = start
            while end < len(value) and (value[end].isalnum() or value[end] == "_"):
                end += 1
            if end > start and (not braced or (end < len(value) and value[end] == "}")):
                name = value[start:end]
                found = variables.get(name)
                stop = end + 1 if braced else end
                if found is None or found.value is None or found.value == "DEFAULT_PORT":
                    symbols.append(value[index:stop])
                else:
                    out.append(found.value)
                index = stop
                continue
        out.append(char)
        index += 1
    if symbols:
        return Word(raw=word.raw, value=None, span=word.span, symbols=symbols)
    return Word(raw=word.raw, value="".join(out), span=word.span)


def _scalar_origins(data: bytes, start: int, end: int, style: str | None, value: str) -> list[int] | None:
    """Byte offsets of each byte of a scalar's value in the file, when they can be traced; else None."""
    encoded = value.encode("utf-8")
    raw = data[start:end]
    if style is None and raw == encoded:
        return list(range(start, end))
    if style in ("'", '"') and raw[1:-1] == encoded and b"\\" not in raw and b"''" not in raw and b"\n" not in raw:
        return list(range(start + 1, end - 1))
    if style in ("|", ">"):
        return _block_origins(data, start, end, style, encoded)
    return None


def _block_origins(data: bytes, start: int, end: int, style: str, encoded: bytes) -> list[int] | None:
    header_end = data.find(b"\n", start)
    if header_end < 0 or header_end >= end:
        return None if encoded else []
    lines: list[tuple[int, bytes]] = []
    offset = header_end + 1
    while offset < end:
        stop = data.find(b"\n", offset)
        stop = end if stop < 0 or stop > end else stop
        lines.append((offset, data[offset:stop]))
        offset = stop + 1
    content = [line for _, line in lines if line.strip()]
    if not content:
        return None if encoded else []
    indent = min(len(line) - len(line.lstrip(b" ")) for line in content)
    out, origins = bytearray(), list[int]()
    previous_blank = True
    for number, (line_start, line) in enumerate(lines):
        text = line[indent:] if len(line) >= indent else b""
        if style == ">" and out and not previous_blank and text.strip() and not text.startswith(b" "):
            out[-1:] = b" "  # folded: a single line break between text lines becomes a space
        out += text
        origins.extend(range(line_start + indent, line_start + indent + len(text)))
        out += b"\n"
        origins.append(line_start + len(line))
        previous_blank = not text.strip() or text.startswith(b" ")
    stripped = bytes(out).rstrip(b"\n")
    if stripped != encoded.rstrip(b"\n"):
        return None
    size = len(encoded)
    if size <= len(out):
        return origins[:size]
    return None
