"""Two JSON forms of Python values in a tool's schema (review 175): a ``NamedTuple`` type as an object of its fields,
and a ``set``/``frozenset`` default as a list in a stable order.

Private to :mod:`toolwire._schema_strict` (whose JSON Schema generator takes :class:`NamedTupleObjects` as a base)
and :mod:`toolwire.schema` (parameter defaults).

* pydantic writes a ``NamedTuple`` as a ``prefixItems`` array, whose items carry the field names only as ``title``\\ s,
  which toolwire drops: a model was shown ``[number, number]`` for ``Coord(lat, lon)`` and could swap them unnoticed
  (review 175 #3). pydantic's validator of a NamedTuple takes an object of its fields as well as the array (it calls
  the class with them as keywords, so the tool still gets the NamedTuple), so the type is published as that object,
  its fields described from the class's docstring (``Attributes:``) as a dataclass's are; the array form is still
  accepted. A default that is a NamedTuple is written as that object too.
* A set's order is its members' hash order, which changes from one process to the next (``PYTHONHASHSEED``), so a
  tool with a set default had another schema text on each start (a prompt cache's miss; review 175 #7): a set is
  written sorted (by its members' JSON text where they do not sort).
* Both hold inside a default that is a pydantic model or dataclass instance (``options: Options = Options()``, review
  182 #2): its JSON form, as pydantic writes it, is walked beside the instance, and each set in it sorted, each
  NamedTuple the object of its fields.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import typing
from typing import Any

from pydantic import BaseModel, RootModel, TypeAdapter
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import PydanticUndefined, to_jsonable_python

from toolwire._schema_aliases import published_key
from toolwire._schema_docs import describe_class

__all__ = ["NamedTupleObjects", "is_named_tuple", "stable_value"]


def is_named_tuple(value: Any) -> bool:
    """Whether ``value`` is a ``NamedTuple`` class (``typing.NamedTuple`` or ``collections.namedtuple``)."""
    return isinstance(value, type) and issubclass(value, tuple) and isinstance(getattr(value, "_fields", None), tuple)


def _own_doc(cls: type) -> str | None:
    """The docstring written for the NamedTuple ``cls``, None for the one Python makes up (``Coord(lat, lon)``, and
    ``Box(size,)`` with a trailing comma for a single field)."""
    doc = cls.__dict__.get("__doc__")
    fields: tuple[str, ...] = cls._fields  # type: ignore[attr-defined]
    made_up = f"{cls.__name__}({', '.join(fields)}{',' if len(fields) == 1 else ''})"
    if not isinstance(doc, str) or doc == made_up:
        return None
    return inspect.cleandoc(doc) or None


def _sort_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def stable_value(value: Any, depth: int = 0, by_alias: bool | None = None) -> Any:
    """``value`` (a default) with every ``set``/``frozenset`` in it, in plain dicts, lists and tuples, a list of its
    members' JSON forms in sorted order (by their JSON text where they do not sort: mixed types), and every
    NamedTuple a dict of its fields; a pydantic model or dataclass instance in it its JSON form, made so too (review
    182 #2), with the keys validation reads (:func:`_instance_dict`: a field's validation alias when ``by_alias``, else
    its name) and no computed field (review 186 #4, #5); ``value`` itself when it holds none of these (checked before
    anything is copied)."""
    kind = type(value)
    if kind is set or kind is frozenset:
        members = [to_jsonable_python(stable_value(member, depth + 1, by_alias)) for member in value]
        try:
            return sorted(members)
        except TypeError:  # (members of types that do not compare: 1 and "a")
            return sorted(members, key=_sort_key)
    if depth > 64:
        return value
    if is_named_tuple(kind):
        return {name: stable_value(item, depth + 1, by_alias)
                for name, item in zip(value._fields, value, strict=False)}
    if kind is list or kind is tuple:
        items = [stable_value(item, depth + 1, by_alias) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if kind is dict:
        values = {key: stable_value(item, depth + 1, by_alias) for key, item in value.items()}
        return value if all(values[key] is item for key, item in value.items()) else values
    if isinstance(value, BaseModel) or (dataclasses.is_dataclass(kind) and not isinstance(value, type)):
        try:
            data = _instance_data(value)
        except Exception:  # (pydantic cannot dump it: the caller's own dump says so, or leaves the default out)
            return value
        out = _aligned(value, data, depth + 1, by_alias)
        return value if out is data else out
    return value


@functools.lru_cache(maxsize=256)
def _adapter(kind: type) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def _instance_data(value: Any) -> Any:
    """The JSON form pydantic writes of the model or dataclass instance ``value`` (its own serializers applied), its
    fields under their names (:func:`_instance_dict` gives them the keys validation reads)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=False)
    return _adapter(type(value)).dump_python(value, mode="json", by_alias=False)


def _validation_key(info: Any, name: str) -> str:
    """The key under which validation reads the field ``name`` (its ``FieldInfo`` ``info``) and the JSON Schema names
    it: its ``validation_alias`` when that is a string, the first choice of an ``AliasChoices`` that is one key (as
    pydantic's JSON Schema picks it), the key of a one-step ``AliasPath`` (review 294 #1), else its ``alias``, else
    ``name``."""
    alias = getattr(info, "validation_alias", None)
    if isinstance(alias, str):
        return alias
    for choice in getattr(alias, "choices", None) or ((alias,) if alias is not None else ()):
        if isinstance(choice, str):
            return choice
        path = getattr(choice, "path", None)
        if isinstance(path, list) and len(path) == 1 and isinstance(path[0], str):
            return path[0]
    plain = getattr(info, "alias", None)
    return plain if isinstance(plain, str) else name


@functools.lru_cache(maxsize=256)
def _stdlib_field_infos(kind: type) -> dict[str, Any]:
    """The ``FieldInfo`` pydantic reads of each field of the stdlib dataclass ``kind`` (from its ``Annotated``
    metadata or a ``Field(...)`` default, where an alias is written: review 191 #1), by field name; ``None`` for a
    field pydantic's reading of fails (its name is then its key)."""
    try:
        hints = typing.get_type_hints(kind, include_extras=True)
    except Exception:  # (an annotation that does not resolve: the names stay the keys)
        hints = {}
    infos: dict[str, Any] = {}
    for field in dataclasses.fields(kind):
        default = field.default if field.default is not dataclasses.MISSING else PydanticUndefined
        try:
            infos[field.name] = FieldInfo.from_annotated_attribute(hints.get(field.name, field.type), default)
        except Exception:
            infos[field.name] = None
    return infos


def _instance_dict(raw: Any, data: dict[str, Any], depth: int, by_alias: bool | None) -> dict[str, Any]:
    """``data`` (the JSON form :func:`_instance_data` wrote of the model or dataclass instance ``raw``, fields under
    their names) as validation reads it: each field under its validation key when ``by_alias`` and the class validates
    by alias (:func:`_validation_key`; pydantic's dump by alias writes the *serialization* alias, a key the schema
    does not name: review 186 #4), its value made as :func:`_aligned` makes it; computed fields left out (the schema
    does not list them, and a model that forbids extra keys refuses them: review 186 #5); other keys (extra ones, a
    serializer's own) kept."""
    kind = type(raw)
    infos = getattr(kind, "__pydantic_fields__", None)
    if not isinstance(infos, dict):
        infos = _stdlib_field_infos(kind)
    computed = getattr(kind, "__pydantic_computed_fields__", None) or {}
    config = getattr(kind, "model_config", None) or getattr(kind, "__pydantic_config__", None) or {}
    aliased = bool(by_alias) and config.get("validate_by_alias") is not False
    extra = getattr(raw, "__pydantic_extra__", None)
    out: dict[str, Any] = {}
    for key, item in data.items():
        if key in infos and hasattr(raw, key):
            value = _aligned(getattr(raw, key), item, depth + 1, by_alias)
            out[_validation_key(infos[key], key) if aliased else key] = value
        elif key in computed:
            continue
        elif isinstance(extra, dict) and key in extra:
            out[key] = _aligned(extra[key], item, depth + 1, by_alias)
        else:
            out[key] = item
    return out


def _aligned(raw: Any, data: Any, depth: int, by_alias: bool | None = None) -> Any:
    """``data`` (the JSON form pydantic wrote of ``raw``) with each set in ``raw`` sorted and each NamedTuple the
    object of its fields, as :func:`stable_value` writes them, and each model or dataclass instance's keys those
    validation reads (:func:`_instance_dict`), found by walking ``raw`` beside ``data``; ``data`` itself when nothing
    changed. Where the two do not match (a serializer of the user's wrote another shape), ``data`` is kept as
    written."""
    if depth > 64:
        return data
    kind = type(raw)
    if kind is set or kind is frozenset:
        if type(data) is not list:
            return data
        items = data  # (written in the set's own order, the one iterating it gives: a member beside its item)
        if len(data) == len(raw):
            items = [_aligned(member, item, depth + 1, by_alias) for member, item in zip(raw, data, strict=True)]
        try:
            return sorted(items)
        except TypeError:
            return sorted(items, key=_sort_key)
    if is_named_tuple(kind):
        if type(data) is not list or len(data) != len(raw):
            return data
        return {name: _aligned(item, written, depth + 1, by_alias)
                for name, item, written in zip(raw._fields, raw, data, strict=False)}
    if isinstance(raw, RootModel):
        return _aligned(raw.root, data, depth + 1, by_alias)
    if isinstance(raw, BaseModel) or (dataclasses.is_dataclass(kind) and not isinstance(raw, type)):
        return _instance_dict(raw, data, depth, by_alias) if type(data) is dict else data
    if isinstance(raw, list | tuple):
        pairs = list(enumerate(raw)) if type(data) is list and len(data) == len(raw) else []
    elif isinstance(raw, dict):
        keys = list(data) if type(data) is dict and len(data) == len(raw) else []
        pairs = list(zip(keys, raw.values(), strict=False)) if keys else []
    else:
        return data
    changed = {key: out for key, item in pairs
               if (out := _aligned(item, data[key], depth + 1, by_alias)) is not data[key]}
    if not changed:
        return data
    if type(data) is list:
        return [changed.get(index, item) for index, item in enumerate(data)]
    return {key: changed.get(key, item) for key, item in data.items()}


class NamedTupleObjects(GenerateJsonSchema):
    """pydantic's JSON Schema generator writing a NamedTuple as the object of its fields, described from its
    docstring, and set defaults in a stable order (see the module); a field that validation reads through an
    ``AliasPath`` only published under the key validation reads, or refused (:mod:`toolwire._schema_aliases`)."""

    core_root: Any = None
    """The core schema :meth:`generate` was given (searched for a refused field's class, on the error path only)."""

    def generate(self, schema: Any, mode: Any = "validation") -> JsonSchemaValue:
        """pydantic's, keeping ``schema`` as :attr:`core_root`."""
        self.core_root = schema
        return super().generate(schema, mode=mode)

    def _get_alias_name(self, field: Any, name: str) -> str:
        """pydantic's key for the field ``name`` (its core schema ``field``); for one whose ``validation_alias`` is a
        path or paths, the key validation reads (:func:`~toolwire._schema_aliases.published_key`, review 294 #1), in
        a model whose config says ``json_schema_mode_override="serialization"`` too, where pydantic wrote the
        serialization key, which validation refuses (review 296 #4).

        Raises:
            SchemaError: validation reads the field only through a path of more than one step.
        """
        if field.get("validation_alias").__class__ is list and field.get("type") != "computed-field":
            if self.mode == "validation":
                return published_key(self, field, name, super()._get_alias_name(field, name))
            return published_key(self, field, name, name)  # (the key validation reads, from its name)
        return super()._get_alias_name(field, name)

    def named_tuple_schema(self, schema: Any) -> JsonSchemaValue:
        """A NamedTuple's (pydantic 2.14's own core schema, whose validator takes the object too) as an object of its
        fields: by name (a ``validation_alias`` string, when given), those without a default required, no other."""
        properties: dict[str, JsonSchemaValue] = {}
        required: list[str] = []
        for field in schema.get("fields", ()):
            alias = field.get("validation_alias")
            name = alias if isinstance(alias, str) else field["name"]
            properties[name] = self.generate_inner(field["schema"])
            if field["schema"].get("type") != "default":
                required.append(name)
        out: JsonSchemaValue = {"type": "object", "properties": properties}
        if required:
            out["required"] = required
        out["additionalProperties"] = False
        return self._described(out, schema.get("cls"))

    def _described(self, out: JsonSchemaValue, cls: Any) -> JsonSchemaValue:
        doc = _own_doc(cls) if is_named_tuple(cls) else None
        if doc:
            out["description"] = doc
        return describe_class(out, cls)  # (its Attributes: entries go to the fields, as a dataclass's do)

    def call_schema(self, schema: Any) -> JsonSchemaValue:
        """pydantic's, but a NamedTuple's (a call of the class, before pydantic 2.14) as an object of its fields, which
        its validator takes as keywords."""
        cls = schema.get("function")
        arguments = schema.get("arguments_schema")
        if not is_named_tuple(cls) or not isinstance(arguments, dict) or arguments.get("type") != "arguments" \
                or arguments.get("var_args_schema") or any(
                    a.get("mode") in ("positional_only", "var_args") for a in arguments.get("arguments_schema", ())):
            return super().call_schema(schema)
        out = self.kw_arguments_schema(arguments["arguments_schema"], arguments.get("var_kwargs_schema"))
        return self._described(out, cls)

    def encode_default(self, dft: Any) -> Any:
        """pydantic's, with sets sorted and NamedTuples as objects (:func:`stable_value`), in a model or dataclass
        instance too."""
        return super().encode_default(stable_value(dft, by_alias=self.by_alias))
