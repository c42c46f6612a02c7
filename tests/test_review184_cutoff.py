"""Review 184 #2: a tool call the embedded model's reply was cut off in by max_tokens gets the hosted providers'
sentence (:data:`~toolwire.models.lowering._calls.CUT_OFF`: send shorter arguments, or raise max_tokens), not the
parser's "send the whole tool call again"; one cut where the context window ran out gets
:data:`~toolwire.models._reply.WINDOW_CUT`. No model is loaded."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("llama_cpp")

from toolwire.messages import HumanMessage, merge_chunks
from toolwire.models._reply import WINDOW_CUT, read_reply
from toolwire.models.chat_template import ChatTemplate
from toolwire.models.dialects import CHATML_TEMPLATE
from toolwire.models.llamacpp import ChatLlamaCpp
from toolwire.models.lowering._calls import CUT_OFF
from toolwire.tools import ToolSpec

WEATHER = ToolSpec("get_weather", "Get the weather of a city.", {
    "type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}, "required": ["city"]})
CALC = ToolSpec("calculate", "Calculate an expression.", {
    "type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]})
TOOLS = (WEATHER, CALC)

CUTS = [  # (format, formats, reply text from the call's opening, the cut call's raw text, whole calls before it)
    ("json", ("json",), '[{"name": "get', '[{"name": "get', 0),
    ("json", ("json",), '{"name": "get_weather", "', '{"name": "get_weather", "', 0),
    ("json", ("json",), '[{"name": "get_weather", "arguments": {"city": "Rio', None, 0),
    ("json", ("json",), '```json\n[{"name": "get_weather", "arguments": {"city": "Rio', None, 0),
    ("json", ("json",), '{"name": "calculate", "arguments": {"expression": "2*3"}}\n{"name": "get_w', None, 1),
    ("json", ("json",), '[{"name": "get_weather", "arguments": {"city": "Rio"}}, {"name": "get_weather", '
                        '"arguments": {"city": "Pa', None, 1),
    ("pythonic", ("pythonic", "json"), '[get_weather(city="Rio de', 'city="Rio de', 0),
    ("pythonic", ("pythonic", "json"), "[get_wea", "[get_wea", 0),
    ("pythonic", ("pythonic", "json"), "[get_weather(city", None, 0),
    ("pythonic", ("pythonic", "json"), '[get_weather(city="Rio"), get_weather(city="Pa', 'city="Pa', 1),
    ("hermes", ("hermes",), '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Pa', None, 0),
    ("hermes", ("hermes",), '<tool_call>\n{"name": "calculate", "arguments": {"expression": "1+1"}}\n</tool_call>\n'
                            '<tool_call>\n{"name": "get_w', None, 1),
]


@pytest.mark.parametrize(("fmt", "formats", "text", "raw", "whole"), CUTS)
def test_a_call_cut_by_max_tokens_gets_the_hosted_providers_sentence(fmt: str, formats: tuple[str, ...], text: str,
                                                                     raw: str | None, whole: int) -> None:
    reply = read_reply("Let me check.\n", text, TOOLS, formats, fmt, cut="max_tokens")
    assert len(reply.tool_calls) == whole and len(reply.invalid_tool_calls) == 1
    bad = reply.invalid_tool_calls[0]
    assert bad["error"] == CUT_OFF  # "raise max_tokens", not "send the whole tool call again"
    assert "max_tokens" in bad["error"] and "whole" not in bad["error"] and 'param="value"' not in bad["error"]
    assert bad["args"] and text.rstrip().endswith(bad["args"]) and (raw is None or bad["args"] == raw)
    assert read_reply("", text, TOOLS, formats, fmt, cut=True).invalid_tool_calls[0]["error"] == CUT_OFF


@pytest.mark.parametrize(("fmt", "formats", "text", "raw", "whole"), CUTS)
def test_a_call_cut_where_the_window_ran_out_says_so(fmt: str, formats: tuple[str, ...], text: str, raw: str | None,
                                                     whole: int) -> None:
    bad = read_reply("", text, TOOLS, formats, fmt, cut="n_ctx").invalid_tool_calls[0]
    assert bad["error"] == WINDOW_CUT and "n_ctx" in bad["error"] and "max_tokens" not in bad["error"]


def test_a_reply_that_was_not_cut_keeps_the_parsers_own_words() -> None:
    bad = read_reply("", '[{"name": "get_weather", "arguments": {"city": "Rio', TOOLS, ("json",), "json",
                     cut=False).invalid_tool_calls[0]
    assert bad["error"] not in (CUT_OFF, WINDOW_CUT) and "cut off" in bad["error"]


def _generation(finish_text: str, *, window: bool) -> Any:
    """One reply of the default model's pythonic dialect without a model: the free generation writes
    ``finish_text`` and is cut there (by max_tokens, or where the context window ran out with ``window``)."""
    from toolwire.models._generation import Generation
    from toolwire.models.base import ChatRequest

    template = ChatTemplate(CHATML_TEMPLATE)
    loaded = SimpleNamespace(
        metadata={"general.architecture": "qwen2", "general.name": "Qwen2.5 Coder 1.5B Instruct"},
        template=CHATML_TEMPLATE, render=lambda chat, add_generation_prompt=True: template.render(chat),
        tokenize=lambda text: [ord(ch) for ch in text], cached_prefix=lambda tokens: 0,
        warm=lambda tokens, size, reuse_kv=True: 0, system_head=lambda chat: [])
    model = ChatLlamaCpp("qwen2.5-coder-1.5b", dialect="pythonic", pull=False, prompt_cache=False)
    generation = Generation(model, ChatRequest([HumanMessage("Weather in Rio?")], (WEATHER,), "auto"), {}, loaded)

    def free(*args: Any) -> Any:
        generation.finish = "length"
        generation.window_bound = window
        return "", finish_text, "pythonic"
        yield  # (a generator, as Generation._free is)

    generation._free = free  # type: ignore[method-assign]
    return merge_chunks(list(generation.run()), as_chunk=False)


def test_a_reply_cut_inside_a_call_tells_the_model_the_cause() -> None:
    reply = _generation('[get_weather(city="Rio de', window=False)
    assert reply.response_metadata["finish_reason"] == "length" and "context_full" not in reply.response_metadata
    assert [(b["name"], b["args"], b["error"]) for b in reply.invalid_tool_calls] == [
        ("get_weather", 'city="Rio de', CUT_OFF)]
    reply = _generation('[get_weather(city="Rio de', window=True)
    assert reply.response_metadata["context_full"] is True
    assert [b["error"] for b in reply.invalid_tool_calls] == [WINDOW_CUT]


@pytest.mark.parametrize("error", [CUT_OFF, WINDOW_CUT])
def test_the_error_result_of_a_cut_call_holds_one_instruction(error: str) -> None:
    from toolwire.execution import ToolExecutor
    from toolwire.messages import AIMessage, InvalidToolCall
    from toolwire.tools import tool

    @tool
    def get_weather(city: str) -> str:
        """Get the weather of a city."""
        return "sunny"

    bad = InvalidToolCall(name="get_weather", args='[get_weather(city="Rio de', id="c1", error=error,
                          type="invalid_tool_call")
    [answer] = ToolExecutor([get_weather]).execute(AIMessage("", invalid_tool_calls=[bad]))
    assert answer.content.lower().count("send the call again") == 1 and "JSON object" not in answer.content
