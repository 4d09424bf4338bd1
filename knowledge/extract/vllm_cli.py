"""The options of ``vllm serve`` read from a vLLM source tree (AST of ``add_argument`` calls).

vLLM builds its parser in ``EngineArgs.add_cli_args`` / ``AsyncEngineArgs.add_cli_args``
(``vllm/engine/arg_utils.py``), ``make_arg_parser`` and the ``FrontendArgs`` classes
(``vllm/entrypoints/openai/cli_args.py``) and the ``serve`` subcommand
(``vllm/entrypoints/cli/serve.py``). Most options are dataclass fields turned into
argparse keyword arguments by ``get_kwargs(ConfigClass)``: ``**model_kwargs["dtype"]``.
This module follows the same steps statically: the field's annotation gives the type
(bool -> ``--x/--no-x``, Literal -> choices, dataclass -> JSON, list -> nargs ``+``),
its default and ``Field(gt=..., le=...)`` give the default and the range.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from qlint.knowledge.extract.pyast import (
    ClassInfo,
    FieldInfo,
    Index,
    Module,
    TypeInfo,
    class_fields,
    is_literal,
    jsonable,
    literal,
    read_type,
)

ARG_FILES = (
    "vllm/engine/arg_utils.py",
    "vllm/entrypoints/openai/cli_args.py",
    "vllm/entrypoints/cli/serve.py",
)


@dataclass
class Option:
    name: str
    aliases: list[str]
    kind: str  # bool | int | float | str | json | list | choice
    path: str
    line: int
    choices: list[str] = field(default_factory=list)
    default: Any = None
    negatable: bool = False
    nargs: str | None = None
    parser: str | None = None  # human_readable_int | human_readable_int_or_auto
    ranges: dict[str, Any] = field(default_factory=dict)
    field_ref: dict | None = None  # {"class", "field", "path", "line"}
    sub_config: str | None = None  # dataclass name for JSON options
    deprecated: bool = False
    optional_value: bool = False
    enum: list[str] = field(default_factory=list)
    choices_open: bool = False

    def record(self, tree) -> dict:
        data: dict[str, Any] = {
            "name": self.name,
            "aliases": self.aliases,
            "kind": self.kind,
            "source": tree.url(self.path, self.line),
        }
        if self.choices:
            data["choices"] = self.choices
        if self.default is not None:
            data["default"] = jsonable(self.default)
        if self.negatable:
            data["negatable"] = True
        if self.nargs:
            data["nargs"] = self.nargs
        if self.parser:
            data["parser"] = self.parser
        if self.ranges:
            data["range"] = {key: self.ranges[key] for key in sorted(self.ranges)}
        if self.field_ref:
            data["field"] = f"{self.field_ref['class']}.{self.field_ref['field']}"
            data["field_source"] = tree.url(self.field_ref["path"], self.field_ref["line"])
        if self.sub_config:
            data["sub_config"] = self.sub_config
        if self.deprecated:
            data["deprecated"] = True
        if self.optional_value:
            data["optional_value"] = True
        if self.enum:
            data["enum"] = self.enum
        if self.choices_open and self.choices:
            data["choices_open"] = True
        return data


@dataclass
class Context:
    index: Index
    tree: Any
    unread: list[str]
    negatable_bools: bool = True
    pydantic_parse: bool = False  # JSON sub-configs parsed with TypeAdapter(cls).validate_json
    human: dict[str, str] = field(default_factory=dict)  # field name -> parser function


def field_kind(item: FieldInfo, ctx: Context) -> dict[str, Any]:
    """argparse kwargs a field gets from get_kwargs, as qlint records them (mirrors _compute_kwargs)."""
    info: TypeInfo = item.type
    names = info.names - {"None"}
    result: dict[str, Any] = {}
    if info.dataclasses:
        result["kind"] = "json"
        result["sub_config"] = info.dataclasses[0].name
    elif names == {"bool", "str"}:
        result["kind"] = "str"
        result["optional_value"] = True
    elif "bool" in names:
        result["kind"] = "bool"
        result["negatable"] = ctx.negatable_bools
    elif info.literals:
        result["kind"] = "choice"
        result["choices"] = [str(v) for v in info.literals]
        if "str" in names:  # Literal[...] | str: other values may be registered at run time
            result["choices_open"] = True
    elif names & {"tuple", "list", "set"}:
        result["kind"] = "list"
        result["nargs"] = "+"
        if info.element_literals:
            result["choices"] = [str(v) for v in info.element_literals]
    elif "int" in names:
        result["kind"] = "int"
        if item.name in ctx.human:
            result["parser"] = ctx.human[item.name]
    elif "float" in names:
        result["kind"] = "float"
    elif "dict" in names:
        result["kind"] = "json"
    else:
        result["kind"] = "str"
        if info.enums and len(names) == 1:
            result["enum"] = list(info.enums.values())[0]
    if "None" in info.names and result.get("choices") and result["kind"] == "choice":
        result["choices"] = result["choices"] + ["None"]
    return result


def _kwargs_source(call: ast.Call) -> list[tuple[ast.expr, str]]:
    """The ``**X["field"]`` / ``**value`` parts of an add_argument call: (dict expr, field or '')."""
    parts = []
    for keyword in call.keywords:
        if keyword.arg is not None:
            continue
        value = keyword.value
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant):
            parts.append((value.value, str(value.slice.value)))
        elif isinstance(value, ast.Dict):  # **{**kwargs["x"], "default": ...}
            for key, inner in zip(value.keys, value.values):
                if key is None and isinstance(inner, ast.Subscript) and isinstance(inner.slice, ast.Constant):
                    parts.append((inner.value, str(inner.slice.value)))
        else:
            parts.append((value, ""))
    return parts


class Reader:
    """Reads every ``add_argument`` call that builds the ``vllm serve`` parser."""

    def __init__(self, tree, index: Index, unread: list[str]):
        self.tree = tree
        self.index = index
        self.ctx = Context(index=index, tree=tree, unread=unread)
        self.options: dict[str, Option] = {}
        self.order: list[str] = []
        self._prepare()

    # -- the get_kwargs conventions of this release ---------------------------------
    def _prepare(self) -> None:
        module = self.index.modules.get("vllm/engine/arg_utils.py")
        if module is None:
            self.ctx.unread.append("vllm/engine/arg_utils.py: missing")
            return
        for node in ast.walk(module.tree):
            if isinstance(node, ast.FunctionDef) and node.name in ("get_kwargs", "_compute_kwargs"):
                text = module.segment(node)
                if "BooleanOptionalAction" not in text and "store_true" in text:
                    self.ctx.negatable_bools = False
                if "TypeAdapter" in text:
                    self.ctx.pydantic_parse = True
                sets = {}  # human_readable_int_args = {"max_num_batched_tokens", ...}
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name) \
                            and isinstance(inner.value, (ast.Set, ast.Tuple, ast.List)):
                        sets[inner.targets[0].id] = [e.value for e in inner.value.elts
                                                     if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                for inner in ast.walk(node):
                    if not isinstance(inner, ast.If):
                        continue
                    names = _compared_names(inner.test, sets)
                    if not names:
                        continue
                    body = "\n".join(ast.unparse(stmt) for stmt in inner.body)
                    parser = "human_readable_int_or_auto" if "human_readable_int_or_auto" in body else (
                        "human_readable_int" if "human_readable_int" in body else None)
                    if parser:
                        for name in names:
                            self.ctx.human.setdefault(name, parser)
                    # elif branches: ast.If nests them in orelse, visited by ast.walk

    # -- reading ------------------------------------------------------------------
    def read(self) -> list[Option]:
        for path in ARG_FILES:
            module = self.index.modules.get(path)
            if module is None:
                continue
            for node in ast.walk(module.tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self._read_function(module, node)
        return [self.options[name] for name in self.order]

    def _classes_of(self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[ClassInfo]]:
        """Variables holding get_kwargs(Class) in a function -> the classes (``cls`` -> its users)."""
        found: dict[str, list[ClassInfo]] = {}
        for node in ast.walk(function):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                continue
            call = node.value
            if isinstance(call, ast.Call) and ast.unparse(call.func).split(".")[-1] == "get_kwargs" and call.args:
                target = call.args[0]
                if isinstance(target, ast.Name) and target.id == "cls":
                    found[node.targets[0].id] = self._cls_users(module, function)
                else:
                    cls = self.index.find_class(ast.unparse(target).split(".")[-1], module.path)
                    if cls is None:
                        self.ctx.unread.append(f"{module.path}:{node.lineno}: get_kwargs({ast.unparse(target)}) class not found")
                    else:
                        found[node.targets[0].id] = [cls]
            elif isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr.startswith("_customize"):
                # frontend_kwargs = cls._customize_cli_kwargs(frontend_kwargs): same variable
                pass
        return found

    def _owner_class(self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef) -> ClassInfo | None:
        for info in module.classes.values():
            if function in info.node.body:
                return info
        return None

    def _cls_users(self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ClassInfo]:
        """For a classmethod reading get_kwargs(cls): the classes whose add_cli_args the parser calls."""
        owner = self._owner_class(module, function)
        if owner is None:
            return []
        users = []
        for other in self.index.modules.values():
            if other.path not in ARG_FILES:
                continue
            for node in ast.walk(other.tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == function.name:
                    if isinstance(node.func.value, ast.Name):
                        cls = self.index.find_class(node.func.value.id, other.path)
                        if cls is not None and self._inherits(cls, owner.name) and not self._overrides(cls, function.name, owner):
                            users.append(cls)
        return users

    def _inherits(self, cls: ClassInfo, name: str, depth: int = 0) -> bool:
        if cls.name == name:
            return True
        if depth > 8:
            return False
        for base in cls.bases:
            found = self.index.find_class(base, cls.path)
            if found is not None and found.name != cls.name and self._inherits(found, name, depth + 1):
                return True
        return False

    def _overrides(self, cls: ClassInfo, method: str, owner: ClassInfo) -> bool:
        if cls.name == owner.name:
            return False
        return any(isinstance(n, ast.FunctionDef) and n.name == method for n in cls.node.body)

    def _read_function(self, module: Module, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        variables = self._classes_of(module, function)
        edits = self._kwarg_edits(module, variables)
        self._field_vars = {}
        for node in ast.walk(function):  # moe_backend_kwargs = kernel_kwargs["moe_backend"]
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                    and isinstance(node.value, ast.Subscript) and isinstance(node.value.value, ast.Name) \
                    and node.value.value.id in variables and isinstance(node.value.slice, ast.Constant):
                self._field_vars[node.targets[0].id] = (node.value.value.id, str(node.value.slice.value))
        for node in ast.walk(function):
            if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Attribute) \
                    and node.iter.func.attr == "items" and isinstance(node.iter.func.value, ast.Name) \
                    and node.iter.func.value.id in variables:
                for cls in variables[node.iter.func.value.id]:
                    self._loop_options(module, node, cls, edits.get(node.iter.func.value.id, {}))
                continue
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
                continue
            if _inside_loop_over(function, node, variables):
                continue
            self._explicit(module, node, variables, edits)

    def _kwarg_edits(self, module: Module, variables: dict[str, list[ClassInfo]]) -> dict[str, dict[str, dict]]:
        """``frontend_kwargs["x"]["flags"] = ["-y"]`` and ``del kwargs["x"]`` in the customise hooks of a class."""
        edits: dict[str, dict[str, dict]] = {}
        hooks = [n for n in ast.walk(module.tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("_customize")]
        for var in variables:
            table: dict[str, dict] = {}
            for hook in hooks:
                for node in ast.walk(hook):
                    if isinstance(node, ast.Assign) and len(node.targets) == 1:
                        target = node.targets[0]
                        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Subscript) \
                                and isinstance(target.slice, ast.Constant) and isinstance(target.value.slice, ast.Constant):
                            table.setdefault(str(target.value.slice.value), {})[str(target.slice.value)] = literal(node.value)
                    elif isinstance(node, ast.Delete):
                        for target in node.targets:
                            if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
                                if isinstance(target.value, ast.Subscript) and isinstance(target.value.slice, ast.Constant):
                                    table.setdefault(str(target.value.slice.value), {})["del:" + str(target.slice.value)] = True
                                elif isinstance(target.value, ast.Name):
                                    table.setdefault(str(target.slice.value), {})["removed"] = True
            edits[var] = table
        return edits

    def _loop_options(self, module: Module, loop: ast.For, cls: ClassInfo, edits: dict[str, dict]) -> None:
        call = next((n for n in ast.walk(loop) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr == "add_argument"), None)
        line = call.lineno if call is not None else loop.lineno
        for item in class_fields(cls, self.index):
            change = edits.get(item.name, {})
            if change.get("removed"):
                continue
            flags = change.get("flags") or []
            aliases = [str(f) for f in flags] if isinstance(flags, list) else []
            option = self._from_field("--" + item.name.replace("_", "-"), aliases, item, module.path, line)
            if "type" in change:
                typed = str(change["type"])
                if "json" in typed:
                    option.kind = "json"
                elif typed.endswith("str") or "optional_type(str)" in typed:
                    option.kind = "str" if option.kind != "choice" else option.kind
            if change.get("del:nargs"):
                option.nargs = None
                if option.kind == "list":
                    option.kind = "str"
            if "choices" in change and is_literal(change["choices"]) and isinstance(change["choices"], list):
                option.choices = [str(c) for c in change["choices"]]
                option.kind = "choice"
            if "action" in change and str(change["action"]) in ("store_true", "store_false"):
                option.kind, option.negatable = "bool", False
            self._add(option)

    def _from_field(self, name: str, aliases: list[str], item: FieldInfo, path: str, line: int) -> Option:
        kind = field_kind(item, self.ctx)
        option = Option(name=name, aliases=aliases, kind=kind["kind"], path=path, line=line,
                        choices=kind.get("choices", []), negatable=kind.get("negatable", False),
                        nargs=kind.get("nargs"), parser=kind.get("parser"), ranges=dict(item.ranges),
                        sub_config=kind.get("sub_config"), optional_value=kind.get("optional_value", False),
                        choices_open=kind.get("choices_open", False))
        if item.has_default and not isinstance(item.default, dict) or (isinstance(item.default, dict) and item.default):
            option.default = item.default
        if kind.get("enum"):
            option.enum = kind["enum"]  # pydantic checks these after parsing; not argparse choices
        option.field_ref = {"class": item.cls.name, "field": item.name, "path": item.path, "line": item.line}
        return option

    def _explicit(self, module: Module, call: ast.Call, variables: dict[str, list[ClassInfo]],
                  edits: dict[str, dict[str, dict]]) -> None:
        names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if not names:
            if call.args and not all(isinstance(a, ast.Starred) for a in call.args):
                self.ctx.unread.append(f"{module.path}:{call.lineno}: add_argument with computed names")
            return
        flags = [n for n in names if n.startswith("-")]
        if not flags:
            return  # a positional (model_tag)
        long = [n for n in flags if n.startswith("--")]
        name = long[0] if long else flags[0]
        aliases = [n for n in flags if n != name]
        keywords = {kw.arg: kw.value for kw in call.keywords if kw.arg}
        option: Option | None = None
        for source, field_name in _kwargs_source(call):
            var = source.id if isinstance(source, ast.Name) else None
            if var in self._field_vars and not field_name:
                var, field_name = self._field_vars[var]
            if var in variables and field_name:
                for cls in variables[var]:
                    item = next((f for f in class_fields(cls, self.index) if f.name == field_name), None)
                    if item is not None:
                        option = self._from_field(name, aliases, item, module.path, call.lineno)
                        break
                if option is None:
                    self.ctx.unread.append(f"{module.path}:{call.lineno}: {name}: field {field_name} not found")
            elif source is not None:
                self.ctx.unread.append(f"{module.path}:{call.lineno}: {name}: kwargs {ast.unparse(source)} not read")
        if option is None:
            option = Option(name=name, aliases=aliases, kind="str", path=module.path, line=call.lineno)
        option.path, option.line = module.path, call.lineno
        self._apply_keywords(option, keywords, module)
        self._add(option)

    def _apply_keywords(self, option: Option, keywords: dict[str, ast.expr], module: Module) -> None:
        if "action" in keywords:
            action = ast.unparse(keywords["action"]).strip("'\"")
            if action in ("store_true", "store_false"):
                option.kind, option.negatable = "bool", False
            elif "BooleanOptionalAction" in action:
                option.kind, option.negatable = "bool", True
            elif "Deprecat" in action:
                option.deprecated = True
            elif action == "append":
                option.kind = option.kind if option.kind != "bool" else "str"
        if "type" in keywords:
            kind = ast.unparse(keywords["type"])
            base = kind.split(".")[-1]
            if base == "int" or "optional_type(int)" in kind:
                option.kind = "int"
            elif base == "float" or "optional_type(float)" in kind:
                option.kind = "float"
            elif "human_readable_int_or_auto" in kind:
                option.kind, option.parser = "int", "human_readable_int_or_auto"
            elif "human_readable_int" in kind:
                option.kind, option.parser = "int", "human_readable_int"
            elif "json" in kind.lower() or "dict" in kind.lower():
                option.kind = "json"
            elif base in ("str", "nullable_str") or "optional_type(str)" in kind:
                if option.kind not in ("choice",):
                    option.kind = "str"
        if "choices" in keywords:
            choices = literal(keywords["choices"])
            if is_literal(choices) and isinstance(choices, (list, tuple, set)):
                option.choices = [str(c) for c in choices]
                option.kind = "choice" if option.nargs is None else option.kind
            else:
                resolved = _resolve_choices(keywords["choices"], self.index, module)
                if resolved:
                    option.choices = resolved
                    option.kind = "choice"
                else:
                    self.ctx.unread.append(f"{module.path}: {option.name}: choices {ast.unparse(keywords['choices'])} not read")
        if "nargs" in keywords:
            nargs = literal(keywords["nargs"])
            if nargs in ("+", "*"):
                option.nargs = str(nargs)
                if option.kind in ("str", "choice") and not option.choices:
                    option.kind = "list"
                elif option.kind == "choice":
                    option.kind = "list"
            elif nargs == "?":
                option.optional_value = True
        if "default" in keywords:
            value = literal(keywords["default"])
            option.default = value
        if "deprecated" in keywords and literal(keywords["deprecated"]) is True:
            option.deprecated = True
        if "help" in keywords:
            text = ast.unparse(keywords["help"])
            if "DEPRECATED" in text or "deprecated" in text[:80].lower():
                option.deprecated = True

    def _add(self, option: Option) -> None:
        if option.name in self.options:
            previous = self.options[option.name]
            previous.aliases = sorted(set(previous.aliases) | set(option.aliases))
            return
        self.options[option.name] = option
        self.order.append(option.name)


def _compared_names(test: ast.expr, sets: dict[str, list[str]] | None = None) -> list[str]:
    if not isinstance(test, ast.Compare) or not isinstance(test.left, ast.Name) or test.left.id != "name":
        return []
    names: list[str] = []
    for op, right in zip(test.ops, test.comparators):
        if isinstance(op, ast.In) and isinstance(right, ast.Name) and sets and right.id in sets:
            names += sets[right.id]
        elif isinstance(op, ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
            names.append(right.value)
        elif isinstance(op, ast.In) and isinstance(right, (ast.Tuple, ast.Set, ast.List)):
            names += [e.value for e in right.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return names


def _inside_loop_over(function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, variables: dict) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Attribute) \
                and node.iter.func.attr == "items" and isinstance(node.iter.func.value, ast.Name) \
                and node.iter.func.value.id in variables:
            if any(inner is call for inner in ast.walk(node)):
                return True
    return False


def _resolve_choices(node: ast.expr, index: Index, module: Module) -> list[str]:
    """choices=get_args(X) / list(X) / [e.value for e in Enum] / a module constant."""
    text = ast.unparse(node)
    if isinstance(node, ast.Call) and node.args:
        inner = node.args[0]
        name = ast.unparse(inner).split(".")[-1]
        if isinstance(inner, ast.Call) and inner.args:  # list(get_args(X))
            return _resolve_choices(inner, index, module)
        alias = index.find_alias(name, module.path)
        if alias is not None:
            info = read_type(alias[1], index, alias[0].path)
            if info.literals:
                return [str(v) for v in info.literals]
            value = literal(alias[1])
            if is_literal(value) and isinstance(value, (list, tuple, set)):
                return [str(v) for v in value]
        cls = index.find_class(name, module.path)
        if cls is not None:
            from qlint.knowledge.extract.pyast import enum_members, is_enum
            if is_enum(cls):
                return enum_members(cls)
    if isinstance(node, ast.Name):
        alias = index.find_alias(node.id, module.path)
        if alias is not None:
            value = literal(alias[1])
            if is_literal(value) and isinstance(value, (list, tuple, set, dict)):
                return [str(v) for v in value]
    if isinstance(node, ast.ListComp):
        generator = node.generators[0]
        name = ast.unparse(generator.iter).split(".")[-1]
        cls = index.find_class(name, module.path)
        if cls is not None:
            from qlint.knowledge.extract.pyast import enum_members
            members = enum_members(cls)
            if "value" in ast.unparse(node.elt):
                values = []
                for stmt in cls.node.body:
                    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant):
                        values.append(str(stmt.value.value))
                return values or members
            return [m.lower() if ".lower()" in text else m for m in members]
    return []


# -- the parser's spelling rules ---------------------------------------------------------

PARSER_FEATURES = {
    # feature -> a regex on FlexibleArgumentParser's source that shows it
    "underscores": r'\.replace\("_", "-"\)|replace\(\'_\', \'-\'\)',
    "dotted_long": r'startswith\("--"\) and "\." in',
    "dotted_any": r'startswith\("-"\) and "\." in',
    "dotted_list_append": r'endswith\("\+"\)',
    "o_concat": r'startswith\("-O"\)',
    "dotted_human_readable": r"human_readable_int\(value_str\)",
}


def parser_features(tree, index: Index) -> dict[str, Any]:
    """How FlexibleArgumentParser rewrites spellings in this release, each with the line that does it."""
    features: dict[str, Any] = {}
    for module in index.modules.values():
        cls = module.classes.get("FlexibleArgumentParser")
        if cls is None:
            continue
        text = module.segment(cls.node)
        start = cls.node.lineno
        for feature, pattern in PARSER_FEATURES.items():
            match = re.search(pattern, text)
            if match:
                line = start + text[: match.start()].count("\n")
                features[feature] = tree.url(module.path, line)
        abbrev = re.search(r"allow_abbrev\s*=\s*(True|False)", text)
        features["allow_abbrev"] = abbrev is None or abbrev.group(1) == "True"
        features["class_source"] = tree.url(module.path, start)
        o_target = re.search(r'processed_args\s*\+=\s*\[\s*"(--[a-z-]+)"', text)
        if o_target:
            features["o_concat_target"] = o_target.group(1)
        break
    for module in index.modules.values():
        for node in module.tree.body:
            if isinstance(node, ast.FunctionDef) and node.name in ("human_readable_int", "human_readable_int_or_auto"):
                features[node.name] = tree.url(module.path, node.lineno)
    return features
