"""Plain classes from annotated fields, built without generating code: ``@record``.

qlint declares its data classes as dataclasses do (annotated fields, defaults,
``field(default_factory=list)``), but decorates the classes of the check path with ``@record``.
``dataclasses.dataclass`` writes each class's methods as source text and compiles it with
``exec`` at import: about 0.4 ms a class, with ``inspect`` and ``typing`` imported for it, a
third of the start of ``qlint FILE``. ``record`` attaches shared, already compiled functions:

* ``__init__``: the fields in declaration order (base classes' first), positionally or by
  keyword, defaults and factories, then ``self.__post_init__()`` when the class has one. It is
  one generic loop, several times slower per instance than a generated ``__init__``: a class
  built many times per script writes its own ``__init__``, which is kept as written (so are
  ``__repr__``, ``__eq__`` and ``__hash__`` written in the class body);
* ``__repr__`` (``Span(line=1, column=2, ...)``, fields declared ``repr=False`` left out),
  ``__eq__`` (same class and equal fields, those declared ``compare=False`` left out), and
  ``__hash__``: over the same fields for a frozen class, None (unhashable) otherwise. The values
  are those of ``dataclasses`` (a frozen record hashes as the tuple of its fields). ``eq=False``
  adds neither: instances compare and hash by identity;
* ``frozen=True``: setting or deleting an attribute raises :class:`FrozenInstanceError` (an
  AttributeError); ``__init__``, ``__post_init__`` and ``__setstate__`` (``copy``, ``pickle``) set
  fields with ``object.__setattr__``;
* slots: ``class Span(metaclass=SlottedRecord, frozen=True)`` builds the record with ``__slots__`` for the
  fields it adds, in one class creation (the keywords are ``frozen`` and ``eq``; a subclass of a slotted record
  is one too, without ``@record``). ``@record(slots=True)`` makes the same class, built twice (a decorator
  only sees a class once it exists, and ``__slots__`` must be there when it is created): about 0.1 ms a
  class at every start.

:func:`replace` and :func:`fields` are ``dataclasses.replace`` / ``dataclasses.fields`` for
records. Not supported, because qlint does not use them: ``ClassVar`` / ``InitVar`` fields,
keyword-only fields, ordering, ``__match_args__``.

Type checkers read ``@record`` and the classes of ``SlottedRecord`` as dataclasses (PEP 681
``dataclass_transform``).
"""

from __future__ import annotations

from operator import attrgetter
from reprlib import recursive_repr

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is for type checkers only: the check path does not import it
    from typing import Any, Callable, TypeVar, dataclass_transform, overload

    T = TypeVar("T")
else:  # the decorator only informs type checkers
    def dataclass_transform(**_: Any) -> Callable[[Any], Any]:
        return lambda function: function


class FrozenInstanceError(AttributeError):
    """A field of a frozen record was set or deleted."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """A field of a record: its name, default or default factory, and whether repr / eq show it."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(self, default: Any = MISSING, default_factory: Callable[[], Any] | None = None,
                 repr: bool = True, compare: bool = True) -> None:
        if default is not MISSING and default_factory is not None:
            raise ValueError("a field takes a default or a default_factory, not both")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, default_factory={self.default_factory!r})"


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | None = None, repr: bool = True,
          compare: bool = True) -> Any:
    """A field declaration with options, as ``dataclasses.field``: ``items: list[str] = field(default_factory=list)``."""
    return Field(default, default_factory, repr, compare)


def fields(obj_or_class: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in ``__init__`` order. TypeError for anything else."""
    found = getattr(obj_or_class, "__record_fields__", None)
    if found is None:
        raise TypeError(f"{obj_or_class!r} is not a record")
    return found


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of record ``obj`` with ``changes`` applied, built through its ``__init__`` (as
    ``dataclasses.replace``: ``__post_init__`` runs again)."""
    for name in changes:
        if all(item.name != name for item in fields(obj)):
            raise TypeError(f"{type(obj).__name__} has no field {name!r}")
    values = {item.name: getattr(obj, item.name) for item in fields(obj) if item.name not in changes}
    return type(obj)(**values, **changes)


if TYPE_CHECKING:
    @overload
    def record(cls: type[T], /) -> type[T]: ...

    @overload
    def record(*, frozen: bool = False, slots: bool = False, eq: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(field, Field))
def record(cls: Any = None, /, *, frozen: bool = False, slots: bool = False, eq: bool = True) -> Any:
    """Make ``cls`` a record (see the module docstring): ``@record`` or ``@record(frozen=True)``;
    ``eq=False`` keeps identity comparison and hashing (as with dataclasses)."""

    def build(cls: type) -> type:
        if isinstance(cls, SlottedRecord):
            raise TypeError(f"{cls.__name__} is already a record: a subclass of a slotted record needs no @record")
        body = cls.__dict__
        own, methods = _record_methods(cls.__qualname__, body, cls.__mro__[1:], frozen, eq)
        if slots:
            namespace = dict(body)
            namespace.pop("__dict__", None)
            namespace.pop("__weakref__", None)
            return type(cls)(cls.__name__, cls.__bases__, _slotted(namespace, own, methods, cls.__mro__[1:]))
        for item in own:  # as with dataclasses, the class attribute is the plain default (none for a factory)
            if item.default is MISSING:
                if item.name in body:
                    delattr(cls, item.name)
            else:
                setattr(cls, item.name, item.default)
        for name, value in methods.items():
            setattr(cls, name, value)
        return cls

    return build if cls is None else build(cls)


@dataclass_transform(field_specifiers=(field, Field))
class SlottedRecord(type):
    """The metaclass of records with ``__slots__``: ``class Span(metaclass=SlottedRecord, frozen=True)``.

    The fields, methods and ``__slots__`` are made from the class body before the class is created, so
    that it is created once (``@record(slots=True)`` creates it, then again with its slots)."""

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], *, frozen: bool = False,
                eq: bool = True) -> SlottedRecord:
        if len(bases) > 1:
            raise TypeError(f"{name}: a slotted record has one base class")
        inherited = bases[0].__mro__ if bases else (object,)
        own, methods = _record_methods(namespace.get("__qualname__", name), namespace, inherited, frozen, eq)
        return super().__new__(mcs, name, bases, _slotted(dict(namespace), own, methods, inherited))


def _slotted(namespace: dict[str, Any], own: list[Field], methods: dict[str, Any],
             inherited: tuple[type, ...]) -> dict[str, Any]:
    """``namespace`` (a copy of the class body) made the body of the slotted record: the record's methods, and
    ``__slots__`` for the fields the class adds."""
    for item in own:  # a slot and a class attribute cannot share a name: defaults live in the Field
        namespace.pop(item.name, None)
    inherited_slots = {slot for base in inherited for slot in base.__dict__.get("__slots__", ())}
    namespace["__slots__"] = tuple([item.name for item in own if item.name not in inherited_slots])
    namespace.update(methods)
    return namespace


def _own_fields(name: str, body: Any) -> list[Field]:
    declared = []
    for field_name, annotation in body.get("__annotations__", {}).items():
        text = annotation if type(annotation) is str else str(annotation)
        if "ClassVar" in text or "InitVar" in text:
            raise TypeError(f"{name}.{field_name}: records do not support ClassVar / InitVar fields")
        value = body.get(field_name, MISSING)
        item = value if type(value) is Field else Field(value)
        default = item.default
        if default is not MISSING and default is not None and isinstance(default, (list, dict, set)):
            raise ValueError(f"{name}.{field_name}: a mutable default needs field(default_factory=...)")
        item.name = field_name
        declared.append(item)
    return declared


def _record_methods(qualname: str, body: Any, inherited: tuple[type, ...], frozen: bool,
                    eq: bool) -> tuple[list[Field], dict[str, Any]]:
    """The fields a class body declares, and the methods and attributes that make the class a record, from
    its body (a namespace or the class's ``__dict__``) and the classes it inherits from (its MRO after it)."""
    fields_of_bases: dict[str, Field] = {}
    post_init = "__post_init__" in body  # (looked up in the dictionaries: a failed hasattr costs more)
    for base in reversed(inherited):
        base_body = base.__dict__
        post_init = post_init or "__post_init__" in base_body
        for item in base_body.get("__record_fields__", ()):
            fields_of_bases[item.name] = item
    own = _own_fields(qualname.rpartition(".")[2], body)  # (the class's __name__)
    specs = tuple({**fields_of_bases, **{item.name: item for item in own}}.values())
    methods: dict[str, Any] = {"__record_fields__": specs}
    if "__init__" not in body:
        methods["__init__"] = _init(qualname, specs, post_init)
    if "__repr__" not in body:
        methods["__repr__"] = _record_repr
        methods["__record_repr__"] = tuple([item.name for item in specs if item.repr])
    compared = _getter(tuple([item.name for item in specs if item.compare]))
    if eq and "__eq__" not in body:
        methods["__eq__"] = _eq(compared)
    if eq and body.get("__hash__") is None:  # not written (Python sets None when the body defines __eq__)
        methods["__hash__"] = _hash(compared) if frozen else None
    if frozen:
        methods["__setattr__"], methods["__delattr__"] = _frozen_setattr, _frozen_delattr
        if "__setstate__" not in body:  # unpickling sets the fields as __init__ does (batches ship results)
            methods["__setstate__"] = _frozen_setstate
    return own, methods


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of ``names`` of an object, as a tuple (attrgetter returns a bare value for one name)."""
    if len(names) >= 2:
        return attrgetter(*names)
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _init(class_name: str, specs: tuple[Field, ...], post_init: bool) -> Callable[..., None]:
    names = tuple([item.name for item in specs])
    count = len(names)
    set_field = object.__setattr__  # also sets the fields of a frozen record

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if len(args) > count:
            raise TypeError(f"{class_name}() takes {count} positional arguments but {len(args)} were given")
        for name, value in zip(names, args):
            set_field(self, name, value)
        for item in specs[len(args):]:
            if item.name in kwargs:
                value = kwargs.pop(item.name)
            elif item.default_factory is not None:
                value = item.default_factory()
            elif item.default is not MISSING:
                value = item.default
            else:
                raise TypeError(f"{class_name}() missing required argument: {item.name!r}")
            set_field(self, item.name, value)
        if kwargs:
            name = next(iter(kwargs))
            if name in names:
                raise TypeError(f"{class_name}() got multiple values for argument {name!r}")
            raise TypeError(f"{class_name}() got an unexpected keyword argument {name!r}")
        if post_init:
            self.__post_init__()

    return __init__


@recursive_repr()
def _record_repr(self: Any) -> str:
    """One ``__repr__`` for every record (the names it shows are the class's ``__record_repr__``): a
    function built per class cost each class's creation more than the lookup costs a repr."""
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self).__record_repr__)
    return f"{type(self).__qualname__}({shown})"


def _eq(compared: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    return __eq__


def _hash(compared: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(compared(self))

    return __hash__


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_setstate(self: Any, state: Any) -> None:
    """Restore a pickled frozen record: ``object.__getstate__`` gives the ``__dict__``, or
    ``(__dict__ or None, slots)`` for a class with ``__slots__``."""
    for part in state if isinstance(state, tuple) else (state,):
        for name, value in (part or {}).items():
            object.__setattr__(self, name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")
