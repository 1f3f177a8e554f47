"""Plain model classes declared like pydantic models (advisor.snapshot's classes).

Those classes are plain Python objects, not pydantic models: the live path (the collector
builds the snapshot itself, the engine reads it) imports no pydantic, which costs ~80 ms of a
run. Each class declares its fields as annotations with defaults or Field(...), as a pydantic
model would; untrusted JSON (a snapshot file) is validated by a pydantic twin of the class built
from these declarations on first use (pydantic_twin), and the result is turned into the plain
classes. Writing JSON goes through the twin too, so the bytes are pydantic's.
"""

from __future__ import annotations

from typing import Any, Callable, Optional


_UNSET: Any = object()


class FieldSpec:
    """A declared field: the attributes of pydantic's FieldInfo that advisor reads."""

    __slots__ = ("annotation", "default", "default_factory", "description", "json_schema_extra")

    def __init__(self, default: Any = _UNSET, default_factory: Optional[Callable[[], Any]] = None,
                 description: Optional[str] = None, json_schema_extra: Optional[dict[str, Any]] = None) -> None:
        self.annotation: Any = None
        self.default = default
        self.default_factory = default_factory
        self.description = description
        self.json_schema_extra = json_schema_extra

    def is_required(self) -> bool:
        return self.default is _UNSET and self.default_factory is None


def Field(default: Any = _UNSET, *, default_factory: Optional[Callable[[], Any]] = None,
          description: Optional[str] = None, json_schema_extra: Optional[dict[str, Any]] = None) -> Any:
    return FieldSpec(default, default_factory, description, json_schema_extra)


def field_validator(name: str) -> Callable[[Any], Any]:
    """Marks a function (cls, value) -> value that the pydantic twin runs on `name` when it validates."""
    def mark(fn: Any) -> Any:
        target = fn.__func__ if isinstance(fn, classmethod) else fn
        target._validates = name
        return fn
    return mark


class SnapshotModel:
    """Base of the snapshot's classes: keyword construction without validation (as pydantic's
    model_construct), attribute access, equality by value, and the pydantic methods advisor uses
    (model_validate and model_dump_json through the twin; model_dump, model_copy, model_fields)."""

    model_fields: dict[str, FieldSpec] = {}
    _validators: dict[str, Any] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        fields: dict[str, FieldSpec] = dict(cls.model_fields)
        validators = dict(cls._validators)
        for name, ann in cls.__dict__.get("__annotations__", {}).items():
            value = cls.__dict__.get(name, _UNSET)
            spec = value if isinstance(value, FieldSpec) else FieldSpec(value)
            spec.annotation = ann
            fields[name] = spec
            if isinstance(value, FieldSpec):
                delattr(cls, name)
        for value in list(cls.__dict__.values()):
            fn = value.__func__ if isinstance(value, classmethod) else value
            if callable(fn) and getattr(fn, "_validates", None):
                validators[fn._validates] = fn
        cls.model_fields = fields
        cls._validators = validators

    def __init__(self, **values: Any) -> None:
        d = self.__dict__
        for name, spec in self.model_fields.items():
            if name in values:
                v = values.pop(name)
                d[name] = _nested(spec.annotation, v) if isinstance(v, (dict, list)) else v
            elif spec.default_factory is not None:
                d[name] = spec.default_factory()
            elif spec.default is not _UNSET:
                d[name] = spec.default
        if values:
            raise TypeError(f"{type(self).__name__} has no field {', '.join(values)}")

    @classmethod
    def model_construct(cls, **values: Any) -> Any:
        return cls(**values)

    @classmethod
    def model_validate(cls, obj: Any) -> Any:
        """Validated as plain objects: by the exact check (fast_validate) when every value already has
        its declared type, else by the pydantic twin, which converts what pydantic converts and
        raises pydantic's ValidationError for the rest."""
        if isinstance(obj, cls):
            return obj
        try:
            return fast_validate(cls, obj)
        except Unsure:
            return _from_twin(pydantic_twin(cls).model_validate(obj))

    @classmethod
    def model_validate_json(cls, text: str) -> Any:
        return _from_twin(pydantic_twin(cls).model_validate_json(text))

    @classmethod
    def model_json_schema(cls, **kw: Any) -> dict[str, Any]:
        return pydantic_twin(cls).model_json_schema(**kw)

    def model_dump(self, *, exclude: Any = None, exclude_none: bool = False, **_: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.model_fields:
            if isinstance(exclude, (set, frozenset)) and name in exclude:
                continue
            sub = exclude.get(name) if isinstance(exclude, dict) else None
            if sub is True:
                continue
            v = _dump(self.__dict__.get(name), exclude_none, sub)
            if v is None and exclude_none:
                continue
            out[name] = v
        return out

    def model_dump_json(self, **kw: Any) -> str:
        """pydantic's JSON of the same values (the twin built without validation)."""
        return _to_twin(self).model_dump_json(**kw)

    def model_copy(self, *, deep: bool = False, update: Optional[dict[str, Any]] = None) -> Any:
        import copy

        out = copy.deepcopy(self) if deep else copy.copy(self)
        if update:
            out.__dict__.update(update)
        return out

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


def _nested(ann: Any, v: Any) -> Any:
    """A dict given for a field of a model type (or lists and dicts of them) as that model, as
    pydantic's constructor would turn it; no other conversion or check."""
    import typing

    args = typing.get_args(ann)
    if typing.get_origin(ann) is typing.Union:
        models = [a for a in args if isinstance(a, type) and issubclass(a, SnapshotModel)]
        if len(models) != 1:
            return v
        ann, args = models[0], ()
    if isinstance(ann, type) and issubclass(ann, SnapshotModel):
        return ann(**v) if isinstance(v, dict) else v
    origin = typing.get_origin(ann)
    if origin is list and args and isinstance(v, list):
        return [_nested(args[0], x) if isinstance(x, (dict, list)) else x for x in v]
    if origin is dict and len(args) == 2 and isinstance(v, dict):
        return {k: _nested(args[1], x) if isinstance(x, (dict, list)) else x for k, x in v.items()}
    return v


def _dump(v: Any, exclude_none: bool, sub: Any = None) -> Any:
    if isinstance(v, SnapshotModel):
        return v.model_dump(exclude=sub, exclude_none=exclude_none)
    if isinstance(v, list):
        return [_dump(x, exclude_none) for x in v]
    if isinstance(v, dict):
        return {k: _dump(x, exclude_none) for k, x in v.items()}
    return v


class Unsure(Exception):
    """fast_validate met a value it does not decide (the pydantic twin does)."""


_UNSURE = Unsure()
_CHECKERS: dict[Any, Callable[[Any], Any]] = {}
_EXACT = (str, int, bool)
_FLOAT_EXACT = 2 ** 53  # ints pydantic turns into the same float as float() does


def fast_validate(cls: type, obj: Any) -> Any:
    """`obj` (parsed JSON) as an instance of the plain class `cls`, when every value already has the
    type its field declares: str, int and bool exactly, a float or an int for float (made a float, as
    pydantic does), None for Optional, one of a Literal's values, lists, string-keyed dicts and
    nested classes; missing fields get their defaults and the class's field validators run. Anything
    else (an extra key, a missing required field, a value pydantic would convert or reject, a
    validator that raises) raises Unsure, and the caller asks the pydantic twin, the validator of
    record. So what this returns is what the twin would return (tests/unit/test_plainmodel_fast.py
    checks it against the twin on every snapshot in the repository and on mutations of them)."""
    return _checker(cls)(obj)


def _checker(ann: Any) -> Callable[[Any], Any]:
    check = _CHECKERS.get(ann)
    if check is None:
        check = _CHECKERS[ann] = _build_checker(ann)
    return check


def _build_checker(ann: Any) -> Callable[[Any], Any]:
    import typing

    if isinstance(ann, type) and issubclass(ann, SnapshotModel):
        return _model_checker(ann)
    if ann is float:
        def check_float(v: Any) -> Any:
            t = type(v)
            if t is float:
                return v
            if t is int and -_FLOAT_EXACT <= v <= _FLOAT_EXACT:
                return float(v)
            raise _UNSURE
        return check_float
    if ann in _EXACT:
        def check_exact(v: Any, t: type = ann) -> Any:
            if type(v) is t:
                return v
            raise _UNSURE
        return check_exact
    if ann is Any:
        return lambda v: v
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is typing.Literal:
        allowed = [(type(a), a) for a in args]

        def check_literal(v: Any) -> Any:
            if (type(v), v) in allowed:
                return v
            raise _UNSURE
        return check_literal
    if origin is typing.Union:
        others = [a for a in args if a is not type(None)]
        if len(others) != 1 or len(others) == len(args):
            raise TypeError(f"fast_validate: no check for {ann!r}")
        inner = _checker(others[0])
        return lambda v: None if v is None else inner(v)
    if origin is list and len(args) == 1:
        item = _checker(args[0])

        def check_list(v: Any) -> Any:
            if type(v) is not list:
                raise _UNSURE
            return [item(x) for x in v]
        return check_list
    if origin is dict and len(args) == 2 and args[0] is str:
        value = _checker(args[1])

        def check_dict(v: Any) -> Any:
            if type(v) is not dict:
                raise _UNSURE
            out = {}
            for k, x in v.items():
                if type(k) is not str:
                    raise _UNSURE
                out[k] = value(x)
            return out
        return check_dict
    raise TypeError(f"fast_validate: no check for {ann!r}")


def _model_checker(cls: type) -> Callable[[Any], Any]:
    fields = cls.model_fields  # type: ignore[attr-defined]
    validators = cls._validators  # type: ignore[attr-defined]
    checks: dict[str, Callable[[Any], Any]] = {}

    def check_model(v: Any) -> Any:
        if type(v) is not dict:
            raise _UNSURE
        if not checks:  # built on first use: a class may name a class defined after it
            checks.update({name: _checker(spec.annotation) for name, spec in fields.items()})
        if not v.keys() <= fields.keys():
            raise _UNSURE  # an extra key: the twin forbids it, with pydantic's message
        out = cls.__new__(cls)
        d = out.__dict__
        for name, spec in fields.items():
            if name in v:
                x = checks[name](v[name])
                fn = validators.get(name)
                if fn is not None:
                    try:
                        x = fn(cls, x)
                    except Exception:
                        raise _UNSURE from None
                d[name] = x
            elif spec.default_factory is not None:
                d[name] = spec.default_factory()
            elif spec.default is not _UNSET:
                d[name] = spec.default
            else:
                raise _UNSURE  # a required field is missing
        return out
    return check_model


_TWINS: dict[type, Any] = {}


def pydantic_twin(cls: type) -> Any:
    """The pydantic model with the fields, defaults, descriptions and validators of a plain class
    (for validating untrusted JSON, writing JSON and the JSON Schema); built on first use."""
    twin = _TWINS.get(cls)
    if twin is not None:
        return twin
    from pydantic import ConfigDict, create_model
    from pydantic import Field as PField
    from pydantic import field_validator as pvalidator

    fields: dict[str, Any] = {}
    for name, spec in cls.model_fields.items():  # type: ignore[attr-defined]
        kw: dict[str, Any] = {}
        if spec.description is not None:
            kw["description"] = spec.description
        if spec.json_schema_extra is not None:
            kw["json_schema_extra"] = spec.json_schema_extra
        if spec.default_factory is not None:
            made = spec.default_factory
            plain_cls = getattr(made, "__self__", None)
            if isinstance(plain_cls, type) and issubclass(plain_cls, SnapshotModel):
                made = pydantic_twin(plain_cls).model_construct
            kw["default_factory"] = made
        elif spec.default is not _UNSET:
            kw["default"] = spec.default
        fields[name] = (_twin_annotation(spec.annotation), PField(**kw))
    validators = {f"_check_{name}": pvalidator(name)(classmethod(fn))
                  for name, fn in cls._validators.items()}  # type: ignore[attr-defined]
    # built now, not deferred: pydantic 2.5 cannot rebuild a deferred create_model model (no parent namespace)
    twin = create_model(cls.__name__, __config__=ConfigDict(extra="forbid"),
                        __doc__=cls.__doc__, __module__=cls.__module__, __validators__=validators, **fields)
    _TWINS[cls] = twin
    _PLAIN_OF[twin] = cls
    return twin


_PLAIN_OF: dict[Any, type] = {}


def _twin_annotation(ann: Any) -> Any:
    import typing

    if isinstance(ann, type) and issubclass(ann, SnapshotModel):
        return pydantic_twin(ann)
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is None or origin is typing.Literal or not args:
        return ann
    mapped = tuple(_twin_annotation(a) for a in args)
    if origin is typing.Union:
        return typing.Union[mapped]
    return origin[mapped]


def _from_twin(v: Any) -> Any:
    """A validated twin instance (and what it holds) as the plain classes."""
    cls = _PLAIN_OF.get(type(v))
    if cls is not None:
        out = cls.__new__(cls)
        out.__dict__.update({name: _from_twin(getattr(v, name)) for name in cls.model_fields})  # type: ignore[attr-defined]
        return out
    if isinstance(v, list):
        return [_from_twin(x) for x in v]
    if isinstance(v, dict):
        if not v or type(next(iter(v.values()))) in (str, int, float, bool):
            return v
        return {k: _from_twin(x) for k, x in v.items()}
    return v


def _to_twin(v: Any) -> Any:
    """A plain instance (and what it holds) as twin instances, without validation."""
    if isinstance(v, SnapshotModel):
        twin = pydantic_twin(type(v))
        return twin.model_construct(**{k: _to_twin(x) for k, x in v.__dict__.items()})
    if isinstance(v, list):
        return [_to_twin(x) for x in v]
    if isinstance(v, dict):
        return {k: _to_twin(x) for k, x in v.items()}
    return v
