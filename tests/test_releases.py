"""Releases: every tag from v0.9.0rc1 on and main, image-style tags, and releases qlint does not
know (said once per run, checked as the nearest known one)."""

import re
import subprocess

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from qlint.knowledge.base import MAIN, release_tag
from qlint.knowledge.versions import InvalidVersion
from qlint.linter.cli import main

MIRROR = "/work/.mirror/vllm-project+vllm-ascend/repo"
SCRIPT = "vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2\n"


def test_every_tag_from_v0_9_0rc1_and_main_is_known(kb):
    tags = [r.tag for r in kb.tagged_releases]
    assert tags[0] == "v0.9.0rc1" and tags[-1] == "v0.25.1rc1" and len(tags) == 34
    main_release = kb.release(MAIN)
    assert main_release.commit == "182b75ea84ff13ece27b57391331ef8935410aea" and main_release.vllm == "v0.27.1"
    assert kb.release("v0.14.0rc1").vllm == "v0.14.1" and kb.release("v0.10.1rc1").vllm == "v0.10.1.1"
    assert kb.latest_stable.tag == "v0.23.0"
    for release in kb.releases:
        assert re.fullmatch(r"[0-9a-f]{40}", release.commit) and re.fullmatch(r"\d{4}-\d\d-\d\d", release.date)
        assert any(f"/blob/{release.commit if release.tag == MAIN else release.tag}/Dockerfile#L" in source
                   for source in release.sources)


@pytest.mark.skipif(subprocess.run(["git", "-C", MIRROR, "rev-parse"], capture_output=True).returncode != 0,
                    reason="the vllm-ascend mirror is not on this machine")
def test_pairing_dates_and_commits_match_the_tags(kb):
    for release in kb.releases:
        ref = release.commit if release.tag == MAIN else release.tag
        dockerfile = subprocess.run(["git", "-C", MIRROR, "show", f"{ref}:Dockerfile"], capture_output=True,
                                    text=True, check=True).stdout
        assert f"ARG VLLM_TAG={release.vllm}" in dockerfile, release.tag
        commit, date = subprocess.run(["git", "-C", MIRROR, "log", "-1", "--format=%H %cs", ref],
                                      capture_output=True, text=True, check=True).stdout.split()
        assert (commit, date) == (release.commit, release.date), release.tag


@pytest.mark.parametrize("text,tag", [
    ("v0.23.0", "v0.23.0"), ("0.23.0", "v0.23.0"), ("v0.23.0-a3", "v0.23.0"), ("v0.23.0rc1-310p", "v0.23.0rc1"),
    ("v0.23.0rc1-a3-openeuler", "v0.23.0rc1"), ("V0.23.0-A3", "v0.23.0"), ("main", MAIN), (" v0.25.1rc1 ", "v0.25.1rc1"),
    ("v0.10.1.1", "v0.10.1.1"), ("v0.7.3.post1", "v0.7.3.post1"),
])
def test_image_style_tags_parse(text, tag):
    assert release_tag(text) == tag


@pytest.mark.parametrize("text", ["", "latest", "v0.23.0-a4", "0.23.0-a3x", "v0.23", "v0.23.0 rc1", "1.2.3.4.5", "v"])
def test_what_is_not_a_tag_is_refused(text):
    with pytest.raises(InvalidVersion):
        release_tag(text)


@given(st.text(max_size=40))
def test_release_tag_never_raises_anything_else(text):
    try:
        assert release_tag(text).startswith("v") or release_tag(text) == MAIN
    except InvalidVersion:
        pass


@given(st.one_of(st.text(alphabet="vV0123456789.rcRCpostPOST-a3\u0663", max_size=16),
                 st.from_regex(r"[vV]?[0-9]{1,3}(\.[0-9]{1,2}){1,4}([rR][cC][0-9]{0,2}|\.[pP]ost[0-9]{0,2})?", fullmatch=True)))
def test_plain_tags_read_without_the_pattern_as_the_pattern_reads_them(text):
    from qlint.knowledge.base import _RELEASE_TEXT, _plain_tag

    stripped = text.strip()
    match = re.match(_RELEASE_TEXT, stripped, re.IGNORECASE)
    expected = "v" + match.group("number").lower() if match is not None and not match.group("suffix") else None
    found = _plain_tag(stripped)
    assert found is None or found == expected
    if stripped.isascii() and expected is not None:
        assert found == expected  # every ASCII tag without a suffix is read without the pattern


@given(st.from_regex(r"v?[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{1,2}(rc[0-9])?(-a3|-310p)?", fullmatch=True))
def test_any_release_resolves_to_a_known_one(kb, text):
    tag, note = kb.resolve_release(text)
    assert tag in kb.release_index
    assert (note is None) == (release_tag(text) in kb.release_index)
    if note is not None:
        assert text in note.en and text in note.zh and tag in note.en and tag in note.zh


@pytest.mark.parametrize("text,checked,words", [
    ("v0.26.0", "v0.25.1rc1", "is newer than the newest release qlint knows, v0.25.1rc1; checking as v0.25.1rc1"),
    ("v9.9.9", "v0.25.1rc1", "is newer than the newest release qlint knows"),
    ("v0.8.5rc1", "v0.9.0rc1", "is older than the oldest release qlint knows, v0.9.0rc1; checking as v0.9.0rc1"),
    ("v0.12.5", "v0.12.0rc1", "checking as the nearest older known release, v0.12.0rc1"),
    ("v0.23.0.post1", "v0.23.0", "nearest older known release, v0.23.0"),
])
def test_unknown_releases_are_checked_as_the_nearest_known_one(kb, text, checked, words):
    tag, note = kb.resolve_release(text)
    assert tag == checked and words in note.en and checked in note.zh


def _run(args, **kwargs):
    return CliRunner().invoke(main, args, **kwargs)


def test_the_note_is_said_once_per_run_in_both_languages(tmp_path):
    for name in ("a.sh", "b.sh"):
        (tmp_path / name).write_text("# qlint: hardware=a2 vllm-ascend=v0.26.0\n" + SCRIPT)
    result = _run([str(tmp_path / "a.sh"), str(tmp_path / "b.sh")])
    note = "v0.26.0 is newer than the newest release qlint knows, v0.25.1rc1; checking as v0.25.1rc1"
    assert result.exit_code in (0, 1) and result.stderr.count(note) == 1
    zh = _run(["--lang", "zh", str(tmp_path / "a.sh"), str(tmp_path / "b.sh")])
    assert zh.stderr.count("v0.26.0 比 qlint 已知的最新版本 v0.25.1rc1 更新；按 v0.25.1rc1 检查") == 1
    json_run = _run(["--format", "json", str(tmp_path / "a.sh")])
    assert note in json_run.stderr and note not in json_run.stdout  # JSON on stdout stays parseable
    assert _run(["-q", str(tmp_path / "a.sh")]).stderr.count(note) == 0


def test_image_tags_state_the_release(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("export IMAGE=quay.io/ascend/vllm-ascend:v0.8.5rc1-a3\n" + SCRIPT)
    result = _run([str(script)])
    assert "v0.8.5rc1 is older than the oldest release qlint knows, v0.9.0rc1; checking as v0.9.0rc1" in result.stderr
    known = tmp_path / "known.sh"
    known.write_text("export IMAGE=quay.io/ascend/vllm-ascend:v0.23.0rc1-310p\n" + SCRIPT)
    assert "qlint knows" not in _run([str(known)]).stderr


@pytest.mark.parametrize("given_as", ["v0.23.0-a3", "0.23.0", "v0.23.0rc1-310p"])
def test_the_option_and_the_directive_take_image_style_tags(tmp_path, given_as):
    script = tmp_path / "run.sh"
    script.write_text(SCRIPT)
    assert _run(["--vllm-ascend-version", given_as, str(script)]).exit_code in (0, 1)
    script.write_text(f"# qlint: vllm-ascend={given_as}\n" + SCRIPT)
    result = _run([str(script)])
    assert result.exit_code in (0, 1) and "qlint knows" not in result.stderr


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=24))
def test_any_release_option_ends_cleanly(text):
    result = CliRunner().invoke(main, ["--vllm-ascend-version", text, "-"], input=SCRIPT)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code in (0, 1, 2)
    assert "Traceback" not in result.output + result.stderr


def test_rule_pages_show_the_releases_in_both_languages(kb):
    from qlint.docgen.pages import render_rule
    from qlint.linter.catalog import find_rule

    meta = find_rule("QL208")
    en, zh = render_rule(meta, kb, "en", "myst"), render_rule(meta, kb, "zh_CN", "myst")
    assert "## Releases" in en and "applies to vllm-ascend v0.21.0rc1 and later" in en and "vLLM 0.21.0 and later" in en
    assert "## 适用版本" in zh and "v0.21.0rc1 及以后" in zh
    assert "https://github.com/vllm-project/vllm/blob/v0.21.0/vllm/engine/arg_utils.py#L1796-L1805" in en
    every = render_rule(find_rule("QL511"), kb, "en", "myst")
    assert "applies to every release qlint knows" in every and "The sources disagree" in every
