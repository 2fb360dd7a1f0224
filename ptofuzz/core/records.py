"""Records: classes declared as dataclasses are, that cost next to nothing to define.

A dataclass costs 0.3 to 2 ms of start-up to define (the decorator writes and compiles an ``__init__``, a
``__repr__``, an ``__eq__`` and, frozen, a ``__setattr__`` for every class), and a canonical ``ptofuzz gen``
defines the few on its path (cases, outcomes, instructions, layouts) before it writes a byte: about 5 ms, a
twentieth of a whole run. :func:`record` takes the same declaration (annotated fields, defaults, :func:`field`
factories, ``__post_init__``) and gives the class generic methods that are compiled once, here:

* ``__init__``: positional or keyword arguments in field order, defaults and factories, then ``__post_init__``
  (a class that defines its own ``__init__`` keeps it: a hot one can set its ``__dict__`` directly);
* ``__repr__``: ``Name(field=value, ...)``;
* ``__eq__`` (``eq=True``, the default): same class and equal fields; ``__hash__`` over the fields when also
  ``frozen`` (unless the class defines its own), else unhashable, as a dataclass; ``eq=False``: identity;
* ``frozen=True``: assigning or deleting an attribute raises :class:`FrozenError`.

:func:`replace` is :func:`dataclasses.replace` for records. mypy sees :func:`dataclasses.dataclass`,
:func:`dataclasses.field` and :func:`dataclasses.replace` themselves, so a record's construction is checked as a
dataclass's is. Instances keep their fields in ``__dict__`` (they pickle and copy as plain objects).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["FrozenError", "field", "record", "replace"]


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Any) -> None:
        self.make = make


if TYPE_CHECKING:
    from dataclasses import dataclass as record
    from dataclasses import field, replace
else:
    def field(*, default_factory):
        """A field whose default is ``default_factory()``, made anew for each instance."""
        return _Factory(default_factory)

    def record(cls=None, /, *, frozen=False, eq=True):
        """The class decorator (see the module's docstring)."""
        def wrap(cls):
            own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 - the class's own, as inspect's would be
            names = tuple(n for n, a in own.items()
                          if not str(a).startswith(("ClassVar", "typing.ClassVar")))
            defaults = {}
            for n in names:
                if n in cls.__dict__:
                    defaults[n] = cls.__dict__[n]
                    if isinstance(defaults[n], _Factory):
                        delattr(cls, n)
            cls.__record_fields__ = names
            cls.__record_defaults__ = defaults
            if "__init__" not in cls.__dict__:  # (as a dataclass, a class's own __init__ stays)
                cls.__init__ = _init
            if "__repr__" not in cls.__dict__:
                cls.__repr__ = _repr
            if eq:
                cls.__eq__ = _eq
                if "__hash__" not in cls.__dict__:
                    cls.__hash__ = _hash if frozen else None
            if frozen:
                cls.__setattr__ = _frozen
                cls.__delattr__ = _frozen
            return cls

        return wrap if cls is None else wrap(cls)

    def replace(obj, /, **changes):
        """A copy of the record ``obj`` with some fields changed (through ``__init__``: ``__post_init__`` runs)."""
        fields = type(obj).__record_fields__
        for name in changes:
            if name not in fields:
                raise TypeError(f"{type(obj).__name__} has no field {name!r}")
        return type(obj)(**{n: changes[n] if n in changes else obj.__dict__[n] for n in fields})


class FrozenError(AttributeError):
    """An assignment to a field of a frozen record."""


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    cls = type(self)
    names = cls.__record_fields__
    if len(args) > len(names):
        raise TypeError(f"{cls.__name__}() takes {len(names)} positional arguments but {len(args)} were given")
    d = self.__dict__
    d.update(zip(names, args))
    for name, value in kwargs.items():
        if name not in names or name in d:
            raise TypeError(f"{cls.__name__}() got an unexpected or repeated argument {name!r}")
        d[name] = value
    if len(d) < len(names):
        defaults = cls.__record_defaults__
        for name in names:
            if name not in d:
                if name not in defaults:
                    raise TypeError(f"{cls.__name__}() missing required argument {name!r}")
                default = defaults[name]
                d[name] = default.make() if type(default) is _Factory else default
    post = getattr(self, "__post_init__", None)
    if post is not None:
        post()


def _repr(self: Any) -> str:
    d = self.__dict__
    return f"{type(self).__qualname__}({', '.join(f'{n}={d[n]!r}' for n in type(self).__record_fields__)})"


def _values(self: Any) -> tuple[Any, ...]:
    d = self.__dict__
    return tuple(d[n] for n in type(self).__record_fields__)


def _eq(self: Any, other: object) -> Any:  # bool, or NotImplemented
    if other.__class__ is not self.__class__:
        return NotImplemented
    return bool(_values(self) == _values(other))


def _hash(self: Any) -> int:
    return hash(_values(self))


def _frozen(self: Any, name: str, *value: Any) -> None:
    raise FrozenError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")
