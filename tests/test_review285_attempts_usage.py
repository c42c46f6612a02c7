"""Review 285 #2: a structured-output request that fails after earlier replies were read carries their usage as
``exc.attempts_usage``, on invoke, ainvoke, stream and astream alike (the tokens were billed, and nothing else
returns them)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from run_ways import WAYS, run_as
from toolwire import AIMessage
from toolwire.errors import ProviderError
from toolwire.messages import tool_call
from toolwire.testing import ScriptedChatModel


class W(BaseModel):
    c: float


def _fail(messages: object) -> AIMessage:
    raise ProviderError("The server answered 500.", provider="scripted", status=500)


def _script() -> ScriptedChatModel:
    bad = AIMessage("", tool_calls=[tool_call("W", {"c": "bad"}, "c1")],
                    usage={"input_tokens": 300, "output_tokens": 30, "total_tokens": 330})
    return ScriptedChatModel([bad, _fail])


@pytest.mark.parametrize("how", WAYS)
def test_the_failed_request_carries_the_earlier_replies_usage(how: str) -> None:
    structured = _script().with_structured_output(W, retries=1)
    with pytest.raises(ProviderError) as caught:
        run_as(how, structured, "q")
    assert caught.value.attempts_usage == [{"input_tokens": 300, "output_tokens": 30, "total_tokens": 330}]
