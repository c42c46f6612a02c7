"""Review 76 (interop): LangChain chunks cut mid-arguments, an invalid call's place across a LangChain round trip,
keyword typos at the entry points, AIMessage's LangChain keywords, and batch with an exception that reads as False."""

from __future__ import annotations

import asyncio
from typing import Any

from toolwire.testing import ScriptedChatModel


class _EmptyResult(Exception):
    """An exception that is also an (empty) container, so its truth value is False."""

    def __len__(self) -> int:
        return 0


def _reply(messages: list[Any]) -> str:
    if messages[-1].content == "x":
        raise _EmptyResult("nothing found")
    return "ok"


def test_batch_return_exceptions_keeps_an_exception_whose_truth_value_is_false() -> None:
    answers = ScriptedChatModel([_reply], cycle=True).batch(["a", "x", "b"], return_exceptions=True)
    assert [a.content for a in (answers[0], answers[2])] == ["ok", "ok"]
    assert isinstance(answers[1], _EmptyResult) and str(answers[1]) == "nothing found"


def test_abatch_return_exceptions_keeps_an_exception_whose_truth_value_is_false() -> None:
    answers = asyncio.run(ScriptedChatModel([_reply], cycle=True).abatch(["x", "a"], return_exceptions=True))
    assert isinstance(answers[0], _EmptyResult) and answers[1].content == "ok"
