"""Versions, ordered as ``packaging.version`` orders them, without importing packaging for a release.

vllm-ascend and vLLM releases are plain: ``0.23.0``, ``v0.10.1.1``, ``v0.11.0rc3``, ``0.9.2.post1``.
:class:`Version` reads those itself (importing packaging costs every ``qlint`` start a few
milliseconds, most of it compiling its PEP 440 pattern) and compares them by the key packaging
would give them; any other text goes to ``packaging.version``, the authority on PEP 440 (``1.0a1``,
``2.0.dev3``, ``1!2.0``, ``1.0+local``), imported then. A test checks the two agree.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import packaging.version

_PLAIN = r"v?([0-9]+(?:\.[0-9]+)*)(?:rc([0-9]+)|\.post([0-9]+))?"
"""A plain release (matched whole): release numbers, then one ``rcN`` or one ``.postN``. Read by
:func:`plain` with string operations (a test checks they agree): no pattern is compiled at start-up."""


def _digits(text: str) -> bool:
    return text.isdigit() and text.isascii()  # [0-9]+


def plain(text: str) -> tuple[str, str | None, str | None] | None:
    """The groups of ``re.fullmatch(_PLAIN, text)`` (release numbers, rc number, post number), or None."""
    body = text[1:] if text.startswith("v") else text
    release, marker, rc = body.partition("rc")  # the release numbers hold no "rc", nor ".post"
    if marker:
        found: tuple[str, str | None, str | None] = (release, rc, None)
    else:
        release, marker, post = body.partition(".post")
        found = (release, None, post if marker else None)
    if marker and not _digits(rc if found[1] is not None else post):
        return None
    return found if all(_digits(number) for number in release.split(".")) else None


class InvalidVersion(ValueError):
    """Not a version packaging can read (``packaging.version.InvalidVersion``, as qlint raises it)."""


class Version:
    """A version, compared and hashed as ``packaging.version.Version`` compares and hashes it.

    ``str()`` is packaging's normalised form (``v0.23.0`` -> ``0.23.0``), ``base_version`` the
    release numbers alone (``0.23.0rc1`` -> ``0.23.0``). Raises :class:`InvalidVersion`.
    """

    __slots__ = ("_release", "_key", "_exact")

    def __init__(self, text: str) -> None:
        exact = None
        match = plain(text)
        if match is None:
            exact = _read(text)
            match = plain(str(exact))  # normalised: ``V0.23.0-RC1`` is the plain 0.23.0rc1
        if match is None:
            self._release: tuple[int, ...] = ()
            self._key: tuple | None = None
            self._exact = exact
            return
        numbers, rc, post = match
        release = tuple(int(part) for part in numbers.split("."))
        significant = len(release)
        while significant > 1 and release[significant - 1] == 0:
            significant -= 1  # 0.23 == 0.23.0, as for packaging
        # packaging's key for these: a release candidate below the release, the release below its post
        # releases (no epoch, development or local part)
        self._release = release
        self._key = (release[:significant], (0, int(rc)) if rc is not None else (1, 0),
                     int(post) if post is not None else -1)
        self._exact = None

    @property
    def base_version(self) -> str:
        """The release numbers (``0.23.0rc1`` -> ``0.23.0``), as packaging's ``base_version``."""
        if self._exact is not None:
            return self._exact.base_version
        return ".".join(str(part) for part in self._release)

    def __str__(self) -> str:
        if self._exact is not None:
            return str(self._exact)
        assert self._key is not None
        _, (final, rc), post = self._key
        return self.base_version + ("" if final else f"rc{rc}") + ("" if post < 0 else f".post{post}")

    def __repr__(self) -> str:
        return f"<Version({str(self)!r})>"

    def _packaging(self) -> packaging.version.Version:
        return self._exact if self._exact is not None else _read(str(self))

    def __hash__(self) -> int:
        return hash(self._key) if self._exact is None else hash(self._exact)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        if self._key is not None and other._key is not None:
            return self._key == other._key
        return self._packaging() == other._packaging()

    def __lt__(self, other: Version) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        if self._key is not None and other._key is not None:
            return self._key < other._key
        return self._packaging() < other._packaging()

    def __le__(self, other: Version) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        if self._key is not None and other._key is not None:
            return self._key <= other._key
        return self._packaging() <= other._packaging()

    def __gt__(self, other: Version) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        if self._key is not None and other._key is not None:
            return self._key > other._key
        return self._packaging() > other._packaging()

    def __ge__(self, other: Version) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        if self._key is not None and other._key is not None:
            return self._key >= other._key
        return self._packaging() >= other._packaging()


def _read(text: str) -> packaging.version.Version:
    """``text`` read by packaging; its InvalidVersion becomes qlint's."""
    from packaging.version import InvalidVersion as Invalid, Version as Exact

    try:
        return Exact(text)
    except Invalid as error:
        raise InvalidVersion(str(error)) from None
