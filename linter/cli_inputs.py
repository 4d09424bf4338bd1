"""What ``qlint check`` reads: the scripts under the path arguments, grouped into
deployments, and their bytes (``-`` is stdin).

One reading policy: only regular files are read (a FIFO, a device such as
``/dev/zero``, a socket or a symlink loop is refused with a message), every read
is bounded by ``source.MAX_BYTES`` (so ``qlint - < /dev/zero`` stops at once),
and a directory walk skips hidden and vendored folders, qlint's own temporary
files, and files that hold no launch: it reads ``*.sh``/``*.bash`` and files with a
real shell shebang, and by content Markdown guides with shell blocks and YAML
manifests, compose files and e2e configs that run the engine.
"""

from __future__ import annotations

import os
import stat
import sys

from qlint.linter.source import MAX_BYTES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path  # imported by walk(): a run over named files does not load it
    from typing import BinaryIO

SHELL_SUFFIXES = (".sh", ".bash")
SHELLS = frozenset({"sh", "bash", "dash", "ksh", "zsh", "ash", "busybox"})
"""Interpreters a ``#!`` line may name (directly or through ``env``) for a file to count as shell."""
VENDORED = frozenset({"node_modules", "site-packages", "__pycache__", "venv", "env", "build", "dist"})
"""Folder names a directory walk never enters (besides hidden ones such as .git and .venv)."""
TEMPORARY_SUFFIX = ".qlint"
"""``--fix`` writes ``.<name>.<random>.qlint`` next to the file; such files are never linted."""


class UnreadableInput(OSError):
    """A path qlint refuses to read; ``strerror`` says why in plain words."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.strerror = reason


_ZH_ERRNO = {
    "ENOENT": "没有这个文件或目录", "EACCES": "权限不足", "EPERM": "不允许的操作", "EISDIR": "是一个目录",
    "ENOTDIR": "路径中有一部分不是目录", "ELOOP": "符号链接层数过多", "ENAMETOOLONG": "文件名过长",
    "EROFS": "文件系统为只读", "ENOSPC": "设备上没有剩余空间", "EBUSY": "设备或资源忙", "EIO": "输入/输出错误",
    "EMFILE": "打开的文件过多", "ENXIO": "没有这个设备或地址", "EFBIG": "文件过大", "EDQUOT": "超出磁盘配额",
}
_ZH_REASONS = {
    "symlink loop": "符号链接循环",
    "symlink loop (too many levels of symbolic links)": "符号链接循环（符号链接层数过多）",
    "is a directory that could not be listed": "是一个无法列出内容的目录",
    "not a regular file; qlint reads regular files only": "不是普通文件；qlint 只读取普通文件",
}


def reason(error: OSError, zh: bool = False) -> str:
    """Why ``error`` happened, in plain words: the system's message (``strerror``), or its Chinese wording
    with ``zh`` for the common error numbers and qlint's own refusals (else the system's message)."""
    text = error.strerror or str(error)
    if not zh:
        return text
    if isinstance(error, UnreadableInput):
        return _ZH_REASONS.get(text, text)
    import errno

    name = errno.errorcode.get(error.errno) if error.errno is not None else None
    return _ZH_ERRNO.get(name or "", text)


def gather(paths: tuple[str, ...]) -> tuple[list[str], list[list[str]]]:
    """(files named one by one, the launch files of each directory argument).

    A directory argument is one deployment with all its subfolders; named files are
    grouped later by what they reference (``qlint.linter.grouping``). An unreadable
    folder is returned as a named path, so that reading it reports the error. A file reached twice (named
    twice, named and under a directory argument, under two of them, or by two names of one file) is read once,
    where it is first reached, as ruff does."""
    named: list[str] = []
    directories: list[list[str]] = []
    seen: set[str] = set()

    def first(path: str) -> bool:
        key = real_path(path)
        if key in seen:
            return False
        seen.add(key)
        return True

    for raw in paths:
        if raw != "-" and os.path.isdir(raw):
            from pathlib import Path

            found = [str(child) for child in walk(Path(raw), unreadable=named)]
            found = [path for path in found if first(path)]
            if found:
                directories.append(found)
        elif raw == "-" or first(raw):
            named.append(raw)
    return named, directories


_FOLDERS: dict[object, str] = {}
"""``os.path.realpath`` of the folders ``real_path`` has seen (by the folder as written: a relative one with
the current folder)."""


def real_path(path: str) -> str:
    """``os.path.realpath(path)``, the folder resolved once for all the files of a batch in it: a file that is
    not a symlink is its folder's real path joined with its name (one ``lstat``, not one per component and
    the joins between them: about half of what a 600-file batch did before it forks its workers)."""
    folder, name = os.path.split(path)
    if not name or name in (".", ".."):
        return os.path.realpath(path)
    key: object = folder if os.path.isabs(folder) else (os.getcwd(), folder)
    real = _FOLDERS.get(key)
    if real is None:
        if len(_FOLDERS) >= 4096:
            _FOLDERS.clear()
        real = _FOLDERS[key] = os.path.realpath(folder)
    joined = os.path.join(real, name)
    return os.path.realpath(path) if os.path.islink(joined) else joined


def deployments(paths: tuple[str, ...]) -> list[list[str]]:
    """The files of each directory argument (one group each), then each named file alone."""
    named, directories = gather(paths)
    return directories + [[path] for path in named]


def walk(root: Path, unreadable: list[str]) -> list[Path]:
    """The shell scripts under ``root``, sorted; folders that cannot be listed go to ``unreadable``."""
    from pathlib import Path

    found: list[Path] = []

    def failed(error: OSError) -> None:
        unreadable.append(error.filename or str(root))

    for folder, subfolders, files in os.walk(root, onerror=failed):
        subfolders[:] = sorted(name for name in subfolders if not _skipped_folder(name))
        for name in sorted(files):
            if name.startswith(".") and name.endswith(TEMPORARY_SUFFIX):
                continue
            child = Path(folder) / name
            try:
                if not stat.S_ISREG(child.stat().st_mode):
                    continue
            except (OSError, RuntimeError):
                continue
            if is_launch_file(child):
                found.append(child)
    return sorted(found)


ENGINE_MARKERS = (b"vllm serve", b"vllm.entrypoints", b"vllm-ascend")
"""Text that marks a Markdown or YAML file as holding a launch (read by content in a folder)."""


def is_launch_file(path: Path) -> bool:
    """Whether a directory walk reads ``path``: a shell script (``*.sh``, ``*.bash``, a shell
    shebang), a Markdown file with a shell block running the engine, or a Kubernetes manifest,
    compose file or vllm-ascend e2e config that runs it."""
    suffix = path.suffix.lower()
    if suffix in SHELL_SUFFIXES or has_shell_shebang(path):
        return True
    if suffix not in (".md", ".markdown", ".yaml", ".yml"):
        return False
    try:
        with path.open("rb") as handle:
            data = read_bounded(handle)
    except OSError:
        return False
    if len(data) > MAX_BYTES or not any(marker in data for marker in ENGINE_MARKERS):
        return False
    if suffix in (".md", ".markdown"):
        return b"```" in data or b"~~~" in data
    from qlint.linter.documents import looks_like_launch_yaml

    return looks_like_launch_yaml(data)


def _skipped_folder(name: str) -> bool:
    return name.startswith(".") or name in VENDORED or name.endswith(".egg-info")


def has_shell_shebang(path: Path) -> bool:
    """True when the file's first line is a ``#!`` naming a shell: ``#!/bin/bash``,
    ``#!/usr/bin/env bash``, ``#!/usr/bin/env -S bash -e``, ``#! /bin/sh -eu``."""
    try:
        with path.open("rb") as handle:
            head = handle.read(256)
    except OSError:
        return False
    return is_shell_shebang(head.split(b"\n", 1)[0])


def is_shell_shebang(line: bytes) -> bool:
    """The shebang test on one first line (bytes, without the newline)."""
    if not line.startswith(b"#!"):
        return False
    words = line[2:].decode("utf-8", "replace").split()
    if not words:
        return False
    interpreter, rest = os.path.basename(words[0]), words[1:]
    if interpreter == "env":
        rest = [word for word in rest if not word.startswith("-") and "=" not in word]
        if not rest:
            return False
        interpreter = os.path.basename(rest[0])
    return interpreter in SHELLS


def read(path: str) -> bytes:
    """The bytes of ``path`` (``-``: stdin), at most ``MAX_BYTES + 1`` of them (the caller
    refuses a longer input). Raises OSError; ``UnreadableInput`` for what qlint never reads."""
    if path == "-":
        return sys.stdin.buffer.read(MAX_BYTES + 1)
    try:
        info = os.stat(path)
    except RuntimeError:  # pragma: no cover - os.stat reports loops as OSError(ELOOP)
        raise UnreadableInput("symlink loop") from None
    except OSError as error:
        if error.errno == 40:  # ELOOP
            raise UnreadableInput("symlink loop (too many levels of symbolic links)") from None
        raise
    if stat.S_ISDIR(info.st_mode):
        raise UnreadableInput("is a directory that could not be listed")
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(info.st_mode)
                else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        raise UnreadableInput(f"{kind}; qlint reads regular files only")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the stat cannot block
    descriptor = os.open(path, flags)
    with os.fdopen(descriptor, "rb") as handle:
        opened = os.fstat(handle.fileno())
        if not stat.S_ISREG(opened.st_mode):
            raise UnreadableInput("not a regular file; qlint reads regular files only")
        return read_bounded(handle, opened.st_size)


def read_bounded(handle: BinaryIO, size: int | None = None) -> bytes:
    """The rest of an open regular file, at most ``MAX_BYTES + 1`` bytes: asked for its size plus one (then
    for more, should it have grown since), not for ``MAX_BYTES + 1`` at once, which has Python allocate a
    5 MiB buffer per file and shrink it (~0.03 ms a file in a batch, six times the reading). ``size``: the
    file's size when the caller has it (else it is asked); the handle is at the file's start."""
    if size is None:
        size = os.fstat(handle.fileno()).st_size
    want = min(size, MAX_BYTES) + 1
    data = handle.read(want)
    if len(data) == want and want <= MAX_BYTES:  # it grew: read on up to the bound
        data += handle.read(MAX_BYTES + 1 - want)
    return data
