"""The reply a structured output's stream reads: a hosted model's stream read whole, tried again when it ended early.

An OpenAI-compatible server's stream may end without a finish reason in the middle of the output tool's call
(llama-server writes its failure as an ``error:`` line, which the ``openai`` SDK skips, and then ends the stream):
the call is then an invalid call with the :data:`~toolwire.models.lowering._calls.STREAM_CUT` error. The structured
output hands nothing out before the value, so such a reply is asked for again, as a stream that broke is, up to the
model's ``max_retries``, waiting as its retries wait (review 214 #4). When the tries run out, the error is one sentence
for the user (:func:`stream_cut_error`), not the advice meant for a model.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from toolwire.errors import ToolCallParseError
from toolwire.messages import AIMessage
from toolwire.models.lowering._calls import STREAM_CUT

__all__ = ["ainvoke_whole", "invoke_whole", "stream_cut", "stream_cut_error"]

log = logging.getLogger("toolwire.models")


def stream_cut(reply: AIMessage, name: str) -> bool:
    """Whether ``reply`` holds no call of the output tool ``name`` but an invalid one (of it, or of no name) that a
    stream which ended early cut short (:data:`~toolwire.models.lowering._calls.STREAM_CUT`)."""
    if any(call["name"] == name for call in reply.tool_calls):
        return False
    return any(bad.get("error") == STREAM_CUT and bad.get("name") in (name, None) for bad in reply.invalid_tool_calls)


def stream_cut_error(reply: AIMessage, name: str) -> ToolCallParseError:
    """The error of a reply whose stream ended before the output tool ``name``'s call was complete
    (:func:`stream_cut`), after every try: one sentence for the user."""
    return ToolCallParseError(f"The server's stream ended early, before the model's {name} was complete, without "
                              "saying why (a server failure, which its log shows, or its output token limit): try "
                              "again, or raise max_retries or max_tokens.", raw=reply)


def _wait(model: Any, tries: int, name: str) -> float | None:
    """Seconds to wait before trying again after try number ``tries`` of ``model`` was cut (:func:`stream_cut`), or
    None when its ``max_retries`` have run out."""
    policy = getattr(model, "retry_policy", None)
    if policy is None or tries > policy.max_retries:
        return None
    wait = float(policy.delay(tries))
    log.info("The stream ended early, before %s was complete (attempt %d); retrying in %.2f s", name, tries, wait)
    return wait


def invoke_whole(model: Any, input: Any, options: dict[str, Any], name: str) -> AIMessage:
    """``model.invoke(input, **options)`` (a model that reads its reply through a stream, whole), asked again while the
    reply's stream ended early within the output tool ``name``'s call (:func:`stream_cut`), up to ``model``'s
    ``max_retries``.

    Returns:
        The first reply not cut so, or the last reply.

    Raises:
        ProviderError, UserError: as ``model.invoke``.
    """
    tries = 0
    while True:
        tries += 1
        reply = model.invoke(input, **options)
        wait = _wait(model, tries, name) if stream_cut(reply, name) else None
        if wait is None:
            return reply
        time.sleep(wait)


async def ainvoke_whole(model: Any, input: Any, options: dict[str, Any], name: str) -> AIMessage:
    """Async :func:`invoke_whole` (``model.ainvoke``, waits with ``asyncio.sleep``)."""
    tries = 0
    while True:
        tries += 1
        reply = await model.ainvoke(input, **options)
        wait = _wait(model, tries, name) if stream_cut(reply, name) else None
        if wait is None:
            return reply
        await asyncio.sleep(wait)
