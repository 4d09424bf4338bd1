"""The compiled knowledge (shipped file and user cache): JSON that cannot run code, used only when it
matches the data files, never read from a file another user could have planted."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qlint.knowledge import base, compiled


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("QLINT_CACHE_DIR", str(directory))
    monkeypatch.setattr(base, "SHIPPED", "no-such-compiled.json")  # the user cache is what is tested
    base.load.cache_clear()
    yield directory
    base.load.cache_clear()


def _canonical(kb: base.KnowledgeBase) -> bytes:
    fields = {name: getattr(kb, name) for name, _, _, _ in base.DATA_FILES}
    return compiled.dumps("x", fields, base.Record)


def test_the_cache_holds_exactly_what_validation_gives(cache_dir):
    first = base.load()
    [written] = list(cache_dir.glob("knowledge-*.json"))
    assert written.stat().st_mode & 0o077 == 0  # private to this user
    base.load.cache_clear()
    second = base.load()
    assert second is not first
    assert _canonical(second) == _canonical(first)
    assert second.model("Qwen3.6-27B").id == "Qwen3.6-27B"
    assert not list(cache_dir.glob(".knowledge-*"))  # no temporary file left behind


def test_a_planted_pickle_never_runs(cache_dir, tmp_path):
    base.load()
    [written] = list(cache_dir.glob("knowledge-*.json"))
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    written.write_bytes(pickle.dumps(Payload()))
    (cache_dir / written.name.replace(".json", ".pickle")).write_bytes(pickle.dumps(Payload()))
    base.load.cache_clear()
    kb = base.load()
    assert not marker.exists()
    assert kb.model("Qwen3.6-27B").id == "Qwen3.6-27B"


def test_a_cache_file_others_can_write_is_ignored(cache_dir):
    base.load()
    [written] = list(cache_dir.glob("knowledge-*.json"))
    altered = written.read_bytes().replace(b'"Qwen3.6-27B"', b'"Planted-Mod"')  # (of the same length: the
    # compiled form records where each part is)
    assert altered != written.read_bytes()
    written.write_bytes(altered)
    os.chmod(written, 0o666)
    base.load.cache_clear()
    assert [m.id for m in base.load().models if m.id == "Planted-Mod"] == []
    # the ignored file was replaced by a fresh cache; the same altered content, private, is this user's own
    written.write_bytes(altered)
    os.chmod(written, 0o600)
    base.load.cache_clear()
    assert [m.id for m in base.load().models if m.id == "Planted-Mod"] == ["Planted-Mod"]


@pytest.mark.parametrize("blob", [b"", b"{", b"[]", b'{"format": 1, "digest": "0", "fields": {}}', b"\x80\x04K\x01."])
def test_damaged_or_stale_blobs_are_refused(blob):
    assert compiled.loads(blob, "digest", base.Record) is None


def test_the_shipped_form_is_used_when_it_matches(tmp_path, monkeypatch):
    target, _ = base.write_shipped(tmp_path)
    blobs, digest = base._blobs_and_digest()
    fields = compiled.loads(target.read_bytes(), digest, base.Record)
    assert fields is not None
    assert _canonical(base._assemble(fields)) == _canonical(base._build(blobs))
    assert compiled.loads(target.read_bytes(), "another-digest", base.Record) is None


def test_encode_refuses_types_json_cannot_hold():
    with pytest.raises(TypeError):
        compiled.encode({1, 2}, base.Record)


def test_release_facts_never_load_a_cached_object(tmp_path, monkeypatch):
    """The per-release facts are rebuilt from their JSON; the cache holds only a private 'validated'
    marker, so a planted pickle next to it is never read."""
    from qlint.knowledge import releases

    directory = tmp_path / "cache"
    monkeypatch.setenv("QLINT_CACHE_DIR", str(directory))
    monkeypatch.setattr(releases, "SHIPPED_VALIDATED", "no-such-list.json")  # the user's markers are tested
    releases._shipped_validated.cache_clear()
    releases.facts_for.cache_clear()
    releases._release_facts.cache_clear()
    try:
        first = releases.facts_for("v0.23.0")
        markers = list(directory.glob("release-*.validated"))
        assert first is not None and len(markers) == 1 and markers[0].stat().st_size == 0
        assert markers[0].stat().st_mode & 0o077 == 0
        marker = tmp_path / "ran"

        class Payload:
            def __reduce__(self):
                return (open, (str(marker), "w"))

        (directory / markers[0].name.replace(".validated", ".pickle")).write_bytes(pickle.dumps(Payload()))
        releases.facts_for.cache_clear()
        releases._release_facts.cache_clear()
        again = releases.facts_for("v0.23.0")
        assert not marker.exists() and again is not None and again.long_names == first.long_names
        nearest = releases.facts_for("v0.23.0-a3") or releases.facts_for("v0.23.0")
        assert nearest.release == first.release
    finally:
        releases._shipped_validated.cache_clear()
        releases.facts_for.cache_clear()
        releases._release_facts.cache_clear()


def test_the_shipped_files_are_current(tmp_path):
    """knowledge/data/compiled.json and validated_releases.json are what the data files give today; when
    this fails after a change to knowledge/data, run ``python -m qlint.knowledge.compiled`` and commit."""
    for written in base.write_shipped(tmp_path):
        committed = Path(base._DATA_DIR) / written.name
        assert committed.is_file(), f"{committed.name} is missing: run python -m qlint.knowledge.compiled"
        assert committed.read_bytes() == written.read_bytes(), (
            f"knowledge/data/{committed.name} is stale: run python -m qlint.knowledge.compiled and commit it")


def test_a_fresh_read_only_home_gives_the_same_findings_without_validating(tmp_path):
    """A first run with nothing cached and nowhere to cache (read-only, empty HOME and XDG cache, as on a
    fresh CI runner) reads the shipped knowledge: same findings as a run with a cache, no pydantic, no
    TOML parsed, nothing written."""
    script = tmp_path / "work" / "run.sh"  # outside any project: no pyproject.toml to read either
    script.parent.mkdir()
    script.write_text("# qlint: hardware=a2 vllm-ascend=v0.23.0\n"
                      "vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 3 --max-num-seqs abc\n")
    probe = (
        "import sys\n"
        "from qlint.linter.cli import entry\n"
        f"sys.argv = ['qlint', '--format', 'json', {str(script)!r}]\n"
        "try:\n    entry()\nexcept SystemExit as done:\n    code = done.code\n"
        "loaded = sorted(name for name in ('pydantic', 'tomllib', 'qlint.knowledge.models') if name in sys.modules)\n"
        "print('\\nmodules:', code, ' '.join(loaded))\n"
    )
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "NO_COLOR": "1"}
    env.pop("QLINT_CACHE_DIR", None)
    home.chmod(0o555)
    try:
        fresh = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                               cwd=script.parent)
    finally:
        home.chmod(0o755)
    assert fresh.returncode == 0, fresh.stderr
    report, _, tail = fresh.stdout.rpartition("\nmodules:")
    assert tail.split() == ["1"]  # exit 1 (findings), and none of pydantic, tomllib, knowledge.models loaded
    assert list(home.iterdir()) == []  # nothing cached (as root, a read-only mode does not stop writes)
    cached = subprocess.run([sys.executable, "-m", "qlint.linter.cli", "--format", "json", str(script)],
                            capture_output=True, text=True, cwd=script.parent,
                            env={**env, "QLINT_CACHE_DIR": str(tmp_path / "cache")})
    found = json.loads(report)
    assert {item["rule"] for item in found} >= {"QL206", "QL106"}
    assert found == json.loads(cached.stdout)


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A copy of the data folder (its compiled form written there) read in place of the package's."""
    import shutil

    folder = tmp_path / "data"
    shutil.copytree(base._DATA_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(base, "_DATA_DIR", str(folder))
    monkeypatch.setenv("QLINT_CACHE_DIR", "off")
    base.write_shipped(folder)
    validated = []
    real = base._validated_fields
    monkeypatch.setattr(base, "_validated_fields", lambda blobs: validated.append(1) or real(blobs))
    base.load.cache_clear()
    yield folder, validated
    base.load.cache_clear()


def _first_model_len(kb: base.KnowledgeBase) -> int:
    return kb.models[0].max_model_len


@pytest.mark.parametrize("written", ["max_model_len = 262143\n", "max_model_len = 131072000\n"])
def test_a_changed_data_file_is_read_in_place_of_the_shipped_form(data_copy, written):
    """The shipped form is trusted by the size and CRC-32 it records of each data file, without hashing
    them; an edit (of the same size or not) is seen at once, and the form written again is trusted."""
    folder, validated = data_copy
    assert _first_model_len(base.load()) == 262144 and validated == []  # current: read, not validated
    models = folder / "models.toml"
    text = models.read_text()
    assert text.count("max_model_len = 262144\n") > 1
    models.write_text(text.replace("max_model_len = 262144\n", written, 1))
    base.load.cache_clear()
    assert _first_model_len(base.load()) == int(written.split("=")[1]) and validated == [1]
    base.write_shipped(folder)  # validates the data files once more
    validated.clear()
    base.load.cache_clear()
    assert _first_model_len(base.load()) == int(written.split("=")[1]) and validated == []


def test_a_shipped_form_of_another_qlint_version_is_not_trusted(data_copy, monkeypatch):
    folder, validated = data_copy
    monkeypatch.setattr(base, "__version__", "0.0.0-other")
    assert base._current(base._shipped()) is None
    base.load()
    assert validated == [1]  # the digest names the version too: validated again


def _decoded(kb: base.KnowledgeBase) -> list[str]:
    return sorted(name for name in vars(kb) if name in base._FIELD_NAMES)


def test_the_shipped_form_is_decoded_field_by_field_when_used(data_copy):
    """A current shipped form is read in parts: no field is decoded by load(), one is when first used, a
    Text when its sentences are; what is read equals what validating the data files gives, field by field."""
    folder, validated = data_copy
    kb = base.load()
    assert _decoded(kb) == [] and validated == []
    assert kb.flag_index["--tensor-parallel-size"].name == "--tensor-parallel-size"
    assert _decoded(kb) == ["flags"]
    symptom = kb.defects[0].symptom
    assert _decoded(kb) == ["defects", "flags"]
    assert object.__getattribute__(symptom, "_deferred")  # not decoded yet
    eager = base._build(base._blobs_and_digest()[0])
    assert validated == [1]  # (the eager one, for the comparison)
    assert symptom.zh == eager.defects[0].symptom.zh and symptom == eager.defects[0].symptom
    with pytest.raises(AttributeError):
        object.__getattribute__(symptom, "_deferred")  # decoded, and kept
    for name in base._FIELD_NAMES:
        assert getattr(kb, name) == getattr(eager, name), name
    assert kb == eager and _canonical(kb) == _canonical(eager)
    assert kb.match_model("Qwen/Qwen3.6-27B").model.id == "Qwen3.6-27B"


def _damage(folder: Path, name: str, inside: bytes, within: list[int] | None = None) -> None:
    """Replace, in the compiled form of ``folder``, a run of bytes within the part ``name`` (a field, or
    ``texts``; ``within``: those offsets) that includes ``inside``, by as many bytes that are not JSON."""
    path = folder / base.SHIPPED
    data = path.read_bytes()
    found = compiled.open_compiled(data, base.Record)
    if within is not None:
        begin, end = (found.start + offset for offset in within)
    elif name == "texts":
        begin, end = found.start + found.texts_at, len(data)
    else:
        begin, end = (found.start + offset for offset in found.layout[name])
    at = data.index(inside, begin, end)
    path.write_bytes(data[:at] + b"\x01" * len(inside) + data[at + len(inside):])
    assert compiled.open_compiled(path.read_bytes(), base.Record) is not None  # the head is still good


def test_a_damaged_field_is_read_from_the_data_files(data_copy):
    folder, validated = data_copy
    _damage(folder, "defects", b'"severity"')
    kb = base.load()
    assert kb.flags and validated == []  # other fields are read from the shipped form
    defects = kb.defects  # does not fail: validated instead
    assert validated == [1]
    eager = base._build(base._blobs_and_digest()[0])
    assert defects == eager.defects and kb == eager


def test_a_damaged_text_is_read_from_the_data_files(data_copy):
    folder, validated = data_copy
    source, (begin, end) = object.__getattribute__(base.load().defects[0].symptom, "_deferred")
    at = source.start + source.texts_at
    _damage(folder, "texts", source.data[at + begin:at + end][2:12])  # within its English sentence
    base.load.cache_clear()
    kb = base.load()
    symptom = kb.defects[0].symptom
    eager = base._build(base._blobs_and_digest()[0])
    validated.clear()
    assert symptom.en == eager.defects[0].symptom.en and validated == [1]
    assert kb.defects[1].symptom == eager.defects[1].symptom  # the others from the shipped form


@pytest.mark.parametrize("cut", [2, 1000, 300000])  # (1: only the final newline)
def test_a_truncated_shipped_form_is_not_read(data_copy, cut):
    folder, validated = data_copy
    path = folder / base.SHIPPED
    path.write_bytes(path.read_bytes()[:-cut])
    assert compiled.open_compiled(path.read_bytes(), base.Record) is None
    kb = base.load()
    assert validated == [1] and kb.model("Qwen3.6-27B").id == "Qwen3.6-27B"


def test_a_behaviour_an_environment_variable_or_a_faq_is_read_alone(data_copy):
    """Looked up by name before its field is decoded, one record is decoded alone: the same record the
    index gives (and the same object once the field is decoded); unknown names are None (KeyError)."""
    folder, validated = data_copy
    kb = base.load()
    eager = base._build(base._blobs_and_digest()[0])
    behaviour = kb.behaviour("gdn_attention_on_310p")
    assert kb.env_var("VLLM_USE_MODELSCOPE") == eager.env_index["VLLM_USE_MODELSCOPE"]
    faq = kb.faq(eager.faqs[3].id)
    assert kb.env_var("NO_SUCH_VARIABLE") is None and kb.faq("no-such-faq") is None
    with pytest.raises(KeyError, match="no behaviour 'no_such'"):
        kb.behaviour("no_such")
    assert _decoded(kb) == []
    assert behaviour == eager.behaviour("gdn_attention_on_310p") and faq == eager.faqs[3]
    assert kb.behaviour_index["gdn_attention_on_310p"] is behaviour and kb.faqs[3] is faq
    assert _decoded(kb) == ["behaviours", "faqs"]
    for name in ("behaviours", "env_vars", "faqs"):
        attribute = base.KEYED[name]
        base.load.cache_clear()
        alone = base.load()
        for record in getattr(eager, name):
            key = getattr(record, attribute)
            found = {"behaviours": alone.behaviour, "env_vars": alone.env_var, "faqs": alone.faq}[name](key)
            assert found == {"behaviours": eager.behaviour_index, "env_vars": eager.env_index,
                             "faqs": eager.faq_index}[name][key]
        assert _decoded(alone) == []


def test_a_damaged_table_of_records_is_not_used(data_copy):
    folder, validated = data_copy
    data = (folder / base.SHIPPED).read_bytes()
    table = compiled.open_compiled(data, base.Record).keys["env_vars"]
    _damage(folder, "keys", b'"VLLM_USE_MODELSCOPE"', within=table[:2])
    kb = base.load()
    assert kb.env_var("VLLM_USE_MODELSCOPE").name == "VLLM_USE_MODELSCOPE"
    assert _decoded(kb) == ["env_vars"] and validated == []  # read from the whole field instead


def test_a_model_named_in_a_script_is_read_alone(data_copy):
    """A model name (id, checkpoint name or alias) resolves, before the models are decoded, to the model
    the alias index gives, decoded alone (and the same object once the models are decoded)."""
    kb = base.load()
    eager = base._build(base._blobs_and_digest()[0])
    match = kb.match_model("/models/Eco-Tech/Qwen3.6-27B-w8a8")
    assert match == eager.match_model("/models/Eco-Tech/Qwen3.6-27B-w8a8") and match.variant is not None
    assert kb.model_by_name("qwen3.6-27b") == eager.model_by_name("qwen3.6-27b")
    assert kb.model_by_name("no-such-model") is None and _decoded(kb) == []
    assert kb.models[kb.models.index(match.model)] is match.model and match.variant in match.model.variants
    base.load.cache_clear()
    alone = base.load()
    for key, (model, variant) in eager._alias_index.items():
        assert alone._alias(key) == (model, variant), key
    assert _decoded(alone) == [] and len(eager._alias_index) > 50
    table = compiled.open_compiled((data_copy[0] / base.SHIPPED).read_bytes(), base.Record).tables[base.ALIASES]
    _damage(data_copy[0], "tables", b'"qwen3.6-27b"', within=table)
    base.load.cache_clear()
    damaged = base.load()
    assert damaged.model_by_name("qwen3.6-27b") == eager.model_by_name("qwen3.6-27b")
    assert _decoded(damaged) == ["models"]  # read from the whole field instead


def test_an_option_spelled_in_a_script_is_read_alone(data_copy):
    """Every option spelling (long name, alias) gives, before the flags are decoded, the spec flag_index
    gives, decoded alone (and the same object once the flags are decoded); the sorted names come from the
    flags' table of records; a damaged table of the spellings falls back to the whole field."""
    folder, validated = data_copy
    kb = base.load()
    eager = base._build(base._blobs_and_digest()[0])
    spec = kb.flag("--tensor-parallel-size")
    assert spec == eager.flag_index["--tensor-parallel-size"] and kb.flag("--no-such-option") is None
    assert kb.flag_names == eager.flag_names and _decoded(kb) == []
    assert kb.flag("--tensor-parallel-size") is spec and kb.flag("--no-such-option") is None
    assert kb.flags[kb.flags.index(spec)] is spec and kb.flag_index["--tensor-parallel-size"] is spec
    assert kb.flag("--tensor-parallel-size") is spec
    base.load.cache_clear()
    alone = base.load()
    aliases = [spelling for spelling, item in eager.flag_index.items() if spelling != item.name]
    assert len(eager.flag_index) > 250 and len(aliases) > 10
    for spelling, item in eager.flag_index.items():
        assert alone.flag(spelling) == item, spelling
        assert alone.flag(spelling + "x") == eager.flag_index.get(spelling + "x"), spelling
    for unknown in ["", "-", "--", "--port=8000", "--PORT", "--tensor_parallel_size", "tensor-parallel-size",
                    "--no-enforce-eager", "--max-num-seqz7"]:  # none a spelling of a flag: None, from the tables
        assert unknown not in eager.flag_index and alone.flag(unknown) is None and alone.flag(unknown) is None
    assert _decoded(alone) == [] and alone.flag_names == eager.flag_names
    table = compiled.open_compiled((folder / base.SHIPPED).read_bytes(), base.Record).tables[base.FLAG_SPELLINGS]
    _damage(folder, "tables", b'"', within=table)
    base.load.cache_clear()
    damaged = base.load()
    assert damaged.flag(aliases[0]) == eager.flag_index[aliases[0]]
    assert _decoded(damaged) == ["flags"] and validated == [1]  # read from the whole field instead


def test_a_hardware_a_release_a_weight_format_an_architecture_is_read_alone(data_copy):
    """Every record looked up by its name (hardware id, release tag, weight format id, architecture model)
    is, before its field is decoded, the one the whole field gives (the first of that name, as a scan
    finds; release() as release_index), and a name of none gives None or KeyError as before; the hardware
    ids come in file order from the hardware's table of records."""
    eager = base._build(base._blobs_and_digest()[0])
    kb = base.load()
    assert kb.hardware_ids == [item.id for item in eager.hardware] and _decoded(kb) == []
    for item in eager.hardware:
        assert kb.hardware_by_id(item.id) == eager.hardware_by_id(item.id) == item
    for item in eager.releases:
        assert kb.release(item.tag) == eager.release_index[item.tag]
        assert kb.release_record(item.tag) == next(r for r in eager.releases if r.tag == item.tag) == item
        assert kb.resolve_release(item.tag) == eager.resolve_release(item.tag)
    for item in eager.weight_formats:
        assert kb.weight_format(item.id) == eager.weight_format(item.id) == item
    for model_id in [model.id for model in eager.models] + [item.model for item in eager.architectures]:
        assert kb.architecture(model_id) == next((a for a in eager.architectures if a.model == model_id), None)
    assert kb.release_record("v0.0.1") is None and kb.architecture("no-such-model") is None
    for lookup, name in ((kb.release, "v0.0.1"), (kb.hardware_by_id, "a9"), (kb.weight_format, "w1a1")):
        with pytest.raises(KeyError):
            lookup(name)
    assert _decoded(kb) == [] and len(eager.releases) > 20 and len(eager.architectures) > 10
    held = kb.hardware_by_id(eager.hardware[-1].id)
    assert kb.hardware[-1] is held and kb.hardware_by_id(held.id) is held  # the record the field holds


def test_names_held_twice_get_no_table_and_the_first_is_found(data_copy):
    """A field looked up by the first record of a name has a table of its records only when their names
    are unique: with a name held twice, the lookups read the whole field and find what a scan finds."""
    fields = base._validated_fields(base._blobs_and_digest()[0])
    first_hardware, first_release = fields["hardware"][0], fields["releases"][0]
    fields["hardware"].insert(1, base.Record(**{**vars(first_hardware), "npus_per_node": 99}))
    fields["releases"].insert(1, base.Record(**{**vars(first_release), "vllm": "v9.9.9"}))
    keyed = base._keyed(fields)
    assert "hardware" not in keyed and "releases" not in keyed and "weight_formats" in keyed
    blob = compiled.dumps("x", fields, base.Record, {}, "0", keyed, base._tables(fields))
    kb = base._lazy(compiled.open_compiled(blob, base.Record))
    assert kb.hardware_by_id(first_hardware.id).npus_per_node == first_hardware.npus_per_node != 99
    assert kb.release_record(first_release.tag).vllm == first_release.vllm
    assert kb.release(first_release.tag).vllm == "v9.9.9"  # release_index: the last, as before
    assert kb.hardware_ids == [item.id for item in fields["hardware"]]


def test_the_known_defects_a_launch_may_hit_are_read_alone(data_copy):
    """The defects kept by a test of their heads (id, severity, release range, hardware) are, before the
    defects are decoded, those the same test keeps of the decoded defects, in order, each decoded alone (and
    the same object once the defects are decoded), at every release, severity and hardware; a damaged
    table of the heads falls back to the whole field."""
    from qlint.rules.known_defects import _release_in

    folder, validated = data_copy
    kb = base.load()
    eager = base._build(base._blobs_and_digest()[0])
    assert [head.id for head in kb.defect_heads] == [entry.id for entry in eager.defects] and _decoded(kb) == []
    for head, entry in zip(kb.defect_heads, eager.defects):
        assert all(getattr(head, name) == getattr(entry, name) for name in base.DEFECT_HEAD)
    tags = [release.tag for release in eager.releases]
    hardware = sorted({item for entry in eager.defects for item in entry.hardware}) + [None]
    count = 0
    for severity in ("error", "warning", "info"):
        for tag in tags:
            for where in hardware:
                def keep(entry, severity=severity, tag=tag, where=where):
                    return entry.severity == severity and _release_in(entry, tag) and (
                        entry.hardware == ["any"] or where in entry.hardware)

                found = kb.defects_where(keep)
                assert found == [entry for entry in eager.defects if keep(entry)], (severity, tag, where)
                count += len(found)
    assert count > 100 and _decoded(kb) == []
    some = kb.defects_where(lambda entry: entry.severity == "error")
    assert len(some) > 3 and all(kb.defects[kb.defects.index(entry)] is entry for entry in some)
    assert kb.defects_where(lambda entry: entry.severity == "error") == some
    table = compiled.open_compiled((folder / base.SHIPPED).read_bytes(), base.Record).tables[base.DEFECT_HEADS]
    _damage(folder, "tables", b'"', within=table)
    base.load.cache_clear()
    damaged = base.load()
    assert damaged.defects_where(lambda entry: entry.severity == "info") == [
        entry for entry in eager.defects if entry.severity == "info"]
    assert _decoded(damaged) == ["defects"] and validated == [1]  # read from the whole field instead


# -- compiled.read_json: what every part is read with --------------------------------------


def _outcome(read, data):
    try:
        return "value", json.dumps(read(data), sort_keys=True)  # (NaN compares as its text)
    except RecursionError:
        return "error", "RecursionError"
    except ValueError as error:
        return "error", type(error).__name__


_JSON_TEXT = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
).map(lambda value: json.dumps(value, ensure_ascii=False))


@given(st.one_of(_JSON_TEXT, _JSON_TEXT.map(lambda text: " " + text), _JSON_TEXT.map(lambda text: text + "\n"),
                 st.tuples(_JSON_TEXT, _JSON_TEXT).map("".join), st.text(max_size=12),
                 st.sampled_from(["", " ", "[1,", '{"a":1}x', "\ufeff[]", "NaN", "-Infinity", "1e999", '"\x01"',
                                  "[" * 100000 + "]" * 100000])))
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_loads_reads_what_json_loads_reads(text):
    assert _outcome(compiled.read_json, text) == _outcome(json.loads, text)
    for data in (text.encode("utf-8"), text.encode("utf-16"), b"\xef\xbb\xbf" + text.encode("utf-8"),
                 text.encode("utf-8", "surrogatepass") if text else b"\xed\xa0\x80"):
        assert _outcome(compiled.read_json, data) == _outcome(json.loads, data)


def test_every_part_of_the_shipped_forms_reads_as_json_loads_reads_it():
    """Every field, record, table and text of the compiled knowledge and every value and record of every
    release data file's layout: compiled.read_json gives what json.loads gives (records compared as the plain
    JSON the object hook is given)."""
    from qlint.knowledge import releases

    data = (Path(base._DATA_DIR) / base.SHIPPED).read_bytes()
    found = compiled.open_compiled(data, base.Record)
    spans = [found.layout[name] for name in found.layout]
    spans += [found.tables[name] for name in found.tables]
    spans += [found.keys[name][:2] for name in found.keys]
    at = found.layout
    for name, (begin, end, _) in found.keys.items():
        table = json.loads(data[found.start + begin:found.start + end])
        spans += [[at[name][0] + start, at[name][0] + stop] for start, stop, _ in table.values()]
    texts = data[found.start + found.texts_at:].split(b",\n")
    count = 0
    for begin, end in spans:
        part = data[found.start + begin:found.start + end]
        assert compiled.read_json(part.decode("ascii")) == json.loads(part)
        assert compiled.read_json(part) == json.loads(part)
        count += 1
    for text in texts[1:-1]:
        assert compiled.read_json(text) == json.loads(text)
    assert count > 600 and len(texts) > 500
    for name in sorted(os.listdir(Path(base._DATA_DIR) / "layout")):
        head, _, tail = (Path(base._DATA_DIR) / "layout" / name).read_bytes().partition(b"\n")
        layout = json.loads(head)
        assert compiled.read_json(head) == layout
        for begin, end in layout.get("key_tables", {}).values():  # the key tables on the lines after it
            assert compiled.read_json(tail[begin:end]) == json.loads(tail[begin:end]), name
            assert tail[end:end + 1] == b"\n"
        blob = (Path(base._DATA_DIR) / name.replace("-", "/", 1)).read_bytes()
        for begin, end in layout["values"].values():
            assert compiled.read_json(blob[begin:end]) == json.loads(blob[begin:end]), name
        for laid in layout["records"].values():
            for at, _ in enumerate(releases._split(laid["labels"])):
                begin, end = releases._span(laid, at)
                assert compiled.read_json(blob[begin:end]) == json.loads(blob[begin:end]), name
                count += 1
    assert count > 8000
