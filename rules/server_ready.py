"""QL802: a client runs right after the server was started in the background, with nothing
that waits for the server to answer.

Sources: vLLM's API server loads the model (build_async_engine_client) before it serves HTTP
and answers ``GET /health`` with 200 once the engine runs (vllm@v0.23.0
vllm/entrypoints/openai/api_server.py L652-L690, vllm/entrypoints/serve/instrumentator/health.py
L22-L33).
"""

from __future__ import annotations

from qlint.knowledge.text import Text
from qlint.rules.base import Example, Finding, Fix, RuleMeta
from qlint.rules.graph import Scope, check
from qlint.rules.plan import ClientCommand, Command, ServeCommand

SERVE = "vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --served-model-name qwen3.6 --port 8000 &\n"
REQUEST = "curl http://localhost:8000/v1/completions -d '{\"model\": \"qwen3.6\", \"prompt\": \"hi\"}'\n"
WAIT = "until curl -sf http://localhost:8000/health; do sleep 5; done\n"

NOT_READY = RuleMeta(
    id="QL802",
    name="client-before-server-ready",
    groups=("clients",),
    severity="warning",
    scope="script",
    title=Text(en="A client runs before the background server can answer",
               zh="后台启动的服务尚未就绪，客户端就已发出请求"),
    why=Text(
        en="`vllm serve ... &` returns at once, but the server loads the weights, compiles and captures graphs "
        "before it serves HTTP: minutes for a large model. A curl, lm_eval or vllm bench serve that runs next, with "
        "no sleep, wait or polling loop between, reaches a port that is not open yet and fails (curl: connection "
        "refused, exit 7) while the script goes on as if the request had been sent. Poll GET /health, which "
        "answers 200 once the engine runs, before the first request. A client inside a while/until loop, or a "
        "curl with --retry-connrefused / --retry-all-errors, is itself such a poll. The same holds for "
        "`docker run -d`.",
        zh="`vllm serve ... &` 会立即返回，但服务端要先加载权重、编译并捕获图，之后才开始提供 HTTP 服务，大模型需要"
        "数分钟。紧随其后、中间没有 sleep、wait 或轮询循环的 curl、lm_eval 或 vllm bench serve 会连到尚未打开的端口"
        "而失败（curl：connection refused，退出码 7），脚本却照常往下执行，仿佛请求已经发出。请在第一个请求之前轮询 "
        "GET /health（引擎运行后返回 200）。位于 while/until 循环中的客户端，或带 --retry-connrefused / "
        "--retry-all-errors 的 curl，本身就是这样的轮询。`docker run -d` 同理。",
    ),
    sources=(
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/entrypoints/openai/api_server.py#L652-L690",
        "https://github.com/vllm-project/vllm/blob/v0.23.0/vllm/entrypoints/serve/instrumentator/health.py#L22-L33",
    ),
    examples=(
        Example(bad=SERVE + REQUEST, good=SERVE + WAIT + REQUEST),
        Example(bad=SERVE + "vllm bench serve --model Eco-Tech/Qwen3.6-27B-w8a8 --served-model-name qwen3.6 "
                "--num-prompts 100\n",
                good=SERVE + "sleep 600\nvllm bench serve --model Eco-Tech/Qwen3.6-27B-w8a8 --served-model-name "
                "qwen3.6 --num-prompts 100\n", version="v0.18.0"),
    ),
)

_LOCAL = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]"})
_WAITS = frozenset({"sleep", "wait"})
_CURL_POLLS = frozenset({"--retry-connrefused", "--retry-all-errors"})
TOOL = {"curl": "curl", "lm_eval": "lm_eval", "vllm-bench": "vllm bench serve"}


def _program(command: Command) -> str | None:
    text = command.argv[0].text if command.argv else None
    return text.rsplit("/", 1)[-1] if text else None


def _port(serve: ServeCommand) -> int:
    option = serve.opt("--port")
    number = option.value.as_int() if option is not None and option.value is not None else None
    return number if number is not None else 8000  # FrontendArgs.port


_PLAIN_URL = r"[A-Za-z][A-Za-z0-9+.\-]*://([A-Za-z0-9.\-]*)(?::([0-9]{1,5}))?(?=[/?#]|\Z)"
"""A URL whose host and port ``urlsplit`` reads the obvious way (no user, brackets, escapes or spaces):
what ``re.match`` of this pattern accepts, told by :func:`plain_url` with string operations (compiling
it cost a run with a client ~1.2 M instructions; a test checks they agree)."""
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"
_HOST_CHARS = _LETTERS + _DIGITS + ".-"


def plain_url(url: str) -> tuple[str, str | None] | None:
    """``re.match(_PLAIN_URL, url).groups()``: (host, port digits or None), or None when it does not match."""
    scheme, sep, rest = url.partition("://")
    if not sep or not scheme or scheme[0] not in _LETTERS or scheme[1:].strip(_LETTERS + _DIGITS + "+.-"):
        return None
    host = rest[:len(rest) - len(rest.lstrip(_HOST_CHARS))]
    after = rest[len(host):]
    if after.startswith(":"):
        digits = after[1:len(after) - len(after[1:].lstrip(_DIGITS))]
        if 1 <= len(digits) <= 5 and after[1 + len(digits):2 + len(digits)] in ("", "/", "?", "#"):
            return host, digits
    return (host, None) if after[:1] in ("", "/", "?", "#") else None


class _Parts:
    __slots__ = ("hostname", "port")

    def __init__(self, hostname: str | None, port: int | None) -> None:
        self.hostname, self.port = hostname, port


def urlsplit(url: str):
    """``urllib.parse.urlsplit(url)`` as far as ``.hostname`` and ``.port`` go. A plain URL
    (``http://127.0.0.1:8000/v1``) is read here: urllib.parse, with the ipaddress module it imports,
    costs about 2.5 ms at start-up; anything else goes to urllib.parse (same values, same errors)."""
    match = plain_url(url)
    if match is not None:
        host, port = match
        if port is None or int(port) <= 65535:
            return _Parts(host.lower() or None, int(port) if port is not None else None)
    from urllib.parse import urlsplit as split

    return split(url)


def _endpoints(client: ClientCommand) -> list[tuple[str | None, int | None]] | None:
    """(host, port) of every URL the client names; None when a URL is not known statically."""
    if client.tool == "vllm-bench":
        found = []
        words = [value.text for value in client.argv]
        for index, text in enumerate(words):
            if text is not None and text.startswith("--base-url"):
                url = text.partition("=")[2] or (words[index + 1] if index + 1 < len(words) else None)
                if url is None:
                    return None
                parts = urlsplit(url)
                found.append((parts.hostname, parts.port))
        return found or [("localhost", None)]  # vllm bench serve: --host localhost --port 8000
    found = []
    for value in client.argv[1:]:
        text = value.text
        if text is None:
            if any(mark in (value.raw or "") for mark in ("://", "localhost", "base_url")):
                return None
            continue
        for piece in text.replace(",", " ").split():
            piece = piece.partition("base_url=")[2] or piece
            if "://" in piece:
                parts = urlsplit(piece)
                try:
                    found.append((parts.hostname, parts.port))
                except ValueError:
                    return None
            elif piece.startswith(("localhost:", "127.0.0.1:")):
                host, _, rest = piece.partition(":")
                digits = rest.split("/", 1)[0]
                found.append((host, int(digits) if digits.isdigit() else None))
    return found


def _reaches(client: ClientCommand, serve: ServeCommand) -> bool:
    endpoints = _endpoints(client)
    if not endpoints:
        return False
    host_option = serve.opt("--host")
    hosts = set(_LOCAL)
    if host_option is not None and host_option.value is not None and host_option.value.text:
        hosts.add(host_option.value.text)
    port = _port(serve)
    return any((host is not None and host in hosts and (number is None or number == port))
               or (number is not None and number == port and host is None) for host, number in endpoints)


def _polls(command: Command) -> bool:
    if command.in_loop:
        return True
    if _program(command) in _WAITS:
        return True
    return isinstance(command, ClientCommand) and command.tool == "curl" and any(
        (value.text or "").partition("=")[0] in _CURL_POLLS for value in command.argv)


@check(NOT_READY, when=("command:client",))
def client_before_ready(scope: Scope):
    plan = scope.plan
    if plan.kind != "shell":
        return  # a guide's blocks are run one by one by a reader, who waits between them
    started: ServeCommand | None = None
    for command in plan.commands:
        if isinstance(command, ServeCommand):
            started = command if command.background else None
            continue
        if started is None:
            continue
        if _polls(command):
            started = None
            continue
        if not isinstance(command, ClientCommand) or command.tool not in TOOL or not _reaches(command, started):
            continue
        port = _port(started)
        tool = TOOL[command.tool]
        line = started.span.line
        yield Finding(
            NOT_READY,
            Text(
                en=f"{tool} runs right after vllm serve was started in the background (line {line}) and nothing "
                f"waits for the server: it answers only once the model is loaded, so this request fails "
                f"(connection refused) and the script goes on",
                zh=f"{tool} 紧跟在后台启动的 vllm serve（第 {line} 行）之后运行，中间没有等待服务就绪：服务端在模型"
                f"加载完成后才会响应，因此该请求会失败（connection refused），而脚本会继续往下执行",
            ),
            command.argv[0].span,
            Fix(Text(
                en=f"wait for the server first: until curl -sf http://localhost:{port}/health; do sleep 5; done",
                zh=f"先等待服务就绪：until curl -sf http://localhost:{port}/health; do sleep 5; done",
            )),
        )
        started = None  # one finding per start: the first request that cannot be answered
