"""What the parsing tests read of a ParsedReply, and the schema several of them bind (reviews 148, 151)."""

from __future__ import annotations

from typing import Any

WEATHER = {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                           "required": ["city"]}}


def calls(reply: Any) -> list[tuple[str, dict[str, Any]]]:
    """``(name, args)`` of each valid call of ``reply``, in order."""
    return [(c["name"], c["args"]) for c in reply.tool_calls]


def errors(reply: Any) -> list[str]:
    """The error of each invalid call of ``reply``, in order."""
    return [bad["error"] for bad in reply.invalid_tool_calls]
