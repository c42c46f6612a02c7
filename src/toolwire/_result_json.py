"""How a tool's result becomes JSON text: the conversions ``json.dumps`` needs for values it cannot write.

Objects pydantic knows take their JSON form, others (numpy's, say) their ``tolist()`` or ``str()``
(:func:`~toolwire._json_fallback.json_fallback`, in its own module); UTF-8 ``bytes`` become text; dict keys JSON
cannot hold are written as text; a NamedTuple (or a struct sequence: ``os.stat_result``) becomes an object of its
fields; a NaN or infinite float becomes the
string ``"NaN"``, ``"Infinity"`` or ``"-Infinity"``; pandas' ``NaT`` (a ``datetime`` pydantic cannot write) becomes
``null`` (:mod:`toolwire._array_json`). :func:`_dumps` writes a result's JSON text with all of these.

Kept apart from :mod:`toolwire.results`, which uses these to turn a result into message content and re-exports
:func:`json_fallback` (import it from there).
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import functools
import inspect
import json
import math
import re
import sys
import types
import uuid
from collections.abc import Callable, Mapping
from itertools import chain
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from toolwire._array_json import not_a_time, odd_time_type, times_as_null
from toolwire._json_fallback import _str, json_fallback
from toolwire._media_base64 import _MEDIA_BLOCKS as _MEDIA_BLOCKS  # (re-exported, with the two below)
from toolwire._media_base64 import standard_base64, standard_block

__all__ = ["Unawaited", "distinct_keys", "json_fallback", "json_form", "standard_base64", "standard_block"]


def _utf8(value: bytes | bytearray) -> str:
    """``value`` as text when it is UTF-8 (``b"250 OK"``, a subprocess's output).

    Raises:
        TypeError: it is not UTF-8 (an image, a compressed file), or it is an image whose bytes are all ASCII
            (:func:`binary_image`; the result then takes the image path, ``results._with_images``: review 115).
    """
    if binary_image(value):
        raise TypeError(f"{len(value)} bytes that are not UTF-8 text")
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        raise TypeError(f"{len(value)} byte{'' if len(value) == 1 else 's'} that are not UTF-8 text") from None


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):  # (a memoryview as the bytes it views: review 116)
        return _utf8(bytes(value))
    try:
        return to_jsonable_python(value, fallback=_result_fallback)
    except Unawaited:
        raise
    except TypeError:  # pandas' NaT (a datetime pydantic cannot write), or an object holding one: null (review 272 #1)
        if (nulled := times_as_null(value, _fields)) is value:
            raise
        return nulled


def _fields(value: Any) -> dict[Any, Any] | None:
    """The plain dict of a :func:`_structured` object's fields (:func:`_plain`), or None (another object, or one
    whose serialiser fails)."""
    try:
        return _plain(value) if _structured(type(value)) else None
    except Exception:
        return None


class Unawaited(TypeError):
    """A result holds an awaitable or async generator (a coroutine never awaited): no JSON form (review 269 #2)."""


def _result_fallback(value: Any) -> Any:
    """:func:`json_fallback`, but an awaitable raises :class:`Unawaited` (it was written ``"<coroutine object>"``)."""
    if inspect.isawaitable(value) or type(value) is types.AsyncGeneratorType:
        raise Unawaited(f"it holds a {type(value).__name__} that was never awaited")
    return json_fallback(value)


def _non_finite_name(value: float) -> str:
    """``"NaN"``, ``"Infinity"`` or ``"-Infinity"``: how a result's non-finite float is written."""
    return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"


def _finite(value: Any) -> Any:
    """``value`` with each NaN or infinite float (in dicts, lists, tuples) as its name (:func:`_non_finite_name`)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else _non_finite_name(value)
    if isinstance(value, dict):
        return {_non_finite_name(k) if isinstance(k, float) and not math.isfinite(k) else k: _finite(v)
                for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _has_non_finite(value: Any) -> bool:
    """Whether ``value`` (JSON-like data: dicts, lists, tuples) holds a NaN or infinite float."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_has_non_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_non_finite(v) for v in value)
    return False


def _finite_default(value: Any) -> Any:
    return _finite(_json_default(value))


def _is_nan_error(exc: ValueError) -> bool:
    return "Out of range float" in str(exc)


_JSON_KEYS = (str, int, float, bool, type(None))


def _is_key_error(exc: TypeError) -> bool:
    return str(exc).startswith("keys must be")


def _json_key(key: Any) -> Any:
    """A dict key as JSON can hold it: a date, UUID, Decimal, enum or tuple as the text pydantic writes for it
    (``"2024-01-01"``, ``"a,1"``); bytes as text, as a bytes value is (:func:`_utf8`); any other key its
    ``str()``, or ``"<TYPE object>"`` when that fails (review 62).

    Raises:
        TypeError: the key is bytes that are not UTF-8 text.
    """
    if isinstance(key, _JSON_KEYS):
        return key
    if isinstance(key, bytes):
        return _utf8(key)
    try:
        return next(iter(to_jsonable_python({key: None}, fallback=_str)))
    except Exception:  # (pydantic refuses a frozenset as a key; a key's own serialiser may fail)
        return _str(key)


def _json_keys(value: Any) -> Any:
    """``value`` with its plain dicts' keys (in dicts, lists, tuples) JSON cannot hold as text (:func:`_json_key`):
    ``json.dumps`` never gives keys to ``default`` (review 28: ``dict[date, float]`` failed); models' are converted."""
    if isinstance(value, dict):
        return {_json_key(k): _json_keys(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_keys(v) for v in value]
    return value


def _keys_as_text(encode: Callable[[Any], str], value: Any) -> str:
    """``encode(value)``; when JSON refuses one of its dict keys, ``encode`` again with such keys written as text
    (:func:`_json_keys`)."""
    try:
        return encode(value)
    except TypeError as exc:
        if not _is_key_error(exc):
            raise
    return encode(_json_keys(value))


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _is_named_tuple_type(kind: type) -> bool:
    """Whether ``kind`` is a tuple type with named fields: a NamedTuple (``_fields``), or a struct sequence of the
    standard library (``os.stat_result``, ``time.struct_time``, ``os.terminal_size``: ``n_fields`` and the like on
    the type, review 189 #2)."""
    return kind is not tuple and issubclass(kind, tuple) and (hasattr(kind, "_fields") or _is_struct_sequence(kind))


def _is_struct_sequence(kind: type) -> bool:
    return all(hasattr(kind, name) for name in ("n_fields", "n_sequence_fields", "n_unnamed_fields"))


def _tuple_fields(value: tuple[Any, ...]) -> dict[Any, Any] | None:
    """A tuple :func:`_is_named_tuple_type` accepts as the dict of its fields: a NamedTuple's ``_fields``; a struct
    sequence's named fields, those past its sequence part too (``os.stat_result``'s float ``st_mtime``,
    ``time.struct_time``'s ``tm_zone``), without its unnamed ones (the integer times of a stat result). None when its
    ``_fields`` do not name its items one for one (another tuple subclass's), to be written as a list."""
    if _is_struct_sequence(type(value)) and (names := _struct_fields(type(value))):
        return {name: getattr(value, name, None) for name in names}
    fields = getattr(value, "_fields", None)
    try:
        return dict(zip(fields, value, strict=True))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


@functools.cache
def _struct_fields(kind: type) -> tuple[str, ...]:
    """The named fields of the struct sequence type ``kind``, in their order: the member descriptors of the class
    along its MRO that defines ``n_fields``."""
    for klass in kind.__mro__:
        if "n_fields" in vars(klass):
            return tuple(name for name, member in vars(klass).items()
                         if isinstance(member, types.MemberDescriptorType))
    return ()


_CONTAINERS = (dict, list, tuple)


def _has_named_tuple(value: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> bool:
    """Whether the plain dicts, lists and tuples inside ``value`` hold a NamedTuple. The walk goes one level
    at a time, gathering each level's items and their types at C speed (``chain``, ``set(map(type, ...))``), so
    a result without one costs a fraction of its ``json.dumps``; each container is visited once, a circular
    result included."""
    children: list[Any] | Any = value.values() if isinstance(value, dict) else value
    seen = {id(value)}
    while True:
        kinds = set(map(type, children))
        if kinds <= _SCALARS:
            return False
        kinds -= _SCALARS
        if any(_is_named_tuple_type(k) for k in kinds):
            return True
        if not any(issubclass(k, _CONTAINERS) for k in kinds):
            return False
        level = [c for c in children if isinstance(c, _CONTAINERS) and id(c) not in seen]
        if not level:
            return False
        seen.update(map(id, level))
        children = list(chain.from_iterable(c.values() if isinstance(c, dict) else c for c in level))


def _named_tuples(value: Any, path: set[int] | None = None) -> Any:
    """``value`` with every NamedTuple in it (in plain dicts, lists and tuples) written as a dict of its fields,
    so the model reads ``{"total": 16, "available": 8}`` rather than the bare list ``json.dumps`` and pydantic
    write for it (``psutil``'s results, ``namedtuple`` rows). ``value`` itself when it holds none (checked
    first, at little cost: :func:`_has_named_tuple`); a container met again on its own path (a circular
    result) is left as it is, for ``json.dumps`` to refuse."""
    if path is None:
        if not isinstance(value, _CONTAINERS) or not (
                _is_named_tuple_type(type(value)) or _has_named_tuple(value)):
            return value
        path = set()
    if type(value) in _SCALARS or not isinstance(value, _CONTAINERS) or id(value) in path:
        return value
    path.add(id(value))
    try:
        if isinstance(value, dict):  # (a Counter, an OrderedDict... as well)
            return {k: _named_tuples(v, path) for k, v in value.items()}
        if _is_named_tuple_type(type(value)) and (fields := _tuple_fields(value)) is not None:
            return {k: _named_tuples(v, path) for k, v in fields.items()}
        return [_named_tuples(v, path) for v in value]
    finally:
        path.discard(id(value))


def _dumps(result: Any) -> str:
    """JSON text of ``result``, non-finite floats as the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``, dict keys
    JSON cannot hold as text (:func:`_json_keys`), NamedTuples as objects, :func:`json_form`'s pairs."""
    return _keys_as_text(_dumps_as_is, json_form(result))


def _dumps_as_is(result: Any) -> str:
    try:
        return json.dumps(result, ensure_ascii=False, default=_json_default, allow_nan=False)
    except ValueError as exc:
        if not _is_nan_error(exc):
            raise
    return json.dumps(_finite(result), ensure_ascii=False, default=_finite_default, allow_nan=False)


_BINARY = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
"""Control bytes (NUL...) an image file's header holds but text does not (not the tab, newlines, form feed, escape)."""

_IMAGE_SIGNATURES = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF87a", "image/gif"),
                     (b"GIF89a", "image/gif"))


def image_mime(data: bytes | bytearray) -> str | None:
    """The MIME type of ``data`` when it starts as an image file does, else None.

    Read from the file signatures: PNG's 8 bytes (PNG specification 5.2), JPEG's ``FF D8 FF`` (ITU T.81), GIF's
    ``GIF87a``/``GIF89a``, WebP's RIFF header with ``WEBP`` (RFC 9649 2.5): the types OpenAI, Anthropic, Gemini take.
    """
    head = bytes(data[:12])
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return next((mime for signature, mime in _IMAGE_SIGNATURES if head.startswith(signature)), None)


def binary_image(value: bytes | bytearray) -> bool:
    """Whether ``value`` starts as an image file does (:func:`image_mime`) and holds control bytes (NUL...) that no
    text holds: then it is an image even when every byte is ASCII, so UTF-8 text (review 112)."""
    return image_mime(value) is not None and _BINARY.search(value) is not None


def _short_ints(ready: Any) -> Any:
    """``ready`` (JSON-ready) with each integer too long to write as text replaced by a text that describes it
    (``"12345678901234567890... (5001 digits)"``); ``ready`` itself when it holds none."""
    limit = sys.get_int_max_str_digits() or 0
    if not limit:
        return ready
    bits = int(limit * 3.3219)  # (fewer bits than that always writes: a quick test before the exact one)

    def short(value: Any) -> Any:
        kind = type(value)
        if kind is int and value.bit_length() > bits:
            return _int_text(value, limit)
        if kind is list:
            items = [short(item) for item in value]
            return value if all(a is b for a, b in zip(items, value, strict=True)) else items
        if kind is dict:
            pairs = {key: short(item) for key, item in value.items()}
            return value if all(pairs[key] is item for key, item in value.items()) else pairs
        return value

    return short(ready)


def _int_text(value: int, limit: int) -> Any:
    """``value`` itself when it has at most ``limit`` digits, else its first 20 digits and its digit count."""
    size = abs(value)
    digits = max(1, int(size.bit_length() * 0.30103))
    while 10 ** digits <= size:
        digits += 1
    if digits <= limit:
        return value
    return f"{'-' if value < 0 else ''}{size // 10 ** (digits - 20)}... ({digits} digits)"


def _huge_ints_as_text(value: Any, depth: int = 0) -> Any:
    """A copy of ``value`` whose dicts, lists, tuples and sets have each integer too long to write as text (keys
    too) replaced by :func:`_int_text`'s text, for a value pydantic could not write (its dict keys become text)."""
    limit = sys.get_int_max_str_digits() or 0
    kind = type(value)
    if kind is int:
        return _int_text(value, limit) if limit else value
    if depth > 200:
        return value
    if isinstance(value, dict):
        return {_huge_ints_as_text(k, depth + 1): _huge_ints_as_text(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_huge_ints_as_text(item, depth + 1) for item in value]
    return value


# --------------------------------------------------------------------------- dict keys that are one JSON text

_BYTES = (bytes, bytearray, memoryview)


def _key_text(key: Any, saved: bool = False) -> str:
    """The text a dict key is written as in JSON (``json.dumps``'s, and :func:`_json_key`'s for a key JSON cannot
    hold): a string itself, ``None`` ``"null"``, a bool ``"true"``/``"false"``, a number its JSON form (a NaN or
    infinite float ``"NaN"``, ``"Infinity"``, ``"-Infinity"``); with ``saved``, bytes that are not UTF-8 text
    their standard base64 (as a saved artifact's bytes are). A key that cannot be written gets a text no other
    key has (writing it then fails, or not, as before)."""
    if isinstance(key, str):
        return str.__str__(key)
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    try:
        if isinstance(key, int):
            return int.__repr__(key)
        if isinstance(key, float):
            return float.__repr__(key) if math.isfinite(key) else _non_finite_name(key)
        return _str(_json_key(key))
    except (TypeError, ValueError):  # bytes that are not UTF-8 text, an integer too long to write as text
        if isinstance(key, int):
            return str(_int_text(key, sys.get_int_max_str_digits()))
        if saved and isinstance(key, _BYTES):
            return base64.b64encode(key).decode("ascii")
        return f"\x00<{id(key)}>"


def _scan(value: Any, bytes_too: bool = False) -> tuple[bool, bool, bool]:
    """What ``value`` (a dict, list or tuple, or an object pydantic writes as one: :func:`_structured`) holds, in
    its plain dicts, lists and tuples and such objects' fields at any depth: whether a NamedTuple
    (:func:`_named_tuples` has work), whether a dict with a key that is not a ``str`` or, with ``bytes_too``,
    bytes (:func:`_distinct` has work), and, with ``bytes_too``, whether a value of a subclass of ``date``, ``time``
    or ``timedelta`` that may be pandas' ``NaT`` (:func:`~toolwire._array_json.times_as_null` has work). Walked a
    level at a time, gathering each level's items and their types at C speed as :func:`_has_named_tuple` walks,
    each container once."""
    named = keys = False
    times = not bytes_too  # (looked for in a saved value only)
    level: list[Any] = [value]
    seen = {id(value)}
    while level:
        named = named or any(_is_named_tuple_type(k) for k in set(map(type, level)))
        if not keys and (dicts := [c for c in level if isinstance(c, Mapping)]):
            keys = not set(map(type, chain.from_iterable(map(_keys, dicts)))) <= {str}
        if named and keys and times:
            break
        children = list(chain.from_iterable(
            c.values() if isinstance(c, dict) else c if isinstance(c, _CONTAINERS) else _parts(c) for c in level))
        kinds = set(map(type, children)) - _SCALARS
        keys = keys or (bytes_too and any(issubclass(k, _BYTES) for k in kinds))
        times = times or any(map(odd_time_type, kinds))
        if not any(issubclass(k, _CONTAINERS) or _structured(k) for k in kinds):
            break
        level = [c for c in children if (isinstance(c, _CONTAINERS) or _structured(type(c))) and id(c) not in seen]
        seen.update(map(id, level))
    return named, keys, times and bytes_too


def _keys(mapping: Mapping[Any, Any]) -> Any:
    """The keys of ``mapping``: a dict itself; another mapping's as a list, none when its iteration fails (then
    :func:`json_fallback` writes its text, review 144 #3)."""
    if isinstance(mapping, dict):
        return mapping
    try:
        return list(mapping)
    except Exception:
        return ()


def _structured(kind: type) -> bool:
    """Whether a value of type ``kind`` is written as a JSON object of its fields or items by pydantic (or by
    :func:`json_fallback`): a pydantic model, a dataclass, a mapping that is not a ``dict``."""
    return (issubclass(kind, BaseModel) or hasattr(kind, "__dataclass_fields__")
            or (issubclass(kind, Mapping) and not issubclass(kind, dict)))


def _parts(value: Any) -> list[Any]:
    """The values a :func:`_structured` object holds: a model's fields and extra fields, a dataclass's fields, a
    mapping's values (none when they cannot be read)."""
    try:
        if isinstance(value, BaseModel):
            return [*value.__dict__.values(), *(value.__pydantic_extra__ or {}).values()]
        if isinstance(value, Mapping):
            return list(value.values())
        return [getattr(value, field.name, None) for field in dataclasses.fields(value)]
    except Exception:  # (a mapping whose iteration fails: pydantic or json_fallback deal with it)
        return []


def _plain(value: Any) -> dict[Any, Any]:
    """A :func:`_structured` object as the plain dict pydantic writes it from: a model's ``model_dump(by_alias=True)``
    (its serialisers applied, its keys aliases as pydantic writes them inside a value, dict keys as they are), the
    fields holding no :func:`_odd_key` in its JSON form; a dataclass's fields, a mapping's items.

    Raises:
        Exception: what a model's serialiser or a mapping's iteration raised.
    """
    if isinstance(value, BaseModel):  # (a serialiser that fails raises, and the model is left for pydantic to refuse
        # as before: its fields as they are would show an excluded one, review 144 #2)
        python = value.model_dump(by_alias=True)
        fields = {**value.__dict__, **(value.__pydantic_extra__ or {})}
        odd = {name for name, item in fields.items() if _collides(item, False, set())}
        try:  # (the fields holding no such key in the model's JSON form: its ser_json_* settings, review 248 #2)
            written = value.model_dump(mode="json", by_alias=True, exclude=odd)
        except Exception:  # (bytes that are not UTF-8 text...: the Python form, written as a plain dict's are)
            return python
        return python if len(written) >= len(python) else {key: written.get(key, item) for key, item in python.items()}
    if isinstance(value, Mapping):
        return dict(value)
    return {field.name: getattr(value, field.name, None) for field in dataclasses.fields(value)}


def _collides(value: Any, saved: bool, path: set[int]) -> bool:
    """Whether a dict inside ``value`` (in dicts, lists, tuples and :func:`_structured` objects, at any depth) has
    two keys of one JSON text (:func:`_key_text`), or a key pydantic writes otherwise than a plain dict's is written
    (:func:`_odd_key`: ``None``, which it writes ``"None"``, review 245 #7)."""
    if type(value) in _SCALARS or id(value) in path:
        return False
    if isinstance(value, Mapping):  # (a dict, or a mapping json_fallback writes as one)
        try:
            keys = list(value)
        except Exception:  # (a mapping whose iteration fails: json_fallback writes its text)
            return False
        if not all(type(key) is str for key in keys):
            texts = [_key_text(key, saved) for key in keys]
            if len(set(texts)) < len(texts) or any(map(_odd_key, keys)):
                return True
        items: Any = _parts(value) if not isinstance(value, dict) else value.values()
    elif isinstance(value, list | tuple):
        items = value
    elif _structured(type(value)):
        items = _parts(value)
    else:
        return False
    path.add(id(value))
    try:
        return any(_collides(item, saved, path) for item in items)
    finally:
        path.discard(id(value))


def _odd_key(key: Any) -> bool:
    """Whether pydantic writes the dict key ``key`` otherwise than :func:`_key_text` does, or not at all: ``None``
    (``"None"``, not ``"null"``), a NaN or infinite float (``"nan"``, not ``"NaN"``), a key pydantic refuses (a
    ``frozenset``, an object of no JSON form). A date, enum or UUID key is written alike, so the model keeps its own
    JSON settings (review 248 #2: its ``ser_json_*`` settings and JSON-only serialisers were dropped)."""
    if isinstance(key, str | int | datetime.date | datetime.time | uuid.UUID):
        return False
    if key is None or isinstance(key, float):
        return key is None or not math.isfinite(key)
    try:
        return next(iter(to_jsonable_python({key: None}))) != _key_text(key)
    except Exception:  # (a key pydantic refuses)
        return True


def _distinct(value: Any, saved: bool, path: set[int]) -> Any:
    """:func:`distinct_keys` of ``value``; ``path``: the containers being walked (one met again is circular and
    left as it is, for the writer to refuse)."""
    if saved and isinstance(value, _BYTES):
        return base64.b64encode(value).decode("ascii")
    if type(value) in _SCALARS or id(value) in path:
        return value
    if not isinstance(value, _CONTAINERS):
        if not _structured(type(value)) or not _collides(value, saved, set()):
            return value  # (pydantic writes it, keys and all: only a dict whose keys collide is lost there)
        try:
            plain = _plain(value)
        except Exception:  # (a serialiser or an iteration that fails: left as it is, for the writer to report)
            return value
        path.add(id(value))
        try:
            return _distinct(plain, saved, path)
        finally:
            path.discard(id(value))
    path.add(id(value))
    try:
        if not isinstance(value, dict):
            return [_distinct(item, saved, path) for item in value]
        items = [(key, _distinct(item, saved, path)) for key, item in value.items()]
        if all(type(key) is str for key, _ in items):
            return dict(items)
        texts = [_key_text(key, saved) for key, _ in items]
        if len(set(texts)) < len(texts):  # two keys, one text: every entry kept, as a [key, value] pair
            return [[_distinct(key, saved, path), item] for key, item in items]
        return dict(zip(texts, (item for _, item in items), strict=True)) if saved else dict(items)
    finally:
        path.discard(id(value))


def distinct_keys(value: Any, saved: bool = False) -> Any:
    """``value`` with each plain dict in it (in dicts, lists and tuples) two of whose keys are the same JSON text
    (``1`` and ``"1"``, ``None`` and ``"null"``, ``True`` and ``"true"``: :func:`_key_text`) written as the list
    of its ``[key, value]`` pairs, in order, so no entry is lost (a JSON reader keeps only the last of two equal
    keys: review 137). A pydantic model, a dataclass or a mapping (``MappingProxyType``) holding such a dict at
    any depth becomes a plain dict of its fields (a model's ``model_dump(by_alias=True)``) so that dict's pairs are
    kept too (review 139: pydantic wrote both keys, or one); so does one holding a dict key pydantic writes otherwise
    than a plain dict's (:func:`_odd_key`: ``None``, a NaN, a ``frozenset``; review 245 #7); one holding none is left
    for pydantic to write.

    Args:
        value: a tool's result or a message's field, before it is written as JSON.
        saved: for a value that is saved (``to_dict``, an artifact): also every other key that is not a string
            becomes its JSON text here, as in the content the model reads (``None`` as ``"null"``, not
            ``"None"``), and bytes standard base64 text (RFC 4648 section 4; pydantic writes the URL-safe one).

    Returns:
        ``value`` itself when no dict in it has a key that is not a string (nor, with ``saved``, bytes), which is
        checked first at little cost; else the converted copy (its tuples lists).
    """
    if type(value) in _SCALARS:
        return value
    if not isinstance(value, _CONTAINERS) and not _structured(type(value)):
        return base64.b64encode(value).decode("ascii") if saved and isinstance(value, _BYTES) else value
    return _distinct(value, saved, set()) if _scan(value, saved)[1] else value


def json_form(value: Any, saved: bool = False) -> Any:
    """``value`` ready to be written as JSON: its NamedTuples objects of their fields (:func:`_named_tuples`), then
    its dict keys made distinct JSON text (:func:`distinct_keys`, ``saved`` as there), both found in one walk; with
    ``saved``, each not-a-time value in it (pandas' ``NaT``, which pydantic cannot write) ``None``, an object holding
    one the dict of its fields (:func:`~toolwire._array_json.times_as_null`; review 272 #1).

    Returns:
        ``value`` itself when it holds neither (the common case), else the converted copy.
    """
    if not isinstance(value, _CONTAINERS) and not (saved and _structured(type(value))):
        # (a pydantic model, a dataclass, a mapping: its keys, as a dict's; a saved NaT null)
        return None if saved and not_a_time(value) else distinct_keys(value, saved)
    named, keys, times = _scan(value, saved)
    if named:
        value = _named_tuples(value, set())
    if times:  # (pandas' NaT, which pydantic cannot write, as null: review 272 #1)
        value = times_as_null(value, _fields)
    return _distinct(value, saved, set()) if keys else value
