"""Per-release facts extracted from the sources (knowledge/data/vllm, knowledge/data/ascend) and the
option rules that read them (QL102, QL105, QL106, QL550) at more than one release."""

import io
import json
import tarfile
from pathlib import Path

import pytest

from qlint.knowledge import release_data
from qlint.knowledge.releases import facts_for, known_releases, nearest_release, release_index

from conftest import lint

DATA = Path(__file__).parent.parent / "knowledge" / "data"
MODEL = "vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 2"


def rules(text, version, hardware="a3"):
    return [(f.rule.id, f.level, f.message) for f in lint(text, hardware, version)]


def errors(text, version, rule=None):
    return [r for r in rules(text, version) if r[1] == "error" and (rule is None or r[0] == rule)]


# -- the data -------------------------------------------------------------------------

def test_every_release_from_v0_9_0rc1_to_main_has_data():
    releases = known_releases()
    assert releases[0] == "v0.9.0rc1" and releases[-1] == "main"
    for tag in ("v0.11.0", "v0.13.0", "v0.18.0", "v0.23.0", "v0.24.0rc1", "v0.25.1rc1"):
        assert tag in releases
    for item in release_index()["releases"]:
        assert item["vllm"] and item["vllm_data"], item
        assert item["vllm_source"].startswith("https://github.com/vllm-project/vllm-ascend/blob/")


def test_pairing_follows_the_dockerfile():
    pairs = {item["release"]: (item["vllm"], item["vllm_data"]) for item in release_index()["releases"]}
    assert pairs["v0.25.1rc1"] == ("v0.25.1", "0.25.1")
    assert pairs["v0.14.0rc1"] == ("v0.14.1", "0.14.1")
    assert pairs["v0.10.1rc1"] == ("v0.10.1.1", "0.10.1.1")
    assert pairs["main"] == ("v0.27.1", "0.27.1")
    assert pairs["v0.15.0rc1"] == ("v0.15.0", "0.14.1")  # no 0.15.0 sdist: the nearest older one, said in unread
    assert any("0.15.0" in line for line in facts_for("v0.15.0rc1").unread)


@pytest.mark.parametrize("tag", ["v0.9.0rc1", "v0.11.0", "v0.18.0", "v0.23.0", "v0.25.1rc1", "main"])
def test_every_release_loads_validated(tag):
    facts = facts_for(tag)
    assert facts.release == tag and len(facts.options) > 140
    assert facts.options["--tensor-parallel-size"].kind == "int"
    assert "-tp" in facts.options["--tensor-parallel-size"].aliases


def test_every_record_cites_a_pinned_url():
    from qlint.knowledge.models import AscendReleaseData, VllmReleaseData

    for path in sorted((DATA / "vllm").glob("*.json")):
        data = VllmReleaseData.model_validate(json.loads(path.read_text()))  # the model checks every source URL
        assert all(f"/blob/v{data.version}/" in o.source for o in data.options)
    for path in sorted((DATA / "ascend").glob("*.json")):
        data = AscendReleaseData.model_validate(json.loads(path.read_text()))
        pin = data.release if data.release != "main" else data.commit
        assert all(f"/blob/{pin}/" in env.source for env in data.env_vars)


def test_unknown_release_is_checked_as_the_nearest():
    assert nearest_release("v0.26.0") == "v0.25.1rc1"
    assert nearest_release("v0.8.5rc1") == "v0.9.0rc1"
    facts = facts_for("v0.26.0")
    assert facts.requested == "v0.26.0" and facts.release == "v0.25.1rc1" and not facts.exact


def test_spellings_follow_each_release_parser():
    new, old = facts_for("v0.25.1rc1"), facts_for("v0.11.0")
    assert new.resolve("-O3") == ("--optimization-level", False, "3")  # argparse_utils rewrites -O3
    assert old.resolve("-O3") == ("--compilation-config", False, "3")  # -O was the compilation-config alias
    assert new.resolve("--gpu_memory_utilization")[0] == "--gpu-memory-utilization"
    assert new.resolve("--no-enable-prefix-caching") == ("--enable-prefix-caching", True, None)
    assert new.resolve("--gpu-mem")[0] == "--gpu-memory-utilization"  # argparse prefix
    assert new.resolve("-cc")[0] == "--compilation-config"
    assert new.resolve("--tensor-paralel-size") == (None, False, None)
    assert new.dotted_ok("-cc") and not facts_for("v0.9.0rc1").dotted_ok("-cc")


def test_ranges_defaults_and_sizes_come_from_the_fields():
    option = facts_for("v0.25.1rc1").options["--gpu-memory-utilization"]
    assert option.range == {"gt": 0, "le": 1} and option.default == 0.92
    assert option.field == "CacheConfig.gpu_memory_utilization" and option.field_source.endswith("cache.py#L68")
    assert facts_for("v0.9.0rc1").options["--gpu-memory-utilization"].range == {"le": 1.0}  # a __post_init__ check
    assert facts_for("v0.25.1rc1").options["--max-model-len"].parser == "human_readable_int_or_auto"


def test_sub_config_keys_per_release():
    new = facts_for("v0.25.1rc1").sub_configs["--speculative-config"]
    old = facts_for("v0.23.0").sub_configs["--speculative-config"]
    assert "dspark" in new.keys["method"].choices and "dspark" not in old.keys["method"].choices
    assert "num_speculative_tokens_per_batch_size" in new.keys and "num_speculative_tokens_per_batch_size" not in old.keys
    compilation = facts_for("v0.25.1rc1").sub_configs["--compilation-config"]
    assert compilation.closed and compilation.keys["cudagraph_mode"].enum_by_name
    assert "FULL_DECODE_ONLY" in compilation.keys["cudagraph_mode"].enum
    assert compilation.keys["pass_config"].keys  # nested dataclass keys


def test_additional_config_keys_per_tag():
    assert "torchair_graph_config" in facts_for("v0.11.0").additional_config
    assert "torchair_graph_config" not in facts_for("v0.25.1rc1").additional_config
    section = facts_for("v0.25.1rc1").additional_config["ascend_compilation_config"]
    assert "fuse_norm_quant" in section.keys


def test_env_vars_per_release():
    assert "VLLM_USE_V1" in facts_for("v0.9.0rc1").vllm_env
    assert "VLLM_USE_V1" not in facts_for("v0.25.1rc1").vllm_env
    assert "VLLM_ASCEND_ENABLE_FLASHCOMM1" in facts_for("v0.25.1rc1").ascend_env


# -- the rules at the release being linted -------------------------------------------

def test_speculative_method_per_release():
    text = f"""{MODEL} --speculative-config '{{"method": "dspark", "num_speculative_tokens": 2}}'\n"""
    assert not errors(text, "v0.25.1rc1", "QL106")
    found = errors(text, "v0.23.0", "QL106")
    assert found and "vLLM 0.23.0 (vllm-ascend v0.23.0)" in found[0][2]


def test_new_option_known_at_its_release():
    text = f"{MODEL} --prefill-schedule-interval 2\n"
    assert not errors(text, "v0.25.1rc1")
    assert errors(text, "v0.23.0", "QL550")
    assert not errors(text, "v0.23.0", "QL102")


def test_new_key_known_at_its_release():
    text = f"""{MODEL} --speculative-config '{{"method": "mtp", "num_speculative_tokens": 2, "num_speculative_tokens_per_batch_size": [[1, 8, 2]]}}'\n"""
    assert not errors(text, "v0.25.1rc1", "QL105")
    assert errors(text, "v0.23.0", "QL105")


@pytest.mark.parametrize("spelling", ["-O3", "-O 3", "-O=3", "--optimization-level 3", "-cc.cudagraph_mode FULL_DECODE_ONLY",
                                      "--compilation-config.cudagraph_mode FULL_DECODE_ONLY"])
def test_valid_spellings_are_known(spelling):
    for version in ("v0.23.0", "v0.25.1rc1"):
        assert not errors(f"{MODEL} {spelling}\n", version), (spelling, version)


def test_bad_dotted_key_value_is_reported():
    found = errors(f"{MODEL} -cc.cudagraph_mode FULL_DECODE\n", "v0.25.1rc1", "QL106")
    assert found and "FULL_DECODE_ONLY" in found[0][2]


def test_human_readable_max_model_len_reaches_the_length_rules():
    text = f"{MODEL} --max-model-len 300k\n"  # 300000 > the 262144 of Qwen3.6-27B
    assert errors(text, "v0.25.1rc1", "QL301")
    assert not errors(f"{MODEL} --max-model-len 128k\n", "v0.25.1rc1")
    assert not errors(f"{MODEL} --max-model-len 32K\n", "v0.23.0", "QL106")
    found = errors(f"{MODEL} --max-model-len 1.5K\n", "v0.25.1rc1", "QL106")  # no decimals with binary suffixes
    assert found


def test_gpu_memory_utilization_range():
    found = errors(f"{MODEL} --gpu-memory-utilization 1.5\n", "v0.25.1rc1", "QL106")
    assert found and "(0, 1]" in found[0][2]
    assert errors(f"{MODEL} --gpu-memory-utilization 0\n", "v0.18.0", "QL106")
    assert not errors(f"{MODEL} --gpu-memory-utilization 0.95\n", "v0.18.0", "QL106")
    assert not errors(f"{MODEL} --gpu-memory-utilization 1\n", "v0.25.1rc1", "QL106")


def test_unknown_option_still_reported_with_a_suggestion():
    found = errors(f"{MODEL} --tensor-paralel-size 2\n", "v0.25.1rc1", "QL102")
    assert found and "--tensor-parallel-size" in found[0][2]


# -- the pipeline on a small synthetic release ---------------------------------------

ARG_UTILS = '''
from dataclasses import dataclass
from vllm.config import CacheConfig, SpeculativeConfig


def get_kwargs(cls):
    for field in fields(cls):
        if contains_type(type_hints, bool):
            kwargs[name]["action"] = argparse.BooleanOptionalAction
        elif contains_type(type_hints, int):
            if name == "max_model_len":
                kwargs[name]["type"] = human_readable_int_or_auto


@dataclass
class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        cache_kwargs = get_kwargs(CacheConfig)
        group = parser.add_argument_group("cache")
        group.add_argument("--gpu-memory-utilization", "-gmu", **cache_kwargs["gpu_memory_utilization"])
        group.add_argument("--max-model-len", **cache_kwargs["max_model_len"])
        group.add_argument("--enable-thing", **cache_kwargs["enable_thing"])
        group.add_argument("--block-size", **cache_kwargs["block_size"])
        group.add_argument("--speculative-config", type=json.loads, help="json")
        parser.add_argument("--legacy", action="store_true")
'''

CONFIG = '''
from typing import Literal
from pydantic import Field

BlockSize = Literal[16, 32, 128]
Method = Literal["ngram", "mtp"]


@config
class CacheConfig:
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1)
    """fraction"""
    max_model_len: int | None = None
    """tokens"""
    enable_thing: bool = True
    """switch"""
    block_size: BlockSize | None = None
    """block"""

    def __post_init__(self):
        if self.max_model_len is not None and self.max_model_len < -1:
            raise ValueError(f"bad max_model_len {self.max_model_len}")


@config
class SpeculativeConfig:
    method: Method | None = None
    """method"""
    num_speculative_tokens: int = 1
    """tokens"""
'''


def _sdist(tmp_path, files):
    archive = tmp_path / "vllm-9.9.9.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"vllm-9.9.9/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return archive


def test_extract_vllm_reads_a_small_release_statically(tmp_path):
    from qlint.knowledge.extract.vllm_release import extract_vllm
    from qlint.knowledge.models import VllmReleaseData

    archive = _sdist(tmp_path, {"vllm/engine/arg_utils.py": ARG_UTILS, "vllm/config/cache.py": CONFIG,
                                "vllm/envs.py": 'environment_variables = {\n    "VLLM_X": lambda: os.getenv("VLLM_X", "1"),\n}\n'})
    data = extract_vllm(str(archive), "9.9.9")
    VllmReleaseData.model_validate(data)
    options = {o["name"]: o for o in data["options"]}
    assert options["--gpu-memory-utilization"]["range"] == {"gt": 0, "le": 1}
    assert options["--gpu-memory-utilization"]["aliases"] == ["-gmu"]
    assert options["--gpu-memory-utilization"]["field_source"].endswith("/blob/v9.9.9/vllm/config/cache.py#L11")
    assert options["--max-model-len"]["parser"] == "human_readable_int_or_auto"
    assert options["--enable-thing"]["kind"] == "bool" and options["--enable-thing"]["negatable"]
    assert options["--block-size"]["choices"] == ["16", "32", "128", "None"]
    assert options["--legacy"]["kind"] == "bool" and not options["--legacy"].get("negatable")
    spec = next(s for s in data["sub_configs"] if s["option"] == "--speculative-config")
    assert [k["key"] for k in spec["keys"]] == ["method", "num_speculative_tokens"]
    assert spec["keys"][0]["choices"] == ["ngram", "mtp"]
    assert data["env_vars"] == [{"name": "VLLM_X", "source": "https://github.com/vllm-project/vllm/blob/v9.9.9/vllm/envs.py#L2",
                                 "default": '"1"'}]
    assert any(v["message"].startswith("bad max_model_len") for v in data["validations"])


# -- the hand-kept tables checked against the sources -----------------------------------

def test_hand_kept_flag_table_agrees_with_the_extracted_parsers():
    import tomllib
    from packaging.version import Version

    index = release_index()
    pairs = {item["release"]: item["vllm_data"] for item in index["releases"]}
    options = index["options"]
    table = tomllib.loads((DATA / "serve_flags.toml").read_text())["flag"]
    problems = []
    for flag in table:
        name, added, removed = flag["name"], flag.get("added_in"), flag.get("removed_in")
        if name == "--help":
            continue  # argparse's own
        if not added and not removed and "0.23.0" not in options.get(name, ()):
            problems.append(f"{name} is not an option of vLLM 0.23.0")
        if added:
            first = pairs[added]
            older = [v for v in index["vllm"] if Version(v) < Version(first)]
            if first not in options.get(name, ()) or (older and older[-1] in options.get(name, ())):
                problems.append(f"{name} added_in {added}: the parsers have it in {options.get(name)}")
        if removed and pairs[removed] in options.get(name, ()):
            problems.append(f"{name} removed_in {removed}: vLLM {pairs[removed]} still has it")
    assert not problems, problems


def test_hand_kept_vllm_sub_config_keys_exist_at_vllm_0_23_0():
    import tomllib

    facts = facts_for("v0.23.0")
    for table in tomllib.loads((DATA / "sub_configs.toml").read_text())["sub_config"]:
        if table["flag"] not in facts.sub_configs:
            continue  # --additional-config: vllm-ascend's, checked per tag
        sub = facts.sub_configs[table["flag"]]
        for key in table["keys"]:
            if key.get("removed_in") or key.get("added_in"):
                continue
            level, found = sub.keys, None
            for part in key["key"].split("."):
                found = level.get(part) if level is not None else None
                level = found.keys if found is not None else None
            assert found is not None, f"{table['flag']} {key['key']}"


def test_a_field_every_value_of_which_is_refused_is_unknown():
    # SpeculativeConfig.tensor_parallel_size: "not a valid argument in the speculative_config"
    text = f"""{MODEL} --speculative-config '{{"method": "mtp", "num_speculative_tokens": 1, "tensor_parallel_size": 2}}'\n"""
    for version in ("v0.23.0", "v0.25.1rc1"):
        assert errors(text, version, "QL105"), version


def test_hand_kept_env_table_agrees_with_the_extracted_env_reads():
    """env_vars.toml's removed_in for vLLM / vllm-ascend variables matches envs.py (and direct os.getenv
    reads) of every release; a variable it lists without removed_in is still read on main."""
    import tomllib

    from qlint.knowledge.base import parse_version

    releases = known_releases()
    problems = []
    for record in tomllib.loads((DATA / "env_vars.toml").read_text())["env"]:
        owner, name, removed = record["owner"], record["name"], record.get("removed_in")
        if owner not in ("vllm", "vllm-ascend"):
            continue
        def reads(tag):
            facts = facts_for(tag)
            return name in (facts.ascend_env if owner == "vllm-ascend" else facts.vllm_env)
        def defined(tag):  # in envs.py (a direct os.getenv may only warn that it is ignored now)
            facts = facts_for(tag)
            table = facts.ascend_env if owner == "vllm-ascend" else facts.vllm_env
            return name in table and not table[name].get("direct")
        present = [tag for tag in releases if reads(tag)]
        if not present:
            problems.append(f"{name}: read by no release")
        elif removed is None and "main" not in present:
            problems.append(f"{name}: not read on main, but no removed_in")
        elif removed is not None and owner == "vllm-ascend" and any(
                parse_version(tag) >= parse_version(removed) for tag in releases if defined(tag)):
            problems.append(f"{name}: removed_in {removed}, still read at {present[-1]}")
    assert not problems, problems


def test_a_release_has_a_data_file_exactly_when_the_index_lists_it():
    """nearest_release tells a known release by its file in ascend/ (without reading the index): the two agree."""
    import os

    from qlint.knowledge import releases

    files = sorted(name.removesuffix(".json") for name in os.listdir(os.path.join(releases._DATA_DIR, "ascend")))
    assert files == sorted(known_releases())
    release_index.cache_clear()
    try:
        assert releases.nearest_release("v0.23.0") == "v0.23.0" and release_index.cache_info().misses == 0
        assert releases.nearest_release("v0.23.0-a3") == "v0.23.0" and release_index.cache_info().misses == 1
        assert releases.nearest_release("V0.23.0") == "v0.23.0"  # the file's spelling, on any file system
    finally:
        release_index.cache_clear()


# -- the layouts: a run decodes only the records it reads -----------------------------

def _eager(release):
    from qlint.knowledge import releases

    _, ascend = releases._read_json(f"ascend/{release}.json")
    _, vllm = releases._read_json(f"vllm/{ascend['vllm_data']}.json")
    return release_data._build(release, release, ascend, vllm)


def test_the_layout_files_are_current():
    """knowledge/data/layout/ holds the layout of each release data file as it is today; when this fails
    after a change to knowledge/data, run ``python -m qlint.knowledge.compiled`` and commit."""
    from qlint.knowledge import releases

    written = release_data.layouts()
    committed = sorted(f"layout/{p.name}" for p in (DATA / "layout").glob("*.json"))
    assert committed == sorted(written), "run python -m qlint.knowledge.compiled and commit knowledge/data/layout"
    for name, body in written.items():
        assert (DATA / name).read_bytes() == body, f"knowledge/data/{name} is stale: run python -m qlint.knowledge.compiled"


@pytest.mark.parametrize("release", known_releases())
def test_facts_read_through_the_layouts_are_those_of_the_whole_files(release):
    from qlint.knowledge import releases

    lazy, eager = releases._release_facts(release), _eager(release)
    assert type(lazy.options) is releases._Table  # read through the layouts
    assert list(lazy.spellings.items()) == list(eager.spellings.items()) and lazy.long_names == eager.long_names
    for name in ("options", "sub_configs", "additional_config", "vllm_env", "ascend_env"):
        table, whole = getattr(lazy, name), getattr(eager, name)
        assert list(table) == list(whole) and dict(table.items()) == whole, name
        assert table.get("--no-such-thing") is None and "--no-such-thing" not in table
    assert list(lazy.validations) == eager.validations and len(lazy.validations) == len(eager.validations)
    for cls in {record.get("class") for record in eager.validations} | {"NoSuchConfig"}:
        assert lazy.validations_of(cls) == eager.validations_of(cls)
    assert lazy == eager


def _key_specs(spec):
    keys = [{name: getattr(key, name) for name in type(key).__slots__} for key in spec.keys]
    return (spec.flag, spec.closed, spec.source, spec.sources, spec.typed, spec.release.release, keys)


@pytest.mark.parametrize("release", known_releases())
def test_key_tables_written_with_the_layouts_are_those_built_from_the_records(release):
    """Each sub-config's key table the layout holds gives the option rules what they build from the release's
    records without it (keys, types, choices, ranges, sources, the keys a startup check rejects left out)."""
    from qlint.knowledge import releases
    from qlint.rules.kit import options

    lazy, eager = releases._release_facts(release), _eager(release)
    assert lazy.key_tables is not None and eager.key_tables is None
    names = list(eager.sub_configs)
    assert names and "--speculative-config" in names and "--compilation-config" in names
    held = 0
    for name in [*names, "--no-such-config", "--model"]:
        built, read = options._build_sub_config(eager, name), options._build_sub_config(lazy, name)
        assert (built is None) == (name not in names) and (read is None) == (built is None), name
        if built is not None:
            assert _key_specs(read) == _key_specs(built), name
            held += lazy.key_table(name) is not None
    assert held >= len(names) - 2  # (a class vllm-ascend checks too is built from the records)


def test_a_key_table_is_built_from_the_records_when_vllm_ascend_checks_its_class_too():
    from qlint.knowledge import releases

    lazy = releases._release_facts("v0.23.0")
    table = lazy.key_tables
    assert lazy.key_table("--speculative-config")[4] == "SpeculativeConfig"
    table._ascend_classes = {"SpeculativeConfig"}
    try:
        assert lazy.key_table("--speculative-config") is None and lazy.key_table("--compilation-config") is not None
    finally:
        table._ascend_classes = None


def test_key_rows_leave_out_rejected_keys_with_what_they_nest():
    from qlint.knowledge import releases

    keys = {item["key"]: releases._key(item) for item in [
        {"key": "a", "type": "int", "source": "s", "range": {"gt": 0, "le": None}, "range_sources": ["r"]},
        {"key": "b", "type": "dict", "source": "s", "keys": [{"key": "c", "type": "bool", "source": "t"}]},
        {"key": "m", "type": "any", "source": "s", "enum": ["X", "Y"], "enum_by_name": True},
        {"key": "d", "type": "dict", "source": "s", "keys": [{"key": "e", "type": "str", "source": "t"}]}]}
    assert releases.key_rows(keys, {"d"}) == [
        ["a", "int", [], [], {"gt": 0}, "s", False, ["r"]], ["b", "dict", [], [], {}, "s", False, []],
        ["b.c", "bool", [], [], {}, "t", False, []], ["m", "any", ["X", "Y"], ["X", "Y"], {}, "s", True, []]]
    assert releases.rejected_fields([{"message": "x is not a valid argument", "condition": "self.d is not None"},
                                     {"message": "bad", "condition": "self.a is not None"}]) == {"d"}


def test_a_layout_of_other_bytes_is_not_used(monkeypatch):
    from qlint.knowledge import releases

    data = (DATA / "vllm" / "0.23.0.json").read_bytes()
    from binascii import crc32

    assert releases._layout("vllm/0.23.0.json", data, crc32(data)) is not None
    edited = data.replace(b'"--tensor-parallel-size"', b'"--tensor-parallel-sizes"', 1)
    assert releases._layout("vllm/0.23.0.json", edited, crc32(edited)) is None
    assert releases._layout("vllm/0.23.0.json", data + b" ", crc32(data + b" ")) is None
    monkeypatch.setattr(releases, "_layout", lambda *_: None)  # no layout: the whole files are read
    releases._release_facts.cache_clear()
    try:
        whole = releases._release_facts("v0.23.0")
        assert type(whole.options) is dict and whole == _eager("v0.23.0")
    finally:
        releases._release_facts.cache_clear()


def test_layout_of_places_every_record():
    from qlint.knowledge import releases

    data = '{"options": [{"name": "--a", "aliases": ["-a"]}, {"name": "--b\u00e9", "aliases": []}],\n "x": {"keys": []},'\
           ' "additional_config": {"closed": true, "keys": [ {"key": "k"} ]}, "validations": []}'.encode()
    layout = release_data.layout_of(data)

    def spans(laid):
        return {name: data.__getitem__(slice(*releases._span(laid, at)))
                for at, name in enumerate(releases._split(laid["labels"]))}

    options = spans(layout["records"]["options"])
    assert json.loads(options["--a"])["aliases"] == ["-a"] and json.loads(options["--b\u00e9"])["name"] == "--b\u00e9"
    assert layout["records"]["validations"] == {"labels": "", "spans": "", "width": 1}
    assert layout["spellings"] == "--a -a --b\u00e9 --help -h" and layout["spelled"] == {"-a": "--a", "-h": "--help"}
    assert releases._split(layout["long_names"]) == ["--a", "--b\u00e9", "--help"]
    assert spans(layout["records"]["additional_config.keys"]) == {"k": b'{"key": "k"}'}
    start, end = layout["values"]["x"]
    assert json.loads(data[start:end]) == {"keys": []}


@pytest.mark.parametrize("names", [[], ["a"], ["a", "b c"], [""], [None], ["a", None], ["a\nb"], ["a", ""]])
def test_names_are_joined_so_that_they_split_back(names):
    from qlint.knowledge import releases

    joined = release_data._joined(names)
    assert releases._split(json.loads(json.dumps(joined))) == names
