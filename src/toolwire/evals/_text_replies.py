"""Calls a compatible server left in a reply's text, as the BFCL eval scores them (review 293 #1).

:class:`~toolwire.models.openai.ChatOpenAI` reads tool calls a compatible server left in the reply's text
(``text_tool_calls``, on by default for such servers: :mod:`toolwire.models._text_calls`), among them a JSON call
or a Python call list that ends the reply after prose ("I cannot help with that. Example: ```json {...}```"). BFCL
sees no call there: in FC mode it reads only the server's own ``tool_calls``, and in prompt mode the whole text must
be a call list. So the eval scores such a reply by its whole text, as BFCL's prompt mode reads it
(:func:`~toolwire.parsing.call_lists.text_calls`). Calls in a marker a server's own parser reads with prose around
them (``<tool_call>``, ``[TOOL_CALLS]``, ``<|python_tag|>``, ``<function=...>``) still count, as does a reply that is
only the calls (the JSON call objects ``text_calls`` also counts) and one whose only other text is reasoning
(``<think>`` blocks, as ChatOpenAI's reader finds them).

Which of the two a reply holds needs the text the calls were read from, which the reply no longer holds. So the eval
turns the reading off on the copy of the model that ``bind_tools`` made (the model given is left as it is), and reads
the calls here with the reader ChatOpenAI uses (:func:`~toolwire.models._text_calls.with_text_calls`: the same calls;
only a call cut off at ``max_tokens`` keeps the reader's error rather than ChatOpenAI's advice to raise the limit, which
no score reads).
The reader keeps the text before the calls as the reply's text, and after marked calls the text the parser left; an
unmarked call ends the reply, so the reply's text is then the text before it, which the raw text starts with and
follows with the calls. That tells the two apart exactly.
"""

from __future__ import annotations

from typing import Any

from toolwire.models._text_calls import METADATA_KEY, _thinking_spans, with_text_calls

__all__ = ["bind_for_scoring", "prompt_mode_text", "read_calls"]

_MARKERS = ("<tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "<function=")
"""How the call formats a server's tool-call parser reads start (ChatOpenAI's reader takes them at a line's start)."""


def bind_for_scoring(model: Any, tools: list[dict[str, Any]]) -> tuple[Any, dict[str, Any] | None]:
    """``model.bind_tools(tools)``, with the reading of calls from the reply's text turned off on the copy it made,
    when the copy reads them (``text_tool_calls`` True, calls allowed): :func:`read_calls` reads them instead.

    Args:
        model: the chat model the eval scores (any object with ``bind_tools``).
        tools: the item's tools, OpenAI-format dicts.

    Returns:
        ``(the bound model, {tool name: parameters JSON Schema} to read the calls with, or None when the bound model
        reads none from text itself, or is ``model`` itself: a model whose ``bind_tools`` returns itself is not
        changed)``.

    Raises:
        Whatever ``model.bind_tools`` raises.
    """
    bound = model.bind_tools(tools)
    if bound is model or getattr(bound, "text_tool_calls", None) is not True \
            or getattr(bound, "tool_choice", None) == "none":
        return bound, None
    try:
        schemas = {tool.name: tool.parameters for tool in bound.tools}
    except (AttributeError, TypeError):  # (not ChatOpenAI's own bound tools: its reading is left as it is)
        return bound, None
    if not schemas or not all(isinstance(name, str) for name in schemas):
        return bound, None
    bound.text_tool_calls = False
    return bound, schemas


def read_calls(reply: Any, schemas: dict[str, Any] | None) -> tuple[Any, str | None]:
    """The calls of ``reply``'s text read as ChatOpenAI reads them (:func:`with_text_calls`), when
    :func:`bind_for_scoring` turned its reading off (``schemas`` not None).

    Returns:
        ``(the reply, with the calls its text holds moved into tool_calls, or as it came; the text they were read
        from, or None when no call was read from it)``.
    """
    if schemas is None or not isinstance(getattr(reply, "content", None), str):
        return reply, None
    read = with_text_calls(reply, schemas)
    return read, (reply.content if read is not reply else None)


def prompt_mode_text(reply: Any, raw: str | None) -> str | None:
    """The text to score ``reply`` by as BFCL's prompt mode reads it, when its calls were read from its text
    (``response_metadata["tool_calls_from_text"]``) and are unmarked ones ending a reply that has prose before them.

    Args:
        reply: the reply, its calls read (its text is the text before the calls, and the text a marked call's
            parser left after them).
        raw: the text the calls were read from (:func:`read_calls`), or None when another reader read them: then
            the reply's text stands for the whole (what the calls were written in is not known, and prose around
            calls in any form is no call list for BFCL's prompt mode nor a server's call for its FC mode).

    Returns:
        ``raw`` (the reply's text when ``raw`` is None), or None when the calls count as read: no calls read from
        text, no text outside reasoning blocks beside them, or calls in a marker a server's own parser reads.
    """
    metadata = getattr(reply, "response_metadata", None)
    if not isinstance(metadata, dict) or metadata.get(METADATA_KEY) is not True:
        return None
    text = getattr(reply, "text", "")
    text = str(text) if isinstance(text, str) else ""
    pieces, start = [], 0
    for begin, end in _thinking_spans(text):
        pieces.append(text[start:begin])
        start = end
    if not "".join([*pieces, text[start:]]).strip():  # only the calls (and reasoning)
        return None
    if raw is None:
        return text
    # an unmarked call ends the reply, whose text is then the text before it: the raw text starts with that, and
    # goes on with the call (a fence, ``{`` or ``[``); a marked call starts a line with its marker
    if not raw.startswith(text) or raw[len(text):].lstrip().startswith(_MARKERS):
        return None
    return raw
