"""QL802's reading of client URLs: ``server_ready.urlsplit`` is ``urllib.parse.urlsplit`` as far as
``hostname`` and ``port`` go (it reads plain URLs itself so that start-up does not import urllib.parse)."""

import re
from urllib.parse import urlsplit as reference

from hypothesis import given, settings, strategies as st

from qlint.rules.server_ready import _PLAIN_URL, plain_url, urlsplit

PIECES = st.sampled_from(["http", "HTTP", "https", "h+x.y-z", "9x", "", "://", ":", "/", "?", "#", "@", "[", "]",
                          "::1", "localhost", "LocalHost", "127.0.0.1", "0.0.0.0", "a_b", "%41", " ", "\t", "\n",
                          "8000", "08000", "65535", "65536", "000080", "-1", "+80", "v1/completions", "é", "${PORT}"])


def _read(split, url):
    try:
        parts = split(url)
    except ValueError:
        return "split error"
    try:
        return parts.hostname, parts.port
    except ValueError:
        return parts.hostname, "port error"


@given(st.lists(PIECES, max_size=8).map("".join))
def test_host_and_port_are_urllib_s(url):
    assert _read(urlsplit, url) == _read(reference, url)


def test_plain_urls():
    assert _read(urlsplit, "http://127.0.0.1:8000/v1/completions") == ("127.0.0.1", 8000)
    assert _read(urlsplit, "http://LOCALHOST/health") == ("localhost", None)
    assert _read(urlsplit, "http://[::1]:8000/health") == ("::1", 8000)  # (urllib.parse reads it)
    assert _read(urlsplit, "http://host:99999/") == ("host", "port error")


@settings(max_examples=1500, deadline=None)
@given(st.lists(PIECES | st.sampled_from(["1", "123456", "a", "Z", "+", ".", "-", ":8", ":/", "٣"]), max_size=8).map("".join))
def test_plain_urls_are_told_as_the_pattern_tells_them(url):
    match = re.match(_PLAIN_URL, url)
    assert plain_url(url) == (match.groups() if match is not None else None)
