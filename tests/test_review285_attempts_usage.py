"""Review 285 #2: a structured-output request that fails after earlier replies were read carries their usage as
``exc.attempts_usage``, on invoke, ainvoke, stream and astream alike (the tokens were billed, and nothing else
returns them)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

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


async def _consume(agen: object) -> None:
    async for _ in agen:  # type: ignore[attr-defined]
        pass


@pytest.mark.parametrize("how", ["invoke", "ainvoke", "stream", "astream"])
def test_the_failed_request_carries_the_earlier_replies_usage(how: str) -> None:
    structured = _script().with_structured_output(W, retries=1)
    with pytest.raises(ProviderError) as caught:
        if how == "invoke":
            structured.invoke("q")
        elif how == "ainvoke":
            asyncio.run(structured.ainvoke("q"))
        elif how == "stream":
            list(structured.stream("q"))
        else:
            asyncio.run(_consume(structured.astream("q")))
    assert caught.value.attempts_usage == [{"input_tokens": 300, "output_tokens": 30, "total_tokens": 330}]
