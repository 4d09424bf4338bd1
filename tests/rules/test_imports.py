"""Rule modules depend on the shared layer only: a rule family never imports another family.

Read statically (AST) over rules/*.py: a family module may import ``qlint.rules.base``
(metadata, findings), ``groups`` (rule groups), ``graph`` (check, fact, Scope), ``plan`` / ``local_model`` (the plan's
types), ``kit`` (reading the plan, building fixes, release and message helpers) and the facts
modules (``facts``, ``facts_*``: they register facts, never rules); only ``registry`` imports the
families (to register them), and ``index`` reads them through it (to write the rule index).
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "rules"
SHARED = {"base", "graph", "groups", "plan", "local_model", "kit"}


def _shared(name: str) -> bool:
    return name in SHARED or name == "facts" or name.startswith("facts_")


def _rule_imports(path: Path) -> set[str]:
    """The ``qlint.rules`` submodules a module imports (``kit.read`` counts as ``kit``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "qlint.rules":
                found.update(alias.name for alias in node.names)
            elif node.module.startswith("qlint.rules."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[2] for a in node.names if a.name.startswith("qlint.rules."))
    return found


def test_rule_families_import_only_the_shared_layer():
    offenders = {}
    for path in sorted(ROOT.glob("*.py")):
        if _shared(path.stem) or path.stem in ("registry", "index", "__init__"):
            continue
        siblings = {name for name in _rule_imports(path) if not _shared(name)}
        if siblings:
            offenders[path.name] = sorted(siblings)
    assert not offenders, f"rule modules importing other rule families: {offenders}"


def test_the_shared_layer_imports_no_family():
    offenders = {}
    for path in sorted(ROOT.glob("*.py")) + sorted((ROOT / "kit").glob("*.py")):
        if path.stem in ("registry", "index") or (path.parent == ROOT and not _shared(path.stem)):
            continue
        families = {name for name in _rule_imports(path) if not _shared(name)} - {"registry", "index"}  # default_graph loads them
        if families:
            offenders[str(path.relative_to(ROOT))] = sorted(families)
    assert not offenders, f"shared modules importing rule families: {offenders}"


def test_the_check_sees_a_sibling_import(tmp_path):
    module = tmp_path / "family.py"
    module.write_text("from qlint.rules.platform_310p import at_version\nfrom qlint.rules import kit, memory\n")
    assert _rule_imports(module) == {"platform_310p", "kit", "memory"}


def test_facts_modules_register_facts_only():
    for path in sorted(ROOT.glob("facts*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        checks = [node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                  and any(isinstance(d, ast.Call) and getattr(d.func, "id", "") == "check" for d in node.decorator_list)]
        assert not checks, f"{path.name} registers rules {checks}: rules belong in a family module"
