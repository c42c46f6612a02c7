"""Review 84, calls read from a compatible server's text, in ``invoke`` and in the merged stream alike: an
end-of-turn token the server left after them (``</tool_call><|im_end|>``) stayed as the reply's text
(``content='<|im_end|>'``; #4), and a call whose JSON is broken got a generic ``{"param": "value"}`` example
instead of the called tool's own shape (#5)."""

from __future__ import annotations

import pytest

from toolwire import tool
from toolwire.messages import merge_chunks

from .wire_raw import Raw, chunk, completion


@tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return city


def _replies(text: str) -> tuple[Raw, Raw]:
    whole = Raw(body=completion({"role": "assistant", "content": text}, "stop"))
    half = len(text) // 2
    streamed = Raw(events=[chunk({"content": text[:half]}), chunk({"content": text[half:]}), chunk({}, "stop"),
                           "[DONE]"])
    return whole, streamed


@pytest.mark.parametrize("token", ["<|im_end|>", "<|eot_id|>", "\n<|im_end|>\n"])
def test_an_end_of_turn_token_after_marked_calls_is_not_the_replys_text(raw, make, token):
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>' + token
    raw.queue(*_replies(text))
    model = make().bind_tools([get_weather])
    for message in (model.invoke("weather?"), merge_chunks(model.stream("weather?"), as_chunk=False)):
        assert message.content == ""  # (was: '<|im_end|>')
        assert [c["args"] for c in message.tool_calls] == [{"city": "Paris"}]


def test_broken_json_in_a_text_call_shows_the_tools_shape(raw, make):
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"\n</tool_call>'
    raw.queue(*_replies(text))
    model = make().bind_tools([get_weather])
    invoked = model.invoke("weather?")
    streamed = merge_chunks(model.stream("weather?"), as_chunk=False)
    for message in (invoked, streamed):
        error = message.invalid_tool_calls[0]["error"]
        assert '{"name": "get_weather", "arguments": {"city": <text>}}' in error  # (was: {"param": "value"})
        assert "param" not in error
    assert invoked.invalid_tool_calls[0]["error"] == streamed.invalid_tool_calls[0]["error"]
