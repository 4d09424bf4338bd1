"""qlint's Version agrees with packaging.version on order, equality, text and errors."""

import packaging.version
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qlint.knowledge.versions import InvalidVersion, Version

PLAIN = st.from_regex(r"v?[0-9]{1,3}(\.[0-9]{1,3}){0,3}(rc[0-9]{1,2}|\.post[0-9]{1,2})?", fullmatch=True)
"""Releases as vllm-ascend and vLLM tag them, which Version reads without packaging."""
PEP440 = st.from_regex(r"v?([0-9]!)?[0-9]{1,2}(\.[0-9]{1,2}){0,3}((a|b|rc|c|alpha|pre)[0-9]?)?(\.?post[0-9]?)?"
                       r"(\.?dev[0-9]?)?(\+[a-z0-9]{1,3})?", fullmatch=True)
"""Everything else PEP 440 allows (read by packaging)."""
VERSIONS = st.one_of(PLAIN, PEP440, st.sampled_from(["0.23", "0.23.0", "V0.23.0-RC1", "0.23.0-post1", " 0.9.2 ", "9999"]))


@given(VERSIONS, VERSIONS)
def test_order_and_equality_are_packagings(a, b):
    ours, theirs = (Version(a), Version(b)), (packaging.version.Version(a), packaging.version.Version(b))
    assert (ours[0] < ours[1]) == (theirs[0] < theirs[1])
    assert (ours[0] <= ours[1]) == (theirs[0] <= theirs[1])
    assert (ours[0] > ours[1]) == (theirs[0] > theirs[1])
    assert (ours[0] >= ours[1]) == (theirs[0] >= theirs[1])
    assert (ours[0] == ours[1]) == (theirs[0] == theirs[1])
    if ours[0] == ours[1]:
        assert hash(ours[0]) == hash(ours[1])


@given(VERSIONS)
def test_text_is_packagings(text):
    ours, theirs = Version(text), packaging.version.Version(text)
    assert str(ours) == str(theirs)
    assert ours.base_version == theirs.base_version


@pytest.mark.parametrize("text", ["", "latest", "0.23.0-a3x", "v", "1..2", "٠.٢٣.٠", "0.23.0 rc1"])
def test_what_packaging_refuses_is_refused(text):
    with pytest.raises(packaging.version.InvalidVersion):
        packaging.version.Version(text)
    with pytest.raises(InvalidVersion):
        Version(text)


def test_a_plain_release_is_read_without_packaging():
    import subprocess
    import sys

    code = ("import sys; from qlint.knowledge.versions import Version; "
            "assert Version('v0.11.0rc3') < Version('0.11.0') < Version('0.11.0.post1') < Version('9999'); "
            "print('packaging' in sys.modules, Version('0.10.1.1').base_version)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "0.10.1.1"]
