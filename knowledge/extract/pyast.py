"""Static readers for Python sources: classes, dataclass fields, type aliases, enums, raises.

Nothing here imports the code it reads: every fact comes from :mod:`ast` and the
file text, with the line it was read from.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ClassInfo:
    name: str
    path: str
    node: ast.ClassDef
    module: "Module"

    @property
    def line(self) -> int:
        return self.node.lineno

    @property
    def bases(self) -> list[str]:
        names = []
        for base in self.node.bases:
            if isinstance(base, ast.Name):
                names.append(base.id)
            elif isinstance(base, ast.Attribute):
                names.append(base.attr)
            elif isinstance(base, ast.Subscript) and isinstance(base.value, ast.Name):
                names.append(base.value.id)
        return names

    @property
    def decorators(self) -> list[str]:
        return [ast.unparse(item) for item in self.node.decorator_list]


@dataclass
class Module:
    path: str
    text: str
    tree: ast.Module
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    aliases: dict[str, ast.expr] = field(default_factory=dict)
    constants: dict[str, Any] = field(default_factory=dict)

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ast.unparse(node)


def parse_module(path: str, text: str) -> Module | None:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    module = Module(path=path, text=text, tree=tree)
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            module.classes[node.name] = ClassInfo(node.name, path, node, module)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            module.aliases[node.targets[0].id] = node.value
            try:
                module.constants[node.targets[0].id] = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            module.aliases[node.target.id] = node.value
        elif type(node).__name__ == "TypeAlias":  # `type X = Literal[...]` (3.12 syntax)
            module.aliases[node.name.id] = node.value  # type: ignore[attr-defined]
        elif isinstance(node, ast.If):  # `if TYPE_CHECKING: ... else: ...` aliases
            for inner in node.body + node.orelse:
                if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name):
                    module.aliases.setdefault(inner.targets[0].id, inner.value)
    return module


class Index:
    """Every module of a tree under some prefixes, with lookups by class and alias name."""

    def __init__(self, tree, prefixes: tuple[str, ...], prefer: tuple[str, ...] = ()):
        self.tree = tree
        self.modules: dict[str, Module] = {}
        self.unread: list[str] = []
        for prefix in prefixes:
            for path in tree.paths(prefix):
                if not path.endswith(".py") or path in self.modules:
                    continue
                module = parse_module(path, tree.text(path) or "")
                if module is None:
                    self.unread.append(f"{path}: does not parse")
                    continue
                self.modules[path] = module
        self.prefer = prefer
        self._misses: set[tuple[str, str]] = set()

    def _ordered(self) -> list[Module]:
        def rank(module: Module) -> tuple[int, str]:
            for position, prefix in enumerate(self.prefer):
                if module.path.startswith(prefix):
                    return position, module.path
            return len(self.prefer), module.path
        return sorted(self.modules.values(), key=rank)

    def find_class(self, name: str, near: str | None = None) -> ClassInfo | None:
        if near is not None and near in self.modules and name in self.modules[near].classes:
            return self.modules[near].classes[name]
        for module in self._ordered():
            if name in module.classes:
                return module.classes[name]
        return self._load_defining(name, "class", lambda module: module.classes.get(name))

    def _load_defining(self, name: str, kind: str, pick):
        """Parse, on demand, the modules of the tree that define ``name`` (a class or an alias)."""
        key = (kind, name)
        if key in self._misses:
            return None
        patterns = (f"\nclass {name}(", f"\nclass {name}:") if kind == "class" else (f"\n{name} =", f"\n{name}:", f"\ntype {name} ")
        for path in self.tree.paths("vllm"):
            if path in self.modules or not path.endswith(".py"):
                continue
            text = self.tree.text(path) or ""
            if not any(p in text for p in patterns):
                continue
            module = parse_module(path, text)
            if module is None:
                continue
            self.modules[path] = module
            found = pick(module)
            if found is not None:
                return found
        self._misses.add(key)
        return None

    def find_alias(self, name: str, near: str | None = None) -> tuple[Module, ast.expr] | None:
        if near is not None and near in self.modules and name in self.modules[near].aliases:
            return self.modules[near], self.modules[near].aliases[name]
        for module in self._ordered():
            if name in module.aliases:
                return module, module.aliases[name]
        return self._load_defining(name, "alias", lambda module: (module, module.aliases[name]) if name in module.aliases else None)


# -- annotations -------------------------------------------------------------------------

_BUILTIN_NAMES = {"str", "int", "float", "bool", "bytes", "dict", "list", "tuple", "set", "None", "Any", "object",
                  "Callable", "type"}


@dataclass
class TypeInfo:
    """What an annotation means for argparse / pydantic. ``names``: every atom seen."""

    names: set[str] = field(default_factory=set)
    literals: list[Any] = field(default_factory=list)
    dataclasses: list[ClassInfo] = field(default_factory=list)
    enums: dict[str, list[str]] = field(default_factory=dict)
    element_literals: list[Any] = field(default_factory=list)
    ranges: dict[str, Any] = field(default_factory=dict)
    unknown: set[str] = field(default_factory=set)  # names that resolve to nothing known


def is_enum(info: ClassInfo) -> bool:
    return any(base.endswith("Enum") or base in ("Enum", "IntEnum", "StrEnum") for base in info.bases)


def enum_members(info: ClassInfo) -> list[str]:
    members = []
    for node in info.node.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if not name.startswith("_"):
                members.append(name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            if not node.target.id.startswith("_"):
                members.append(node.target.id)
    return members


def is_dataclass_like(info: ClassInfo) -> bool:
    decorated = any(d.split("(")[0].split(".")[-1] in ("dataclass", "config") for d in info.decorators)
    return decorated or "BaseModel" in info.bases


def field_kwargs(call: ast.Call) -> dict[str, ast.expr]:
    return {kw.arg: kw.value for kw in call.keywords if kw.arg}


def literal(node: ast.expr | None) -> Any:
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _Unreadable(ast.unparse(node))


class _Unreadable(str):
    """An expression that is not a literal, kept as its source text."""


def is_literal(value: Any) -> bool:
    return not isinstance(value, _Unreadable)


RANGE_KEYS = ("gt", "ge", "lt", "le")


def read_type(expr: ast.expr | None, index: Index, near: str, info: TypeInfo | None = None, depth: int = 0,
              in_element: bool = False) -> TypeInfo:
    info = info or TypeInfo()
    if expr is None or depth > 12:
        return info
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):  # a string annotation
        try:
            inner = ast.parse(expr.value, mode="eval").body
        except SyntaxError:
            info.unknown.add(expr.value)
            return info
        return read_type(inner, index, near, info, depth + 1, in_element)
    if isinstance(expr, ast.Constant) and expr.value is None:
        info.names.add("None")
        return info
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        read_type(expr.left, index, near, info, depth + 1, in_element)
        read_type(expr.right, index, near, info, depth + 1, in_element)
        return info
    if isinstance(expr, ast.Subscript):
        head = expr.value.id if isinstance(expr.value, ast.Name) else (
            expr.value.attr if isinstance(expr.value, ast.Attribute) else ast.unparse(expr.value))
        args = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        if head == "Literal":
            target = info.element_literals if in_element else info.literals
            for arg in args:
                value = literal(arg)
                if is_literal(value):
                    target.append(value)
                else:  # Literal["ngram", MTPModelTypes]: a nested Literal alias
                    nested = read_type(arg, index, near, TypeInfo(), depth + 1, False)
                    target.extend(nested.literals)
            if not in_element:
                info.names.add("Literal")
            return info
        if head in ("Optional",):
            info.names.add("None")
            return read_type(args[0], index, near, info, depth + 1, in_element)
        if head == "Union":
            for arg in args:
                read_type(arg, index, near, info, depth + 1, in_element)
            return info
        if head == "Annotated":
            read_type(args[0], index, near, info, depth + 1, in_element)
            for meta in args[1:]:
                if isinstance(meta, ast.Call):
                    name = ast.unparse(meta.func).split(".")[-1]
                    if name == "Field":
                        for key, value in field_kwargs(meta).items():
                            if key in RANGE_KEYS and is_literal(literal(value)):
                                info.ranges[key] = literal(value)
                    elif name.lower() in RANGE_KEYS and meta.args:
                        value = literal(meta.args[0])
                        if is_literal(value):
                            info.ranges[name.lower()] = value
            return info
        lowered = head.lower()
        if lowered in ("list", "tuple", "set", "sequence", "frozenset"):
            info.names.add({"sequence": "list", "frozenset": "set"}.get(lowered, lowered))
            for arg in args:
                if not (isinstance(arg, ast.Constant) and arg.value is Ellipsis):
                    element = read_type(arg, index, near, TypeInfo(), depth + 1, True)
                    info.element_literals.extend(element.element_literals)
            return info
        if lowered in ("dict", "mapping"):
            info.names.add("dict")
            return info
        if head in ("ClassVar", "InitVar"):
            info.names.add(head)
            return info
        info.names.add(head)
        return info
    if isinstance(expr, (ast.Name, ast.Attribute)):
        name = expr.id if isinstance(expr, ast.Name) else expr.attr
        if name in _BUILTIN_NAMES:
            info.names.add(name)
            return info
        local = index.modules.get(near)
        if local is not None and name in local.aliases and name not in local.classes:
            # the module's own runtime binding wins, e.g. `if TYPE_CHECKING: from x import C` /
            # `else: C = Any`: get_type_hints sees Any, so vLLM builds no dataclass parser for it
            return read_type(local.aliases[name], index, near, info, depth + 1, in_element)
        found = index.find_class(name, near)
        if found is not None:
            if is_enum(found):
                info.names.add(name)
                info.enums[name] = enum_members(found)
                return info
            if is_dataclass_like(found):
                info.names.add(name)
                info.dataclasses.append(found)
                return info
            info.names.add(name)
            return info
        alias = index.find_alias(name, near)
        if alias is not None:
            module, value = alias
            return read_type(value, index, module.path, info, depth + 1, in_element)
        info.names.add(name)
        info.unknown.add(name)
        return info
    info.unknown.add(ast.unparse(expr))
    return info


# -- dataclass fields --------------------------------------------------------------------

@dataclass
class FieldInfo:
    name: str
    cls: ClassInfo
    line: int
    annotation: ast.expr
    value: ast.expr | None
    type: TypeInfo
    default: Any = None
    has_default: bool = False
    ranges: dict[str, Any] = field(default_factory=dict)
    init: bool = True
    doc: str = ""

    @property
    def path(self) -> str:
        return self.cls.path


def class_fields(cls: ClassInfo, index: Index, seen: set[str] | None = None) -> list[FieldInfo]:
    """The fields of a dataclass-like class, base classes first (as ``dataclasses.fields`` orders them)."""
    seen = seen or set()
    if cls.name in seen:
        return []
    seen.add(cls.name)
    result: dict[str, FieldInfo] = {}
    for base in cls.bases:
        found = index.find_class(base, cls.path)
        if found is not None and found.name != cls.name:
            for item in class_fields(found, index, seen):
                result[item.name] = item
    body = cls.node.body
    for position, node in enumerate(body):
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            continue
        name = node.target.id
        type_info = read_type(node.annotation, index, cls.path)
        if "ClassVar" in type_info.names:
            continue
        item = FieldInfo(name=name, cls=cls, line=node.lineno, annotation=node.annotation, value=node.value,
                         type=type_info, ranges=dict(type_info.ranges))
        value = node.value
        if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] in ("field", "Field"):
            kwargs = field_kwargs(value)
            if "default" in kwargs:
                item.default, item.has_default = literal(kwargs["default"]), True
            elif value.args and ast.unparse(value.func).split(".")[-1] == "Field":
                item.default, item.has_default = literal(value.args[0]), True
            elif "default_factory" in kwargs:
                item.default, item.has_default = _factory_default(kwargs["default_factory"]), True
            if "init" in kwargs and literal(kwargs["init"]) is False:
                item.init = False
            for key in RANGE_KEYS:
                if key in kwargs and is_literal(literal(kwargs[key])):
                    item.ranges[key] = literal(kwargs[key])
        elif value is not None:
            item.default, item.has_default = literal(value), True
        if position + 1 < len(body):
            following = body[position + 1]
            if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant) and isinstance(
                    following.value.value, str):
                item.doc = following.value.value.strip()
        if item.init:
            result[name] = item
        else:
            result.pop(name, None)
    return list(result.values())


def _factory_default(node: ast.expr) -> Any:
    if isinstance(node, ast.Name):
        return {"list": [], "dict": {}, "set": []}.get(node.id, _Unreadable(f"{node.id}()"))
    if isinstance(node, ast.Lambda):
        value = literal(node.body)
        return value
    return _Unreadable(ast.unparse(node))


def jsonable(value: Any) -> Any:
    """A default as JSON: literals as themselves, anything else as its source text in ``{"expr": ...}``."""
    if isinstance(value, _Unreadable):
        return {"expr": str(value)}
    if isinstance(value, (set, frozenset, tuple)):
        return [jsonable(item) for item in value]
    if isinstance(value, list):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, float) and value != value:
        return {"expr": "nan"}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return {"expr": repr(value)}


# -- raises (startup validations) --------------------------------------------------------

def message_text(node: ast.expr | None, module: Module) -> str:
    """A raise's message with f-string fields as ``{expr}``; concatenations joined."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                parts.append("{" + ast.unparse(value.value) + "}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        left = message_text(node.left, module)
        if isinstance(node.op, ast.Mod):
            return left
        return left + message_text(node.right, module)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return message_text(node.func.value, module)
    return "{" + ast.unparse(node) + "}"


@dataclass
class Raise:
    kind: str
    message: str
    line: int
    function: str
    condition: str | None
    nested: bool = False  # under more than one condition (or a loop / try): no plain range can be read


def raises_in(function: ast.FunctionDef | ast.AsyncFunctionDef, module: Module) -> list[Raise]:
    """``raise ValueError(...)`` / ``assert x, msg`` in a function, with the ``if`` test that guards each."""
    found: list[Raise] = []

    def visit(nodes: list[ast.stmt], condition: str | None, depth: int) -> None:
        for node in nodes:
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                kind = ast.unparse(node.exc.func).split(".")[-1]
                if kind.endswith(("Error", "Exception")):
                    text = message_text(node.exc.args[0], module) if node.exc.args else ""
                    found.append(Raise(kind, text, node.lineno, function.name, condition, depth > 1))
            elif isinstance(node, ast.Assert):
                text = message_text(node.msg, module) if node.msg is not None else ""
                found.append(Raise("AssertionError", text, node.lineno, function.name, ast.unparse(node.test), depth > 0))
            elif isinstance(node, ast.If):
                visit(node.body, ast.unparse(node.test), depth + 1)
                visit(node.orelse, f"not ({ast.unparse(node.test)})", depth + 2)  # elif/else: the earlier tests also failed
            elif isinstance(node, (ast.For, ast.While, ast.With, ast.Try)):
                for attr in ("body", "orelse", "finalbody"):
                    visit(getattr(node, attr, []) or [], condition, depth + 2)
                for handler in getattr(node, "handlers", []) or []:
                    visit(handler.body, condition, depth + 2)
    visit(function.body, None, 0)
    return found


_FLIP = {ast.Gt: "le", ast.GtE: "lt", ast.Lt: "ge", ast.LtE: "gt"}
_MIRROR = {ast.Gt: "ge", ast.GtE: "gt", ast.Lt: "le", ast.LtE: "lt"}  # const OP self.x fails -> self.x bound


def failing_bounds(test: ast.expr) -> list[tuple[str, str, Any]]:
    """From ``if self.x > 1.0 or self.x <= 0: raise`` the bounds the value must keep: [(x, 'le', 1.0), (x, 'gt', 0)]."""
    bounds: list[tuple[str, str, Any]] = []
    tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    for part in tests:
        if not isinstance(part, ast.Compare) or len(part.ops) != 1:
            continue
        left, op, right = part.left, part.ops[0], part.comparators[0]
        left_name, right_name = _self_attr(left), _self_attr(right)
        if left_name and isinstance(right, ast.Constant) and isinstance(right.value, (int, float)) and type(op) in _FLIP:
            bounds.append((left_name, _FLIP[type(op)], right.value))
        elif right_name and isinstance(left, ast.Constant) and isinstance(left.value, (int, float)) and type(op) in _MIRROR:
            bounds.append((right_name, _MIRROR[type(op)], left.value))
    return bounds


def _self_attr(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def functions(cls: ClassInfo):
    for node in cls.node.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
