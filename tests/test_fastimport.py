"""``qlint.fastimport``: a qlint module read straight from a current bytecode cache is the module the import
system would give (spec, file, cache, loader methods, contents); a missing, stale or hash-based cache, a
package, ``-O`` or another name is left to the import system."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from qlint import fastimport

PROBE = textwrap.dedent("""
    import json, sys, types
    from qlint import fastimport
    fastimport.install()
    package = types.ModuleType("qlint.probe")
    package.__path__ = [sys.argv[1]]
    sys.modules["qlint.probe"] = package
    import qlint.probe.leaf as leaf
    import qlint.probe.nested as nested
    import importlib.util
    print(json.dumps({
        "loader": type(leaf.__loader__).__module__ + "." + type(leaf.__loader__).__name__,
        "nested_loader": type(nested.__loader__).__name__,
        "value": leaf.VALUE, "doc": leaf.__doc__, "file": leaf.__file__, "cached": leaf.__cached__,
        "spec_cached": leaf.__spec__.cached, "origin": leaf.__spec__.origin, "name": leaf.__name__,
        "package": leaf.__package__, "expected_cache": importlib.util.cache_from_source(leaf.__file__),
        "source": leaf.__loader__.get_source("qlint.probe.leaf"),
    }))
""")


def _run(folder, env=None, flags=()):
    done = subprocess.run([sys.executable, *flags, "-c", PROBE, str(folder)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, check=True)
    import json

    return json.loads(done.stdout)


@pytest.fixture
def probe(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    folder = tmp_path / "probe"
    folder.mkdir()
    (folder / "leaf.py").write_text('"""A leaf."""\nVALUE = 1\n')
    (folder / "nested").mkdir()
    (folder / "nested" / "__init__.py").write_text("")
    return folder


def test_a_current_cache_is_read_directly_and_gives_the_same_module(probe):
    first = _run(probe)  # no cache yet: the import system reads the source and writes the cache
    assert first["loader"] == "_frozen_importlib_external.SourceFileLoader"
    second = _run(probe)
    assert second["loader"] == "qlint.fastimport.Loader" and second["nested_loader"] == "SourceFileLoader"
    same = ("value", "doc", "file", "cached", "spec_cached", "origin", "name", "package", "source")
    assert {key: second[key] for key in same} == {key: first[key] for key in same}
    assert second["cached"] == second["expected_cache"] and os.path.exists(second["cached"])


def test_a_stale_cache_is_left_to_the_import_system(probe):
    _run(probe)
    (probe / "leaf.py").write_text('"""A leaf."""\nVALUE = 22\n')  # another size: the cache is stale
    stale = _run(probe)
    assert stale["loader"].endswith("SourceFileLoader") and stale["value"] == 22
    assert _run(probe)["loader"] == "qlint.fastimport.Loader"  # the import system wrote it again


def test_optimised_runs_and_prefixed_caches(probe, tmp_path):
    _run(probe)
    assert _run(probe, flags=("-O",))["loader"].endswith("SourceFileLoader")  # .opt-1 caches: not ours
    prefix = {"PYTHONPYCACHEPREFIX": str(tmp_path / "prefix")}
    assert _run(probe, prefix)["loader"].endswith("SourceFileLoader")
    prefixed = _run(probe, prefix)
    assert prefixed["loader"] == "qlint.fastimport.Loader"
    assert prefixed["cached"] == prefixed["expected_cache"] and prefixed["cached"].startswith(str(tmp_path / "prefix"))


@pytest.mark.parametrize("folder", ["/abs/pkg", "rel/pkg", "/a b/c", "/trailing/", "/double//slash", "."])
@pytest.mark.parametrize("prefix", [None, "/tmp/pyc", "/tmp/pyc/", "rel-prefix"])
def test_the_cache_path_is_the_import_systems(folder, prefix, monkeypatch):
    import _frozen_importlib_external as external

    monkeypatch.setattr(sys, "pycache_prefix", prefix)
    source = external._path_join(folder, "mod.py")  # how the import system's finder names the source
    assert fastimport._join(folder, "mod.py") == source
    assert fastimport._cache(folder, "mod") == importlib.util.cache_from_source(source)


def test_other_names_and_packages_are_not_answered():
    assert fastimport.Finder.find_spec("json.decoder", ["/usr/lib"]) is None
    assert fastimport.Finder.find_spec("qlint", None) is None
    rules = os.path.dirname(importlib.util.find_spec("qlint.rules").origin)
    assert fastimport.Finder.find_spec("qlint.rules.kit", [rules]) is None  # a package
    assert fastimport.Finder.find_spec("qlint.rules.no_such_module", [rules]) is None
