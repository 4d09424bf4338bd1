"""qlint's own modules imported straight from their bytecode cache (the ``qlint`` command installs this).

A cold ``qlint FILE`` imports about sixty of qlint's modules. For each, the import system's path finder
looks the name up in the package's folder and its source loader checks and reads the cache, all of it
Python code (``importlib._bootstrap_external``): about 0.3 M instructions a module before the module's own
code runs, a sixth of the whole run. :class:`Finder`, first on ``sys.meta_path``, answers only for a
plain module of a ``qlint`` package (``qlint.rules.kit.read``: the file ``read.py`` in the folder of
``qlint.rules.kit``) whose bytecode cache is current by the checks the source loader makes (the cache
``importlib.util.cache_from_source`` names, ``sys.pycache_prefix`` included; a timestamp cache of this
interpreter's magic number whose recorded source time and size are the source file's), and hands the
code it read to a :class:`Loader`, the import system's own source loader but for that. Anything else --
a package, a missing or stale cache, a hash-based one, ``-O`` -- is left to the import system, which
reads the source and writes the cache as it always does. Modules are the same objects either way (spec,
``__file__``, ``__cached__``, loader methods), which ``tests/test_fastimport.py`` checks.
"""

from __future__ import annotations

import marshal
import os
import sys

import _frozen_importlib as _bootstrap  # the import system's own modules, loaded at start-up
import _frozen_importlib_external as _external

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Loader(_external.SourceFileLoader):
    """The source loader of one module, with the code the finder already read from the cache."""

    def __init__(self, name: str, path: str, code: Any) -> None:
        super().__init__(name, path)
        self._code = code

    def exec_module(self, module: Any) -> None:
        code, self._code = self._code, None
        if code is None:  # run a second time (importlib.reload): the import system's own way
            super().exec_module(module)
            return
        exec(code, module.__dict__)


class Finder:
    """A meta path finder for the plain modules of qlint's packages whose bytecode cache is current."""

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: Any = None) -> Any:
        if not name.startswith("qlint.") or not path or len(path) != 1 or sys.flags.optimize:
            return None
        folder = path[0]
        module = name.rpartition(".")[2]
        source = _join(folder, f"{module}.py")  # (POSIX paths: install() does nothing elsewhere)
        cached = _cache(folder, module)
        if cached is None or os.path.isdir(_join(folder, module)):  # a package comes first, as for the
            return None  # import system's own finder
        try:
            stat = os.stat(source)
            with open(cached, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        if (len(data) < 16 or data[:4] != _external.MAGIC_NUMBER or data[4:8] != b"\0\0\0\0"  # timestamp-based
                or int.from_bytes(data[8:12], "little") != int(stat.st_mtime) & 0xFFFFFFFF
                or int.from_bytes(data[12:16], "little") != stat.st_size & 0xFFFFFFFF):
            return None
        try:
            code = marshal.loads(memoryview(data)[16:])
        except (ValueError, EOFError, TypeError):
            return None
        spec = _bootstrap.ModuleSpec(name, Loader(name, source, code), origin=source)
        spec.has_location = True
        spec.cached = cached
        return spec

    @classmethod
    def invalidate_caches(cls) -> None:
        """Nothing is kept between imports."""


def _cache(folder: str, module: str) -> str | None:
    """Where the import system keeps ``folder/module.py``'s bytecode: ``importlib.util.cache_from_source``
    for a source loaded without optimisation, for POSIX paths, with string operations (``os.path.join`` is
    a third of the finder's time)."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    prefix = sys.pycache_prefix
    if prefix is None:
        return _join(folder, "__pycache__", f"{module}.{tag}.pyc")
    head = folder if folder.startswith("/") else _join(os.getcwd(), folder)
    return _join(prefix, head.lstrip("/"), f"{module}.{tag}.pyc")


def _join(*parts: str) -> str:
    """The import system's own path join (``_bootstrap_external._path_join`` on POSIX): the parts, each
    without trailing slashes, empty ones left out, joined by one slash."""
    return "/".join([part.rstrip("/") for part in parts if part])


def install() -> None:
    """Put :class:`Finder` first on ``sys.meta_path`` (once; POSIX paths only)."""
    if os.sep == "/" and Finder not in sys.meta_path:
        sys.meta_path.insert(0, Finder)
