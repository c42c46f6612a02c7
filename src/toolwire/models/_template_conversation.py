"""The conversation as the ``template`` dialect hands it to a GGUF's own chat template: results in call order
(:mod:`toolwire.models.dialects`).

* Results go back in call order, one per call, exactly as the hosted providers get them
  (:func:`ordered_messages`, through :func:`~toolwire.models.lowering._common.group_messages`, case E3): templates
  such as Qwen2.5's write each result as a bare ``<tool_response>``, so the model pairs results with calls by place.
  Of several results for one call (a retried tool) the last is sent; a call the conversation went on past without a
  result gets an error result; a result that answers no call becomes a user turn saying what it is.
* Every call of a turn, the invalid ones too (at their place in the reply), is a ``tool_calls`` entry
  (:func:`template_calls`), so that each result has its call: an invalid call's ``arguments`` are the text the
  model wrote (its error result says what was wrong with it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolwire.messages import AIMessage, BaseMessage, InvalidToolCall, ToolCall
from toolwire.models._text_content import json_form
from toolwire.models.lowering._common import assistant_calls, group_messages

__all__ = ["ordered_messages", "template_calls"]


def ordered_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The conversation with each call's result right after its assistant turn, in call order, one per call
    (:func:`~toolwire.models.lowering._common.group_messages`, the hosted providers' rule; see the module's text).

    Args:
        messages: the conversation, oldest first.

    Returns:
        A new list of messages (results grouped, a stale call's error result added, an orphan result as a
        HumanMessage saying what it is).
    """
    out: list[BaseMessage] = []
    for item in group_messages(messages):
        if isinstance(item, list):
            out.extend(item)
        else:
            out.append(item)
    return out


def template_calls(message: AIMessage) -> list[dict[str, Any]]:
    """The ``tool_calls`` entries of an assistant turn, in the order the model made its calls.

    Args:
        message: the assistant turn.

    Returns:
        OpenAI-shaped entries ``{"id", "type": "function", "function": {"name", "arguments"}}``: a valid call's
        arguments as a JSON object, an invalid call's as the text the model wrote (``{}`` when it wrote none), its
        name ``"unknown_tool"`` when it has none.
    """
    return [{"id": call.get("id") or "", "type": "function",
             "function": {"name": call.get("name") or "unknown_tool", "arguments": _arguments(call)}}
            for call in assistant_calls(message)]


def _arguments(call: ToolCall | InvalidToolCall) -> Any:
    if call.get("type") == "invalid_tool_call":
        raw = call.get("args")
        return raw if isinstance(raw, str) and raw else {}
    return json_form(call.get("args"))
