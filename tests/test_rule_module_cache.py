"""Rule modules read from their bytecode cache (``qlint.rules.graph._cached_code``): only a cache importlib
itself would use is read, and a module run from it is the module a plain import gives."""

import os
import py_compile
import subprocess
import sys
import textwrap

from qlint.rules import graph


def _module(folder, text="VALUE = 41 + 1\n"):
    source = folder / "probe.py"
    source.write_text(text)
    py_compile.compile(str(source), cfile=str(folder / "__pycache__" / f"probe.{sys.implementation.cache_tag}.pyc"),
                       doraise=True, invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    return source


def _value(code):
    scope = {}
    exec(code, scope)
    return scope["VALUE"]


def test_a_current_timestamp_cache_is_read(tmp_path):
    _module(tmp_path)
    assert _value(graph._cached_code(str(tmp_path), "probe")) == 42


def test_a_cache_importlib_would_not_use_is_not_read(tmp_path):
    source = _module(tmp_path)
    cached = tmp_path / "__pycache__" / f"probe.{sys.implementation.cache_tag}.pyc"
    assert graph._cached_code(str(tmp_path), "absent") is None  # no source, no cache
    stat = source.stat()
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5 * 10**9))  # the source changed since
    assert graph._cached_code(str(tmp_path), "probe") is None
    source.write_text("VALUE = 41 + 2\n")  # the same size, another second
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns - 5 * 10**9))
    assert graph._cached_code(str(tmp_path), "probe") is None
    _module(tmp_path)
    data = cached.read_bytes()
    cached.write_bytes(data[:20])  # damaged
    assert graph._cached_code(str(tmp_path), "probe") is None
    cached.write_bytes(b"\0\0\0\0" + data[4:])  # another interpreter's magic
    assert graph._cached_code(str(tmp_path), "probe") is None
    py_compile.compile(str(source), cfile=str(cached), doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    assert graph._cached_code(str(tmp_path), "probe") is None  # hash-based: left to importlib


def test_a_rule_module_read_from_its_cache_is_the_imported_module(tmp_path):
    """(A copy of a rule module, compiled into its own cache: the tests run without writing bytecode.)"""
    import shutil

    shutil.copy(os.path.join(graph._RULES_DIR, "capture_grid.py"), tmp_path / "capture_grid.py")
    py_compile.compile(str(tmp_path / "capture_grid.py"), doraise=True,
                       cfile=str(tmp_path / "__pycache__" / f"capture_grid.{sys.implementation.cache_tag}.pyc"),
                       invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    probe = textwrap.dedent(f"""
        import sys
        from qlint.rules import graph
        graph._RULES_DIR = {str(tmp_path)!r}
        read = []
        real = graph._exec_module
        graph._exec_module = lambda *args: read.append(args[0]) or real(*args)
        graph._import("capture_grid")
        import qlint.rules, qlint.rules.capture_grid as module
        spec = module.__spec__
        print(read, spec.name, spec.origin == module.__file__, spec.cached == module.__cached__,
              type(module.__loader__).__name__, module.__package__, qlint.rules.capture_grid is module,
              graph.RULES["QL304"].check.__module__, module.__loader__.get_source(spec.name) is not None)
    """)
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert found.returncode == 0, found.stderr
    assert found.stdout.split() == ["['qlint.rules.capture_grid']", "qlint.rules.capture_grid", "True", "True",
                                    "SourceFileLoader", "qlint.rules", "True", "qlint.rules.capture_grid", "True"]


def test_a_failing_rule_module_leaves_nothing_behind(tmp_path, monkeypatch):
    code = compile("import sys\nraise RuntimeError('at import')\n", str(tmp_path / "broken.py"), "exec")
    try:
        graph._exec_module("qlint.rules.h2_broken_probe", "h2_broken_probe", code)
    except RuntimeError as error:
        assert str(error) == "at import"
    else:
        raise AssertionError("the module's error was swallowed")
    assert "qlint.rules.h2_broken_probe" not in sys.modules
