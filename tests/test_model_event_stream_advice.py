"""A model's ``astream_events``/``astream_log`` (LangChain's callback event stream) raise one sentence saying to
use ``astream``, as ``with_config`` does, not a bare AttributeError (review 180 #4, the models' part)."""

from __future__ import annotations

import asyncio

import pytest

from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel


@pytest.mark.parametrize("name", ["astream_events", "astream_log"])
def test_a_model_says_to_stream_with_astream(name: str) -> None:
    model = ScriptedChatModel(["hi"])
    with pytest.raises(UserError, match=rf"^{name} is LangChain's callback event stream.*model\.astream\(messages\)"):
        getattr(model, name)("hello", version="v2")


def test_a_bound_model_says_the_same() -> None:
    bound = ScriptedChatModel(["hi"]).bind_tools([])
    with pytest.raises(UserError, match="astream_events"):
        bound.astream_events("hello", version="v2")
    assert asyncio.run(bound.ainvoke("hello")).content == "hi"


@pytest.mark.parametrize("name", ["astream_events", "astream_log"])
def test_a_pipeline_and_structured_output_say_the_same(name: str) -> None:
    """Review 181 #3: ``model | step`` and ``with_structured_output(...)`` gave a bare AttributeError."""
    from pydantic import BaseModel

    class Point(BaseModel):
        x: int

    model = ScriptedChatModel(["hi"])
    for runnable in (model | (lambda reply: reply.content), model.with_structured_output(Point)):
        with pytest.raises(UserError, match=rf"^{name} is LangChain.s callback event stream.*\.astream\(input\)"):
            getattr(runnable, name)("hello")
