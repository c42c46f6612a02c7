"""Review 211 #1 and #2: a fake model and the message-dict functions given one item where a list is expected."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire import AIMessage, HumanMessage
from toolwire.errors import UserError
from toolwire.testing import ScriptedChatModel


@pytest.mark.parametrize("responses", ["It is sunny.", AIMessage("It is sunny."), lambda messages: "hi",
                                       {"role": "assistant", "content": "hi"}, None, 3])
def test_scripted_model_refuses_a_single_reply(responses: Any) -> None:
    # (review 211 #1) a bare string was replayed one character per call
    with pytest.raises(UserError, match=r"takes a list of replies.*put even a single reply in a list"):
        ScriptedChatModel(responses)


def test_scripted_model_names_a_lone_string() -> None:
    with pytest.raises(UserError, match="not a single string"):
        ScriptedChatModel("It is sunny.")


def test_scripted_model_takes_lists_tuples_and_iterators() -> None:
    assert ScriptedChatModel(["It is sunny."]).invoke("q").content == "It is sunny."
    assert ScriptedChatModel(("a", "b")).invoke("q").content == "a"
    assert ScriptedChatModel(iter(["g"])).invoke("q").content == "g"
    assert ScriptedChatModel([]).requests == []  # empty is allowed: the first call says the script ran out


@pytest.mark.parametrize("pieces", [2.5, 0, -1, True, "3", None])
def test_scripted_model_checks_stream_pieces_when_built(pieces: Any) -> None:
    # (review 211 #1) 2.5 failed with a raw TypeError at the first stream(), -1 was taken
    with pytest.raises(UserError, match=r"^stream_pieces must be a whole number of 1 or more, not "):
        ScriptedChatModel(["It is sunny."], stream_pieces=pieces)


def test_scripted_model_streams_with_a_valid_stream_pieces() -> None:
    model = ScriptedChatModel(["abcdef"], stream_pieces=2)
    assert "".join(str(c.content) for c in model.stream("q")) == "abcdef"
    assert model.stream_pieces == 2


def test_scripted_model_refuses_a_lone_langchain_message() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    with pytest.raises(UserError, match="not a LangChain AIMessage"):
        ScriptedChatModel(lc.AIMessage("hi"))


def test_scripted_model_a_human_message_alone_is_refused() -> None:
    with pytest.raises(UserError, match="not a single reply"):
        ScriptedChatModel(HumanMessage("hi"))
