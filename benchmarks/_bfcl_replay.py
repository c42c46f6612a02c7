"""Shared by the BFCL signal scripts: a finished report's reply written back as the pythonic dialect writes it,
and the item's prompt as ChatLlamaCpp renders it."""

from __future__ import annotations

from typing import Any

from toolwire.models.base import ToolSpec, to_tool_spec
from toolwire.models.dialects import format_calls


def replayed_reply(item: Any, actual: list[dict[str, Any]]) -> tuple[list[ToolSpec], list[dict[str, Any]], str]:
    """``(the item's tool specs as sent, the report's calls as sent, those calls as pythonic text)``: the report
    keeps calls, not the reply's text; names are given back as they were sent (BFCL's dotted names renamed)."""
    toolset = item.toolset()
    specs = [to_tool_spec(t) for t in toolset.tools]
    sent = {original: name for name, original in toolset.names.items()}
    calls = [{"name": sent.get(c["name"], c["name"]), "args": c["args"], "id": f"c{i}", "type": "tool_call"}
             for i, c in enumerate(actual)]
    return specs, calls, format_calls(calls, "pythonic", specs)


def prompt_tokens(loaded: Any, dialect: Any, item: Any, specs: list[ToolSpec]) -> list[int]:
    """The item's prompt tokens, rendered as a reply with ``tool_choice`` auto is."""
    return loaded.tokenize(loaded.render(dialect.render(list(item.messages()), specs, tool_choice="auto")))
