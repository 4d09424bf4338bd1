"""``qlint.record``: plain classes that behave as the dataclasses they replace (init, repr, eq, hash,
frozen, slots, replace), slotted records built once (``SlottedRecord``) that behave as ``@record(slots=True)``
ones, and the check path that no longer imports dataclasses."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap

import pytest

from qlint.record import FrozenInstanceError, SlottedRecord, field, fields, record, replace


@record(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class PointDC:
    x: int
    y: int = 0


@record
class Bag:
    name: str
    items: list[str] = field(default_factory=list)
    note: str | None = field(default=None, repr=False, compare=False)
    seen: int = 0

    def __post_init__(self) -> None:
        self.seen += 1


@record(slots=True)
class Base:
    kind: str
    size: int = 1


@record(slots=True)
class Child(Base):
    extra: list[int] = field(default_factory=list)


def test_init_repr_eq_and_hash_as_dataclasses():
    assert repr(Point(1, 2)) == "Point(x=1, y=2)" == repr(PointDC(1, 2)).replace("PointDC", "Point")
    assert Point(1) == Point(x=1, y=0) and Point(1) != Point(2) and Point(1) != PointDC(1)
    assert hash(Point(3, 4)) == hash(PointDC(3, 4)) == hash((3, 4))  # same set orders as before
    assert {Point(1), Point(1), Point(2)} == {Point(1), Point(2)}
    with pytest.raises(TypeError):
        hash(Bag("a"))  # mutable records are unhashable, as dataclasses with eq


def test_eq_false_keeps_identity():
    @record(eq=False)
    class Node:
        name: str

    first, second = Node("a"), Node("a")
    assert first != second and first == first and len({first, second}) == 2


def test_frozen_records_refuse_assignment_and_slots_have_no_dict():
    point = Point(1)
    with pytest.raises(FrozenInstanceError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.y  # type: ignore[misc]
    assert not hasattr(point, "__dict__") and Point.__slots__ == ("x", "y")
    assert isinstance(FrozenInstanceError("x"), AttributeError)


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_records_copy_and_pickle(how):
    """As dataclasses allow (results may cross processes): frozen and slotted records included."""
    import copy
    import pickle

    from qlint.knowledge.text import Text
    from qlint.rules.plan import Span, Value

    again = {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": lambda o: pickle.loads(pickle.dumps(o))}[how]
    for original in (Point(1, 2), Bag("a", ["x"]), Child("k", 2, [3]), Span(1, 2, 3, 4), Text("a", "b"),
                     Value("x", Span(1, 1, 1, 2), symbols=["$1"])):
        copied = again(original)
        assert copied == original and type(copied) is type(original)
    with pytest.raises(FrozenInstanceError):
        again(Point(1)).x = 3  # type: ignore[misc]


def test_defaults_factories_post_init_and_compare_false():
    first, second = Bag("a"), Bag("a")
    assert first.items == [] and first.items is not second.items  # a fresh list each
    assert first.seen == 1  # __post_init__ ran
    assert Bag("a", note="x") == Bag("a", note="y")  # compare=False
    assert "note" not in repr(Bag("a", note="x")) and "items=[]" in repr(first)
    assert Bag.seen == 0 and "items" not in Bag.__dict__  # class attributes as dataclasses leave them


def test_inheritance_orders_fields_base_first():
    child = Child("k", 2, [1])
    assert (child.kind, child.size, child.extra) == ("k", 2, [1])
    assert [item.name for item in fields(Child)] == ["kind", "size", "extra"]
    assert Child.__slots__ == ("extra",) and not hasattr(child, "__dict__")
    assert repr(child) == "Child(kind='k', size=2, extra=[1])"
    assert Child("k") != Base("k")  # another class is never equal


@pytest.mark.parametrize("call, message", [
    (lambda: Point(), "missing required argument: 'x'"),
    (lambda: Point(1, 2, 3), "takes 2 positional arguments but 3 were given"),
    (lambda: Point(1, x=2), "multiple values for argument 'x'"),
    (lambda: Point(1, z=2), "unexpected keyword argument 'z'"),
])
def test_bad_arguments_are_type_errors(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_replace_builds_through_init_and_fields_refuses_other_objects():
    bag = Bag("a", ["x"], seen=5)
    copy = replace(bag, name="b")
    assert (bag.seen, copy.name, copy.items, copy.seen) == (6, "b", ["x"], 7)  # __post_init__ ran again
    assert replace(Point(1, 2), y=3) == Point(1, 3)
    with pytest.raises(TypeError):
        replace(Point(1), z=1)
    with pytest.raises(TypeError):
        fields(PointDC)


def test_mutable_defaults_and_class_variables_are_refused():
    with pytest.raises(ValueError):
        @record
        class Wrong:
            items: list[int] = []  # noqa: RUF012 - the mistake under test

    with pytest.raises(TypeError):
        @record
        class AlsoWrong:
            count: "ClassVar[int]" = 0  # noqa: F821


def test_a_plain_run_imports_no_code_generation_and_no_validation(tmp_path):
    """``qlint FILE`` outside any project: no dataclasses (exec at import), no pydantic or TOML parser
    (the knowledge ships compiled), none of the heavy modules only some paths need. (pathlib is not
    checked: an editable install's import hook loads it; benchmarks/cold_start.py measures the wheel.)"""
    script = tmp_path / "run.sh"
    script.write_text("vllm serve Qwen/Qwen3.6-27B --tensor-parallel-size 3\n")
    probe = textwrap.dedent(f"""
        import sys
        from qlint.linter.cli import entry
        sys.argv = ["qlint", {str(script)!r}]
        try:
            entry()
        except SystemExit:
            pass
        print(" ".join(sorted(name for name in sys.modules if name.split(".")[0] in {{
            "dataclasses", "inspect", "pydantic", "tomllib", "click", "ast", "typing_extensions"}}
            or name in ("qlint.knowledge.models", "difflib"))))
    """)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "NO_COLOR": "1"}
    env.pop("QLINT_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "QL206" in done.stdout  # it did lint (TP 3 does not divide the KV heads)
    assert done.stdout.splitlines()[-1] == ""


def _record_classes() -> list[type]:
    import qlint.linter.cli_check  # noqa: F401 - the check path, and every rule
    import qlint.linter.deployment  # noqa: F401
    import qlint.linter.suppressions  # noqa: F401 - imported by a run only for a file that needs them
    import qlint.linter.wrappers  # noqa: F401
    import qlint.rules.kit.resizing  # noqa: F401
    import qlint.rules.registry  # noqa: F401

    found = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("qlint."):
            for value in vars(module).values():
                if isinstance(value, type) and "__record_fields__" in vars(value) and value.__module__ == name:
                    found[f"{name}.{value.__qualname__}"] = value
    return [found[key] for key in sorted(found)]


def test_a_written_init_takes_exactly_the_fields_in_order():
    """A record that writes its own ``__init__`` (the hot ones) must take every field, in declaration
    order, by the field's name: a field added to the class but not to ``__init__`` fails here, and so
    does a renamed parameter (``replace`` passes fields by name)."""
    import inspect

    classes = _record_classes()
    assert len(classes) > 60
    written = [cls for cls in classes if "__init__" in vars(cls) and vars(cls)["__init__"].__module__ != "qlint.record"]
    assert len(written) >= 10
    for cls in written:
        if cls.__qualname__ == "Scope":  # built by the rule graph only, never replaced: serve= sets command
            continue
        parameters = list(inspect.signature(cls.__init__).parameters)[1:]
        assert parameters == [item.name for item in fields(cls)], cls.__qualname__


def test_modules_with_records_do_not_use_dataclasses():
    """dataclasses' replace/fields/asdict refuse records: a module that uses records uses qlint.record's
    (that no module of a plain run imports dataclasses is the subprocess test above)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    offenders = []
    for folder in ("rules", "linter", "knowledge", "qlint", "docgen"):
        for path in sorted((root / folder).rglob("*.py")):
            imports = []
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    imports += [(alias.name, node.lineno) for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    imports.append((node.module or "", node.lineno))
            if any(name == "qlint.record" for name, _ in imports):
                offenders += [f"{path.relative_to(root)}:{line}" for name, line in imports if name == "dataclasses"]
    assert offenders == [], "use qlint.record (record, field, replace, fields) in " + ", ".join(offenders)


def test_records_that_fill_their_dict_at_once_hold_every_field_in_order():
    """RuleMeta, Example, FactDef and RuleDef set their fields with one ``__dict__.update`` (frozen):
    every field is there, in declaration order, and ``replace`` rebuilds an equal record."""
    from qlint.record import replace
    from qlint.rules import registry  # noqa: F401  (every rule)
    from qlint.rules.graph import FACTS, RULES

    rule = RULES["QL613"]
    examples = [example for definition in RULES.values() for example in definition.meta.examples]
    for value in (rule, rule.meta, examples[0], next(iter(dict.values(FACTS)))):
        assert list(vars(value)) == [item.name for item in fields(value)], type(value).__qualname__
        assert replace(value) == value
    assert all(list(vars(example)) == [item.name for item in fields(example)] for example in examples)


def _shapes(make):
    """Record classes of several shapes, each made by ``make(name, bases, body, frozen, eq)``."""
    def written_init(self, kind: str, size: int = 1, extra: list[int] | None = None) -> None:
        self.kind, self.size, self.extra = kind, size, [] if extra is None else extra

    def post_init(self) -> None:
        self.count += 1

    base = make("Base", (), {"__annotations__": {"kind": "str", "size": "int"}, "size": 1}, False, True)
    child = make("Child", (base,), {"__annotations__": {"extra": "list[int]"}, "extra": field(default_factory=list)},
                 False, True)
    point = make("Point", (), {"__annotations__": {"x": "int", "y": "int", "tag": "str"}, "y": 0,
                               "tag": field(default="t", repr=False, compare=False)}, True, True)
    written = make("Written", (), {"__annotations__": {"kind": "str", "size": "int", "extra": "list[int]"},
                                   "size": 1, "extra": field(default_factory=list), "__init__": written_init},
                   False, True)
    counted = make("Counted", (), {"__annotations__": {"name": "str", "count": "int"}, "count": 0,
                                   "__post_init__": post_init}, False, True)
    plain = make("Plain", (), {"__annotations__": {"name": "str"}}, False, False)
    return {"base": base, "child": child, "point": point, "written": written, "counted": counted, "plain": plain}


def _decorated(name, bases, body, frozen, eq):
    return record(frozen=frozen, slots=True, eq=eq)(type(name, bases, {"__qualname__": name, **body}))


def _metaclass(name, bases, body, frozen, eq):
    return SlottedRecord(name, bases, {"__qualname__": name, "__module__": __name__, **body}, frozen=frozen, eq=eq)


def _behaviour(classes):
    """What a record class does, as data: fields, slots, instances' repr / eq / hash, replace, copies, errors."""
    import copy

    out = []
    for key, cls in classes.items():
        out.append((key, [(item.name, item.default, item.default_factory, item.repr, item.compare)
                          for item in fields(cls)], cls.__slots__, "__dict__" in dir(cls)))
    base, child, point = classes["base"], classes["child"], classes["point"]
    instances = [base("k"), base("k", 2), child("k", 2, [3]), child("k"), point(1), point(1, 2, "u"),
                 classes["written"]("k", 2), classes["counted"]("a"), classes["plain"]("p")]
    for value in instances:
        copied = copy.deepcopy(value)
        out.append((repr(value), value == copied, value == instances[0], copied is not value,
                    type(value).__hash__ is None, repr(replace(value))))
    out.append((hash(point(1, 2)) == hash((1, 2)), point(1, 2, "u") == point(1, 2, "v")))
    out.append(classes["counted"]("a").count)
    plain = classes["plain"]("p")
    out.append((plain == classes["plain"]("p"), plain == plain))
    for call in (lambda: point(), lambda: point(1, 2, "t", 4), lambda: base("k", kind="j"), lambda: child("k", z=1)):
        with pytest.raises(TypeError) as error:
            call()
        out.append(str(error.value))
    with pytest.raises(FrozenInstanceError):
        point(1).x = 2
    return out


def test_the_metaclass_makes_the_records_the_decorator_makes():
    """``class C(metaclass=SlottedRecord, frozen=...)`` gives the class ``@record(slots=True, frozen=...)`` gives:
    the same fields, slots, inits, reprs, equality, hashing, replace, copies and errors, on every shape (a
    base and a subclass, frozen with repr=False / compare=False fields, a written ``__init__``, a
    ``__post_init__``, eq=False)."""
    assert _behaviour(_shapes(_metaclass)) == _behaviour(_shapes(_decorated))


def test_a_slotted_record_is_created_once():
    """The metaclass creates each class once; the decorator creates it, then again with its slots."""
    created = []

    class Counting:
        __slots__ = ()

        def __init_subclass__(cls) -> None:
            created.append(cls.__name__)

    class Once(Counting, metaclass=SlottedRecord, frozen=True):
        x: int
        y: int = 0

    @record(frozen=True, slots=True)
    class Twice(Counting):
        x: int
        y: int = 0

    assert created == ["Once", "Twice", "Twice"]
    assert Once.__slots__ == Twice.__slots__ == ("x", "y") and repr(Once(1)).endswith(".Once(x=1, y=0)")
    assert [item.name for item in fields(Once)] == [item.name for item in fields(Twice)]


def test_slotted_records_pickle_and_subclass_without_the_decorator():
    import pickle

    from qlint.rules.plan import Command, DockerRun, Span

    span = Span(1, 2, 3, 4)
    assert pickle.loads(pickle.dumps(span)) == span and type(span).__hash__ is not None
    run = DockerRun("docker", span, {}, [], image=None)
    assert not hasattr(run, "__dict__") and pickle.loads(pickle.dumps(run)) == run
    assert [item.name for item in fields(DockerRun)][:4] == ["kind", "span", "env", "argv"]
    with pytest.raises(TypeError, match="already a record"):
        @record
        class Again(Command):  # the metaclass made it a record already
            extra: int = 0
