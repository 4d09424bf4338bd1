"""Read a release's source files without installing or importing it.

Two kinds of source tree:

* :class:`SdistTree` - a vLLM source distribution (``vllm-X.Y.Z.tar.gz`` as
  ``pip download --no-deps --no-binary :all: vllm==X.Y.Z`` fetches it), read
  with :mod:`tarfile`; paths are relative to the archive's top folder.
* :class:`GitTree` - one tag (or commit) of a git mirror, read with
  ``git show`` / ``git ls-tree`` (no work tree needed).

Both give ``text(path)`` (None when absent), ``paths(prefix)`` and
``url(path, line)``: the public https URL of that line pinned to the release.
"""

from __future__ import annotations

import subprocess
import tarfile
from functools import cached_property


class SdistTree:
    """A vLLM sdist read in place. ``version`` is the PyPI version, e.g. ``0.25.1``."""

    repo_url = "https://github.com/vllm-project/vllm"

    def __init__(self, archive: str, version: str):
        self.archive = archive
        self.version = version
        self.ref = f"v{version}"
        self._texts: dict[str, str] = {}
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar.getmembers():
                if not member.isfile():
                    continue
                parts = member.name.split("/", 1)
                if len(parts) != 2:
                    continue
                path = parts[1]
                # only what the readers need: python sources under vllm/ and the Dockerfiles
                if path.startswith("vllm/") and path.endswith(".py"):
                    handle = tar.extractfile(member)
                    if handle is not None:
                        self._texts[path] = handle.read().decode("utf-8", "replace")

    def text(self, path: str) -> str | None:
        return self._texts.get(path)

    def paths(self, prefix: str = "") -> list[str]:
        return sorted(p for p in self._texts if p.startswith(prefix))

    def url(self, path: str, line: int | None = None) -> str:
        anchor = f"#L{line}" if line else ""
        return f"{self.repo_url}/blob/{self.ref}/{path}{anchor}"


class GitTree:
    """One revision of a git mirror (``git -C repo show REV:path``)."""

    repo_url = "https://github.com/vllm-project/vllm-ascend"

    def __init__(self, repo: str, rev: str, pin: str | None = None):
        self.repo = repo
        self.rev = rev
        # URLs pin to the tag, or to the 40-hex commit for a branch such as main
        self.ref = pin or rev
        self._cache: dict[str, str | None] = {}

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", self.repo, *args], check=True, capture_output=True,
                              text=True, errors="replace").stdout

    @cached_property
    def commit(self) -> str:
        return self._git("rev-parse", f"{self.rev}^{{commit}}").strip()

    @cached_property
    def _all_paths(self) -> list[str]:
        return self._git("ls-tree", "-r", "--name-only", self.rev).splitlines()

    def paths(self, prefix: str = "") -> list[str]:
        return [p for p in self._all_paths if p.startswith(prefix)]

    def text(self, path: str) -> str | None:
        if path not in self._cache:
            try:
                self._cache[path] = self._git("show", f"{self.rev}:{path}")
            except subprocess.CalledProcessError:
                self._cache[path] = None
        return self._cache[path]

    def url(self, path: str, line: int | None = None) -> str:
        anchor = f"#L{line}" if line else ""
        return f"{self.repo_url}/blob/{self.ref}/{path}{anchor}"
