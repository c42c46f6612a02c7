"""Review 84 #5, calls read from a compatible server's text: a call whose JSON is broken got a generic
``{"param": "value"}`` example instead of the called tool's own shape, in ``invoke`` and in the merged stream."""

from __future__ import annotations

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
