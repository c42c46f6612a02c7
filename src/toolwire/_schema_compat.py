"""Type hints rewritten so that pydantic reads them as toolwire's users mean them; private to
:mod:`toolwire.schema` (which re-exports these names) and :mod:`toolwire.models.structured`.

* ``Annotated[T, "text"]``: the string is the parameter's (or field's) description, which pydantic ignores
  (:func:`_annotation_description`).
* ``typing.TypedDict`` on Python 3.11, which pydantic refuses before 3.12, and any TypedDict whose fields are
  described with ``Annotated[T, "text"]``: rebuilt as a ``typing_extensions`` TypedDict with the same keys,
  totality and descriptions (:func:`_compat`), so users can write either. This holds at any depth: a TypedDict
  whose own fields need nothing is rebuilt when one inside it (a field's type, or in a list, dict, union or
  ``Optional`` of it) is (review 96 #3). A recursive one is refused with the :class:`~toolwire.errors.SchemaError` a
  recursive pydantic model gets. (A TypedDict inside a pydantic model or a dataclass is read by pydantic as it is.)
* LangChain's TypedDict convention ``Annotated[T, default, "text"]`` (``...`` as the default: required): the field
  is optional with that default and description, as LangChain reads it (review 93 #4).
* A name a TypedDict's or dataclass's field gives as text is looked up in the code defining the tool too, and one
  defined nowhere is a SchemaError naming it (:func:`resolved_adapter`, review 94 #7).
"""

from __future__ import annotations

import copy
import re
import sys
import types
import typing
from typing import Annotated, Any, get_args, get_origin

import typing_extensions
from pydantic import Field, TypeAdapter
from pydantic.errors import PydanticUndefinedAnnotation
from pydantic.fields import FieldInfo

from toolwire._schema_refs import recursive_type_error
from toolwire._signature import caller_namespace
from toolwire.errors import SchemaError

__all__ = ["_annotation_description", "_compat", "_field_copy", "_required_qualifier", "_strip_required",
           "resolved_adapter", "unresolved_error"]


def _annotation_description(annotation: Any) -> tuple[Any, str | None]:
    """Split ``Annotated[T, "text", ...]`` into ``Annotated[T, <non-str metadata>]`` and the text (a
    ``Field(description=...)`` in the metadata wins over it).

    In a union (``Optional[Annotated[int, "text"]]``, ``Annotated[int, Field(description=...)] | None``) the
    first member's description is the parameter's: pydantic ignores the string and would leave the Field's
    description inside an ``anyOf`` branch, so it is taken out of the member. A description on the whole
    annotation wins over a member's.
    """
    origin = get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members, desc = [], None
        for member in get_args(annotation):
            new_member, text = _annotation_description(member)
            if text is not None and desc is None:
                desc = text
            members.append(new_member)
        if all(a is b for a, b in zip(members, get_args(annotation), strict=True)):
            return annotation, desc
        return typing.Union[tuple(members)], desc  # noqa: UP007
    if origin is not Annotated:
        return annotation, None
    base, *meta = get_args(annotation)
    base, desc = _annotation_description(base)  # Annotated[Optional[Annotated[int, "text"]], ...]
    texts = [m for m in meta if isinstance(m, str)]
    desc = texts[0] if texts else desc
    rest = []
    for m in meta:
        if isinstance(m, FieldInfo) and m.description:
            desc = m.description
            rest.append(_field_copy(m, description=None))  # the parameter's, not its type's
        elif not isinstance(m, str):
            rest.append(m)
    new = Annotated[(base, *rest)] if rest else base  # type: ignore[valid-type]
    return new, desc


def _field_copy(info: FieldInfo, **values: Any) -> FieldInfo:
    """A copy of ``info`` with the given attributes set (and no longer marked as given by the user, which is
    what pydantic merges ``Annotated`` Fields by)."""
    info = copy.copy(info)
    for name, value in values.items():
        setattr(info, name, value)
    attributes = getattr(info, "_attributes_set", None)
    if isinstance(attributes, dict) and not attributes.keys().isdisjoint(values):
        info._attributes_set = {k: v for k, v in attributes.items() if k not in values}
    return info


_td_cache: dict[Any, Any] = {}
"""TypedDict -> the hint to use for it (itself, or its rebuilt copy); emptied past 1,024 entries, as the other schema
caches are, so TypedDicts made per request are not all kept (review 316 #1)."""


def _remember(tp: Any, hint: Any) -> None:
    if len(_td_cache) >= 1024:
        _td_cache.clear()
    _td_cache[tp] = hint


def _text_metadata(hint: Any) -> bool:
    """Whether ``hint`` (a field's, qualifiers and all) is ``Annotated`` with a plain string among its metadata."""
    while get_origin(hint) in (typing.Required, typing_extensions.Required, typing.NotRequired,
                               typing_extensions.NotRequired):
        hint = get_args(hint)[0]
    return get_origin(hint) is Annotated and any(isinstance(m, str) for m in get_args(hint)[1:])


def _compat(tp: Any, _building: tuple[Any, ...] = ()) -> Any:
    """``tp`` with each TypedDict in it rebuilt where pydantic would not read it as written: a ``typing.TypedDict``
    before Python 3.12 (pydantic refuses it), one whose fields are described by ``Annotated[T, "text"]``
    (pydantic ignores the string: it becomes the field's ``Field(description=...)``) or LangChain's
    ``Annotated[T, default, "text"]``, and one with such a TypedDict anywhere in its field types (``inner: Inner``,
    ``list[Inner]``, ``dict[str, Inner]``, ``Optional[Inner]``: review 96 #3). The field types are looked into
    first, so the rule holds at any depth.

    Args:
        tp: a type hint.
        _building: the TypedDicts being rebuilt around this call (internal: a field that refers back to one is a
            recursive type).

    Returns:
        ``tp`` itself when nothing in it needs rebuilding, else the rebuilt hint (each TypedDict rebuilt once).

    Raises:
        SchemaError: a TypedDict to rebuild refers to itself (``children: list["Node"]``), directly or through
            another: as for a recursive pydantic model, a tool schema must be finite (review 75).
    """
    if isinstance(tp, type) and not typing_extensions.is_typeddict(tp):  # a plain class: nothing to rebuild
        return tp
    if typing_extensions.is_typeddict(tp):
        if tp in _td_cache:
            return _td_cache[tp]
        if tp in _building:  # cached only once built, so a field referring back would rebuild it forever
            raise recursive_type_error(tp.__name__)
        hints = _class_hints(tp)
        old = sys.version_info < (3, 12) and type(tp).__module__ == "typing"
        # the field types first: a nested TypedDict may need rebuilding when this one's own fields do not (review 96 #3)
        inners = {key: _compat(_strip_required(hint), (*_building, tp)) for key, hint in hints.items()}
        if (not old and not any(_text_metadata(hint) for hint in hints.values())
                and all(inners[key] is _strip_required(hint) for key, hint in hints.items())):
            _remember(tp, tp)
            return tp
        fields: dict[str, Any] = {}
        for key, hint in hints.items():
            inner = inners[key]
            qualifier = _required_qualifier(hint)
            default = _langchain_default(inner) if qualifier is not True else None
            if default is not None:  # LangChain's Annotated[T, default, "description"] (review 93 #4)
                inner = default[0]
            bare, text = _annotation_description(inner)
            if default is not None and default[1] is not Ellipsis:
                inner = Annotated[bare, Field(default=default[1], description=text)]
            elif text is not None and bare is not inner:  # the description was a plain string in the metadata
                inner = Annotated[bare, Field(description=text)]
            # the qualifier in the resolved hint wins: under ``from __future__ import annotations`` the
            # class saw only strings, so its __required_keys__ ignore Required/NotRequired
            required = qualifier
            if default is not None and default[1] is not Ellipsis:
                required = False
            elif required is None:
                required = key in tp.__required_keys__
            wrapper = typing_extensions.Required if required else typing_extensions.NotRequired
            fields[key] = wrapper[inner]
        new = typing_extensions.TypedDict(tp.__name__, fields)  # type: ignore[operator]
        new.__doc__ = tp.__doc__
        new.__module__ = tp.__module__
        cfg = getattr(tp, "__pydantic_config__", None)
        if cfg:
            new.__pydantic_config__ = cfg  # type: ignore[attr-defined]
        _remember(tp, new)
        return new
    origin = get_origin(tp)
    args = get_args(tp)
    if origin is None or not args:
        return tp
    new_args = tuple(a if isinstance(a, FieldInfo | str) else _compat(a, _building) for a in args)
    if new_args == args:
        return tp
    if origin is Annotated:
        return Annotated[(new_args[0], *args[1:])]  # type: ignore[valid-type]
    if origin in (typing.Union, types.UnionType):
        return typing.Union[new_args]  # noqa: UP007
    try:
        return origin[new_args] if len(new_args) > 1 else origin[new_args[0]]
    except TypeError:
        return tp


def unresolved_error(what: str, exc: NameError) -> SchemaError:
    """The error for a type hint naming something that is not defined where it is resolved (``exc``), in ``what``
    (``"the TypedDict 'Order'"``, ``"tool 'add'"``): one sentence naming it and saying where to define it."""
    name = getattr(exc, "name", None)
    if not isinstance(name, str) or not name:
        found = re.search(r"name '([^']+)' is not defined", str(exc))
        name = found.group(1) if found else None
    return SchemaError(f"Cannot resolve the type hints of {what}: {name or 'a name'!r} is not defined; import or "
                       f"define {name or 'it'} at module level, in the module of the class whose field names it.")


def _class_hints(tp: type) -> dict[str, Any]:
    """``typing.get_type_hints(tp, include_extras=True)`` of a TypedDict, resolving a name its module lacks among the
    local variables of the code defining the tool (a class defined in a function, named as text under ``from
    __future__ import annotations``: review 94 #7).

    Raises:
        SchemaError: a name is defined in neither (:func:`unresolved_error`).
    """
    try:
        return typing.get_type_hints(tp, include_extras=True)
    except NameError:
        pass
    try:
        return typing.get_type_hints(tp, localns=caller_namespace(), include_extras=True)
    except NameError as exc:
        raise unresolved_error(f"the TypedDict {tp.__name__!r}", exc) from None


def resolved_adapter(tp: Any, what: str) -> TypeAdapter[Any]:
    """``TypeAdapter(tp)``, with the names pydantic could not resolve in a dataclass's, TypedDict's or model's
    fields looked up among the local variables of the code defining the tool as well (review 94 #7).

    Args:
        tp: the type.
        what: what is being built, as an error names it (``"tool 'add'"``).

    Returns:
        The complete adapter.

    Raises:
        SchemaError: a name is defined nowhere pydantic or this looked (:func:`unresolved_error`).
    """
    adapter: TypeAdapter[Any] = TypeAdapter(tp)
    if not adapter.pydantic_complete:
        try:
            adapter.rebuild(force=True, raise_errors=True, _types_namespace=caller_namespace())
        except PydanticUndefinedAnnotation as exc:
            raise unresolved_error(what, exc) from None
    return adapter


def _json_like(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is JSON-like data (what a default written in an annotation is), not a marker object."""
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if depth < 16 and isinstance(value, list | tuple):
        return all(_json_like(v, depth + 1) for v in value)
    if depth < 16 and isinstance(value, dict):
        return all(isinstance(k, str) and _json_like(v, depth + 1) for k, v in value.items())
    return False


def _langchain_default(hint: Any) -> tuple[Any, Any] | None:
    """``(Annotated[T, "description", *rest], default)`` for LangChain's TypedDict field convention ``Annotated[T,
    default, "description", *rest]`` (its ``with_structured_output`` guide: ``Annotated[Optional[int], None, "How
    funny"]`` is optional, default None; ``...`` as the default keeps it required), else None. The default must be
    ``...`` or JSON-like data, so a ``Field`` or a constraint before a description is not read as one.
    (``Annotated[T, "text"]`` stays toolwire's description, where LangChain would read a default.)"""
    if get_origin(hint) is not Annotated:
        return None
    base, *meta = get_args(hint)
    if len(meta) < 2 or not isinstance(meta[1], str) or not (meta[0] is Ellipsis or _json_like(meta[0])):
        return None
    return Annotated[(base, *meta[1:])], meta[0]  # type: ignore[valid-type]


def _required_qualifier(hint: Any) -> bool | None:
    """True for ``Required[...]``, False for ``NotRequired[...]`` (also inside ``Annotated``), else None."""
    origin = get_origin(hint)
    if origin is Annotated:
        return _required_qualifier(get_args(hint)[0])
    if origin in (typing.Required, typing_extensions.Required):
        return True
    if origin in (typing.NotRequired, typing_extensions.NotRequired):
        return False
    return None


def _strip_required(hint: Any) -> Any:
    origin = get_origin(hint)
    if origin in (typing.Required, typing.NotRequired, typing_extensions.Required,
                  typing_extensions.NotRequired):
        return get_args(hint)[0]
    return hint
