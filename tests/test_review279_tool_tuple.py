"""Review 279 #2: a ``("tool", text)`` tuple in a conversation is refused with advice that answers the call (a
ToolMessage or a role dict with ``tool_call_id``), not "use 'system', 'user' or 'assistant'", which would leave the
call unanswered."""

from __future__ import annotations

import pytest

from toolwire._message_dicts import coerce_messages
from toolwire.errors import UserError


@pytest.mark.parametrize("role", ["tool", "function"])
def test_a_tool_tuple_is_told_to_carry_the_call_id(role: str) -> None:
    with pytest.raises(UserError) as caught:
        coerce_messages([("user", "Weather in Paris?"), (role, "Sunny")])
    text = str(caught.value)
    assert "tool_call_id" in text and "ToolMessage(" in text
    assert "use 'system', 'user' or 'assistant'" not in text


def test_an_unknown_role_keeps_its_advice() -> None:
    with pytest.raises(UserError, match="use 'system', 'user' or 'assistant'"):
        coerce_messages([("robot", "hi")])
