"""A parameter default's JSON form for a tool's schema, and the rule that a default holding a number JSON cannot carry
(``inf``/``nan``, a non-finite ``Decimal``; anywhere inside: a list item, a dict key or value, a model or dataclass
instance's field) is not published (README; reviews 237 #3, 242 #6). Split out of :mod:`toolwire.schema`."""

from __future__ import annotations

import dataclasses
import decimal
import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import NoDefault

from toolwire._schema_fast import Unsupported, fast_default
from toolwire._schema_params import has_non_finite_text
from toolwire._schema_shapes import stable_value
from toolwire._schema_strict import StrictJsonSchema
from toolwire.errors import SchemaError

__all__ = ["_NO_JSON", "_SHOWN", "_DefaultsAsData", "_default_json", "_drop_non_finite", "_finite", "_renamed_keys"]

# pydantic walks the whole JSON Schema it writes for "$ref" and "$defs" keys, defaults included, and fails
# (KeyError, AttributeError) on a default such as {"$defs": 1}: defaults are written with those keys renamed
# and get them back once the schema is done. (The renamed keys sort where the real ones do.)
_HIDDEN = {"$ref": "$ref\x00toolwire", "$defs": "$defs\x00toolwire"}
_SHOWN = {hidden: key for key, hidden in _HIDDEN.items()}


def _renamed_keys(value: Any, names: Mapping[str, str]) -> Any:
    if isinstance(value, dict):
        return {names.get(k, k): _renamed_keys(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed_keys(v, names) for v in value]
    return value


class _DefaultsAsData(StrictJsonSchema):
    """pydantic's JSON Schema generator (of the stricter core schema, see :mod:`toolwire._schema_strict`), with
    "$ref"/"$defs" keys in defaults hidden from its reference walk, and no default holding a non-finite ``Decimal``
    (a nested model's field, an args_schema's: pydantic writes ``"NaN"``, which the validator refuses; review 237
    #3) or ``float`` (dropped later anyway)."""

    def encode_default(self, dft: Any) -> Any:
        return _renamed_keys(super().encode_default(dft), _HIDDEN)

    def get_default_value(self, schema: Any) -> Any:
        default = super().get_default_value(schema)
        return default if _finite(default) else NoDefault



_NO_JSON: Any = object()
_JSON_SCALARS = (str, int, float, bool, type(None))  # (a tuple made once, not a union per call)


def _finite(value: Any, _inside: frozenset[int] = frozenset()) -> bool:
    """Whether ``value`` (JSON-like data, or a default's Python value) holds no ``inf``/``nan``, which JSON cannot
    carry: a ``float`` one or a ``Decimal`` one (written ``"NaN"``/``"Infinity"``, which the validator refuses:
    review 237 #3), as an item, a dict key or value, or a field of a model or dataclass instance (pydantic writes a
    float one there as ``null``, and a key as ``"None"`` or ``"NaN"``, none of them the default: review 242 #6).

    An instance that reaches itself (a config listing itself in a dict field), or holds a list or dict that does,
    is not walked again (``_inside``: the ids of the instances it is in): pydantic's dump then finds the cycle, and
    the default is left out of the schema (review 247 #7). A list or dict that holds itself outside any instance
    still raises ``RecursionError`` (a :class:`SchemaError` for a parameter's default: review 83)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:  # (the usual default: no more tests)
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(k, _inside) and _finite(v, _inside) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_finite(v, _inside) for v in value)
    if isinstance(value, decimal.Decimal):
        return value.is_finite()
    if isinstance(value, BaseModel) or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        if id(value) in _inside:
            return True
        inside = _inside | {id(value)}
        try:
            if isinstance(value, BaseModel):
                return _finite(value.__dict__, inside) and _finite(getattr(value, "__pydantic_extra__", None) or {},
                                                                   inside)
            return all(_finite(getattr(value, field.name, None), inside) for field in dataclasses.fields(value))
        except RecursionError:  # (a list or dict in it that holds itself: the dump finds the cycle)
            return True
    return True


def _drop_non_finite(schema: Any, tool_name: str, path: str = "") -> None:
    """Remove ``default``/``examples`` values holding ``inf``/``nan`` from a JSON Schema, in place; any other
    such number (a ``maximum: inf``, an enum member) is a :class:`SchemaError` naming the tool.

    Python allows ``def f(limit: float = float("inf"))``; JSON does not (RFC 8259, section 6), and
    providers reject the request, so such a default is simply not advertised.
    """
    if isinstance(schema, dict):
        for key in [k for k in ("default", "examples") if k in schema and not _finite(schema[k])]:
            del schema[key]
        for key, value in schema.items():
            _drop_non_finite(value, tool_name, f"{path}/{key}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            _drop_non_finite(value, tool_name, f"{path}/{index}")
    elif isinstance(schema, float) and not math.isfinite(schema):
        raise SchemaError(f"The JSON Schema of tool {tool_name!r} holds {schema} at {path or '/'}, which JSON "
                          "cannot carry: use a finite number there.")


def _default_json(value: Any) -> Any:
    """A parameter default's JSON form, or ``_NO_JSON`` when it has none (``inf``/``nan`` included, a ``Decimal``
    one too, in a model or dataclass instance as well: pydantic would write them as ``null`` or ``"NaN"``, which
    are not the default or are refused: review 237 #3); a set's members sorted (by their JSON text where they
    do not sort), so the schema's text is the same in every process, and a NamedTuple the object of its fields, in a
    model or dataclass instance too."""
    if not _finite(value):
        return _NO_JSON
    if isinstance(value, _JSON_SCALARS):
        return value
    try:
        return fast_default(value)
    except Unsupported:
        pass
    # sets sorted, NamedTuples as objects (review 175 #3, #7; in an instance too: 182 #2), keys by alias
    shown = stable_value(value, by_alias=True)
    try:
        out = TypeAdapter(type(shown)).dump_python(shown, mode="json", by_alias=True)  # (as it is validated)
        # a Decimal NaN or Infinity in a model or dataclass instance is written "NaN"/"Infinity", which the
        # validator refuses (review 237 #3): looked for in the Python values only when such a text is there
        if has_non_finite_text(out) and not _finite(TypeAdapter(type(value)).dump_python(value)):
            return _NO_JSON
        return out
    except Exception:
        return _NO_JSON

