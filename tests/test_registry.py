"""The rule registry and rule selection: every rule module is registered, rules
carry groups that selectors, ``qlint rules`` and the docs use, disabled rules do
not run, and each file of a deployment is analysed once."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from qlint.linter.catalog import all_rules, match_selector
from qlint.linter.lint import Policy, lint_text
from qlint.rules.graph import RuleGraph, Settings
from qlint.rules.groups import GROUPS

from conftest import FIXTURES, invoke as cli

ROOT = Path(__file__).resolve().parent.parent
RULE_MODULES = sorted((ROOT / "rules").glob("*.py"))
A3 = Settings(hardware="a3", version="v0.23.0")


def defined_rule_ids(source: str) -> tuple[set[str], list[int]]:
    """Rule ids a module defines statically (``RuleMeta(id="QL...")`` or a ``dict(id="QL...")``
    of RuleMeta fields), and the lines of RuleMeta calls whose id is not a literal."""
    ids: set[str] = set()
    opaque: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        if node.func.id not in ("RuleMeta", "dict"):
            continue
        literal = [k.value.value for k in node.keywords
                   if k.arg == "id" and isinstance(k.value, ast.Constant) and str(k.value.value).startswith("QL")]
        if literal:
            ids.update(literal)
        elif node.func.id == "RuleMeta" and not any(k.arg is None for k in node.keywords):
            opaque.append(node.lineno)
    return ids, opaque


def registered_ids_in_fresh_process() -> set[str]:
    """What production registers: only what ``rules/registry.py`` imports (no test imports)."""
    code = ("import json; from qlint.rules import registry; from qlint.rules.graph import RULES; "
            "print(json.dumps(sorted(RULES)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return set(json.loads(done.stdout))


def test_the_scanner_sees_a_rule_definition():
    ids, opaque = defined_rule_ids('META = RuleMeta(id="QL998", name="x")\nOTHER = RuleMeta(id=make_id())\n')
    assert ids == {"QL998"} and opaque == [2]


def test_every_rule_defined_under_rules_is_registered():
    defined: dict[str, str] = {}
    for path in RULE_MODULES:
        ids, opaque = defined_rule_ids(path.read_text(encoding="utf-8"))
        assert not opaque, f"{path.name}: RuleMeta at line(s) {opaque} has no literal id"
        defined.update({rule_id: path.name for rule_id in ids})
    registered = registered_ids_in_fresh_process()
    missing = sorted(f"{rule_id} ({module})" for rule_id, module in defined.items() if rule_id not in registered)
    assert not missing, f"defined but not registered (add the module to rules/registry.py): {missing}"
    assert len(defined) > 50  # the scan found the rules at all


def test_every_rule_has_known_groups_and_every_group_has_rules():
    rules = all_rules()
    assert all(meta.groups and set(meta.groups) <= set(GROUPS) for meta in rules)
    empty = [group for group in GROUPS if not any(group in meta.groups for meta in rules)]
    assert not empty, f"groups with no rule: {empty}"
    names = {meta.name for meta in rules} | {meta.id.lower() for meta in rules}
    assert not names & set(GROUPS), "a group name must not be a rule name"


def test_a_rule_without_a_group_is_refused():
    from qlint.knowledge.text import Text
    from qlint.rules.base import RuleMeta

    fields = dict(id="QL998", name="x", severity="info", title=Text(en="x", zh="x"), why=Text(en="x", zh="x"),
                  sources=("https://github.com/vllm-project/vllm-ascend/blob/v0.23.0/README.md",))
    with pytest.raises(ValueError, match="at least one group"):
        RuleMeta(**fields)
    with pytest.raises(ValueError, match="unknown group"):
        RuleMeta(**fields, groups=("nonsense",))


def test_pd_group_holds_the_kv_transfer_field_rules():
    pd = {meta.id for meta in match_selector("pd")}
    assert {"QL531", "QL532", "QL533", "QL601", "QL610", "QL611", "QL614", "QL505"} <= pd
    assert "QL201" not in pd


def test_selectors_accept_groups_next_to_ids_names_and_prefixes():
    memory = {meta.id for meta in match_selector("memory")}
    assert "QL310" in memory and "QL521" in memory and "QL201" not in memory
    assert {m.id for m in match_selector("MEMORY")} == memory
    assert [m.id for m in match_selector("QL206")] == ["QL206"]
    assert [m.id for m in match_selector("tp-divides-heads")] == ["QL206"]
    assert {m.id for m in match_selector("QL2")} >= {"QL201", "QL208"}
    assert match_selector("no-such-group") == []


TWO_FAULTS = ("vllm serve Eco-Tech/Qwen3.6-27B-w8a8 --quantization ascend --tensor-parallel-size 3 "
              "--max-model-len 100000000\n")


def reported(result):
    return {finding["rule"] for finding in json.loads(result.output)}


def test_select_and_ignore_by_group_on_the_command_line(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text(TWO_FAULTS)
    common = [str(script), "--hardware", "a3", "--vllm-ascend-version", "v0.23.0", "--format", "json"]
    everything = reported(cli(common))
    assert "QL206" in everything and "QL301" in everything
    only_parallelism = reported(cli([*common, "--select", "parallelism"]))
    assert "QL206" in only_parallelism and "QL301" not in only_parallelism
    assert only_parallelism <= {m.id for m in match_selector("parallelism")}
    without = reported(cli([*common, "--ignore", "parallelism,QL301"]))
    assert "QL206" not in without and "QL301" not in without
    bad = cli([*common, "--select", "paralelism"])
    assert bad.exit_code == 2 and "'paralelism' names no rule" in bad.output


def test_select_by_group_in_the_configuration(tmp_path):
    (tmp_path / ".qlint.toml").write_text('select = ["scheduling"]\n')
    script = tmp_path / "run.sh"
    script.write_text(TWO_FAULTS)
    found = reported(cli([str(script), "--hardware", "a3", "--vllm-ascend-version", "v0.23.0", "--format", "json"]))
    assert "QL301" in found and "QL206" not in found


def test_rules_listing_shows_and_filters_groups():
    listing = cli(["rules", "--format", "json"])
    rows = json.loads(listing.output)
    assert {row["id"]: row["groups"] for row in rows}["QL531"] == ["kv-transfer", "pd"]
    text = cli(["rules", "memory"]).output.splitlines()
    assert text and all(" memory" in line or ",memory" in line for line in text)
    assert any(line.startswith("QL310 ") for line in text) and not any(line.startswith("QL201 ") for line in text)
    assert cli(["rules", "nothing-like-this"]).exit_code == 2


@pytest.fixture
def ran(monkeypatch):
    """Ids of the rules whose check function runs (serve, script and deployment scope)."""
    seen: list[str] = []
    original = RuleGraph._run_step

    def spy(self, step, scope):
        seen.append(step.id)
        return original(self, step, scope)

    monkeypatch.setattr(RuleGraph, "_run_step", spy)
    return seen


def test_disabled_rules_do_not_run(ran):
    result = lint_text("run.sh", TWO_FAULTS, settings=A3, policy=Policy(enabled=frozenset({"QL206"})))
    assert [f.rule.id for f in result.findings] == ["QL206"]
    assert set(ran) == {"QL206"}
    ran.clear()
    lint_text("run.sh", TWO_FAULTS, settings=A3)
    assert len(set(ran)) > 20  # without a selection every rule runs


def test_disabled_deployment_rules_do_not_run(tmp_path, ran):
    for name in ("s003_pd_run_p.sh", "s003_pd_run_d0.sh"):
        (tmp_path / name).write_text((FIXTURES / "seeds" / name).read_text())
    cli([str(tmp_path), "--select", "QL206", "--hardware", "a3", "--vllm-ascend-version", "v0.22.1rc1"])
    assert set(ran) == {"QL206"}


def test_each_file_of_a_deployment_is_analysed_once(tmp_path, monkeypatch):
    import qlint.linter.lint as lint_module

    planned: list[str] = []
    build_plan = lint_module.build_plan

    def counting(kb, parsed):
        planned.append(parsed.source.path)
        return build_plan(kb, parsed)

    monkeypatch.setattr(lint_module, "build_plan", counting)
    names = ("s003_pd_run_p.sh", "s003_pd_run_d0.sh", "s003_pd_run_d1.sh", "s003_pd_proxy.sh")
    for name in names:
        text = (FIXTURES / "seeds" / name).read_text()
        if name == "s003_pd_run_d0.sh":
            text = text.replace("--served-model-name qwen3.5", "--served-model-name qwen")
        (tmp_path / name).write_text(text)
    done = cli([str(tmp_path), "--format", "json", "--hardware", "a3", "--vllm-ascend-version", "v0.22.1rc1"])
    findings = json.loads(done.output)
    assert any(f["rule"] == "QL611" and f["path"].endswith("s003_pd_run_d0.sh") for f in findings)
    assert sorted(Path(p).name for p in planned) == sorted(names)


def test_a_deployment_finding_can_be_suppressed_in_the_file_it_blames(tmp_path):
    names = ("s003_pd_run_p.sh", "s003_pd_run_d0.sh", "s003_pd_run_d1.sh", "s003_pd_proxy.sh")
    for name in names:
        text = (FIXTURES / "seeds" / name).read_text()
        if name == "s003_pd_run_d0.sh":
            text = "# qlint: disable-file=QL611 -- renamed on purpose\n" + text.replace(
                "--served-model-name qwen3.5", "--served-model-name qwen")
        (tmp_path / name).write_text(text)
    done = cli([str(tmp_path), "--format", "json", "--hardware", "a3", "--vllm-ascend-version", "v0.22.1rc1"])
    rules = {f["rule"] for f in json.loads(done.output)}
    assert "QL611" not in rules and "QL901" not in rules


def test_faq_entries_say_what_they_are_about_in_known_terms(kb):
    model_ids = {model.id for model in kb.models}
    for entry in kb.faqs:
        assert set(entry.models) <= model_ids, entry.id
        assert set(entry.groups) <= set(GROUPS), entry.id
    linked = {meta.faq for meta in all_rules() if meta.faq}
    assert linked <= set(kb.faq_index)


def _guide(kb, model_id, hardware_id):
    from qlint.docgen.guides import guides

    return next(g for g in guides(kb) if g.model.id == model_id and g.hardware.id == hardware_id)


def test_guides_list_the_pd_group_and_pick_faq_by_metadata(kb):
    from qlint.docgen.guides import faq_for, render_guide

    pd_rules = [m.id for m in match_selector("pd") if "310p" not in m.groups]
    guide = _guide(kb, "Qwen3.5-27B", "a3")
    page = render_guide(kb, guide, "en", "myst", kb.latest_stable.tag)
    section = page[page.index("Rules that check PD deployments"):]
    for rule_id in pd_rules:
        assert f"[{rule_id}]" in section, rule_id
    chosen = {entry.id for entry in faq_for(kb, guide)}
    assert {"qwen35-27b-pd-deployment", "kv-port-range", "oom"} <= chosen
    assert not {"qwen35-397b-oom", "atlas-300i-duo-deployment"} & chosen


def test_guides_on_hardware_without_pd_list_only_the_refusal(kb):
    from qlint.docgen.guides import faq_for, guides, render_guide

    guide = next(g for g in guides(kb) if not g.hardware.supports_pd)
    page = render_guide(kb, guide, "en", "myst", kb.latest_stable.tag)
    section = page[page.index("Rules that check PD deployments"):]
    assert "[QL505]" in section and "[QL601]" not in section and "[QL531]" not in section
    chosen = {entry.id for entry in faq_for(kb, guide)}
    assert "atlas-300i-duo-deployment" in chosen and not any("pd" in kb.faq_index[i].groups for i in chosen)
