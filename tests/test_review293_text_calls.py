"""Review 293 #1: calls ChatOpenAI read from a compatible server's text are scored as BFCL reads that text.

A JSON call or Python call list that ends a reply after prose ("I cannot help... Example: ```json {...}```") is read
as a call by ``ChatOpenAI(text_tool_calls=...)``; BFCL sees no call there (FC mode: the server sent no
``tool_calls``; prompt mode: the whole text is not a call list), so the eval scores the whole text as BFCL's prompt
mode reads it. Marked calls (``<tool_call>``, ``[TOOL_CALLS]``, ``<|python_tag|>``, ``<function=...>``), which a
server's own parser reads with prose around them, and a reply that is only the calls, still count.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests._queued_http import QueuedServer, serving

from toolwire.evals.bfcl import BfclItem
from toolwire.evals.bfcl_runner import score_item
from toolwire.messages import AIMessage
from toolwire.models import ChatOpenAI

_WEATHER = {"name": "weather", "description": "Weather of a city",
            "parameters": {"type": "dict", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
_CALL = '{"name": "weather", "arguments": {"city": "Paris"}}'


def _item(category: str) -> BfclItem:
    if category == "irrelevance":
        return BfclItem("irrelevance_0", "irrelevance", [[{"role": "user", "content": "AAPL stock price?"}]],
                        [_WEATHER])
    return BfclItem("simple_python_0", "simple_python", [[{"role": "user", "content": "Weather in Paris?"}]],
                    [_WEATHER], [{"weather": {"city": ["Paris"]}}])


def _reply(content: str | None, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


@pytest.fixture(scope="module")
def server() -> Iterator[QueuedServer]:  # (one for the module: each test sets its answer)
    with serving("/v1") as found:
        yield found


_MODELS: dict[str, ChatOpenAI] = {}


def _score(server: QueuedServer, content: str | None, category: str,
           calls: list[dict[str, Any]] | None = None) -> Any:
    server.answer = lambda body, n: _reply(content, calls)
    if server.url not in _MODELS:  # (one model for the module's server: its client is made once)
        _MODELS[server.url] = ChatOpenAI("m", base_url=server.url, api_key="sk-fake", max_retries=0)
    model = _MODELS[server.url]
    result = score_item(model, _item(category))
    assert model.text_tool_calls is True  # (the user's model is left as it was)
    return result


# (the reply's text, whether ChatOpenAI's reading of it is a call BFCL would see)
_EXAMPLES = [  # prose, then an unmarked JSON call or call list that ends the reply: an example, no call for BFCL
    (f"I cannot help with stock prices; weather is all I have. Example:\n```json\n{_CALL}\n```", False),
    (f"I have no live data, but you could call it like this:\n```json\n{_CALL}\n```", False),
    (f"You could ask:\n{_CALL}", False),
    ('Something like this would work:\n[weather(city="Paris")]', False),
    ('Something like this would work:\n```python\n[weather(city="Paris")]\n```', False),
]
_CALLS = [  # the calls alone, or in a marker a server's own parser reads with prose around it: a call
    (_CALL, True),
    (f"```json\n{_CALL}\n```", True),
    ('[weather(city="Paris")]', True),
    (f"<think>The user wants the weather, so I call it.</think>\n\n{_CALL}", True),  # reasoning is not prose
    (f"Let me look that up.\n<tool_call>\n{_CALL}\n</tool_call>", True),
    (f"Let me look that up.\n[TOOL_CALLS][{_CALL}]", True),
    ('Let me look that up.\n<function=weather>{"city": "Paris"}</function>\nOne moment.', True),
    (f"Checking.\n<|python_tag|>{_CALL}", True),
]


@pytest.mark.parametrize(("text", "called"), _EXAMPLES + _CALLS)
def test_a_call_read_from_text_counts_only_where_bfcl_would_see_one(server: QueuedServer, text: str,
                                                                     called: bool) -> None:
    irrelevance = _score(server, text, "irrelevance")
    assert irrelevance.valid is not called, irrelevance
    assert irrelevance.reason == ("called_when_should_not" if called else None)
    simple = _score(server, text, "simple_python")
    assert simple.valid is called, simple
    assert bool(simple.actual) is called


def test_an_example_call_is_kept_in_the_items_text(server: QueuedServer) -> None:
    text = _EXAMPLES[0][0]
    result = _score(server, text, "irrelevance")
    assert (result.valid, result.actual, result.text) == (True, [], text)  # the whole reply, as it was scored


def test_native_calls_after_prose_still_count(server: QueuedServer) -> None:
    native = [{"id": "c1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Paris"}'}}]
    result = _score(server, "Let me look that up.", "simple_python", native)
    assert (result.valid, result.text) == (True, "Let me look that up.")
    assert not _score(server, "Let me look that up.", "irrelevance", native).valid


def test_text_reading_that_was_turned_off_is_left_off(server: QueuedServer) -> None:
    server.answer = lambda body, n: _reply(f"Let me look that up.\n<tool_call>\n{_CALL}\n</tool_call>")
    model = ChatOpenAI("m", base_url=server.url, api_key="sk-fake", max_retries=0, text_tool_calls=False)
    result = score_item(model, _item("simple_python"))
    assert (result.valid, result.reason, result.actual) == (False, "no_call", [])


class _Replying:
    """A duck-typed model whose reply says its calls were read from text, without the text they were read from."""

    def __init__(self, message: AIMessage) -> None:
        self.message = message

    def bind_tools(self, tools: list[dict[str, Any]]) -> _Replying:
        return self

    def invoke(self, messages: Any) -> AIMessage:
        return self.message


def _from_text(content: str) -> AIMessage:
    call = {"name": "weather", "args": {"city": "Paris"}, "id": "c1", "type": "tool_call"}
    return AIMessage(content, tool_calls=[call], response_metadata={"tool_calls_from_text": True})


def test_calls_from_text_of_an_unknown_reader_are_scored_by_the_prose_left() -> None:
    # the text they came from is not known: with prose left, BFCL (either mode) would see no call
    assert not score_item(_Replying(_from_text("Like this:")), _item("simple_python")).valid
    assert score_item(_Replying(_from_text("Like this:")), _item("irrelevance")).valid
    assert score_item(_Replying(_from_text("")), _item("simple_python")).valid
    assert score_item(_Replying(_from_text("<think>Call it.</think>")), _item("simple_python")).valid
    # without the flag: calls the model made, whatever the prose
    plain = AIMessage("Like this:", tool_calls=[{"name": "weather", "args": {"city": "Paris"}, "id": "c1"}])
    assert score_item(_Replying(plain), _item("simple_python")).valid


def test_the_examples_are_no_call_for_bfcls_prompt_mode_reading_either() -> None:
    from toolwire.parsing.call_lists import text_calls

    assert all(text_calls(text) == [] for text, _ in _EXAMPLES)
