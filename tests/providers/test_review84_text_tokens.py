"""Review 84 #4, calls read from a compatible server's text: an end-of-turn token the server left after them
(``</tool_call><|im_end|>``) stayed as the reply's text (``content='<|im_end|>'``); it is dropped, in ``invoke`` and
in the merged stream alike."""

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
