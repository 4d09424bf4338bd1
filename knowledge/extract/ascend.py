"""One vllm-ascend revision's facts from the git mirror: paired vLLM, additional-config keys, env vars, checks.

``--additional-config`` is a plain dict; vllm-ascend reads it with ``additional_config.get("key", default)``
(``vllm_ascend/ascend_config.py`` and elsewhere), so unknown top-level keys are ignored. A nested section
is handed to a class: ``Section(section_dict, ...)`` reads ``section_dict.get("key")`` (unknown keys
ignored), while ``Section(**section_dict)`` turns every key into a keyword argument, so an unknown key
is a TypeError at startup unless ``__init__`` takes ``**kwargs``.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from qlint.knowledge.extract.pyast import Module, is_literal, jsonable, literal, parse_module, raises_in
from qlint.knowledge.extract.sources import GitTree
from qlint.knowledge.extract.vllm_configs import read_env_vars

SCHEMA = 1
_VLLM_TAG = re.compile(r"^ARG VLLM_TAG=(\S+)", re.M)


def paired_vllm(tree: GitTree) -> tuple[str | None, str | None]:
    """The vLLM tag the revision's Dockerfile builds (``ARG VLLM_TAG=v0.25.1``) and its URL."""
    text = tree.text("Dockerfile")
    if text is None:
        return None, None
    match = _VLLM_TAG.search(text)
    if match is None:
        return None, None
    line = text[: match.start()].count("\n") + 1
    return match.group(1), tree.url("Dockerfile", line)


def _is_additional(node: ast.expr) -> bool:
    text = ast.unparse(node)
    return text == "additional_config" or text.endswith(".additional_config") or text.endswith("additional_config or {}")


class SectionReader:
    def __init__(self, tree: GitTree, modules: dict[str, Module], unread: list[str]):
        self.tree = tree
        self.modules = modules
        self.unread = unread

    def find_class(self, name: str, near: str) -> tuple[Module, ast.ClassDef] | None:
        order = [near] + [p for p in self.modules if p != near]
        for path in order:
            module = self.modules.get(path)
            if module is not None and name in module.classes:
                return module, module.classes[name].node
        return None

    # -- one dict and the keys read from it ----------------------------------------------
    def keys_read(self, scope: ast.AST, module: Module, is_dict, depth: int) -> dict[str, dict]:
        """Keys read from the dict(s) ``is_dict`` recognises inside ``scope``; nested sections followed."""
        keys: dict[str, dict] = {}
        bound: dict[str, str] = {}  # local variable -> key whose section dict it holds

        def add(key: str, node: ast.expr | ast.stmt, default: Any = None, has_default: bool = False) -> dict:
            record = keys.setdefault(key, {"key": key, "source": self.tree.url(module.path, node.lineno)})
            if has_default and "default" not in record:
                value = literal(default) if default is not None else None
                if value is None or is_literal(value):
                    record["default"] = jsonable(value)
                    if isinstance(value, bool):
                        record["type"] = "bool"
                    elif isinstance(value, int):
                        record["type"] = "int"
                    elif isinstance(value, float):
                        record["type"] = "float"
                    elif isinstance(value, str):
                        record["type"] = "str"
                    elif isinstance(value, dict):
                        record["type"] = "dict"
                    elif isinstance(value, list):
                        record["type"] = "list"
            return record

        for node in ast.walk(scope):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                    and is_dict(node.func.value) and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                add(node.args[0].value, node, node.args[1] if len(node.args) > 1 else None, True)
            elif isinstance(node, ast.Subscript) and is_dict(node.value) and isinstance(node.slice, ast.Constant) \
                    and isinstance(node.slice.value, str):
                add(node.slice.value, node)
            elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                    and is_dict(node.comparators[0]) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
                add(node.left.value, node)
            elif isinstance(node, ast.Call):
                # helper(additional_config, "key", ...): a key read through a helper
                for position, arg in enumerate(node.args[:-1]):
                    following = node.args[position + 1]
                    if is_dict(arg) and isinstance(following, ast.Constant) and isinstance(following.value, str):
                        add(following.value, node)
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], (ast.Name, ast.Attribute)):
                value = node.value
                if isinstance(value, ast.BoolOp) and value.values:
                    value = value.values[0]
                if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "get" \
                        and is_dict(value.func.value) and value.args and isinstance(value.args[0], ast.Constant):
                    bound[ast.unparse(node.targets[0])] = str(value.args[0].value)
        # sections handed to classes
        for node in ast.walk(scope):
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func).split(".")[-1]
            if not name[:1].isupper():
                continue  # isinstance(section, dict), len(...): not a section class
            for position, arg in enumerate(node.args):
                text = ast.unparse(arg)
                if text in bound:
                    self._section(keys, bound[text], name, module, position, False, depth)
            for keyword in node.keywords:
                text = ast.unparse(keyword.value)
                if keyword.arg is None and text in bound:
                    self._section(keys, bound[text], name, module, 0, True, depth)
                elif keyword.arg is not None and text in bound:
                    self._section(keys, bound[text], name, module, keyword.arg, False, depth)
        return keys

    def _section(self, keys: dict, key: str, class_name: str, module: Module, position, star: bool, depth: int) -> None:
        if depth > 4:
            return
        found = self.find_class(class_name, module.path)
        record = keys.setdefault(key, {"key": key, "source": self.tree.url(module.path, 1)})
        record["type"] = "dict"
        if found is None:
            self.unread.append(f"{module.path}: section {key} read by {class_name}, class not found")
            return
        owner, cls = found
        init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        record["class"] = class_name
        record["class_source"] = self.tree.url(owner.path, cls.lineno)
        if init is None:
            # a dataclass / pydantic model built from the dict
            fields = [n for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
            record["keys"] = [{"key": f.target.id, "source": self.tree.url(owner.path, f.lineno)} for f in fields]  # type: ignore[union-attr]
            record["closed"] = star or "forbid" in owner.segment(cls)
            return
        params = [a.arg for a in init.args.args[1:]]
        if star:
            names = params + [a.arg for a in init.args.kwonlyargs]
            defaults = dict(zip(reversed(init.args.args[1:]), reversed(init.args.defaults)))
            nested = []
            for arg in init.args.args[1:] + init.args.kwonlyargs:
                entry: dict[str, Any] = {"key": arg.arg, "source": self.tree.url(owner.path, arg.lineno)}
                if arg in defaults:
                    value = literal(defaults[arg])
                    if is_literal(value):
                        entry["default"] = jsonable(value)
                nested.append(entry)
            del names
            record["keys"] = nested
            record["closed"] = init.args.kwarg is None
            record["closed_source"] = self.tree.url(owner.path, init.lineno)
        else:
            param: str | None
            if isinstance(position, str):
                param = position
            else:
                param = params[position] if position < len(params) else None
            if param is None:
                return
            nested_keys = self.keys_read(init, owner, lambda node, p=param: ast.unparse(node) in (p, f"({p} or {{}})"), depth + 1)
            if not nested_keys:
                # handed over whole but never read as a dict (DumpConfig(dump_config_path: str)): not a section
                given = next((a for a in init.args.args if a.arg == param), None)
                annotation = ast.unparse(given.annotation) if given is not None and given.annotation is not None else ""
                record["type"] = "str" if "str" in annotation else ("dict" if "dict" in annotation else "any")
                return
            record["keys"] = sorted(nested_keys.values(), key=lambda k: k["key"])
            record["closed"] = False
        record["validations"] = [
            {"message": item.message, "error": item.kind, "source": self.tree.url(owner.path, item.line)}
            for item in raises_in(init, owner)
        ]


def additional_config(tree: GitTree, unread: list[str]) -> dict[str, Any]:
    paths = [p for p in tree.paths("vllm_ascend/") if p.endswith(".py")]
    modules: dict[str, Module] = {}
    for path in paths:
        text = tree.text(path) or ""
        if "additional_config" not in text and "class " not in text[:0]:
            continue
        module = parse_module(path, text)
        if module is None:
            unread.append(f"{path}: does not parse")
            continue
        modules[path] = module
    # every module that defines section classes is needed too: ascend_config.py is the main one
    reader = SectionReader(tree, modules, unread)
    keys: dict[str, dict] = {}
    ordered = sorted(modules, key=lambda p: (p != "vllm_ascend/ascend_config.py", p))
    for path in ordered:
        found = reader.keys_read(modules[path].tree, modules[path], _is_additional, 0)
        for key, record in found.items():
            if key in keys:
                keys[key].setdefault("also_read", []).append(record["source"])
                for field in ("type", "keys", "closed", "class", "class_source", "closed_source", "validations"):
                    if field in record and field not in keys[key]:
                        keys[key][field] = record[field]
            else:
                keys[key] = record
    source = tree.url("vllm_ascend/ascend_config.py", 1) if "vllm_ascend/ascend_config.py" in modules else None
    return {"closed": False, "source": source, "keys": [keys[k] for k in sorted(keys)]}


def ascend_validations(tree: GitTree) -> list[dict]:
    path = "vllm_ascend/ascend_config.py"
    module = parse_module(path, tree.text(path) or "")
    found: list[dict] = []
    if module is None:
        return found
    for cls in module.classes.values():
        for node in cls.node.body:
            if isinstance(node, ast.FunctionDef):
                for item in raises_in(node, module):
                    found.append({"class": cls.name, "function": node.name, "error": item.kind,
                                  "message": item.message, "source": tree.url(path, item.line),
                                  **({"condition": item.condition[:300]} if item.condition else {})})
    return found


_CHOICE_ADD = re.compile(r"""_option_string_actions\.get\(\s*["'](--[a-z-]+)["']\s*\)""")


def cli_changes(tree: GitTree, unread: list[str]) -> list[dict]:
    """Options whose argparse choices vllm-ascend extends (``quant_action.choices.append(...)``)."""
    changes = []
    path = "vllm_ascend/platform.py"
    text = tree.text(path) or ""
    for match in _CHOICE_ADD.finditer(text):
        after = text[match.end(): match.end() + 600]
        added = re.search(r"\.choices\.append\((\w+)\)", after)
        if not added:
            continue
        name = added.group(1)
        value = _constant(tree, name)
        if value is None:
            unread.append(f"{path}: constant {name} not found")
            continue
        line = text[: match.start()].count("\n") + 1
        changes.append({"option": match.group(1), "add_choices": [value], "source": tree.url(path, line)})
    return changes


def _constant(tree: GitTree, name: str) -> str | None:
    pattern = re.compile(rf"^{name}\s*(?::\s*\w+)?\s*=\s*[\"']([^\"']+)[\"']", re.M)
    for path in ("vllm_ascend/utils.py", "vllm_ascend/platform.py", "vllm_ascend/quantization/quant_config.py",
                 "vllm_ascend/quantization/utils.py"):
        match = pattern.search(tree.text(path) or "")
        if match:
            return match.group(1)
    for path in tree.paths("vllm_ascend/"):
        if path.endswith(".py"):
            match = pattern.search(tree.text(path) or "")
            if match:
                return match.group(1)
    return None


_DIRECT_ENV = re.compile(r"""os\.(?:getenv|environ\.get)\(\s*["']([A-Z][A-Z0-9_]+)["']|os\.environ\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\]""")


def direct_env_reads(tree: GitTree, known: set[str]) -> list[dict]:
    """Variables vllm_ascend reads with os.getenv / os.environ outside envs.py (``EXPERT_MAP_RECORD``)."""
    found: dict[str, dict] = {}
    for path in tree.paths("vllm_ascend/"):
        if not path.endswith(".py") or path == "vllm_ascend/envs.py":
            continue
        text = tree.text(path) or ""
        if "os." not in text:
            continue
        for match in _DIRECT_ENV.finditer(text):
            name = match.group(1) or match.group(2)
            if name in known or name in found:
                continue
            line = text[: match.start()].count("\n") + 1
            found[name] = {"name": name, "source": tree.url(path, line), "direct": True}
    return [found[name] for name in sorted(found)]


def extract_ascend(repo: str, rev: str) -> dict[str, Any]:
    probe = GitTree(repo, rev)
    pin = rev if rev.startswith("v") else probe.commit
    tree = GitTree(repo, rev, pin=pin)
    unread: list[str] = []
    vllm_tag, vllm_source = paired_vllm(tree)
    if vllm_tag is None:
        unread.append("Dockerfile: no ARG VLLM_TAG")
    env_vars = read_env_vars(tree, "vllm_ascend/envs.py", unread)
    env_vars += direct_env_reads(tree, {record["name"] for record in env_vars})
    return {
        "schema": SCHEMA,
        "project": "vllm-ascend",
        "release": rev if rev.startswith("v") else "main",
        "ref": pin,
        "commit": tree.commit,
        "vllm": vllm_tag,
        "vllm_source": vllm_source,
        "additional_config": additional_config(tree, unread),
        "cli_changes": cli_changes(tree, unread),
        "env_vars": env_vars,
        "validations": ascend_validations(tree),
        "unread": sorted(set(unread)),
    }
