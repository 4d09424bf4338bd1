"""Commands that run another command: peel them off to reach the command they run.

``sudo -E nice -n 5 docker exec -it c vllm serve ...`` runs ``vllm serve``;
``bash -c '...'`` and ``ssh HOST '...'`` run a command string (read as a script
by the caller); ``bash`` alone, ``bash -s``, ``ssh HOST`` and ``docker exec -i
C bash`` read their script from standard input (a heredoc or here-string).

Option grammars follow each tool's manual: which options take a value decides
where the wrapped command starts. Nothing here runs anything; the words were
already expanded statically by the shell reader.

- coreutils ``env``, ``nice``, ``nohup``, ``timeout``, ``stdbuf``, ``chroot``
- util-linux ``setsid``, ``taskset``, ``ionice``, ``chrt``; numactl(8)
- sudo(8): options, ``NAME=value`` operands, ``-E`` / ``--preserve-env[=list]``
- bash(1) ``-c``, ``-s`` and its builtins ``command``, ``exec``, ``time``
- docker/podman ``run`` / ``exec`` (``docker container run`` too): ``-e``,
  ``--env``, ``--env-file``, ``--device``, ``--name``, ``--entrypoint``
- ssh(1): options with values, ``HOST``, then the remote command
"""

from __future__ import annotations

from qlint.linter.shell import SHELLS, WRAPPERS  # the programs unwrap looks into
from qlint.record import field, record
from qlint.rules.plan import Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from qlint.linter.shell import Word


@record
class Layer:
    """One wrapper around the command it runs.

    ``kind`` is the wrapper's name (``docker``, ``sudo``, ``ssh``, ``nice``...);
    ``words`` its own words (program and options). ``env`` are ``NAME=value``
    settings it adds (``env A=1``, ``sudo A=1``, ``docker -e A=1``);
    ``passthrough`` names whose value comes from the caller (``docker -e A``);
    ``fresh_env`` is True when the wrapped command does not inherit the
    caller's environment (a container, a remote host, ``sudo`` without ``-E``,
    ``env -i``); ``preserved`` names still passed (``sudo --preserve-env=A``).
    Docker only: ``image``, ``container`` (``--name`` of a run, the target of
    an exec), ``devices`` (``--device`` values), ``env_files``.
    """

    kind: str
    words: list = field(default_factory=list)
    env: list[tuple[str, Part]] = field(default_factory=list)
    passthrough: list[tuple[str, object]] = field(default_factory=list)
    unset: list[str] = field(default_factory=list)
    fresh_env: bool = False
    preserved: set[str] = field(default_factory=set)
    image: Word | None = None
    container: str | None = None
    subcommand: str | None = None
    devices: list = field(default_factory=list)
    env_files: list = field(default_factory=list)
    host: object | None = None

    @property
    def span(self) -> Span | None:
        if not self.words:
            return None
        first, last = self.words[0].span, self.words[-1].span
        return Span(first.line, first.column, last.end_line, last.end_column)


@record
class Unwrapped:
    """What a command runs once its wrappers are peeled.

    ``argv``: the words of the wrapped command (empty when the wrapper runs
    nothing, e.g. ``docker run IMAGE`` with the image's own command).
    ``script``: a command string to read as a script (``bash -c``,
    ``ssh HOST 'cmd'``, ``su -c``), with ``script_args`` as ``$0, $1...``.
    ``stdin_script``: the innermost command reads its script from standard input.
    ``script_file``: ``bash FILE args`` (``argv`` then holds FILE and args).
    ``script_words``: ``ssh HOST w1 w2 ...`` whose words need the remote shell's parsing: the
    script is their values joined with spaces.
    """

    layers: list[Layer]
    argv: list
    script: Word | None = None
    script_args: list = field(default_factory=list)
    stdin_script: bool = False
    script_file: Word | None = None
    script_words: list = field(default_factory=list)  # ssh HOST a b c: words the remote shell joins and parses


def _name(word) -> str | None:
    value = word.value
    if value is None:
        return None
    return value.rsplit("/", 1)[-1]



def _options(words: list, index: int, takes_value: set[str] | frozenset[str], flags: set[str] | frozenset[str] = frozenset(),
             long_values: set[str] | frozenset[str] = frozenset(), stop_on_unknown: bool = False) -> int:
    """Skip getopt-style options from ``index``; return the index of the first operand.

    Short options in ``takes_value`` take the next word (or the rest of the word:
    ``-n5``); clusters of ``flags`` (``-fN``) take none; ``--long=value`` is one
    word, ``--long value`` two when ``--long`` is in ``long_values``; ``--`` ends.
    """
    while index < len(words):
        text = words[index].value
        if text is None or not text.startswith("-") or text == "-":
            return index
        if text == "--":
            return index + 1
        if text.startswith("--"):
            head, has_inline, _ = text.partition("=")
            index += 1 if has_inline or head not in long_values else 2
            continue
        cluster = text[1:]
        position = 0
        advance = 1
        while position < len(cluster):
            letter = cluster[position]
            if letter in takes_value:
                if position == len(cluster) - 1:
                    advance = 2  # the value is the next word
                break  # the rest of the word is the value
            if letter not in flags and stop_on_unknown:
                return index
            position += 1
        index += advance
    return index


def _assignments(words: list, index: int, layer: Layer) -> int:
    while index < len(words):
        text = words[index].value
        if text is None or "=" not in text or text.startswith(("-", "=")):
            return index
        name, _, _ = text.partition("=")
        if not name.replace("_", "a").isalnum() or name[0].isdigit():
            return index
        layer.env.append((name, Part(words[index], len(name) + 1)))
        index += 1
    return index


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=+:@,%")


def _remote_syntax(text: str | None) -> bool:
    """True when the remote shell would parse ``text`` differently from one plain word."""
    return text is None or any(char not in _PLAIN for char in text)


def _remote_shell(rest: list) -> list | None:
    """The words of the remote command when it is a shell that reads its script from standard
    input (``bash``, ``bash -s``, ``sh -l``, also written as one word ``'bash -s'``); else None."""
    if len(rest) == 1 and rest[0].value is not None and " " in rest[0].value.strip():
        tokens = rest[0].value.split()
        if any(_remote_syntax(token) for token in tokens):
            return None
        from qlint.record import replace  # one word split in words that all point at it

        rest = [replace(rest[0], raw=token, value=token, node=None, content_start=None) for token in tokens]
    if not rest or _name(rest[0]) not in SHELLS or any(_remote_syntax(word.value) for word in rest):
        return None
    options = [word.value for word in rest[1:]]
    if not all(option.startswith("-") for option in options) or any("c" in option[1:] for option in options
                                                                        if not option.startswith("--")):
        return None
    return rest


def _value_word(words: list, index: int):
    """The word after ``words[index]`` (the value of a separate option), or None."""
    return words[index + 1] if index + 1 < len(words) else None


def unwrap(words: list) -> Unwrapped:
    """Peel the wrappers off ``words`` (Word objects of one simple command)."""
    layers: list[Layer] = []
    words = list(words)  # --entrypoint is spliced in front of the image's command
    index = 0
    while index < len(words):
        name = _name(words[index])
        if name is None or name not in WRAPPERS:
            break
        start = index
        layer = Layer(kind=name)
        index += 1
        if name in ("nohup", "setsid", "time", "exec", "command"):
            if name == "setsid":
                index = _options(words, index, set(), {"c", "f", "w"})
            elif name == "time":
                index = _options(words, index, {"f", "o"}, {"p", "v", "a", "q"}, {"--format", "--output"})
            elif name == "exec":
                index = _options(words, index, {"a"}, {"c", "l"})
            elif name == "command":
                if index < len(words) and (words[index].value or "").startswith(("-v", "-V")):
                    return Unwrapped(layers, words[start:])  # command -v NAME: a lookup, runs nothing
                index = _options(words, index, set(), {"p"})
        elif name == "nice":
            if index < len(words) and (words[index].value or "")[1:].lstrip("-").isdigit() \
                    and (words[index].value or "").startswith("-") and not (words[index].value or "").startswith("-n"):
                index += 1  # the old form: nice -5 CMD, nice --10 CMD
            else:
                index = _options(words, index, {"n"}, set(), {"--adjustment"})
        elif name == "stdbuf":
            index = _options(words, index, {"i", "o", "e"}, set(), {"--input", "--output", "--error"})
        elif name == "timeout":
            index = _options(words, index, {"s", "k"}, {"v"}, {"--signal", "--kill-after"})
            index += 1  # DURATION
        elif name == "ionice":
            index = _options(words, index, {"c", "n", "p", "P", "u"}, {"t"}, {"--class", "--classdata", "--pid", "--pgid", "--uid"})
            if any((w.value or "").startswith(("-p", "-P", "-u", "--pid", "--pgid", "--uid")) for w in words[start:index]):
                return Unwrapped(layers, words[start:])  # changes a running process
        elif name == "chrt":
            index = _options(words, index, {"T", "P", "D"}, {"a", "b", "d", "e", "f", "i", "m", "o", "p", "r", "R", "v"},
                             {"--sched-runtime", "--sched-period", "--sched-deadline"})
            if any((w.value or "") in ("-p", "--pid") for w in words[start:index]) or \
                    any((w.value or "") in ("-m", "--max") for w in words[start:index]):
                return Unwrapped(layers, words[start:])
            index += 1  # PRIORITY
        elif name == "taskset":
            index = _options(words, index, set(), {"a", "c", "p"})
            if any((w.value or "").startswith("-") and "p" in (w.value or "") and not (w.value or "").startswith("--")
                   for w in words[start + 1:index]) or any(w.value == "--pid" for w in words[start:index]):
                return Unwrapped(layers, words[start:])
            index += 1  # MASK or CPU-LIST
        elif name == "numactl":
            index = _options(
                words, index, {"N", "m", "C", "p", "i", "P", "w"}, {"l", "a", "b"},
                {"--cpunodebind", "--membind", "--physcpubind", "--preferred", "--interleave", "--preferred-many",
                 "--weighted-interleave", "--cpubind"},
            )
            if any((w.value or "") in ("-s", "--show", "-H", "--hardware") for w in words[start:index]):
                return Unwrapped(layers, words[start:])
        elif name == "env":
            while index < len(words):
                text = words[index].value
                if text is None:
                    break
                if text in ("-i", "-", "--ignore-environment"):
                    layer.fresh_env = True
                    index += 1
                elif text in ("-u", "--unset") and index + 1 < len(words):
                    layer.unset.append(words[index + 1].value or "")
                    index += 2
                elif text.startswith("--unset="):
                    layer.unset.append(text.partition("=")[2])
                    index += 1
                elif text.startswith("-u") and len(text) > 2:
                    layer.unset.append(text[2:])
                    index += 1
                elif text in ("-C", "--chdir", "-S", "--split-string"):
                    index += 2
                elif text.startswith("-") and text not in ("--",):
                    index += 1
                elif text == "--":
                    index += 1
                    break
                else:
                    break
            index = _assignments(words, index, layer)
        elif name in ("sudo", "doas"):
            layer.fresh_env = True
            while index < len(words):
                text = words[index].value
                if text is None or not text.startswith("-"):
                    break
                if text == "--":
                    index += 1
                    break
                if text in ("-E", "--preserve-env"):
                    layer.fresh_env = False
                    index += 1
                    continue
                if text.startswith("--preserve-env="):
                    layer.preserved.update(part for part in text.partition("=")[2].split(",") if part)
                    index += 1
                    continue
                if text.startswith("--"):
                    head, has_inline, _ = text.partition("=")
                    with_value = {"--user", "--group", "--close-from", "--chdir", "--host", "--prompt", "--role",
                                  "--type", "--command-timeout", "--other-user", "--chroot"}
                    index += 1 if has_inline or head not in with_value else 2
                    continue
                cluster = text[1:]
                advance = 1
                for position, letter in enumerate(cluster):
                    if letter == "E":
                        layer.fresh_env = False
                    if letter in "ugCDhprtTUR":  # -u USER, -g GROUP, -C N, -D DIR, -h HOST, -p PROMPT...
                        if position == len(cluster) - 1:
                            advance = 2
                        break
                index += advance
            index = _assignments(words, index, layer)
        elif name == "su":
            # su [options] [-] [USER [ARGS]]; -c CMD runs CMD with the user's shell
            script = None
            while index < len(words):
                text = words[index].value
                if text in ("-c", "--command") and index + 1 < len(words):
                    script = words[index + 1]
                    index += 2
                elif text is not None and text.startswith("--command="):
                    return Unwrapped(layers + [layer], [], script=words[index], stdin_script=False)
                elif text is not None and text in ("-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w",
                                                   "--whitelist-environment"):
                    index += 2
                elif text is not None and text.startswith("-"):
                    if text in ("-m", "-p", "--preserve-environment"):
                        layer.preserved.add("*")
                    index += 1
                else:
                    index += 1  # USER
            layer.words = words[start:index]
            layer.fresh_env = "*" not in layer.preserved
            layers.append(layer)
            if script is not None:
                return Unwrapped(layers, [], script=script)
            return Unwrapped(layers, [], stdin_script=True)
        elif name in SHELLS:
            script_mode = False
            stdin = False
            while index < len(words):
                text = words[index].value
                if text is None or not text.startswith(("-", "+")) or text in ("-", "+"):
                    break
                if text == "--":
                    index += 1
                    break
                if text in ("--rcfile", "--init-file", "-o", "+o", "-O", "+O"):
                    index += 2
                    continue
                if text.startswith("--"):
                    index += 1
                    continue
                if "c" in text[1:]:
                    script_mode = True
                if "s" in text[1:]:
                    stdin = True
                index += 1
            layer.words = words[start:index]
            layers.append(layer)
            if script_mode:
                script = words[index] if index < len(words) else None
                return Unwrapped(layers, [], script=script, script_args=words[index + 1:])
            if stdin or index >= len(words):
                return Unwrapped(layers, [], stdin_script=True, script_args=words[index:])
            return Unwrapped(layers, words[index:], script_file=words[index])
        elif name in ("docker", "podman"):
            index = _docker(words, index, layer)
            if layer.subcommand is None:
                return Unwrapped(layers, words[start:])  # docker ps, docker pull...: runs no command
        elif name == "ssh":
            layer.fresh_env = True
            index = _options(
                words, index, set("BbcDEeFIiJLlmOoPpQRSWw"), set("46AaCfGgKkMNnqsTtVvXxYy"),
            )
            if index < len(words):
                layer.host = words[index]
                index += 1
                # OpenSSH also reads options after the destination (ssh HOST -p 22 CMD); -- ends them
                index = _options(words, index, set("BbcDEeFIiJLlmOoPpQRSWw"), set("46AaCfGgKkMNnqsTtVvXxYy"))
            layer.words = words[start:index]
            layers.append(layer)
            rest = words[index:]
            if not rest:
                return Unwrapped(layers, [], stdin_script=True)
            remote = _remote_shell(rest)
            if remote is not None:
                # ssh HOST bash [-s|-l] <<EOF, ssh HOST 'bash -s': the remote shell reads the heredoc
                words = words[:index] + remote
                continue
            if len(rest) == 1:
                return Unwrapped(layers, [], script=rest[0])
            if any(word.value is not None and _remote_syntax(word.value) for word in rest):
                # ssh joins its words with spaces and the remote shell parses the result:
                # ssh HOST bash -c "'vllm serve ...'" runs vllm serve
                return Unwrapped(layers, [], script_words=rest)
            return Unwrapped(layers, rest)
        layer.words = words[start:index]
        layers.append(layer)
    return Unwrapped(layers, words[index:])


_DOCKER_FLAGS = frozenset({
    "--rm", "--privileged", "--init", "--detach", "--interactive", "--tty", "--publish-all", "--read-only",
    "--no-healthcheck", "--oom-kill-disable", "--quiet", "--disable-content-trust", "--help", "--sig-proxy",
    "--replace", "--rmi", "--tls-verify", "--http-proxy", "--systemd", "--latest", "--userns-remap",
})
_DOCKER_SHORT_FLAGS = frozenset("ditPqla")
_DOCKER_GLOBAL_VALUES = frozenset({"--context", "-c", "--host", "-H", "--config", "--log-level", "-l", "--tlscacert",
                                   "--tlscert", "--tlskey", "--connection", "--url", "--identity", "--root",
                                   "--runroot", "--storage-driver", "--cgroup-manager", "--events-backend"})


def _docker(words: list, index: int, layer: Layer) -> int:
    """``docker [global options] (run|exec|container run|container exec) [options] IMAGE|CONTAINER [CMD...]``."""
    while index < len(words):
        text = words[index].value
        if text is None:
            return index
        if text.startswith("-"):
            head = text.partition("=")[0]
            index += 2 if head in _DOCKER_GLOBAL_VALUES and "=" not in text else 1
            continue
        break
    if index < len(words) and words[index].value == "container":
        index += 1
    if index >= len(words) or words[index].value not in ("run", "exec", "create"):
        return index
    layer.subcommand = "exec" if words[index].value == "exec" else "run"
    layer.fresh_env = True
    index += 1
    entrypoint = None
    while index < len(words):
        word = words[index]
        text = word.value
        if text is None:
            break  # a symbolic word is an operand: the image (or container), e.g. $IMAGE
        if text == "--":
            index += 1
            break
        if not text.startswith("-") or text == "-":
            break
        head, has_inline, inline = text.partition("=")
        if text.startswith("--"):
            if head in _DOCKER_FLAGS:
                index += 1
                continue
            value = inline if has_inline else (_value_word(words, index).value if _value_word(words, index) else None)
            value_word = word if has_inline else _value_word(words, index)
            _docker_option(layer, head, value, value_word, word, has_inline)
            if head == "--entrypoint":
                entrypoint = value_word
            index += 1 if has_inline else 2
            continue
        cluster = text[1:]
        if all(letter in _DOCKER_SHORT_FLAGS for letter in cluster):
            index += 1
            continue
        letter = cluster[0] if all(c in _DOCKER_SHORT_FLAGS for c in cluster[:-1]) else None
        letter = cluster[-1] if letter is not None else cluster[0]
        glued = cluster[cluster.index(letter) + 1:]
        if glued:
            value, value_word, advance = glued.lstrip("="), word, 1
        else:
            value_word = _value_word(words, index)
            value, advance = (value_word.value if value_word is not None else None), 2
        _docker_option(layer, "-" + letter, value, value_word, word, bool(glued))
        index += advance
    if index < len(words):
        target = words[index]
        if layer.subcommand == "exec":
            layer.container = target.value
        else:
            layer.image = target
        index += 1
    if entrypoint is not None and entrypoint.value:
        # --entrypoint vllm IMAGE serve ... runs "vllm serve ..."
        words.insert(index, entrypoint)
    return index


def _docker_option(layer: Layer, name: str, value, value_word, option_word, inline: bool) -> None:
    if name in ("-e", "--env"):
        if value_word is None:
            return
        if value is None:  # -e "A=$X": the name is still readable from the raw word
            raw = value_word.raw.strip("'\"")
            key, has_value, _ = raw.partition("=")
            if has_value and key.replace("_", "a").isalnum():
                layer.env.append((key, Part(value_word, None)))
            return
        key, has_value, _ = value.partition("=")
        if has_value:
            layer.env.append((key, Part(value_word, len(key) + 1 + (len(value_word.value or "") - len(value) if inline else 0))))
        else:
            layer.passthrough.append((key, value_word))
    elif name == "--env-file" and value_word is not None:
        layer.env_files.append(Part(value_word, len(value_word.value or "") - len(value or "")))
    elif name == "--device" and value_word is not None:
        layer.devices.append(Part(value_word, len(value_word.value or "") - len(value or "")))
    elif name == "--name" and value is not None:
        layer.container = value


@record
class Part:
    """A value inside a word, ``skip`` characters after its start (``-eA=1`` -> ``1``);
    ``skip`` None: the value is not known (``-e "A=$X"``)."""

    word: Word
    skip: int | None
