"""Turn a parsed script into a LaunchPlan: recognise commands and read their options.

Option spellings follow vLLM's ``FlexibleArgumentParser``: ``_`` and ``-`` are
the same in a flag name up to the first ``.`` (``vllm@v0.23.0:vllm/utils/argparse_utils.py
L302-320``), ``--flag=value`` and ``--flag value`` are equivalent, ``--no-X``
negates a boolean ``X``, and ``--json-flag.key value`` sets one JSON sub-key.
"""

from __future__ import annotations

from qlint import jsonfast as json  # json's own C scanner and encoder, without importing json (cold start)
import os
import re

from qlint.knowledge.base import KnowledgeBase, unique_prefix
from qlint.knowledge.images import parse_image
from qlint.linter.shell import Assignment, ParsedScript, SimpleCommand, Word
from qlint.linter.source import SourceText
from qlint.rules.plan import (
    ClientCommand,
    Command,
    Directive,
    DockerRun,
    EnvSetting,
    JsonValue,
    LauncherCommand,
    LaunchPlan,
    Option,
    ProxyCommand,
    RayStartCommand,
    ServeCommand,
    Span,
    Value,
)

_API_SERVER_MODULES = {"vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server"}
_CLI_MODULES = {"vllm.entrypoints.cli.main"}  # python -m vllm.entrypoints.cli.main serve ... == vllm serve
_PYTHON_VALUE_OPTIONS = {"-W", "-X", "-Q"}
_CONTAINER_KINDS = ("docker", "podman", "compose")  # wrappers whose --device list is what the engine sees
_IMAGE_IN_COMMENT = r"[^\s'\"]*vllm-ascend:[^\s'\"]+"
"""What an image named in a comment is: read by :func:`images_in` with string operations (a test checks they agree)."""
_DIRECTIVE = r"^#\s*qlint:\s*(?P<body>.*)$"  # compiled on first use (re's cache): only for a "qlint:" comment
_ELIDED = r"[{\[,:]\s*(\.\.\.|…)\s*[}\],]"  # compiled on first use (re's cache): only for JSON that does not parse
_DOCKER_SWITCHES = {"--rm", "-it", "-ti", "-i", "-t", "-d", "--privileged", "--init", "--detach", "--interactive", "--tty"}


def _value(word: Word) -> Value:
    return Value(word.value, word.span, word.raw, list(word.symbols))


def _sub_span(source: SourceText, word: Word, start: int, end: int) -> Span | None:
    """Span of characters [start, end) of a word's value, when the mapping is 1:1."""
    if word.content_start is None:
        return None
    begin = source.offset_after_chars(word.content_start, start)
    finish = source.offset_after_chars(begin, end - start)
    return source.span(begin, finish)


def _python_module(words: list[Word]) -> tuple[str | None, list[Word]]:
    """``python [options] -m MODULE ARGS``: (MODULE, ARGS), else (None, [])."""
    index = 0
    while index < len(words):
        text = words[index].value or ""
        if text == "-m" and index + 1 < len(words):
            return words[index + 1].value, words[index + 2 :]
        if text.startswith("-m") and len(text) > 2:
            return text[2:], words[index + 1 :]
        if not text.startswith("-") or text == "-" or text == "-c":
            return None, []
        index += 2 if text in _PYTHON_VALUE_OPTIONS else 1
    return None, []


class Planner:
    """Builds LaunchPlans using the knowledge's flag table."""

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        self.flag = kb.flag  # spelling -> spec (flag_index.get), read alone from the compiled form
        # an assignment's EnvSetting, made once per plan (the assignment held: no id reuse)
        self._env_settings: dict[int, tuple[Assignment, EnvSetting]] = {}

    # -- options -------------------------------------------------------------
    def resolve_flag(self, spelled: str) -> tuple[str, bool, bool]:
        """Return (canonical name, negated, known) for a written flag (no value, no dots)."""
        return self._resolve(spelled)[:3]

    def _resolve(self, spelled: str):
        """``resolve_flag``'s answer and the spec of the name (None when not known): (name, negated, known, spec)."""
        if spelled.startswith("--"):
            name = "--" + spelled[2:].replace("_", "-")
        else:
            name = spelled
        spec = self.flag(name)
        if spec is not None:
            return spec.name, False, True, spec if spec.name == name else self.flag(spec.name)
        if name.startswith("--no-"):
            positive = self.flag("--" + name[5:])
            if positive is not None and positive.negatable:
                return positive.name, True, True, positive if positive.name == "--" + name[5:] else self.flag(positive.name)
        if name.startswith("--") and len(name) > 3:
            match = unique_prefix(self.kb.flag_names, name)  # sorted
            if match is not None:  # argparse accepts unambiguous prefixes
                return match, False, True, self.flag(match)
        return name, False, False, None

    def read_options(
        self, source: SourceText, words: list[Word]
    ) -> tuple[list[Option], list[Value]]:
        options: list[Option] = []
        positionals: list[Value] = []
        index = 0
        while index < len(words):
            word = words[index]
            text = word.value
            if text is None or not text.startswith("-") or text == "-" or (text[1] != "-" and _is_number(text)):
                positionals.append(_value(word))
                index += 1
                continue
            head, has_inline, inline = text.partition("=")
            written = head  # what is written before "=" (the dotted key too)
            sub_key = None
            if "." in head and (head.startswith("--") or not _is_number(head)):
                # --compilation-config.mode / -cc.mode: one JSON sub-key (argparse_utils.py dotted args)
                head, sub_key = head.split(".", 1)
            name, negated, known, spec = self._resolve(head)  # (spec: self.flag(name) when known)
            glued = None
            if not known and not head.startswith("--") and len(head) > 2 and sub_key is None:
                # -O3 / -q8: a two-character short option glued to its value, as argparse reads it
                short_name, _, short_known, short_spec = self._resolve(head[:2])
                if short_spec is not None and short_spec.type != "bool":
                    name, known, glued, spec = short_name, True, text[2:].removeprefix("="), short_spec
                    head = head[:2]
            name_span = _sub_span(source, word, 0, len(written)) if has_inline else word.span
            name_span = name_span or word.span
            value: Value | None = None
            consumed = 1
            if glued is not None:
                span = _sub_span(source, word, len(text) - len(glued), len(text)) or word.span
                value = Value(text=glued, span=span, raw=glued)
                name_span = _sub_span(source, word, 0, 2) or word.span
            elif has_inline:
                span = _sub_span(source, word, len(text) - len(inline), len(text)) or word.span
                value = Value(text=inline, span=span, raw=inline)
            elif spec is not None and spec.type == "bool":
                value = None
            elif sub_key is not None and sub_key.endswith("+"):
                value = _value(words[index + 1]) if index + 1 < len(words) else None
                consumed = 2 if value else 1
            elif index + 1 < len(words) and not _looks_like_option(words[index + 1].value):
                # argparse never takes "--max-model-len" as the value of the option before it: that
                # option is left without one ("expected one argument"); "-1" is a value
                value = _value(words[index + 1])
                consumed = 2
            end_span = value.span if value is not None else word.span
            option = Option(
                name=name,
                spelled=(head if sub_key is None else f"{head}.{sub_key}") if glued is None else text,
                span=Span(word.span.line, word.span.column, end_span.end_line, end_span.end_column),
                name_span=name_span,
                value=value,
                negated=negated,
                known=known,
            )
            if spec is not None and spec.type == "json" and value is not None:
                value_word = words[index + 1] if consumed == 2 else word
                offset = len(text) - len(glued) if glued is not None else (len(text) - len(inline) if has_inline else 0)
                self._read_json(source, option, value_word, sub_key, inline_offset=offset)
            options.append(option)
            index += consumed
        return options, positionals

    def _read_json(
        self, source: SourceText, option: Option, word: Word, sub_key: str | None, inline_offset: int
    ) -> None:
        assert option.value is not None
        text = option.value.text
        if text is None:
            return
        if sub_key is not None:
            key = sub_key.rstrip("+")
            try:
                parsed = json.loads(text)
            except (ValueError, RecursionError):
                parsed = text
            option.json = JsonValue(data=_nest(key, parsed), key_spans={key: option.value.span})
            return
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            if re.search(_ELIDED, text):
                return  # {...} / {"k": ...}: the docs left the value out; it stays unread, not wrong
            option.json_error = f"invalid JSON in {option.spelled}: {error.msg}"
            option.json_error_span = _sub_span(source, word, inline_offset + error.pos, inline_offset + error.pos + 1) or option.value.span
            return
        except RecursionError:
            option.json_error = f"invalid JSON in {option.spelled}: nested too deeply to read"
            option.json_error_span = option.value.span
            return
        except ValueError:  # Python refuses to convert an integer of more than 4,300 digits
            option.json_error = f"invalid JSON in {option.spelled}: a number too long to read (over 4300 digits)"
            option.json_error_span = option.value.span
            return
        if isinstance(data, dict) and word.content_start is not None:
            laid_out = _LaidOut(source, word.content_start, inline_offset, text, word.raw)
            if text.count("{") > _LAZY_NESTING:  # deep: read now, where a RecursionError is the one it always was
                value = JsonValue(data=data)
                laid_out(value)
            else:  # the layout is read when a finding or a fix first asks where a key is
                value = JsonValue(data=data, layout=laid_out)
        else:
            value = JsonValue(data=data)
        option.json = value

    # -- commands ------------------------------------------------------------
    def commands(self, source: SourceText, simple: SimpleCommand) -> list[Command]:
        """The commands of one simple command: the containers it runs in, then the command itself."""
        out: list[Command] = []
        for layer in simple.layers:
            if layer.kind in _CONTAINER_KINDS and layer.subcommand is not None:
                out.append(self._docker_layer(simple, layer))
        command = self.command(source, simple)
        if command is not None:
            command.background = simple.background or any(_detached(layer) for layer in simple.layers)
            command.in_loop = simple.in_loop
            if out:
                command.container = out[-1]  # type: ignore[assignment]
            if isinstance(command, ServeCommand):
                self._wrapped_serve(command, simple)
            out.append(command)
        return out

    def _docker_layer(self, simple: SimpleCommand, layer) -> DockerRun:
        devices = [_part_value(part) for part in layer.devices]
        span = layer.span or simple.span
        return DockerRun(kind="docker", span=span, env={}, argv=[_value(w) for w in layer.words],
                         image=_value(layer.image) if layer.image is not None else None, devices=devices)

    def _wrapped_serve(self, command: ServeCommand, simple: SimpleCommand) -> None:
        """What the wrappers tell about the engine: the NPUs a container maps, the wrappers' names."""
        command.wrappers = [layer.kind for layer in simple.layers]
        for layer in simple.layers:
            if layer.kind in _CONTAINER_KINDS and layer.devices:
                npus = [_part_value(part) for part in layer.devices]
                npus = [value for value in npus if value.text is None or "davinci" in value.text
                        and not value.text.rstrip("/").endswith(("davinci_manager",))]
                if npus:
                    command.devices = npus

    def command(self, source: SourceText, simple: SimpleCommand) -> Command | None:
        words = simple.words
        if not words:
            return None
        settings = self._env_settings
        env = {}
        for name, assignment in simple.env.items():  # the variables in scope: mostly the same for every command
            held = settings.get(id(assignment))
            if held is None or held[0] is not assignment or held[1].name != name or held[1].exported != assignment.exported:
                setting = EnvSetting(name, _value(assignment.word) if assignment.word is not None else None,
                                     assignment.span, assignment.exported)
                held = settings[id(assignment)] = (assignment, setting)
            env[name] = held[1]
        argv = [Value(w.value, w.span, w.raw, list(w.symbols)) for w in words]  # (_value inlined)
        program = (words[0].value or "").rsplit("/", 1)[-1]
        rest = words[1:]
        if program == "vllm" and rest and rest[0].value == "serve":
            return self._serve(source, simple, env, argv, rest[1:])
        if program == "vllm" and len(rest) >= 2 and rest[0].value == "bench":
            return self._bench(source, simple, env, argv, rest[2:])
        if program.startswith("python") and rest and (rest[0].value or "").startswith("-"):
            module, arguments = _python_module(rest)
            if module in _API_SERVER_MODULES:
                return self._serve(source, simple, env, argv, arguments)
            if module in _CLI_MODULES and arguments and arguments[0].value == "serve":
                return self._serve(source, simple, env, argv, arguments[1:])
        if program.startswith("python") and rest:
            script = (rest[0].value or "").rsplit("/", 1)[-1]
            if script == "launch_online_dp.py":
                options, _ = self._plain_options(rest[1:], multi=False)
                return LauncherCommand(kind="launcher", span=simple.span, env=env, argv=argv,
                                       options={k: v[0] for k, v in options.items() if v})
            if script.startswith("load_balance_proxy") and script.endswith(".py"):
                options, _ = self._plain_options(rest[1:], multi=True)
                return ProxyCommand(kind="proxy", span=simple.span, env=env, argv=argv,
                                    layerwise="layerwise" in script, options=options)
        if program == "ray" and rest and rest[0].value == "start":
            # ray start --head / --address: a node of a Ray cluster (click options, --opt=value or --opt value)
            ray = RayStartCommand(kind="ray-start", span=simple.span, env=env, argv=argv,
                                  options=_ray_options(source, rest[1:]))
            ray.address_port = _address_port(source, rest[1:])
            return ray
        if program == "curl":
            return self._curl(source, simple, env, argv, rest)
        if program == "lm_eval":
            return self._lm_eval(source, simple, env, argv, rest)
        if program == "docker" and rest and rest[0].value == "run":
            return self._docker(simple, env, argv, rest[1:])
        return Command(kind="other", span=simple.span, env=env, argv=argv)

    def _serve(self, source, simple, env, argv, words) -> ServeCommand:
        options, positionals = self.read_options(source, words)
        command = ServeCommand(kind="serve", span=simple.span, env=env, argv=argv,
                               all_options=options, positionals=positionals)
        for option in options:
            previous = command.options.get(option.name)
            if previous is not None and previous.json is not None and option.json is not None and "." in option.spelled:
                merged = dict(previous.json.data) if isinstance(previous.json.data, dict) else {}
                merged.update(option.json.data)
                option.json = JsonValue(data=merged, key_spans={**previous.json.key_spans, **option.json.key_spans})
            command.options[option.name] = option
        if positionals:
            command.model = positionals[0]
        elif "--model" in command.options and command.options["--model"].value is not None:
            command.model = command.options["--model"].value
        if command.model is not None and command.model.text and os.path.isdir(command.model.text):
            from qlint.linter.model_dir import read_model_dir  # a local model folder exists

            command.local_model = read_model_dir(command.model.text)
        if command.model is not None:
            command.option_line = _option_line(source, words, command.model.span)
        return command

    def _plain_options(self, words: list[Word], multi: bool) -> tuple[dict[str, list[Value]], list[Value]]:
        options: dict[str, list[Value]] = {}
        positionals: list[Value] = []
        current: str | None = None
        for word in words:
            text = word.value or ""
            if text.startswith("--"):
                head, has_inline, inline = text.partition("=")
                current = head.replace("_", "-")
                options.setdefault(current, [])
                if has_inline:
                    options[current].append(Value(inline, word.span, raw=inline))
                    current = None
                continue
            if current is not None:
                options[current].append(_value(word))
                if not multi:
                    current = None
            else:
                positionals.append(_value(word))
        return options, positionals

    def _bench(self, source, simple, env, argv, words) -> ClientCommand:
        options, _ = self._plain_options(words, multi=False)
        chosen = options.get("--served-model-name") or options.get("--model") or []
        return ClientCommand(kind="client", span=simple.span, env=env, argv=argv,
                             model_name=chosen[0] if chosen else None, tool="vllm-bench")

    def _curl(self, source, simple, env, argv, words) -> ClientCommand:
        model_name = None
        for index, word in enumerate(words[:-1]):
            if word.value in ("-d", "--data", "--data-raw", "--data-binary", "--json"):
                body = words[index + 1]
                if body.value is None:
                    continue
                try:
                    data = json.loads(body.value)
                    if isinstance(data, dict):
                        from qlint.linter.jsonspan import key_offsets

                        offsets = key_offsets(body.value)
                    else:
                        offsets = {}
                except (ValueError, RecursionError):
                    continue
                if isinstance(data, dict) and isinstance(data.get("model"), str):
                    span = body.span
                    if "model" in offsets:
                        start, end = offsets["model"]
                        span = _sub_span(source, body, start, end) or body.span
                    model_name = Value(data["model"], span, raw=data["model"])
        return ClientCommand(kind="client", span=simple.span, env=env, argv=argv,
                             model_name=model_name, tool="curl")

    def _lm_eval(self, source, simple, env, argv, words) -> ClientCommand:
        options, _ = self._plain_options(words, multi=False)
        model_name = None
        for value in options.get("--model-args", []):
            if value.text is None:
                continue
            for part in value.text.split(","):
                key, _, item = part.partition("=")
                if key.strip() == "model":
                    model_name = Value(item.strip(), value.span, raw=item)
        return ClientCommand(kind="client", span=simple.span, env=env, argv=argv,
                             model_name=model_name, tool="lm_eval")

    def _docker(self, simple, env, argv, words) -> DockerRun:
        image = None
        devices: list[Value] = []
        index = 0
        while index < len(words):
            text = words[index].value
            if text is None and image is None and index > 0:
                image = _value(words[index])
                break
            text = text or ""
            if text.startswith("-"):
                head, has_inline, inline = text.partition("=")
                if head in ("--device",):
                    if has_inline:
                        devices.append(Value(inline, words[index].span, raw=inline))
                    elif index + 1 < len(words):
                        devices.append(_value(words[index + 1]))
                if has_inline or head in _DOCKER_SWITCHES:
                    index += 1
                else:
                    index += 2
                continue
            image = _value(words[index])
            break
        return DockerRun(kind="docker", span=simple.span, env=env, argv=argv, image=image, devices=devices)


_RAY_SWITCHES = frozenset({"--head", "--block", "--disable-usage-stats", "--verbose", "--no-monitor",
                           "--include-log-monitor", "--enable-resource-isolation"})
"""``ray start`` flags that take no value (Ray's ``scripts.py`` click options with ``is_flag=True``)."""


def _ray_options(source: SourceText, words: list[Word]) -> dict[str, list[Value]]:
    """``ray start`` options: ``--name value`` and ``--name=value`` (click), names with dashes.

    A word whose value is symbolic (``--address=$HEAD_IP:6379``) is still an option: its name is read
    from the literal text before ``=`` and the value keeps the symbols (and the raw text after ``=``).
    """
    options: dict[str, list[Value]] = {}
    index = 0
    while index < len(words):
        word = words[index]
        text = word.value if word.value is not None else word.raw
        if not text.startswith("--"):
            index += 1
            continue
        head, has_inline, inline = text.partition("=")
        name = head.replace("_", "-")
        if not name[2:].replace("-", "").isalnum():
            index += 1
            continue
        values = options.setdefault(name, [])
        if has_inline:
            span = _sub_span(source, word, len(head) + 1, len(text)) if word.value is not None else None
            values.append(Value(inline if word.value is not None else None, span or word.span, raw=inline,
                                symbols=list(word.symbols)))
        elif name not in _RAY_SWITCHES and index + 1 < len(words) and not (words[index + 1].value or "").startswith("--"):
            values.append(_value(words[index + 1]))
            index += 1
        index += 1
    return options


def _address_port(source: SourceText, words: list[Word]) -> Value | None:
    """The ``PORT`` of a literal ``--address HOST:PORT`` / ``--address=HOST:PORT``, spanning its digits."""
    for index, word in enumerate(words):
        text = word.value if word.value is not None else word.raw
        if text == "--address" and index + 1 < len(words):
            holder, offset = words[index + 1], 0
        elif text.startswith("--address="):
            holder, offset = word, len("--address=")
        else:
            continue
        value = holder.value
        if value is None:
            return _symbolic_port(holder)
        _, colon, port = value[offset:].rpartition(":")
        if not colon or not port.isdigit():
            return None
        span = _sub_span(source, holder, len(value) - len(port), len(value))
        return Value(port, span, raw=port) if span is not None else None
    return None


def _symbolic_port(word: Word) -> Value | None:
    """The literal ``:PORT`` tail of a word whose host is a variable (``"${HEAD_IP:?...}:6379"``): the digits of
    the last literal piece of its tree-sitter node, with their span (None when the text does not map 1:1)."""
    walker, node = word.walker, word.node
    if walker is None or node is None or walker.coarse is not None:
        return None
    pieces = [node]
    last = None
    while pieces:
        current = pieces.pop()
        if current.type in ("string_content", "word") and current.end_byte == _literal_end(node):
            last = current
        pieces.extend(current.children)
    if last is None:
        return None
    text = walker.text(last)
    head, colon, port = text.rpartition(":")
    if not colon or not port.isdigit():
        return None
    return Value(port, walker.map(last.end_byte - len(port), last.end_byte), raw=port)


def _literal_end(node) -> int:
    """Where the word's text ends, inside its closing quote when it ends in one."""
    end = node.end_byte
    while node.children:
        node = node.children[-1]
        if node.type == '"':
            return node.start_byte
    return end


def _part_value(part) -> Value:
    """A value inside a word (``--device=/dev/davinci0``): its text after ``part.skip`` characters."""
    word = part.word
    if part.skip is None or word.value is None:
        return _value(word)
    text = word.value[part.skip:]
    return Value(text, word.span, raw=text if part.skip else word.raw, symbols=list(word.symbols))


_LAZY_NESTING = 64
"""A JSON object text with more ``{`` than this has its layout read at once (``jsonspan.layout`` recurses once
per nested object; read later, from deeper in the rules' stack, it could hit the recursion limit where it did not)."""


class _LaidOut:
    """Sets a JsonValue's layout fields from the JSON text of a word that maps 1:1 onto the file (its value
    starting at byte ``content_start``, the JSON ``offset`` characters into it): a ``JsonValue.layout``.

    A group of fields is set when one of them is first read (``_GROUP``): a finding's span needs the key spans
    alone, an edit the entries, the objects and the separators too. ``pending``: the groups not set yet."""

    __slots__ = ("source", "content_start", "offset", "text", "raw", "held", "pending")

    def __init__(self, source: SourceText, content_start: int, offset: int, text: str, raw: str) -> None:
        self.source, self.content_start, self.offset, self.text, self.raw = source, content_start, offset, text, raw
        self.held: list | None = None  # what _LAYOUTS holds for this text (kept here too: a big file's is not)
        self.pending = [True, True, True, True]

    def __call__(self, value: JsonValue, name: str | None = None) -> None:
        held = self.held
        if held is None:
            source = self.source
            key = (source.data, self.content_start, self.offset, self.text, self.raw)
            held = _LAYOUTS.get(key)
            if held is None:
                held = [self._read(), None, None, None]
                if len(source.data) <= _LAYOUT_CACHE_BYTES:
                    if len(_LAYOUTS) >= _LAYOUT_CACHE_SIZE:
                        _LAYOUTS.clear()
                    _LAYOUTS[key] = held
            self.held = held
        pending = self.pending
        for group in _GROUPS if name is None else (_GROUP[name],):
            if pending[group]:
                pending[group] = False
                self._set(value, group, held)
        if not any(pending):
            value.layout = None

    def _set(self, value: JsonValue, group: int, held: list) -> None:
        found = held[0]
        if group == 3:  # the separators the author wrote, when one way throughout, and the word's quoting
            value.item_separator = found.item_separator if found is not None and found.item_separator is not None else ", "
            value.key_separator = found.key_separator if found is not None and found.key_separator is not None else ": "
            raw = self.raw.partition("=")[2] if self.offset else self.raw
            value.quote = None if found is None else raw[:1] if raw[:1] in ("'", '"') else ""
            return
        spans = held[group + 1]
        if spans is None:
            if found is None:  # nested too deeply to map: the keys keep the option's span
                spans = {}
            elif group == 0:
                spans = {key: self._span(start, end) for key, (start, end) in found.values.items()}
            elif group == 1:
                spans = {key: self._span(start, end) for key, (start, end) in found.entries.items()}
            else:
                spans = {path: (self._span(at, at), empty) for path, (at, empty) in found.objects.items()}
            held[group + 1] = spans  # (spans are frozen: each JsonValue gets a dict of its own)
        if group == 0:
            value.key_spans = dict(spans)
        elif group == 1:
            value.entry_spans = dict(spans)
        else:
            value.objects = dict(spans)

    def _span(self, start: int, end: int) -> Span:
        """The span of characters ``start..end`` of the JSON text."""
        source, first = self.source, self.content_start
        if source._ascii:  # source.offset_after_chars, inlined: a character is a byte
            size = len(source.data)
            begin = first + max(0, min(self.offset + start, size - first))
            return source.span(begin, begin + max(0, min(end - start, size - begin)))
        begin = source.offset_after_chars(first, self.offset + start)
        return source.span(begin, source.offset_after_chars(begin, end - start))

    def _read(self):
        from qlint.linter.jsonspan import layout  # a JSON object was written

        try:
            return layout(self.text)
        except RecursionError:
            return None


_GROUP = {"key_spans": 0, "entry_spans": 1, "objects": 2, "item_separator": 3, "key_separator": 3, "quote": 3}
"""The group of layout fields each field is set with (``_LaidOut``)."""
_GROUPS = (0, 1, 2, 3)


_LAYOUTS: dict[tuple, list] = {}
"""The layouts read last, by file text, place and JSON text: the deployment pass reads a DP template once per
local rank, the same bytes each time. Spans are frozen; each JsonValue gets dicts of its own."""
_LAYOUT_CACHE_SIZE = 64
_LAYOUT_CACHE_BYTES = 64 * 1024


def _nest(dotted: str, value):
    result = value
    for part in reversed(dotted.split(".")):
        result = {part: result}
    return result


def _option_line(source: SourceText, words: list[Word], model: Span) -> tuple[int, str] | None:
    """(line, indentation) of the first option written on a continuation line of its own after the
    model's line, when the command is laid out one option per line (``vllm serve M \\`` then
    ``  --tp 2 \\``): a new option goes on a line of its own there, indented alike. None for a
    one-line command, or when that line holds more than the continuation of the command."""
    following = [word for word in words if word.span.line > model.end_line]
    if not following:
        return None
    first = following[0]
    if first.span.line != model.end_line + 1 or not (first.value or first.raw).startswith("-"):
        return None
    if not source.line_text(model.end_line).rstrip().endswith("\\"):
        return None
    indent = source.line_text(first.span.line)[: first.span.column - 1]
    return (first.span.line, indent) if indent.strip(" \t") == "" else None


def _detached(layer) -> bool:
    """``docker run -d`` / ``--detach``: the container runs on while the script goes on."""
    if layer.kind not in _CONTAINER_KINDS or layer.subcommand != "run":
        return False
    for word in layer.words:
        text = word.value or ""
        if text == "--detach" or text.startswith("--detach="):
            return text in ("--detach", "--detach=true")
        if text.startswith("-") and not text.startswith("--") and "d" in text[1:] \
                and set(text[1:]) <= set("ditPqla"):
            return True
    return False


def _looks_like_option(text: str | None) -> bool:
    """True for a word argparse reads as an option, never as the value of the one before it
    (``--x``, ``-x``; not ``-``, not a negative number such as ``-1``; unknown text is a value)."""
    return text is not None and text.startswith("-") and text != "-" and not _is_number(text)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def build_plan(kb: KnowledgeBase, parsed: ParsedScript) -> LaunchPlan:
    """Build the LaunchPlan of a parsed script (no I/O, no execution)."""
    planner = Planner(kb)
    source = parsed.source
    plan = LaunchPlan(path=source.path, unsets=dict(parsed.unsets))
    containers: set[tuple[Span, Span | None]] = set()
    for simple in parsed.commands:
        for command in planner.commands(source, simple):
            if isinstance(command, DockerRun):  # one container, many commands run in it (bash -c 'a; b')
                key = (command.span, command.image.span if command.image is not None else None)
                if key in containers:
                    continue
                containers.add(key)
            plan.commands.append(command)
    plan.unread = [(item.kind, item.detail, item.span) for item in parsed.unread]
    seen_at: set[tuple[int, int]] = set()
    candidates = [a.word for a in parsed.assignments if a.word is not None]
    candidates += [w for c in parsed.commands for w in c.words]
    candidates += [layer.image for c in parsed.commands for layer in c.layers if layer.image is not None]
    for word in candidates:
        if word.value and "vllm-ascend:" in word.value and parse_image(word.value):
            at = (word.span.line, word.span.column)
            if at not in seen_at:
                seen_at.add(at)
                plan.image_tags.append(_value(word))
    # images named in comments ("# Image: quay.io/ascend/vllm-ascend:v0.18.0rc1-a3") come first,
    # so an image the code itself uses still wins (the image_tag fact takes the last one)
    noted: list[Value] = []
    for comment in parsed.comments:
        if "vllm-ascend:" not in comment.text:
            continue  # the regex scans slowly; most comments name no image
        for start, image in images_in(comment.text):
            if comment.span.line == comment.span.end_line and parse_image(image):
                column = comment.span.column + start
                span = Span(comment.span.line, column, comment.span.line, column + len(image))
                noted.append(Value(text=image, span=span, raw=image))
    plan.image_tags[:0] = noted
    for comment in parsed.comments:
        text = comment.text
        if plan.shebang is None and (text.startswith("#!") or text.startswith("#/")):
            plan.shebang = (text, comment.span)
        directive = re.match(_DIRECTIVE, text) if "qlint:" in text else None  # (the pattern needs it)
        if directive is None:
            continue
        from qlint.linter.suppressions import is_suppression_comment  # only for a '# qlint:' comment

        if not is_suppression_comment(text):
            stated: dict[str, str] = {}
            for item in directive.group("body").split():
                if item == "--":
                    break  # the rest is a reason, as in a suppression
                name, _, setting = item.partition("=")
                stated[name.strip()] = setting.strip()
            plan.directives.append(Directive(settings=stated, span=comment.span))
    code_lines = [c.span.line for c in parsed.commands] + [a.span.line for a in parsed.assignments]
    code_lines += [span.line for span in parsed.unsets.values()]
    plan.first_code_line = min(code_lines) if code_lines else None
    plan.dangling_continuations = dangling_continuations(source, parsed.text)
    plan.crlf_endings = crlf_endings(source, parsed.text)
    plan.unterminated_heredocs = list(parsed.unterminated_heredocs)
    merged: list[Span] = []
    for span in sorted(parsed.glued_redirects, key=lambda s: (s.line, s.column)):
        previous = merged[-1] if merged else None
        if previous is not None and (previous.end_line, previous.end_column) >= (span.line, span.column - 1):
            merged[-1] = Span(previous.line, previous.column, span.end_line, max(span.end_column, previous.end_column))
        else:
            merged.append(span)
    for span in merged:  # one finding per word, e.g. http://<server_ip>:<port>/v1
        text = source.line_text(span.line)[span.column - 1 : span.end_column - 1] if span.line == span.end_line else ""
        plan.glued_redirects.append((text, span))
    return plan


def _in_word(char: str) -> bool:
    return not char.isspace() and char not in "'\""  # [^\s'"]


def images_in(text: str) -> list[tuple[int, str]]:
    """(start, text) of the matches of ``re.finditer(_IMAGE_IN_COMMENT, text)``: each run of characters other
    than whitespace and quotes that holds ``vllm-ascend:`` with something after it, whole."""
    found = []
    mark = text.find("vllm-ascend:")
    while mark >= 0:
        start, end = mark, mark + 12
        while start and _in_word(text[start - 1]):
            start -= 1
        while end < len(text) and _in_word(text[end]):
            end += 1
        if end > mark + 12:
            found.append((start, text[start:end]))
            mark = text.find("vllm-ascend:", end)
        else:
            mark = text.find("vllm-ascend:", mark + 1)
    return found


def continuations(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of each line continuation (a backslash, then ``\\n`` or ``\\r\\n``), in order: the matches of
    ``re.finditer(rb"\\\\\\r?\\n", data)``, found without compiling a pattern at start-up."""
    found = []
    for ending in (b"\\\n", b"\\\r\n"):  # a linear scan per kind; the two never overlap
        index = data.find(ending)
        while index >= 0:
            found.append((index, index + len(ending)))
            index = data.find(ending, index + 2)
    if len(found) > 1:
        found.sort()
    return found


def crlf_endings(source: SourceText, text: bytes | None = None) -> list[tuple[Span, bool]]:
    """The carriage return of each line that ends in ``\\r\\n``, in order, and whether a backslash stands
    before it (a line continuation as the author meant it, which bash does not read as one)."""
    data = source.data if text is None else text
    found: list[tuple[Span, bool]] = []
    index = data.find(b"\r\n")
    while index >= 0:
        found.append((source.span(index, index + 1), index > 0 and data[index - 1] == 0x5C))
        index = data.find(b"\r\n", index + 2)
    return found


def dangling_continuations(source: SourceText, text: bytes | None = None) -> list[Span]:
    """Spans of line-continuation backslashes followed by a blank line or end of file.

    Only backslashes outside quotes count: the tree-sitter node covering the
    backslash must not be a string, raw string, comment or heredoc.
    """
    from qlint.linter.shell import parse_tree  # the cached parser, crash-safe input

    data = source.data if text is None else text  # a Markdown file: only its shell blocks
    found: list[Span] = []
    tree = None
    for index, start in continuations(data):
        line_end = data.find(b"\n", start)
        next_line = data[start : len(data) if line_end == -1 else line_end].strip()
        if next_line and start < len(data):
            continue
        if tree is None:
            tree = parse_tree(data)
        node = tree.root_node.descendant_for_byte_range(index, index + 1)
        inside = False
        while node is not None:
            if node.type in ("string", "raw_string", "comment", "heredoc_body", "ansi_c_string"):
                inside = True
                break
            node = node.parent
        if not inside:
            found.append(source.span(index, index + 1))
    return found
