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


# review 211 #2: messages_from_dict / messages_to_dict given one item


def test_messages_from_dict_refuses_one_dict_and_says_what_to_pass() -> None:
    from toolwire import messages_from_dict

    # it walked the dict's keys and said "Cannot read a message from str; give a dict such as ..."
    with pytest.raises(UserError, match=r"^messages_from_dict\(\) takes a list of message dicts, not one dict: "
                                        r"pass it in a list \(\[d\]\), or read one dict with message_from_dict"):
        messages_from_dict({"role": "user", "content": "hi"})
    with pytest.raises(UserError, match=r"json\.loads"):
        messages_from_dict('[{"role": "user", "content": "hi"}]')
    with pytest.raises(UserError, match="need no reading back"):
        messages_from_dict(AIMessage("hi"))
    with pytest.raises(UserError, match=r"not None\.$"):
        messages_from_dict(None)  # type: ignore[arg-type]


def test_messages_to_dict_refuses_one_message_with_a_user_error() -> None:
    from toolwire import messages_to_dict
    from toolwire.chunks import AIMessageChunk

    # one message escaped as Python's TypeError ("'AIMessage' object is not iterable")
    for one in (AIMessage("hi"), HumanMessage("hi"), AIMessageChunk("hi")):
        with pytest.raises(UserError, match=rf"^messages_to_dict\(\) takes a list of messages, not one "
                                            rf"{type(one).__name__}: pass it in a list \(\[message\]\), or write one "
                                            r"message with message_to_dict"):
            messages_to_dict(one)
    with pytest.raises(UserError, match="not str"):
        messages_to_dict("hi")
    with pytest.raises(UserError, match="not one dict"):
        messages_to_dict({"role": "user", "content": "hi"})
    with pytest.raises(UserError, match=r"not int\.$"):
        messages_to_dict(3)  # type: ignore[arg-type]


def test_message_dict_lists_still_round_trip_from_any_sequence_or_iterator() -> None:
    from toolwire import messages_from_dict, messages_to_dict

    messages = [HumanMessage("hi"), AIMessage("hello")]
    saved = messages_to_dict(messages)
    assert messages_to_dict(tuple(messages)) == saved
    assert messages_to_dict(iter(messages)) == saved
    assert [m.content for m in messages_from_dict(saved)] == ["hi", "hello"]
    assert [m.content for m in messages_from_dict(d for d in saved)] == ["hi", "hello"]
    assert messages_from_dict([]) == [] and messages_to_dict([]) == []


def test_a_lone_langchain_message_is_refused_by_both() -> None:
    lc = pytest.importorskip("langchain_core.messages")
    from toolwire import messages_from_dict, messages_to_dict

    with pytest.raises(UserError, match="from_langchain_messages"):
        messages_to_dict(lc.AIMessage("hi"))
    with pytest.raises(UserError, match="not a LangChain AIMessage"):
        messages_from_dict(lc.AIMessage("hi"))
