"""Review 304 #1: a legacy OpenAI ``function_call`` (``{"name", "arguments"}``) in ``additional_kwargs`` with no
``tool_calls`` is the message's one tool call on the message itself, merged from a stream or given whole, with an id
that every reading keeps."""

from toolwire.chunks import AIMessageChunk, merge_chunks
from toolwire.messages import AIMessage, messages_from_dict, messages_to_dict

PIECES = [{"function_call": {"name": "get_weather", "arguments": ""}},
          {"function_call": {"arguments": '{"city": '}}, {"function_call": {"arguments": '"Paris"}'}}]
WHOLE = {"function_call": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}


def _chunks():
    return [AIMessageChunk("", additional_kwargs=p) for p in PIECES]


def test_merged_stream_gives_the_call():
    merged = merge_chunks(_chunks())
    msg = merged.to_message()
    assert [(c["name"], c["args"]) for c in msg.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert "function_call" not in msg.additional_kwargs
    assert merged.tool_calls == msg.tool_calls  # the same id on every read
    final = merge_chunks(_chunks(), as_chunk=False)
    assert final.tool_calls == msg.tool_calls


def test_whole_keyword_gives_the_call_with_a_stable_id():
    a = AIMessage("", additional_kwargs=WHOLE)
    b = AIMessage("", additional_kwargs=WHOLE)
    assert [(c["name"], c["args"]) for c in a.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert a.tool_calls[0]["id"] == b.tool_calls[0]["id"]
    assert a == b
    assert "function_call" not in a.additional_kwargs


def test_round_trips_keep_the_message():
    msg = merge_chunks(_chunks()).to_message()
    assert messages_from_dict(messages_to_dict([msg]))[0] == msg
    assert AIMessage(**msg.model_dump()) == msg
    dumped = AIMessage("", additional_kwargs=WHOLE).model_dump()
    assert AIMessage(**dumped) == AIMessage("", additional_kwargs=WHOLE)


def test_read_twice_from_a_dict_keeps_one_id():
    data = {"role": "assistant", "content": None, "function_call": WHOLE["function_call"]}
    assert messages_from_dict([data])[0] == messages_from_dict([data])[0]
    flat = {"type": "ai", "content": "", "additional_kwargs": WHOLE}
    assert messages_from_dict([flat])[0] == AIMessage("", additional_kwargs=WHOLE)


def test_beside_tool_calls_it_is_not_read():
    call = {"name": "f", "args": {}, "id": "c1"}
    msg = AIMessage("", tool_calls=[call], additional_kwargs=WHOLE)
    assert [c["id"] for c in msg.tool_calls] == ["c1"]


def test_an_agent_runs_the_streamed_call():
    from toolwire import Agent, tool
    from toolwire.testing import ScriptedChatModel

    ran = []

    @tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        ran.append(city)
        return "sunny"

    model = ScriptedChatModel([lambda messages: merge_chunks(_chunks()).to_message(), "It is sunny."])
    result = Agent(model, [get_weather]).invoke("weather in Paris?")
    assert ran == ["Paris"]
    assert "sunny" in result.output


def test_other_values_there_stay_extra_fields():
    for value in ({"a": None}, "text", {}):
        msg = AIMessage("", additional_kwargs={"function_call": value})
        assert msg.tool_calls == [] and msg.invalid_tool_calls == []
        assert messages_from_dict([msg.model_dump()])[0] == msg
    msg = AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "c1"}], additional_kwargs=WHOLE)
    assert msg.additional_kwargs == WHOLE
    assert messages_from_dict([msg.model_dump()])[0] == msg
