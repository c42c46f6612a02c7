"""Tool results: how a tool's return value or its failure becomes the content of a ToolMessage.

:func:`result_to_content` turns a return value into message content (text, JSON text, or a list of content
blocks), :func:`truncate_content` bounds its length (:mod:`toolwire._result_cut`), and :func:`error_text` writes
the one-paragraph error a model sees when a call fails. :func:`is_cheap_result` tells, cheaply, whether a result is
small enough to serialise on the event loop; :func:`bounded_content` serialises a big one piece by piece off the loop.
:func:`json_ready` makes any value JSON-ready the same way (used for a ToolMessage's ``artifact``). The
conversions that write a value as JSON text are in :mod:`toolwire._result_json`.

JSON has no NaN or Infinity, and ``null`` would tell the model "no value": a non-finite float in a result is
written as the JSON string ``"NaN"``, ``"Infinity"`` or ``"-Infinity"`` (the names JavaScript and Python's
``json`` give them, as strings the way pydantic's ``ser_json_inf_nan="strings"`` and the protobuf JSON mapping
write them), so the text stays valid JSON and the model still reads which number it was (review 24). A
ToolMessage's ``artifact``, which the model never sees, keeps ``None`` for them (:func:`json_ready`).

:class:`~toolwire.tools.Tool` and :class:`~toolwire.execution.ToolExecutor` use these functions; providers
lower the result afterwards (``toolwire.models.lowering``).
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from toolwire._error_origin import error_wording, hide_unsent_values, raised_in_tool_code
from toolwire._result_cut import truncate_content  # (re-exported)
from toolwire._result_json import (
    _MEDIA_BLOCKS,
    _dumps,
    _finite,
    _finite_default,
    _has_non_finite,
    _huge_ints_as_text,
    _is_nan_error,
    _json_default,
    _keys_as_text,
    _plain,
    _short_ints,
    _str,
    _structured,
    _utf8,
    binary_image,
    image_mime,
    json_fallback,
    json_form,
    standard_block,
)
from toolwire._result_size import _by_items, _items, is_cheap_result  # (re-exported)
from toolwire._secrets import redact_url
from toolwire.errors import ToolExecutionError, ToolResultError

__all__ = ["bounded_content", "error_text", "image_mime", "is_cheap_result", "json_fallback", "json_ready",
           "result_to_content", "truncate_content", "unsent_result", "valid_blocks", "valid_strings", "valid_text"]

_BLOCK_TYPES = frozenset({"text", "image", "image_url", "audio", "file", "document", "resource"})


_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """``text`` as valid Unicode: a surrogate pair written as two code points becomes the character it stands for,
    and a lone surrogate (from bytes that were not UTF-8, read with ``surrogateescape``: ``os.listdir``,
    ``sys.argv``, a subprocess's output) becomes U+FFFD, the replacement character. Such text cannot be encoded
    as UTF-8, so every provider's request (and the local model's tokenizer) would fail on it (review 26).

    Args:
        text: any string.

    Returns:
        ``text`` itself when it holds no surrogate (the common case, checked quickly), else the repaired copy.
    """
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def valid_strings(value: Any) -> Any:
    """Return ``value`` (JSON-like data: dicts, lists) with a lone surrogate in any string, key or value, replaced as
    :func:`valid_text` replaces it; ``value`` itself when it holds none."""
    kind = type(value)
    if kind is str:
        return value if value.isascii() else valid_text(value)
    if kind is list:
        items = [valid_strings(v) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if kind is dict:
        pairs = [(valid_strings(k), valid_strings(v)) for k, v in value.items()]
        if all(k is k2 and v is v2 for (k, v), (k2, v2) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)
    return value


def valid_blocks(blocks: list[Any]) -> list[Any]:
    """Return ``blocks`` (message content: strings and content-block dicts) with a lone surrogate in a string or
    in a block's ``text`` replaced as :func:`valid_text` replaces it, and an image, audio, file or video block's
    data given as ``bytes`` (or as URL-safe base64 text, as ``to_dict`` saved such bytes before review 137) made
    standard base64 text (:func:`~toolwire._result_json.standard_block`), each in a copy of the block; ``blocks``
    itself when none holds one (the common case, checked quickly)."""
    out: list[Any] | None = None
    for index, block in enumerate(blocks):
        if type(block) is str:
            fixed: Any = block if block.isascii() else valid_text(block)
        elif type(block) is dict and type(block.get("text")) is str and not block["text"].isascii():
            text = valid_text(block["text"])
            fixed = block if text is block["text"] else {**block, "text": text}
        elif type(block) is dict and block.get("type") in _MEDIA_BLOCKS:
            fixed = standard_block(block)
        else:
            continue
        if fixed is not block:
            if out is None:
                out = list(blocks)
            out[index] = fixed
    return blocks if out is None else out


def json_ready(value: Any) -> Any:
    """Return a JSON-ready copy of ``value``, converted as tool results are: pydantic models, dataclasses, dates,
    UUIDs, enums, sets and tuples take their JSON form (a NamedTuple an object of its fields), an array or number
    type with ``tolist()`` (numpy's) its Python value, ``bytes`` become standard base64 text, lone surrogates in
    text U+FFFD, non-finite floats ``None``, dict keys strings (written as in a result's JSON text: ``None`` as
    ``"null"``; a dict two of whose keys are one text, ``1`` and ``"1"``, as the list of its ``[key, value]``
    pairs: :func:`~toolwire._result_json.distinct_keys`), and any other object its ``str()``. JSON-ready values
    come back equal. A value
    that holds itself (a circular reference, which JSON cannot write) becomes its ``str()`` as a whole
    (``{'name': 'root', 'parent': {...}}``), so the message that holds it can still be saved; so can one that holds
    an integer too long for Python to write as text (over ``sys.get_int_max_str_digits()`` digits), which becomes
    the text of its first digits and digit count (review 119: ``json.dumps`` of the conversation raised)."""
    return _json_ready(value, retry=True)


def _json_ready(value: Any, retry: bool) -> Any:
    """:func:`json_ready`; ``retry``: once more with the integers too long to write made text, when a dict key (which
    pydantic writes as text) was one; a value that fails again (such a key inside a dataclass: review 122) becomes
    its ``str()``, or ``"<TypeName object>"`` when that fails too (its fields are then not kept)."""
    try:
        value = json_form(value, saved=True)  # (keys as the model reads them, no entry lost; standard base64)
        try:
            ready = to_jsonable_python(value, fallback=json_fallback, bytes_mode="base64", inf_nan_mode="null")
        except UnicodeEncodeError:  # a dict key with a lone surrogate: pydantic cannot write it
            ready = to_jsonable_python(valid_strings(value), fallback=json_fallback, bytes_mode="base64",
                                       inf_nan_mode="null")
    except (ValueError, RecursionError) as exc:  # "Circular reference detected" (review 83)
        if not (retry and isinstance(exc, ValueError) and "integer string conversion" in _str(exc)):
            return valid_text(_str(value))
        return _json_ready(_huge_ints_as_text(value), retry=False)  # a dict key too long to write (review 121)
    return valid_strings(_short_ints(ready))


_MEDIA_KEYS = ("base64", "data", "url", "file_id")
_BLOCK_KEYS = frozenset({"type", "text", "base64", "data", "url", "file_id", "mime_type", "image_url", "resource",
                         "id", "extras", "metadata", "cache_control", "detail", "filename", "annotations",
                         "source_type",  # (langchain-core 0.3 data blocks: review 233 #3)
                         "mimeType", "_meta"})  # (MCP's image and audio blocks: review 245 #4)

_NATIVE_BLOCKS: dict[str, tuple[frozenset[str], Callable[[dict[str, Any]], bool]]] = {
    # OpenAI Responses output parts (function_call_output.output) and Anthropic's search_result (tool_result
    # content): their keys, and the test of their payload (review 245 #4: returned bare, they became JSON text)
    "input_text": (frozenset({"type", "text", "annotations", "cache_control"}),
                   lambda b: isinstance(b.get("text"), str)),
    "input_image": (frozenset({"type", "image_url", "file_id", "detail"}),
                    lambda b: isinstance(b.get("image_url"), str) or isinstance(b.get("file_id"), str)),
    "input_file": (frozenset({"type", "file_data", "file_id", "file_url", "filename"}),
                   lambda b: any(isinstance(b.get(k), str) for k in ("file_data", "file_id", "file_url"))),
    "search_result": (frozenset({"type", "source", "title", "content", "citations", "cache_control"}),
                      lambda b: isinstance(b.get("source"), str) and isinstance(b.get("title"), str)
                      and isinstance(b.get("content"), list) and bool(b["content"])
                      and all(isinstance(t, dict) and t.get("type") == "text" and isinstance(t.get("text"), str)
                              for t in b["content"])),
}


def _is_block(block: Any) -> bool:
    """Whether ``block`` is a well-formed content block, not data that merely has a ``type`` key.

    Text needs a ``text`` string; image/audio/file/document need their payload (``base64``, ``data``, ``url``
    or ``file_id`` as a string, ``base64`` or ``data`` also as bytes, or an Anthropic-style ``source`` dict);
    OpenAI's ``image_url`` needs its URL; an MCP ``resource`` needs its ``resource`` dict; a block without
    ``source`` has only the keys of the neutral forms (LangChain's standard blocks: ``mime_type``, ``id``,
    ``extras``...; MCP's ``mimeType``). OpenAI Responses parts (``input_text``, ``input_image`` with its
    ``image_url`` or ``file_id``, ``input_file``) and Anthropic's ``search_result`` (``source``, ``title`` and text
    blocks as ``content``) are blocks with their own keys only. A folder listing such as
    ``[{"type": "file", "name": ...}]`` is data and becomes JSON text.
    """
    if not isinstance(block, dict):
        return False
    if (native := _NATIVE_BLOCKS.get(block.get("type"))) is not None:  # type: ignore[arg-type]
        return block.keys() <= native[0] and native[1](block)
    if not isinstance(block.get("source"), dict) and not block.keys() <= _BLOCK_KEYS:
        return False  # a key no neutral content block has (``name``, ``title``, ``size``...): data
    kind = block.get("type")
    if kind == "text":
        return isinstance(block.get("text"), str)
    if kind == "image_url":
        ref = block.get("image_url")
        return isinstance(ref, str) or (isinstance(ref, dict) and isinstance(ref.get("url"), str))
    if kind == "resource":
        return isinstance(block.get("resource"), dict)
    if kind in _BLOCK_TYPES:
        return isinstance(block.get("source"), dict) or any(isinstance(block.get(k), str) for k in _MEDIA_KEYS) or (
            any(isinstance(block.get(k), bytes | bytearray | memoryview) for k in ("base64", "data")))
    return False


def _is_media_block(value: Any) -> bool:
    """Whether ``value`` is one well-formed image, audio, file or document block given as a dict (not in a list), as
    the advice for bytes words it: it is read as the list of that block (review 229 #3: its base64 went as text)."""
    return type(value) is dict and value.get("type") in _MEDIA_TYPES and _is_block(value)


_MEDIA_TYPES = frozenset({"image", "image_url", "audio", "file", "document"})


def _is_blocks(value: Any) -> bool:
    # the type first: the truth value of some results is an error (a numpy array's, review 26)
    if not isinstance(value, list):
        return False
    try:
        return bool(value) and all(_is_block(b) for b in value)
    except Exception:  # a list subclass whose __len__ or __iter__ raises: no blocks; writing it as JSON then fails
        return False  # with the error that says the tool ran (review 83: it was "tool raised")


_NOT_UTF8_REASON = "it holds bytes that are not UTF-8 text"

_NOT_UTF8 = ("The tool{} bytes that are not UTF-8 text, which a model cannot read: return text, or content blocks "
             "such as {{'type': 'image', 'base64': ..., 'mime_type': 'image/png'}}.")


def result_to_content(result: Any) -> str | list[Any]:
    """Return ``result`` (a tool's return value) as message content: a string or a list of content blocks.

    * ``str`` stays as is (but for a lone surrogate, which becomes U+FFFD: :func:`valid_text`); a list of
      well-formed content blocks (``{"type": "text", "text"}``, image/audio/file/document blocks with their
      ``base64``/``data``/``url``/``file_id`` payload, MCP's ``{"type": "image", "data", "mimeType"}``, OpenAI
      Responses' ``input_text``/``input_image``/``input_file`` parts, Anthropic's ``search_result``...) stays a list,
      lowered for each provider as a ToolMessage of those blocks is, and one well-formed image, audio, file or
      document block given alone as a dict (``{"type": "image", "base64": ..., "mime_type": "image/png"}``) is the
      list of that block;
    * pydantic models, dataclasses, dicts, lists, tuples, numbers, bools and ``None`` become JSON text
      (UTF-8, ``ensure_ascii=False``, lone surrogates replaced); a model's keys are its fields' aliases where they
      have one, alone or inside another value (as its arguments are published, and as a saved artifact keeps
      them); a NamedTuple becomes an object of its fields
      (in dicts, lists and tuples; inside a pydantic model or dataclass, pydantic writes it as a list); other
      objects (dates, UUIDs, enums...) take their JSON form; dict keys JSON cannot hold (dates, UUIDs, enums,
      tuples...) are written as text; NaN and infinite floats become the JSON strings ``"NaN"``,
      ``"Infinity"`` and ``"-Infinity"`` (JSON has no NaN, and ``null`` would read as "no value"):
      ``float("inf")`` gives ``'"Infinity"'``.

    ``bytes`` that are UTF-8 (``b"250 OK"``) are text, at the top and inside containers; other ``bytes`` that are a
    PNG, JPEG, GIF or WebP image (:func:`image_mime`; also an all-ASCII one, by its control bytes) are one image
    block, ``[{"type": "image", "base64": ..., "mime_type": "image/png"}]`` (review 109: a chart a tool drew was
    lost); a dict, list, tuple, pydantic model or dataclass holding such images is a text block of its JSON, each
    image written ``"<image N>"``, then the image blocks (review 111; a model or dataclass: review 245 #6).
    Anthropic's API takes images in a tool result; the APIs that take only text there (OpenAI's, Gemini's) and the
    embedded model get a note that an image was returned and is not shown
    (:func:`toolwire.models.lowering._common.tool_result_text`).

    Raises:
        ToolResultError: the result is or holds ``bytes`` that are not UTF-8 (return text, or content blocks
            such as ``{"type": "image", "base64": ..., "mime_type": ...}``; a dict key included), holds a value
            JSON cannot hold, refers to itself (a circular reference), is nested too deeply to write, or fails
            to write (a model's serialiser that raises): see :func:`_json_text`. Its ``result`` holds ``result``,
            so the error ToolMessage keeps it as its ``artifact``.
    """
    if isinstance(result, str):
        return valid_text(result)
    try:
        return _content(result)
    except ToolResultError as exc:
        if exc.result is None:
            exc.result = result  # kept for the error ToolMessage's artifact: nothing the tool returned is lost
        raise


def _content(result: Any) -> str | list[Any]:
    """:func:`result_to_content` for anything but ``str``."""
    if isinstance(result, memoryview):  # as the bytes it views (review 116: a JSON list of byte numbers)
        result = result.tobytes()
    if isinstance(result, bytes | bytearray):
        if (image := _image_block(result)) is not None:
            return [image]
        try:
            return valid_text(_utf8(result))
        except TypeError:
            raise ToolResultError(_NOT_UTF8.format(" returned"), reason="it is bytes that are not UTF-8 text") from None
    if _is_blocks(result):
        return valid_blocks(result)
    if _is_media_block(result):
        return valid_blocks([result])
    if isinstance(result, BaseModel) and json_form(result) is result:  # (else a dict in it has keys of one text)
        try:
            text = result.model_dump_json(by_alias=True)  # (its keys as in a list or an artifact: review 245 #3)
        except Exception:  # a field pydantic cannot write as JSON (or a serialiser that fails): as for a model in
            pass  # a list, whose failure _json_text reports
        else:  # pydantic writes NaN as null: a model holding one is written as a model in a list is (below)
            if "null" not in text or not _has_non_finite(_json_default(result)):
                return valid_text(text)
    try:
        return _json_text(lambda: _dumps(result))
    except ToolResultError as exc:  # (the common results never come here: images are looked for only on failure)
        if exc.reason != _NOT_UTF8_REASON or (blocks := _with_images(result)) is None:
            raise
        return blocks


def _image_block(data: bytes | bytearray) -> dict[str, str] | None:
    """``data`` as an image block when it is a PNG, JPEG, GIF or WebP file (:func:`image_mime`), else None. Bytes
    that are UTF-8 text stay text, even starting ``GIF89a`` (review 111), unless they hold control bytes no text
    has, as an image whose bytes are all ASCII does (review 112): :func:`~toolwire._result_json.binary_image`."""
    if (mime := image_mime(data)) is None:
        return None
    if not binary_image(data):
        try:
            bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            return None
    return {"type": "image", "base64": base64.b64encode(data).decode("ascii"), "mime_type": mime}


def _with_images(result: Any) -> list[Any] | None:
    """A ``dict``, ``list``, ``tuple``, pydantic model or dataclass result holding image bytes, at any depth, as content
    blocks: a text block with its JSON text, where each image is ``"<image N>"`` (N from 1), then the image blocks in
    that order (review 111: a tool returning ``{"caption": ..., "chart": png}`` or two charts got an error; review 245
    #6: a ``Chart(title, png)`` model did, its fields then written from its ``model_dump(by_alias=True)``). None
    when it holds no image.

    Raises:
        ToolResultError: it also holds bytes that are neither UTF-8 text nor an image (as without the images).
    """
    images: list[dict[str, str]] = []

    def swap(value: Any, depth: int) -> Any:
        if isinstance(value, bytes | bytearray | memoryview):
            if (image := _image_block(bytes(value))) is None:
                return value
            images.append(image)
            return f"<image {len(images)}>"
        if depth < 100 and isinstance(value, dict):  # (defaultdict, OrderedDict too: review 115)
            return {key: swap(item, depth + 1) for key, item in value.items()}
        if depth < 100 and type(value) in (list, tuple):
            return [swap(item, depth + 1) for item in value]
        if depth < 100 and _structured(type(value)):  # a model's or dataclass's fields (review 245 #6)
            try:
                plain = _plain(value)
            except Exception:  # (a serialiser that fails: left for the writer to report)
                return value
            return swap(plain, depth + 1)
        return value

    swapped = swap(result, 0)
    if not images:
        return None
    return [{"type": "text", "text": _json_text(lambda: _dumps(swapped))}, *images]




_TOLD_UNSENT: set[str] = set()
"""The tools :func:`unsent_result` has logged about (each once per process)."""


def unsent_result(exc: BaseException, tool_name: str) -> Any:
    """The value a tool returned that could not be sent to the model, for the error ToolMessage's ``artifact``.

    For a :class:`~toolwire.errors.ToolResultError` (the tool ran; its result is bytes that are not UTF-8 text,
    or holds a value JSON cannot hold...) that is ``exc.result``; the error's advice to the developer (what to
    return instead), which the model's text leaves out, is logged once per tool name (logger ``toolwire.tools``,
    level WARNING; review 109: the developer was told nothing). For another
    :class:`~toolwire.errors.ToolExecutionError`, or a ``ToolResultError`` the tool's own code raised
    (:func:`~toolwire._error_origin.raised_in_tool_code`), its ``artifact`` (an MCP ``isError`` result's blocks, review
    114); ``None`` for any other failure.
    """
    if not isinstance(exc, ToolResultError) or raised_in_tool_code(exc):  # (the tool's own: it returned nothing)
        return getattr(exc, "artifact", None) if isinstance(exc, ToolExecutionError) else None
    if tool_name not in _TOLD_UNSENT:
        _TOLD_UNSENT.add(tool_name)
        logging.getLogger("toolwire.tools").warning(
            "Tool %r ran, but its result could not be sent to the model: %s The value it returned is kept as the "
            "error ToolMessage's artifact.", tool_name, str(exc).rstrip())
    return exc.result


def _bounded_json(result: Any, limit: int | None, default: Any = _json_default) -> str:
    """The JSON text of ``result`` from the pure-Python encoder (the same text as ``json.dumps``), cut at
    ``limit``. Unlike ``json.dumps`` (C code that holds the GIL to the end) it lets other threads, the
    event loop's among them, run between pieces, and it stops at twice the limit. ``default`` converts
    what JSON cannot hold (:func:`_finite_default` also turns the NaN inside such objects into null)."""
    encoder = json.JSONEncoder(ensure_ascii=False, default=default, allow_nan=False)
    pieces: list[str] = []
    size = 0
    stop = None if limit is None else 2 * limit
    for piece in encoder.iterencode(result):
        pieces.append(piece)
        size += len(piece)
        if stop is not None and size > stop:
            text = "".join(pieces)
            # (the whole text is never built, so its length is known only to be above this: review 101 read
            # "at least N characters cut" as the result's size)
            return (text[:limit] + f"\n[... result truncated: its first {limit} characters kept, of more than "
                    f"{len(text)}; ask for a narrower result ...]")
    return truncate_content("".join(pieces), limit)  # type: ignore[return-value]


def bounded_content(result: Any, limit: int | None) -> str | list[Any]:
    """Return ``truncate_content(result_to_content(result), limit)`` (``limit`` in characters), run off the loop.

    A dict, list or tuple that is not content blocks is encoded piece by piece (letting the event loop's
    thread run) and, with a ``limit``, encoding stops at twice the limit: the marker then says how many
    characters were kept of more than how many, since the whole text is never built
    (``[... result truncated: its first 20000 characters kept, of more than 40009; ask for a narrower result ...]``).
    One holding images is a text block of its JSON and the image blocks, as :func:`result_to_content` gives it,
    its text cut at ``limit`` (review 245 #1: it was an error result once the result was big).

    Raises:
        ToolResultError: as :func:`result_to_content`.
    """
    if _by_items(result):  # as the list of its items (a mapping's as a dict: review 248 #4), encoded piecewise
        result = _items(result, limit)  # below, not written whole then cut (review 245 #2)
    if type(result) not in (dict, list, tuple) or _is_blocks(result) or _is_media_block(result):
        return truncate_content(result_to_content(result), limit)

    def encode_as_is(value: Any) -> str:
        try:
            return _bounded_json(value, limit)
        except ValueError as exc:
            if not _is_nan_error(exc):
                raise
        return _bounded_json(_finite(value), limit, _finite_default)

    try:
        return _json_text(lambda: _keys_as_text(encode_as_is, json_form(result)))
    except ToolResultError as exc:  # (images are looked for only on failure, as result_to_content does: review 245 #1)
        if exc.reason != _NOT_UTF8_REASON or (blocks := _with_images(result)) is None:
            raise
        return truncate_content(blocks, limit)


def _json_text(encode: Callable[[], str]) -> str:
    """``encode()``, its failures as the one ToolResultError a model can act on.

    Raises:
        ToolResultError: a value JSON cannot hold (TypeError), a circular reference (ValueError), a result
            nested too deeply to write (RecursionError), or any other error while writing it (a model's
            serialiser that raises): the tool ran, so it is never reported as the tool's own failure (review
            62). The error it stands for is its ``__cause__``, whose message :func:`error_text` leaves out
            with ``hide_details`` (it may quote the result).
    """
    try:
        return valid_text(encode())
    except RecursionError as exc:
        raise ToolResultError("The tool's result is nested too deeply to be turned into JSON text: return flatter "
                              "data.", reason="it is nested too deeply to write as JSON") from exc
    except TypeError as exc:
        if _str(exc).endswith("that are not UTF-8 text"):  # (bytes inside it: _utf8)
            raise ToolResultError(_NOT_UTF8.format("'s result holds"), reason=_NOT_UTF8_REASON) from exc
        raise ToolResultError(f"The tool's result could not be turned into JSON text ({_str(exc)}): return text or "
                              "JSON-like data.", reason=f"it holds a value JSON cannot hold ({_str(exc)})") from exc
    except ValueError as exc:  # toolwire's own sentence: Python's would advise sys.set_int_max_str_digits() or
        message, reason = _value_error_text(exc)  # (review 102: passed positionally, the reason was the tool name)
        raise ToolResultError(message, reason=reason) from exc  # quote a codec error to the model (review 83)
    except Exception as exc:
        raise ToolResultError(
            f"The tool's result could not be turned into JSON text ({type(exc).__name__}: {_str(exc)}): return text "
            "or JSON-like data.", reason=f"writing it as JSON raised {type(exc).__name__}: {_str(exc)}"
        ) from exc


def _value_error_text(exc: ValueError) -> tuple[str, str]:
    """The sentence a :class:`ToolResultError` says for a ``ValueError`` met while writing a result as JSON, and its
    ``reason`` (for the model's text)."""
    if isinstance(exc, UnicodeError):
        return _NOT_UTF8.format("'s result holds"), _NOT_UTF8_REASON
    if "integer string conversion" in _str(exc):
        return ("The tool's result holds an integer too long to be written as text: return a shorter number, or "
                "its first digits and how many digits it has."), "it holds an integer too long to write as text"
    # ("Circular reference detected")
    return (f"The tool's result could not be turned into JSON text: {_str(exc)}.",
            f"it could not be written as JSON ({_str(exc)})")


def error_text(exc: BaseException, tool_name: str, *, hide_details: bool = False) -> str:
    """Return the text a model sees when a call of the tool ``tool_name`` failed with ``exc``.

    Validation, timeout and unknown-tool errors say what to change; any other exception gives its type and message
    (never a traceback), or only its type when ``hide_details`` is set (for tools whose errors may hold secrets). So
    does a toolwire error that the tool's own code raised (another tool's ``ToolValidationError`` from a call the
    tool made, a ``ToolExecutionError`` it raised: review 213 #1), which is not about the model's call, also when
    the function of a LangChain tool raised it (review 218 #3). A :class:`~toolwire.errors.ToolResultError` says the
    tool ran; with ``hide_details`` it names only the type of the error that kept its result from being written,
    whose message may quote the result (review 62). An exception group (``asyncio.TaskGroup``) gives its first
    error's, the one that says what went wrong. The credentials of URLs in the text are masked
    (:func:`~toolwire._secrets.redact_url`: ``postgres://admin:pw@db`` gives ``postgres://****@db``, and so are
    ``?token=`` values), since the text goes to the model and so to its provider (review 101). So are the values a
    tool whose code raised ``exc`` was given that the model was not sent, such as a ``from_langchain_tool(...,
    injected={...})`` value or one its ``functools.partial`` binds, quoted in the error's message: each is written
    ``<hidden>`` (:func:`~toolwire._error_origin.hide_unsent_values`; review 217 #1).

    Args:
        exc: the exception the call ended with.
        tool_name: the called tool's name, as the text names it.
        hide_details: leave exception messages out.

    Returns:
        One paragraph starting with ``"Error:"``, valid Unicode (:func:`valid_text`: an error naming a file
        whose name is not UTF-8 still reaches the model).
    """
    return valid_text(redact_url(hide_unsent_values(error_wording(exc, tool_name, hide_details), exc)))
