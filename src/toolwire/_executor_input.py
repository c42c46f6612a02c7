"""What :class:`~toolwire.execution.ToolExecutor` is given, made ready to run: each tool call shaped as an
:class:`~toolwire.messages.AIMessage` shapes it (:func:`prepared`), a conversation passed in place of the reply
refused (:func:`refuse_conversation`), and a reply in another library's form read as toolwire's (:func:`reply`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire._call_records import _OTHER_ARGUMENT_KEYS, _checked_call
from toolwire._message_dicts import other_message
from toolwire._printing import printed, safe_text, type_label
from toolwire.errors import UserError
from toolwire.messages import AIMessage, InvalidToolCall, ToolCall, invalid_tool_call, new_tool_call_id
from toolwire.parsing.arguments import tool_call_from_native

__all__ = ["prepared", "refuse_conversation", "reply"]


def prepared(call: Any) -> ToolCall | InvalidToolCall:
    """A call as :meth:`ToolExecutor.acall` answers it: a well-formed call as
    :class:`~toolwire.messages.AIMessage` shapes it (an id made or turned to text, argument text decoded; a call in
    the OpenAI SDK's form, ``{"id", "type": "function", "function": {"name", "arguments"}}``, read as a reply's;
    arguments under ``arguments``, ``input`` or ``parameters`` read, and an invalid call when two of these keys and
    ``args`` disagree, as :class:`~toolwire.messages.AIMessage` reads them); a
    dict whose name is missing or not text kept in place, so it is answered as an unknown tool; anything else
    (a string, a number) an invalid call, answered in its place, as is a dict whose id cannot be made text (its
    ``str()`` raises). An item whose ``repr()`` fails is shown as ``<TypeName>``: printing it cannot fail.

    Returns:
        The call, shaped as above.
    """
    if isinstance(call, dict):
        call_id = call.get("id")
        id_text = call_id if call_id is None or isinstance(call_id, str) else printed(call_id, str)
        function = call.get("function")  # the OpenAI SDK's own form, {"id", "type": "function", "function": {"name",
        if isinstance(function, dict) and "name" not in call and "args" not in call:  # "arguments"}}: read as the
            return tool_call_from_native(function.get("name"), function.get("arguments"),  # Agent reads it (r. 117)
                                         id_text, require_name=True)
        if id_text is None and call_id is not None:
            name = call.get("name")
            return invalid_tool_call(name if isinstance(name, str) else None, None, None,
                                     f"the call's id ({safe_text(call_id):.100}) cannot be read as text")
        if (type(call.get("args")) is dict and type(call.get("id")) is str and call["id"] != ""
                and call.get("type") == "tool_call" and isinstance(call.get("name"), str)
                and _OTHER_ARGUMENT_KEYS.isdisjoint(call)):  # (arguments under two keys: checked, review 160 #2)
            return call  # type: ignore[return-value]  # already in shape (an AIMessage's calls): no second copy
        if isinstance(call.get("name"), str):
            return _checked_call(call)
        return {**call, "id": new_tool_call_id() if id_text is None else id_text,  # type: ignore[typeddict-item]
                "type": "tool_call"}
    return invalid_tool_call(None, f"{safe_text(call):.200}", None,
                             "a tool call must be a dict with 'name', 'args' and 'id'")


def refuse_conversation(calls: list[Any], method: str) -> None:
    """Raise :class:`UserError` when ``calls`` holds a message rather than tool calls: toolwire's, a chunk,
    LangChain's, a ``{"role", "content"}`` dict or a ``(role, text)`` pair (the forms a conversation takes
    elsewhere): a conversation passed where the reply was meant (review 97: each message was answered as a
    malformed call, with text meant for the model, and nothing ran; review 98 #8: the dict and pair forms)."""
    from toolwire.messages import BaseMessage

    for item in calls:
        if isinstance(item, BaseMessage) or type(item).__module__.startswith(("langchain_core.messages",
                                                                             "toolwire.chunks")):
            held = type_label(item)
        elif isinstance(item, Mapping) and "role" in item and not {"name", "args"} & item.keys():
            held = f"a {{'role': {safe_text(item['role'], repr):.20}, ...}} message"
        elif isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item):
            held = f"the (role, text) pair {safe_text(item, repr):.40}"
        else:
            continue
        raise UserError(f"{method}() takes the model's reply (an AIMessage) or its tool calls, not a list of "
                        f"messages (it holds {held}): pass the reply whose calls should run, such as "
                        "messages[-1].")


def reply(message: Any) -> Any:
    """``message`` as a toolwire message when it stands for one (a merged :class:`AIMessageChunk`, a LangChain
    message: :func:`~toolwire._message_dicts.other_message`), else ``message`` itself.

    Raises:
        UserError: a LangChain message toolwire has no message for.
    """
    if isinstance(message, AIMessage):
        return message
    converted = other_message(message)
    return message if converted is None else converted
