"""Test helper for Gemini tests: `tool_choice` tests' tools, model and `tool_config`; a model on a queued server."""

from __future__ import annotations

from typing import Any

from toolwire import tool
from toolwire.messages import HumanMessage
from toolwire.models.base import ChatRequest
from toolwire.models.lowering import gemini as codec


def named(name: str) -> Any:
    """A one-parameter tool called ``name`` (any name, a mode's too)."""
    @tool(name)
    def run(q: str) -> str:
        """Do it."""
        return q

    return run


@tool
def other(q: str) -> str:
    """Other."""
    return q


@tool
def search(q: str) -> str:
    """Search."""
    return q


def gemini_model() -> Any:
    """A ChatGoogleGenAI that never reaches a server (requests are only lowered here)."""
    from toolwire.models.google import ChatGoogleGenAI

    return ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url="http://127.0.0.1:9")


def sent_tool_config(bound: Any) -> Any:
    """The ``tool_config`` the bound model's request would carry (None: none)."""
    request = ChatRequest(messages=[HumanMessage("hi")], tools=bound.tools, tool_choice=bound.tool_choice)
    return codec.lower_request(request, "gemini-2.5-flash")["config"].get("tool_config")


def gemini_on(server: Any, **kwargs: Any) -> Any:
    """A ChatGoogleGenAI talking to ``server`` (a ``_queued_http.QueuedServer``), never retrying."""
    from toolwire.models.google import ChatGoogleGenAI

    return ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url=server.url, max_retries=0,
                           **kwargs)


def reply(parts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A Gemini ``generateContent`` body: one candidate of ``parts`` that finished (``extra``: other top-level keys)."""
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}], **extra}
