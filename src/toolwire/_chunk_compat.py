"""LangChain's pydantic-style API on :class:`~toolwire.chunks.AIMessageChunk`: ``model_copy``, ``model_dump``,
``model_dump_json``, ``content_blocks`` and pydantic v1's ``copy(update=...)`` (:class:`ChunkLangChainAPI`, a base
of the chunk class; kept apart so that ``chunks.py`` stays short).

The shapes follow langchain-core 1.8.3's ``messages/ai.py``: ``AIMessageChunk`` is an ``AIMessage`` with
``type="AIMessageChunk"`` and two more fields, ``tool_call_chunks`` and ``chunk_position`` (None, or ``"last"`` for
the final chunk of a stream, which toolwire's chunks do not mark: always None here), and its validator
``init_tool_calls`` makes ``tool_calls`` and ``invalid_tool_calls`` from the tool-call chunks (each one's argument
text read with ``parse_partial_json``: an object is a call, anything else an invalid call with ``error`` None,
replacing the invalid calls given); a chunk with no tool-call chunks but invalid calls gets a tool-call chunk per
invalid call (``index`` None). ``model_dump`` gives what the LangChain chunk made from this chunk's values dumps,
but for a chunk holding invalid calls of its own (:func:`dumped_calls`: no tool-call chunks then, so none of them is
read back as a call that runs, review 203 #3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from toolwire._message_compat import Selection, _any_adapter, _refuse_options, content_blocks, copied, lc_kwargs, select

__all__ = ["ChunkLangChainAPI", "dumped_calls", "langchain_calls"]

_KIND = "AIMessageChunk"
"""LangChain's ``type`` of an ``AIMessageChunk``."""


def langchain_calls(chunk: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """``(tool_calls, invalid_tool_calls, tool_call_chunks)`` of ``chunk`` as LangChain's ``AIMessageChunk`` made
    from its values holds them (``init_tool_calls``; see the module docstring). The argument text is read with
    :func:`toolwire.parsing.partial_json.partial_value` (what ``parse_partial_json`` reads, ``None`` where that
    raises); a call's id stays None where the chunk has none (toolwire's own reading, :meth:`to_message`, makes
    one). These are LangChain's readings of a possibly unfinished stream; ``chunk.tool_calls`` stays toolwire's."""
    from toolwire.parsing.partial_json import partial_value

    parts = [{"name": p.get("name"), "args": p.get("args"), "id": p.get("id"), "index": p.get("index"),
              "type": "tool_call_chunk"} for p in chunk.tool_call_chunks]
    if not parts:
        parts = [{"name": c.get("name"), "args": c.get("args"), "id": c.get("id"), "index": None,
                  "type": "tool_call_chunk"} for c in chunk.invalid_tool_calls]
        invalid = [{"type": "invalid_tool_call", "id": c.get("id"), "name": c.get("name"), "args": c.get("args"),
                    "error": c.get("error")} for c in chunk.invalid_tool_calls]
        return [], invalid, parts
    calls: list[dict[str, Any]] = []
    invalid = []
    for part in parts:
        text = part["args"]
        try:
            args = partial_value(text) if text else {}
        except Exception:  # (LangChain: any failure to read is an invalid call)
            args = None
        if isinstance(args, dict):
            calls.append({"name": part["name"] or "", "args": args, "id": part["id"], "type": "tool_call"})
        else:
            invalid.append({"name": part["name"], "args": text, "id": part["id"], "error": None,  # (the key order
                            "type": "invalid_tool_call"})  # of create_invalid_tool_call, unvalidated there)
    return calls, invalid, parts


def dumped_calls(chunk: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]],
                                       dict[str, int]]:
    """``(tool_calls, invalid_tool_calls, tool_call_chunks, places)`` as :meth:`ChunkLangChainAPI.model_dump` writes
    them (``places``: ``{id: index}`` of the invalid calls a valid one follows, kept in ``additional_kwargs`` as
    ``to_langchain_messages`` keeps them, LangChain's invalid call having no ``index``):
    :func:`langchain_calls` for a chunk without invalid calls of its own; for one with them, toolwire's own reading
    of the calls (``chunk.to_message()``'s, each invalid call with its error) and no tool-call chunks, so that
    ``AIMessageChunk(**dump)``, toolwire's or LangChain's, reads each invalid call as invalid again (review 203 #3).
    LangChain's chunk writes a tool-call chunk per invalid call, which either class reads back as a call that runs
    when its arguments text is an object, or the start of one (``parse_partial_json``), and a chunk with tool-call
    chunks has its given invalid calls replaced by their reading, so the invalid calls would be lost. Never raises
    for a chunk whose calls are dicts."""
    if not chunk.invalid_tool_calls:
        return (*langchain_calls(chunk), {})
    read, bad = chunk._read_calls()
    calls = [{"name": c.get("name"), "args": c.get("args"), "id": c.get("id"), "type": "tool_call"} for c in read]
    invalid = [{"type": "invalid_tool_call", "id": c.get("id"), "name": c.get("name"), "args": c.get("args"),
                "error": c.get("error")} for c in bad]  # (LangChain's invalid_tool_call() takes no other keys)
    places = {c["id"]: c["index"] for c in bad if isinstance(c.get("id"), str) and type(c.get("index")) is int}
    return calls, invalid, [], places


def chunk_dump(chunk: Any, as_json: bool = False) -> dict[str, Any]:
    """The dict of :meth:`ChunkLangChainAPI.model_dump` (all keys), JSON-ready with ``as_json``."""
    from toolwire._call_records import _copy_containers
    from toolwire.interop._langchain_messages import _usage_to_lc
    from toolwire.messages import _json_value

    convert = _json_value if as_json else _copy_containers
    extra, metadata = lc_kwargs(chunk.response_metadata, chunk.provider_data)
    calls, invalid, parts, places = dumped_calls(chunk)
    if places:
        from toolwire._message_dicts import INDEX_KEY

        extra[INDEX_KEY] = places
    return {"content": convert(chunk.content), "additional_kwargs": convert(extra),
            "response_metadata": convert(metadata), "type": _KIND, "name": chunk.name, "id": chunk.id,
            "tool_calls": convert(calls), "invalid_tool_calls": convert(invalid),
            "usage_metadata": _usage_to_lc(chunk.usage), "tool_call_chunks": convert(parts), "chunk_position": None}


class ChunkLangChainAPI:
    """LangChain's ``model_copy``, ``model_dump``, ``model_dump_json``, ``content_blocks`` and ``copy(update=...)``
    on an :class:`~toolwire.chunks.AIMessageChunk` (see the module docstring). A mixin; it holds no state."""

    __slots__ = ()
    chunk_position: str | None = None
    """LangChain 1.x's mark of a stream's last chunk (``"last"``); toolwire's chunks never carry it, so it is None."""

    def pretty_repr(self) -> str:
        """The chunk laid out for people, as LangChain's ``pretty_repr()`` lays out its ``AIMessageChunk`` (the title
        ``Aimessagechunk Message``, the content, the complete tool calls and the invalid ones, those whose streamed
        arguments cannot be read among them, as :meth:`to_message` reads them; review 235 #1, review 241 #5)."""
        from toolwire._pretty import pretty_repr

        return pretty_repr(self)

    def pretty_print(self) -> None:
        """Print :meth:`pretty_repr` (LangChain's ``pretty_print()``)."""
        print(self.pretty_repr())

    def _chunk_values(self) -> dict[str, Any]:
        names = ("content", "tool_call_chunks", "invalid_tool_calls", "usage", "response_metadata", "provider_data",
                 "id", "name")
        return {name: getattr(self, name) for name in names}

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """Return a new chunk with ``update`` applied (pydantic's ``model_copy``, which LangChain's chunk inherits);
        this chunk is unchanged. Made by the constructor, as a message's
        :meth:`~toolwire._message_compat.LangChainMessageAPI.model_copy` is: ``update`` takes the chunk's fields
        (``content``, ``tool_call_chunks``, ``invalid_tool_calls``, ``usage``, ``response_metadata``,
        ``provider_data``, ``id``, ``name``) and LangChain's ``usage_metadata``, ``additional_kwargs``, ``type``
        (``"AIMessageChunk"``) and ``chunk_position`` (None). The ids made for id-less tool-call chunks are kept
        unless ``tool_call_chunks`` is updated, so the copy's calls have the same ids.

        Args:
            update: field name -> new value; None or empty for a plain copy.
            deep: copy the values deeply first (the update's values are used as given).

        Returns:
            A new :class:`~toolwire.chunks.AIMessageChunk`.

        Raises:
            TypeError: a name that is no field; ``tool_calls``/``invalid_tool_calls``' LangChain reading, which the
                tool-call chunks make (update ``tool_call_chunks``); ``chunk_position="last"``, which toolwire's
                chunks do not carry; or a value the constructor refuses so.
            UserError: a value the constructor refuses so.
        """
        changes = dict(update or {})
        if "tool_calls" in changes:
            raise TypeError("A chunk's tool_calls are read from its tool_call_chunks: update tool_call_chunks "
                            "instead.")
        if changes.pop("chunk_position", None) is not None:
            raise TypeError("toolwire's AIMessageChunk has no chunk_position ('last' marks LangChain's final chunk): "
                            "merge the chunks with merge_chunks or + instead.")
        new = copied(self, self._chunk_values(), _KIND, changes, deep)
        if "tool_call_chunks" not in changes:
            new._made_ids = dict(self._made_ids)  # type: ignore[attr-defined]
        return new

    def copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        """pydantic v1's ``copy(update=..., deep=...)``, as on LangChain's chunk: :meth:`model_copy` with a
        ``DeprecationWarning`` naming it (:func:`toolwire._message_compat.v1_copy`).

        Returns:
            A new chunk.

        Raises:
            TypeError, UserError: as :meth:`model_copy`.
        """
        from toolwire._message_compat import v1_copy

        return v1_copy(self, {"update": update, "deep": deep})

    def model_dump(self, *, mode: Literal["python", "json"] = "python", include: Selection = None,
                   exclude: Selection = None, exclude_none: bool = False, by_alias: bool | None = None,
                   exclude_unset: bool = False, exclude_defaults: bool = False, **unsupported: Any) -> dict[str, Any]:
        """Return the chunk as LangChain's ``AIMessageChunk.model_dump()`` gives the LangChain chunk made from its
        values: an AI message's keys (``content``, ``additional_kwargs``, ``response_metadata``, ``type`` =
        ``"AIMessageChunk"``, ``name``, ``id``, ``tool_calls``, ``invalid_tool_calls``, ``usage_metadata``) then
        ``tool_call_chunks`` and ``chunk_position`` (None), with ``tool_calls``/``invalid_tool_calls`` read from
        the tool-call chunks as LangChain reads them (:func:`langchain_calls`); a chunk holding invalid calls of its
        own is written with toolwire's reading of its calls and no ``tool_call_chunks`` (:func:`dumped_calls`), so
        that ``AIMessageChunk(**dump)`` (toolwire's or LangChain's) reads those calls as invalid again, never as
        calls that run (review 203 #3).

        Args:
            mode, include, exclude, exclude_none, by_alias, exclude_unset, exclude_defaults: as a message's
                :meth:`~toolwire._message_compat.LangChainMessageAPI.model_dump` (pydantic's, applied by
                pydantic-core; ``exclude_none`` also inside each tool-call chunk).
            **unsupported: pydantic's other keywords: refused.

        Returns:
            A new dict.

        Raises:
            ValueError: ``mode`` is neither ``"python"`` nor ``"json"``.
            TypeError: as the message's ``model_dump``.
        """
        _refuse_options("model_dump", exclude_unset, exclude_defaults, unsupported)
        if mode not in ("python", "json"):
            raise ValueError(f"model_dump(mode=...) must be 'python' or 'json', not {mode!r}.")
        return select(chunk_dump(self, as_json=mode == "json"), include, exclude, exclude_none)

    def model_dump_json(self, *, indent: int | None = None, include: Selection = None, exclude: Selection = None,
                        exclude_none: bool = False, by_alias: bool | None = None, exclude_unset: bool = False,
                        exclude_defaults: bool = False, **unsupported: Any) -> str:
        """:meth:`model_dump` as LangChain's JSON text (pydantic-core's, compact or indented by ``indent``).

        Returns:
            A ``str``.

        Raises:
            TypeError: as :meth:`model_dump`.
        """
        _refuse_options("model_dump_json", exclude_unset, exclude_defaults, unsupported)
        dumped = select(chunk_dump(self, as_json=True), include, exclude, exclude_none)
        return _any_adapter().dump_json(dumped, indent=indent).decode()  # type: ignore[no-any-return]

    @property
    def additional_kwargs(self) -> dict[str, Any]:
        """LangChain's ``additional_kwargs``, read only: what :meth:`model_dump` writes under that key (the LangChain
        ``additional_kwargs`` the chunk took, kept in ``response_metadata["additional_kwargs"]``, a ``refusal``,
        toolwire's provider data), computed when read (review 229 #2).

        Returns:
            A new dict each time: changing it never changes the chunk.
        """
        return chunk_dump(self)["additional_kwargs"]  # type: ignore[no-any-return]

    @property
    def content_blocks(self) -> list[dict[str, Any]]:
        """The content as LangChain v1's standard blocks, as langchain-core's ``AIMessageChunk.content_blocks``
        gives them: a message's blocks (:attr:`toolwire.messages.BaseMessage.content_blocks`) with a ``tool_call``
        block per call LangChain reads from the tool-call chunks; when the chunk has tool-call chunks and no
        content (a piece of a stream), those blocks are replaced by one ``{"type": "tool_call_chunk", "id",
        "name", "args"}`` block (with ``index`` when set) per tool-call chunk.

        Returns:
            A new list of new block dicts.
        """
        calls, _, parts = langchain_calls(self)
        blocks = content_blocks(self, calls=calls)
        if self.tool_call_chunks and not self.content:  # type: ignore[attr-defined]  # (chunk_position is never "last")
            blocks = [block for block in blocks if block.get("type") not in ("tool_call", "invalid_tool_call")]
            for part in parts:
                block = {"type": "tool_call_chunk", "id": part["id"], "name": part["name"], "args": part["args"]}
                if part["index"] is not None:
                    block["index"] = part["index"]
                blocks.append(block)
        return blocks
