"""LangChain's pydantic-style message API on toolwire's messages: ``model_copy``, ``model_dump`` and
``content_blocks`` (:class:`LangChainMessageAPI`, a base of :class:`~toolwire.messages.BaseMessage`).

The names, arguments and result shapes follow langchain-core 1.8.3: ``messages/base.py`` (``BaseMessage`` fields and
``content_blocks``), ``messages/ai.py`` (``AIMessage.content_blocks``, which adds the tool calls), ``messages/tool.py``
and ``messages/block_translators/langchain_v0.py`` and ``openai.py`` (the best-effort reading of v0 and OpenAI Chat
Completions multimodal blocks). LangChain's messages are pydantic models; toolwire's are immutable values checked by
their constructors, so ``model_copy`` builds the copy through the constructor and an invalid update raises the
constructor's error.
"""

from __future__ import annotations

import copy
import functools
import re
import uuid
import warnings
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from toolwire.messages import AIMessage, BaseMessage

__all__ = ["KNOWN_BLOCK_TYPES", "LangChainMessageAPI", "content_blocks", "copied", "langchain_dump", "lc_kwargs",
           "select", "v1_copy"]

KNOWN_BLOCK_TYPES = frozenset({
    "text", "reasoning", "refusal", "tool_call", "invalid_tool_call", "tool_call_chunk", "image", "audio", "file",
    "text-plain", "video", "server_tool_call", "server_tool_call_chunk", "server_tool_result", "non_standard",
})
"""The standard content-block types of langchain-core 1.x (``messages/content.py``, ``KNOWN_BLOCK_TYPES``)."""

_DATA_URI = re.compile(r"^data:(?P<mime_type>[^;]+);base64,(?P<data>.+)$")
"""langchain-core's ``_parse_data_uri`` pattern (``language_models/_utils.py``)."""

_V0_SOURCES = {"url": "url", "base64": "base64", "id": "file_id"}
"""A v0 multimodal block's ``source_type`` -> the v1 key its value goes to (``langchain_v0.py``)."""


class LangChainMessageAPI:
    """``model_copy``, ``model_dump`` and ``content_blocks``, as LangChain's messages have them (see the module
    docstring). A mixin of :class:`~toolwire.messages.BaseMessage`; it holds no state."""

    __slots__ = ()

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> BaseMessage:
        """Return a new message of the same class with ``update`` applied (pydantic's ``BaseModel.model_copy``, which
        LangChain's messages inherit); this message is unchanged.

        The copy is made by the class's constructor, so an update is checked as a new message's values are: a wrong
        value raises the constructor's own error, never giving a message that breaks a rule. Besides toolwire's
        field names (``content``, ``id``, ``name``, ``tool_calls``, ``usage``, ``tool_call_id``, ``status``,
        ``artifact``...), ``update`` takes LangChain's: ``usage_metadata`` (an AI message's usage, replacing
        ``usage``), ``additional_kwargs`` (replacing the AI message's, kept where its constructor keeps them; empty
        on the other messages, which have none), ``response_metadata`` (empty on the other messages) and ``type``
        (the message's own).

        Args:
            update: field name -> new value; None or empty for a plain copy.
            deep: copy the values deeply first (nested content blocks, tool-call arguments, an artifact), so no
                container is shared with this message; the ``update`` values are used as given, as pydantic does.

        Returns:
            A new message of this message's class.

        Raises:
            TypeError: a name in ``update`` is no field of this class (the message lists the fields), or a value the
                constructor refuses with a TypeError (content that is no text or list, ``tool_call_id=None``).
            ValueError, UserError: a value the constructor refuses so (``status="ok"``, a tool call without a name,
                a non-empty ``additional_kwargs`` on a human message...).
        """
        return copied(self, self._values(), self.type, update, deep)  # type: ignore[attr-defined]

    def model_dump(self, *, mode: Literal["python", "json"] = "python", include: Selection = None,
                   exclude: Selection = None, exclude_none: bool = False, by_alias: bool | None = None,
                   exclude_unset: bool = False, exclude_defaults: bool = False, **unsupported: Any) -> dict[str, Any]:
        """Return the message as LangChain's ``message.model_dump()`` gives the equivalent LangChain message: the
        same keys, in the same order, with LangChain's values.

        Keys: ``content``, ``additional_kwargs``, ``response_metadata``, ``type``, ``name``, ``id``; an AI message
        adds ``tool_calls``, ``invalid_tool_calls``, ``usage_metadata``; a tool message ``tool_call_id``,
        ``artifact``, ``status``. The values are those :func:`~toolwire.interop.langchain.to_langchain_messages`
        gives the LangChain message: toolwire's ``usage`` as ``usage_metadata`` (``cached_tokens`` as
        ``input_token_details["cache_read"]``), an AI message's ``provider_data`` and invalid calls' places under
        ``additional_kwargs["toolwire_provider_data"]`` and ``["toolwire_invalid_call_index"]`` (LangChain has no
        field for them), the LangChain ``additional_kwargs`` it keeps in ``response_metadata["additional_kwargs"]``
        back in ``additional_kwargs``; a system, human or tool message's ``additional_kwargs`` and
        ``response_metadata`` are always ``{}`` (toolwire keeps none). The dict is new: changing it never changes the
        message. :meth:`~toolwire.messages.BaseMessage.to_dict` is toolwire's own, shorter form.

        ``include``/``exclude`` and ``exclude_none`` are applied by pydantic-core itself (:func:`select`), so they
        select as on the LangChain message (pydantic 2's rules, not re-implemented).

        Args:
            mode: ``"python"`` (containers copied; a pydantic model or dataclass inside, such as an artifact, as its
                dict, as pydantic gives LangChain's ``Any`` fields) or ``"json"`` (JSON-ready values, converted as
                :meth:`~toolwire.messages.BaseMessage.to_dict` converts them), as pydantic's ``mode``.
            include: the keys to keep, as pydantic takes it: a set of top-level keys, or a dict whose values select
                inside (``{"tool_calls": {0: {"name"}}}``; list positions by index, ``"__all__"`` for every item;
                ``True`` or ``...`` for the whole value).
            exclude: the keys to leave out, in the same shapes.
            exclude_none: leave out the keys whose value is None wherever LangChain's message has typed fields: the
                message's own (``name``, ``id``, ``usage_metadata``...), a tool call's, an invalid tool call's
                (``{"name": None, "error": None}``), the usage's and its token details', and a pydantic model's
                fields inside; never a key of a plain dict (``additional_kwargs``, a content block, a call's
                ``args``), as pydantic leaves those.
            by_alias: taken and without effect: LangChain's message fields have no aliases.
            exclude_unset, exclude_defaults: only False is taken (see Raises).
            **unsupported: pydantic's other keywords (``round_trip``, ``context``...): refused.

        Returns:
            A new dict.

        Raises:
            ValueError: ``mode`` is neither ``"python"`` nor ``"json"``.
            TypeError: ``exclude_unset`` or ``exclude_defaults`` is true (a toolwire message does not record which
                fields were set, and LangChain's field defaults are pydantic's), another pydantic keyword is given
                (one sentence naming those taken), or ``include``/``exclude`` is no set or dict (pydantic's error).
        """
        _refuse_options("model_dump", exclude_unset, exclude_defaults, unsupported)
        if mode not in ("python", "json"):
            raise ValueError(f"model_dump(mode=...) must be 'python' or 'json', not {mode!r}.")
        dumped = langchain_dump(self, as_json=mode == "json")  # type: ignore[arg-type]
        return select(dumped, include, exclude, exclude_none)

    def model_dump_json(self, *, indent: int | None = None, include: Selection = None, exclude: Selection = None,
                        exclude_none: bool = False, by_alias: bool | None = None, exclude_unset: bool = False,
                        exclude_defaults: bool = False, **unsupported: Any) -> str:
        """Return :meth:`model_dump` (``mode="json"``) as JSON text, as LangChain's ``message.model_dump_json()``
        (pydantic's ``BaseModel.model_dump_json``) writes it: compact (``{"content":"hi",...}``) or indented by
        ``indent`` spaces, non-ASCII kept, a non-finite float as ``null`` (pydantic's default), written by
        pydantic-core itself.

        Args:
            indent: spaces per level, or None for one line.
            include, exclude, exclude_none, by_alias, exclude_unset, exclude_defaults: as :meth:`model_dump`.
            **unsupported: pydantic's other keywords: refused.

        Returns:
            A ``str``.

        Raises:
            TypeError: as :meth:`model_dump`.
        """
        _refuse_options("model_dump_json", exclude_unset, exclude_defaults, unsupported)
        dumped = select(langchain_dump(self, as_json=True), include, exclude, exclude_none)  # type: ignore[arg-type]
        return _any_adapter().dump_json(dumped, indent=indent).decode()

    @property
    def additional_kwargs(self) -> dict[str, Any]:
        """LangChain's ``additional_kwargs``, read only: what :meth:`model_dump` writes under that key (review 229 #2).

        An AI message's holds the LangChain ``additional_kwargs`` its constructor took (kept in
        ``response_metadata["additional_kwargs"]``: ``reply.additional_kwargs.get("reasoning_content")`` works as on
        LangChain's), a ``refusal``, and toolwire's provider data under ``"toolwire_provider_data"``; a system, human
        or tool message's is always ``{}``. Computed when read (nothing is stored per message).

        Returns:
            A new dict each time: changing it never changes the message (use :meth:`model_copy` for that).
        """
        from toolwire.messages import AIMessage

        if not isinstance(self, AIMessage):
            return {}
        from toolwire._call_records import _copy_containers

        return _ai_fields(self, _copy_containers)[0]

    @property
    def response_metadata(self) -> dict[str, Any]:
        """LangChain's ``response_metadata`` of a system, human or tool message: always a new ``{}`` (toolwire keeps
        none there; an :class:`~toolwire.messages.AIMessage` has its own field, which this does not replace)."""
        return {}

    @property
    def content_blocks(self) -> list[dict[str, Any]]:
        """The content as LangChain v1's standard content blocks (``BaseMessage.content_blocks``, added in
        langchain-core 1.0), as langchain-core's best-effort reading gives them.

        A string is one ``{"type": "text", "text": ...}`` block (none for ``""``). In a list, a string is a text
        block; a dict of a standard type (:data:`KNOWN_BLOCK_TYPES`: ``text``, ``reasoning``, ``image``,
        ``tool_call``...) is kept as it is; a v0 multimodal block (``{"type": "image", "source_type": "base64",
        "data", "mime_type"}``, and url and id sources, for images, audio and files) and an OpenAI Chat Completions
        one (``image_url``, ``input_audio``, ``file``) become the v1 block (``{"type": "image", "id":
        "lc_<uuid4>", "base64", "mime_type"}``); any other dict is ``{"type": "non_standard", "value": block}``.
        An AI message then adds a ``{"type": "tool_call", "id", "name", "args"}`` block for each tool call whose
        id no block has, and, when there is no reasoning block, puts a reasoning block first made of the
        ``reasoning_content`` LangChain kept in ``additional_kwargs`` (``response_metadata["additional_kwargs"]``
        here); with ``response_metadata["output_version"] == "v1"`` a list content is returned as it is. Invalid
        tool calls are not listed, as in langchain-core.

        Anthropic ``image``/``document`` blocks with a ``source`` become v1 ``image``/``file`` blocks, and a one-key
        ``{"text": ...}`` (Gemini's, Bedrock Converse's) a text block, as langchain-core reads them. Not done: the
        provider-specific translators langchain-core runs when ``response_metadata["model_provider"]`` names a
        provider (toolwire sets no such key), and its readers of Gemini and Bedrock Converse media blocks (raw
        ``bytes``, ``inline_data``, ``function_call``...), which stay ``non_standard`` here; so does a v0 file block
        of ``source_type`` ``"text"``.

        Returns:
            A new list of new block dicts (the blocks kept as they are are copies of the content's).
        """
        return content_blocks(self)  # type: ignore[arg-type]


def copied(msg: Any, values: dict[str, Any], kind: str, update: Mapping[str, Any] | None, deep: bool) -> Any:
    """:meth:`LangChainMessageAPI.model_copy` of ``msg`` (see there), given its constructor's keyword values
    (``content`` among them) and LangChain's ``type`` of it; also :class:`~toolwire.chunks.AIMessageChunk`'s.

    Raises:
        TypeError, ValueError, UserError: as :meth:`LangChainMessageAPI.model_copy`.
    """
    if deep:
        values = copy.deepcopy(values)
    changes = dict(update or {})
    asked = changes.pop("type", kind)
    if asked != kind:
        raise TypeError(f"{type(msg).__name__}.model_copy cannot change type to {asked!r}: build a message of "
                        "that class instead.")
    extra: dict[str, Any] = {}
    if "usage_metadata" in changes and "usage" in values:
        values.pop("usage")
        extra["usage_metadata"] = changes.pop("usage_metadata")
    if "additional_kwargs" in changes:
        extra["additional_kwargs"] = changes.pop("additional_kwargs")
        metadata = values.get("response_metadata")
        if isinstance(metadata, dict) and "additional_kwargs" in metadata:  # replaced, as LangChain replaces it
            values["response_metadata"] = {k: v for k, v in metadata.items() if k != "additional_kwargs"}
    if "response_metadata" in changes and "response_metadata" not in values and changes.pop("response_metadata"):
        raise TypeError(f"{type(msg).__name__} has no response_metadata (only an AIMessage has): put what the "
                        "model should read in the content.")
    unknown = sorted(set(changes) - set(values))
    if unknown:
        raise TypeError(f"{type(msg).__name__} has no field(s) {unknown}: its fields are "
                        f"{sorted({*values, 'type'})}.")
    values.update(changes)
    content = values.pop("content")
    return type(msg)(content, **values, **extra)


Selection = AbstractSet[Any] | Mapping[Any, Any] | None
"""pydantic's ``IncEx``: a set of keys, or a dict of key -> ``True``/``...``/a nested selection."""

_TYPED_ITEMS = ("tool_calls", "invalid_tool_calls", "tool_call_chunks")
"""Keys of a dump whose items are TypedDicts in LangChain (``ToolCall``, ``InvalidToolCall``, ``ToolCallChunk``):
pydantic's ``exclude_none`` drops their None values."""

_TAKEN = "mode, include, exclude, exclude_none and by_alias"


@functools.cache
def _any_adapter() -> Any:
    """pydantic's ``TypeAdapter(Any)``, made once: its ``dump_python``/``dump_json`` apply include/exclude to plain
    dicts and lists exactly as a model's fields of those types are (the same pydantic-core filters)."""
    from pydantic import TypeAdapter

    return TypeAdapter(Any)


def _refuse_options(method: str, exclude_unset: bool, exclude_defaults: bool, unsupported: Mapping[str, Any]) -> None:
    """Raise the one-sentence TypeError of :meth:`LangChainMessageAPI.model_dump` for what it does not take."""
    if exclude_unset or exclude_defaults:
        name = "exclude_unset" if exclude_unset else "exclude_defaults"
        raise TypeError(f"{method}({name}=True) is not taken: a toolwire message does not record which of "
                        "LangChain's fields were set or left at their defaults, so name the keys to leave out with "
                        "exclude=... (or use exclude_none=True).")
    if unsupported:
        raise TypeError(f"{method}() of a toolwire message takes {_TAKEN} of pydantic's keywords, not "
                        f"{', '.join(sorted(unsupported))}.")


def _without_nones(item: Any) -> Any:
    return {k: v for k, v in item.items() if v is not None} if isinstance(item, dict) else item


def select(dumped: dict[str, Any], include: Selection, exclude: Selection, exclude_none: bool) -> dict[str, Any]:
    """``dumped`` (a LangChain-shaped message dump) with pydantic's ``include``/``exclude``/``exclude_none``
    applied as ``model_dump`` applies them to the LangChain message.

    ``exclude_none`` drops None values where LangChain has typed fields (the message's, the items of
    :data:`_TYPED_ITEMS`, ``usage_metadata`` and its ``input_token_details``/``output_token_details``) and in
    pydantic models inside; then pydantic-core's ``TypeAdapter(Any).dump_python`` applies the selection (and turns a
    pydantic model or dataclass inside into its dict, as LangChain's ``Any`` fields are dumped).

    Raises:
        TypeError: ``include``/``exclude`` is no set or dict (pydantic's own message).
    """
    if exclude_none:
        dumped = _without_nones(dumped)
        for key in _TYPED_ITEMS:
            if isinstance(dumped.get(key), list):
                dumped[key] = [_without_nones(item) for item in dumped[key]]
        if isinstance(usage := dumped.get("usage_metadata"), dict):
            usage = _without_nones(usage)
            for key in ("input_token_details", "output_token_details"):
                if isinstance(usage.get(key), dict):
                    usage[key] = _without_nones(usage[key])
            dumped["usage_metadata"] = usage
    result: dict[str, Any] = _any_adapter().dump_python(dumped, include=include, exclude=exclude,
                                                         exclude_none=exclude_none)
    return result


def v1_copy(msg: Any, changes: Mapping[str, Any]) -> Any:
    """``msg.copy(update=..., deep=...)``: pydantic v1's ``BaseModel.copy``, which LangChain's messages inherit
    (deprecated in pydantic 2 with a ``PydanticDeprecatedSince20`` warning, still in LangChain tutorials), done as
    :meth:`LangChainMessageAPI.model_copy` with a ``DeprecationWarning`` naming ``model_copy``.

    Chosen over refusing it: the result is what LangChain's gives for every valid update, and ported code keeps
    running. One difference: pydantic v1's copy does not validate the update (``content=5`` gives a broken message),
    where this copy is made by the constructor and raises its error.

    Args:
        msg: a toolwire message or chunk (with ``model_copy``).
        changes: the keywords given to ``copy()``: ``update`` and/or ``deep``.

    Returns:
        The new message.

    Raises:
        TypeError: ``include``/``exclude`` (pydantic v1's field selection, which makes a message without some of its
            fields) or a toolwire field keyword besides ``update``/``deep``; or as ``model_copy``.
    """
    other = sorted(set(changes) - {"update", "deep"})
    if other:
        raise TypeError(f"{type(msg).__name__}.copy() takes either pydantic v1's update=/deep= (as LangChain's "
                        f"messages do) or toolwire's field keywords (copy(content=...)), not {', '.join(other)} "
                        "with them.")
    warnings.warn("copy(update=...) is pydantic v1's spelling, deprecated in pydantic 2 (as on LangChain's "
                  "messages): use model_copy(update=...).", DeprecationWarning, stacklevel=3)
    return msg.model_copy(update=changes.get("update"), deep=bool(changes.get("deep", False)))


def lc_kwargs(response_metadata: Mapping[str, Any], provider_data: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(additional_kwargs, response_metadata)`` of an AI message or chunk in LangChain's form (not yet converted):
    the LangChain ``additional_kwargs`` kept in ``response_metadata["additional_kwargs"]`` and a refusal back in
    ``additional_kwargs``, ``provider_data`` under ``"toolwire_provider_data"``, as ``to_langchain_messages``
    writes them."""
    from toolwire.interop._langchain_messages import _PROVIDER_DATA_KEY

    metadata = dict(response_metadata)
    kept = metadata.get("additional_kwargs")
    extra: dict[str, Any] = dict(metadata.pop("additional_kwargs")) if isinstance(kept, dict) else {}
    if metadata.get("refusal"):
        extra["refusal"] = metadata.pop("refusal")
    if provider_data:
        extra[_PROVIDER_DATA_KEY] = provider_data
    return extra, metadata


def _ai_fields(msg: AIMessage, convert: Any) -> tuple[dict[str, Any], dict[str, Any], list[Any], list[Any]]:
    """``(additional_kwargs, response_metadata, tool_calls, invalid_tool_calls)`` of ``msg`` in LangChain's form,
    as :func:`~toolwire.interop.langchain.to_langchain_messages` writes them."""
    import json

    from toolwire._message_dicts import INDEX_KEY
    from toolwire.interop._langchain_messages import _invalid_places

    extra, metadata = lc_kwargs(msg.response_metadata, msg.provider_data)
    if places := _invalid_places(msg):
        extra[INDEX_KEY] = places
    calls = [{"name": c["name"], "args": convert(c["args"]), "id": c["id"], "type": "tool_call"}
             for c in msg.tool_calls if isinstance(c["args"], dict)]
    invalid = [*(_invalid_call({k: convert(v) for k, v in c.items() if k != "index"}) for c in msg.invalid_tool_calls),
               *(_invalid_call({"name": c["name"], "args": c["args"] if isinstance(c["args"], str)
                                else json.dumps(c["args"], default=str), "id": c["id"],
                                "error": "the arguments are not a JSON object"})
                 for c in msg.tool_calls if not isinstance(c["args"], dict))]
    return convert(extra), convert(metadata), calls, invalid


def _invalid_call(call: dict[str, Any]) -> dict[str, Any]:
    """An invalid tool call's dict in the key order of langchain-core's ``create_invalid_tool_call`` (``type``,
    ``id``, ``name``, ``args``, ``error``; what the LangChain message holds), other keys after them, so that
    ``model_dump_json`` writes the same text."""
    out = {"type": "invalid_tool_call", **{key: call.get(key) for key in ("id", "name", "args", "error")}}
    out.update((key, value) for key, value in call.items() if key not in out)
    return out


def langchain_dump(msg: BaseMessage, as_json: bool = False) -> dict[str, Any]:
    """The dict of :meth:`LangChainMessageAPI.model_dump` (all keys), JSON-ready with ``as_json``."""
    from toolwire._call_records import _copy_containers
    from toolwire.interop._langchain_messages import _usage_to_lc
    from toolwire.messages import AIMessage, ToolMessage, _json_value
    from toolwire.results import json_ready

    convert = _json_value if as_json else _copy_containers
    out: dict[str, Any] = {"content": convert(msg.content), "additional_kwargs": {}, "response_metadata": {},
                           "type": msg.type, "name": msg.name, "id": msg.id}
    if isinstance(msg, AIMessage):
        extra, metadata, calls, invalid = _ai_fields(msg, convert)
        out["additional_kwargs"], out["response_metadata"] = extra, metadata
        out.update(tool_calls=calls, invalid_tool_calls=invalid, usage_metadata=_usage_to_lc(msg.usage))
    elif isinstance(msg, ToolMessage):
        artifact = json_ready(msg.artifact) if as_json else _copy_containers(msg.artifact)
        out.update(tool_call_id=msg.tool_call_id, artifact=artifact, status=msg.status)
    return out


def _with_extras(block: dict[str, Any], extras: Mapping[str, Any]) -> dict[str, Any]:
    """``block`` with ``extras`` (their None values left out) under ``"extras"`` when any is left, as
    langchain-core's ``create_*_block`` functions and v0 reader add them."""
    kept = {key: value for key, value in extras.items() if value is not None}
    if kept:
        block["extras"] = kept
    return block


def _new_id() -> str:
    """A block id as langchain-core's ``ensure_id`` makes one: ``"lc_"`` and a UUID4."""
    return f"lc_{uuid.uuid4()}"


def _from_v0(block: dict[str, Any]) -> dict[str, Any] | None:
    """A v0 multimodal block (``source_type`` ``url``, ``base64`` or ``id``) as v1 (``langchain_v0.py``), or None.

    A url or base64 block with an ``id`` keeps it as the block's id (langchain-core 1.8.3 fails on such a block,
    passing the id twice); an ``id`` source is a ``file_id``, and a file of it gets a new block id, as there."""
    source = block.get("source_type")
    key = _V0_SOURCES.get(source) if isinstance(source, str) else None
    if key is None or block.get("type") not in ("image", "audio", "file"):
        return None
    value_key = {"url": "url", "base64": "data", "id": "id"}[source]
    if value_key not in block:
        return None
    known = {"type", "source_type", value_key, *(("mime_type",) if source != "id" else ())}
    out: dict[str, Any] = {"type": block["type"]}
    if source == "id" and block["type"] == "file":
        out["id"] = _new_id()
    elif source != "id" and "id" in block:
        out["id"] = block["id"]
        known.add("id")
    out[key] = block[value_key]
    if source != "id" and block.get("mime_type"):
        out["mime_type"] = block["mime_type"]
    return _with_extras(out, {k: v for k, v in block.items() if k not in known})


def _from_openai(block: dict[str, Any]) -> dict[str, Any] | None:
    """An OpenAI Chat Completions data block (``image_url``, ``input_audio``, ``file``) as v1, or None
    (``is_openai_data_block`` and ``_convert_openai_format_to_data_block`` of langchain-core)."""
    kind = block.get("type")
    if kind == "image_url":
        image = block.get("image_url")
        if not (set(block) <= {"type", "image_url", "detail"} and isinstance(image, dict)
                and isinstance(image.get("url"), str)):
            return None
        extras = {k: v for k, v in block.items() if k not in ("type", "image_url")}
        extras.update({k if k == "detail" else f"image_url_{k}": v for k, v in image.items() if k != "url"})
        parsed = _DATA_URI.match(image["url"])
        out: dict[str, Any] = {"type": "image", "id": _new_id()}
        if parsed:
            out.update(base64=parsed["data"], mime_type=parsed["mime_type"])
        else:
            out["url"] = image["url"]
        return _with_extras(out, extras)
    if kind == "input_audio":
        audio = block.get("input_audio")
        if not (isinstance(audio, dict) and isinstance(audio.get("data"), str)
                and isinstance(audio.get("format"), str)):
            return None
        extras = {k: v for k, v in block.items() if k not in ("type", "input_audio")}
        extras.update({f"audio_{k}": v for k, v in audio.items() if k not in ("data", "format")})
        return _with_extras({"type": "audio", "id": _new_id(), "base64": audio["data"],
                             "mime_type": f"audio/{audio['format']}"}, extras)
    if kind == "file":
        file = block.get("file")
        if not (isinstance(file, dict) and (isinstance(file.get("file_data"), str)
                                            or isinstance(file.get("file_id"), str))):
            return None
        extras = {k: v for k, v in block.items() if k not in ("type", "file")}
        extras.update({k: v for k, v in file.items() if k not in ("file_data", "file_id")})
        out = {"type": "file", "id": _new_id()}
        if isinstance(file.get("file_data"), str):
            parsed = _DATA_URI.match(file["file_data"])
            if not parsed:
                return None
            out.update(base64=parsed["data"], mime_type=parsed["mime_type"])
        else:
            out["file_id"] = file["file_id"]
        return _with_extras(out, extras)
    return None


_ANTHROPIC_SOURCES = {"base64": ("data", "base64"), "url": ("url", "url"), "file": ("file_id", "id")}
"""An Anthropic ``source`` type -> (its key, the v1 key its value goes to) (``anthropic.py`` of langchain-core; a
``file`` source's id goes to the block's ``id``, as there)."""


def _from_anthropic(block: dict[str, Any]) -> dict[str, Any] | None:
    """An Anthropic ``image`` or ``document`` block with a ``source`` dict as v1 (langchain-core's
    ``_convert_to_v1_from_anthropic_input``), or None; the other keys go to ``extras``, None values included, as
    there. A ``document`` is a ``file`` block (a ``text`` source a ``text-plain`` one)."""
    kind, source = block.get("type"), block.get("source")
    if kind not in ("image", "document") or not isinstance(source, dict) or "type" not in source:
        return None
    extras = {k: v for k, v in block.items() if k not in ("type", "source")}
    out: dict[str, Any]
    if kind == "document" and source["type"] == "text" and "data" in source:
        out = {"type": "text-plain", "text": source["data"], "mime_type": block.get("media_type", "text/plain")}
    elif source["type"] in _ANTHROPIC_SOURCES and _ANTHROPIC_SOURCES[source["type"]][0] in source:
        key, target = _ANTHROPIC_SOURCES[source["type"]]
        if source["type"] == "base64" and "media_type" not in source:
            return None
        out = {"type": "image" if kind == "image" else "file", target: source[key]}
        if source["type"] == "base64":
            out["mime_type"] = source["media_type"]
    else:  # unread: an image block is kept as it is, a document one is non_standard (as langchain-core's later
        return None  # converters give them back)
    if extras:
        out["extras"] = extras
    return out


def _converted(item: dict[str, Any]) -> dict[str, Any] | None:
    """``item`` read by langchain-core's best-effort converters in their order (v0, OpenAI, Anthropic; Bedrock
    Converse's and Gemini's one-key ``{"text": ...}``), or None when none reads it."""
    if len(item) == 1 and item.get("text") and isinstance(item["text"], str):
        return {"type": "text", "text": item["text"]}
    return _from_v0(item) or _from_openai(item) or _from_anthropic(item)


def content_blocks(msg: Any, calls: list[Any] | None = None) -> list[dict[str, Any]]:
    """:attr:`LangChainMessageAPI.content_blocks` of ``msg`` (see there); ``calls``: the tool calls to add blocks
    for when ``msg`` is no :class:`~toolwire.messages.AIMessage` but reads as one (a chunk's, as LangChain reads
    them), else None."""
    from toolwire.messages import AIMessage

    content = msg.content
    ai = calls is not None or isinstance(msg, AIMessage)
    if ai and msg.response_metadata.get("output_version") == "v1" and isinstance(content, list):
        return copy.deepcopy(content)
    items = [content] if isinstance(content, str) and content else content
    blocks: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, str):
            blocks.append({"type": "text", "text": item})
            continue
        if not isinstance(item, dict):  # (a constructor lets none through)
            continue
        converted = _converted(item)  # (an OpenAI "file" block too, whose type is a v1 one)
        if converted is None and item.get("type") in KNOWN_BLOCK_TYPES and "source_type" not in item:
            blocks.append(copy.deepcopy(item))
            continue
        blocks.append(copy.deepcopy(converted) if converted else {"type": "non_standard", "value": copy.deepcopy(item)})
    if ai:
        present = {block.get("id") for block in blocks if block.get("type") == "tool_call"}
        for call in msg.tool_calls if calls is None else calls:
            if call.get("id") and call["id"] not in present:
                added: dict[str, Any] = {"type": "tool_call", "id": call["id"], "name": call["name"],
                                         "args": copy.deepcopy(call["args"])}
                blocks.append(added)
        kept = msg.response_metadata.get("additional_kwargs")
        reasoning = kept.get("reasoning_content") if isinstance(kept, dict) else None
        if isinstance(reasoning, str) and not any(block.get("type") == "reasoning" for block in blocks):
            blocks.insert(0, {"type": "reasoning", "reasoning": reasoning})
    return blocks
