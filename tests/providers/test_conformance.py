"""One conformance suite for every hosted provider, run against each API's local wire server.

Parametrised by provider (``openai-chat``, ``openai-responses``, ``anthropic``, ``gemini``): the official
SDK runs unchanged, the server validates every request against the API's shapes (the ``server`` fixture
fails a test whose requests the real API would reject), and each test asserts what toolwire made of it.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import logging
import pickle
import socket
import sys
from typing import Any

import pytest

from toolwire import Agent, AIMessage, HumanMessage, ProviderError, SystemMessage, ToolMessage, UserError
from toolwire.examples.book import BOOK_TOOLS, calculate, get_weather
from toolwire.messages import merge_chunks
from toolwire.models.factory import init_chat_model

from .conftest import KEY, MODEL_NAMES, build_model
from .wire_servers import Fail, Reply

QUESTIONS = [
    ("Como está o clima em Paris?", [("get_weather", {"city": "Paris"})], ["It's always sunny in Paris!"]),
    ("Quanto é 123 multiplicado por 456?", [("calculate", {"expression": "123 * 456"})], ["56088"]),
    ("Como está o clima em Tóquio e quanto é 123 * 456?",
     [("get_weather", {"city": "Tóquio"}), ("calculate", {"expression": "123 * 456"})],
     ["It's always sunny in Tóquio!", "56088"]),
]
MODES = ["invoke", "stream", "ainvoke", "astream"]
PREFIX = {"openai-chat": "openai", "openai-responses": "openai", "anthropic": "anthropic", "gemini": "google"}


def run(agent: Agent, question: str, mode: str) -> Any:
    if mode.startswith("a"):
        return asyncio.run(agent.ainvoke(question))
    return agent.invoke(question)


def calls_of(message: AIMessage) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for c in message.tool_calls]


def without_ids(message: AIMessage) -> dict[str, Any]:
    data = message.to_dict()
    data.pop("id", None)
    data["tool_calls"] = [{k: v for k, v in c.items() if k != "id"} for c in data.get("tool_calls", [])]
    return data


# --------------------------------------------------------------------------- the chapter's full cycle


@pytest.mark.parametrize("mode", MODES)
def test_chapter_cycle(provider, server, make_model, mode):
    model = make_model(streaming=mode in ("stream", "astream"))
    agent = Agent(model, BOOK_TOOLS)
    for question, calls, answers in QUESTIONS:
        result = run(agent, question, mode)
        request, reply, *results, final = result.messages
        assert isinstance(request, HumanMessage) and request.text == question
        assert calls_of(reply) == calls  # parallel calls arrive in one reply, in order
        assert [r.tool_call_id for r in results] == [c["id"] for c in reply.tool_calls]
        assert all(r.status == "success" for r in results)
        assert result.output == "Resposta: " + " | ".join(answers)
        assert final.text == result.output and result.steps == 2
    assert len(server.requests) == 2 * len(QUESTIONS)
    assert all(r.stream == (mode in ("stream", "astream")) for r in server.requests)


def test_stream_merges_into_the_invoke_reply(provider, server, make_model):
    calls = [("get_weather", {"city": "Paris"}), ("calculate", {"expression": "123 * 456"}),
             ("search_web", {"query": "clima em Paris amanhã"})]
    scripted = Reply(text="Vou verificar as três coisas.", calls=calls, piece=2, interleave=True)
    server.queue(scripted, scripted, scripted)
    model = make_model().bind_tools(BOOK_TOOLS)
    whole = model.invoke("Três perguntas")
    chunks = list(model.stream("Três perguntas"))
    merged = merge_chunks(chunks, as_chunk=False)
    assert without_ids(merged) == without_ids(whole)
    assert calls_of(merged) == calls and merged.text == scripted.text
    # every piece of one call carries the same id and index; several pieces per call when split
    by_index: dict[int, set[str]] = {}
    for chunk in chunks:
        for piece in chunk.tool_call_chunks:
            by_index.setdefault(piece["index"], set()).add(piece["id"])
    assert sorted(by_index) == [0, 1, 2] and all(len(ids) == 1 for ids in by_index.values())
    assert [c["id"] for c in merged.tool_calls] == [next(iter(by_index[i])) for i in range(3)]
    amerged = asyncio.run(_amerge(model))
    assert without_ids(amerged) == without_ids(whole)


async def _amerge(model):
    return merge_chunks([c async for c in model.astream("Três perguntas")], as_chunk=False)


def test_stream_parses_arguments_once(provider, server, make_model, monkeypatch):
    from toolwire.parsing.partial_json import PartialJSONParser

    scanned: list[int] = []
    built: list[int] = []
    real_feed, real_value = PartialJSONParser.feed, PartialJSONParser.value

    def feed(self, fragment, *, build=True):
        out = real_feed(self, fragment, build=build)
        scanned.append(len(fragment))
        return out

    def value(self):
        built.append(1)
        return real_value(self)

    monkeypatch.setattr(PartialJSONParser, "feed", feed)
    monkeypatch.setattr(PartialJSONParser, "value", value)
    long_query = "x" * 3000
    server.queue(Reply(calls=[("search_web", {"query": long_query})], piece=7))
    chunks = list(make_model().bind_tools(BOOK_TOOLS).stream("busca"))
    assert merge_chunks(chunks, as_chunk=False).tool_calls[0]["args"] == {"query": long_query}
    # each fragment is scanned once (linear total), and no chunk rebuilt the value from the whole buffer
    assert sum(scanned) == len(json.dumps({"query": long_query}))
    assert built == []


# --------------------------------------------------------------------------- request mapping

CHOICES = {
    "openai-chat": lambda b: (b.get("tool_choice"), b.get("parallel_tool_calls")),
    "openai-responses": lambda b: (b.get("tool_choice"), b.get("parallel_tool_calls")),
    "anthropic": lambda b: (b.get("tool_choice"), None),
    "gemini": lambda b: ((b.get("toolConfig") or {}).get("functionCallingConfig"), None),
}
EXPECTED_CHOICE = {
    "openai-chat": {"none": "none", "required": "required",
                    "get_weather": {"type": "function", "function": {"name": "get_weather"}}},
    "openai-responses": {"none": "none", "required": "required",
                         "get_weather": {"type": "function", "name": "get_weather"}},
    "anthropic": {"none": {"type": "none"}, "required": {"type": "any"},
                  "get_weather": {"type": "tool", "name": "get_weather"}},
    "gemini": {"none": {"mode": "NONE"}, "required": {"mode": "ANY"},
               "get_weather": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}},
}


@pytest.mark.parametrize("choice", ["none", "required", "get_weather"])
def test_tool_choice_mapping(provider, server, make_model, choice):
    server.queue(Reply(text="ok"))
    # OpenAI's own wire form (a compatible server is sent a named tool as "required" with that tool: review 214 #1)
    official = {"compatible": False} if provider.startswith("openai") else {}
    make_model(**official).bind_tools(BOOK_TOOLS, tool_choice=choice).invoke("oi")
    assert CHOICES[provider](server.requests[-1].body)[0] == EXPECTED_CHOICE[provider][choice]


def test_structured_output_forces_its_tool_and_reads_the_value(provider, server, make_model):
    from pydantic import BaseModel

    class CityWeather(BaseModel):
        """The weather in a city."""

        city: str
        celsius: float

    server.queue(Reply(calls=[("CityWeather", {"city": "Paris", "celsius": 21.5})]))
    official = {"compatible": False} if provider.startswith("openai") else {}  # OpenAI's own form (review 214 #1)
    value = make_model(**official).with_structured_output(CityWeather).invoke("Clima em Paris?")
    assert value == CityWeather(city="Paris", celsius=21.5)
    expected = {"openai-chat": {"type": "function", "function": {"name": "CityWeather"}},
                "openai-responses": {"type": "function", "name": "CityWeather"},
                # one call only (parallel_tool_calls=False): Anthropic says it inside tool_choice
                "anthropic": {"type": "tool", "name": "CityWeather", "disable_parallel_tool_use": True},
                "gemini": {"mode": "ANY", "allowedFunctionNames": ["CityWeather"]}}[provider]
    assert CHOICES[provider](server.requests[-1].body)[0] == expected
    body = server.requests[-1].body
    if provider.startswith("openai"):  # (was: False) o3, o3-mini and o4-mini refuse the field (review 66, F5): one
        assert "parallel_tool_calls" not in body  # call is kept locally, and the forced tool_choice asks for it


def test_parallel_tool_calls_disabled(provider, server, make_model):
    two = [("get_weather", {"city": "Paris"}), ("calculate", {"expression": "1 + 1"})]
    server.queue(Reply(calls=two), Reply(calls=two))
    model = make_model().bind_tools(BOOK_TOOLS, parallel_tool_calls=False)
    reply = model.invoke("oi")
    streamed = merge_chunks(model.stream("oi"), as_chunk=False)
    body = server.requests[0].body
    if provider.startswith("openai"):
        assert body["parallel_tool_calls"] is False
    elif provider == "anthropic":
        assert body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    else:  # Gemini has no such field: toolwire keeps the first call and says how many it dropped
        assert body["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
        assert calls_of(reply) == two[:1] and reply.response_metadata["dropped_tool_calls"] == 1
        assert calls_of(streamed) == two[:1] and streamed.response_metadata["dropped_tool_calls"] == 1


def result_groups(provider: str, body: dict[str, Any]) -> list[list[str]]:
    """The tool results of a request, grouped as the API receives them (one list per message/turn)."""
    if provider == "openai-chat":
        return [[m["tool_call_id"]] for m in body["messages"] if m["role"] == "tool"]
    if provider == "openai-responses":
        return [[i["call_id"]] for i in body["input"] if i.get("type") == "function_call_output"]
    if provider == "anthropic":
        groups = [[b["tool_use_id"] for b in m["content"] if b.get("type") == "tool_result"]
                  for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], list)]
        return [g for g in groups if g]
    groups = [[p["functionResponse"]["name"] for p in c["parts"] if "functionResponse" in p]
              for c in body["contents"]]
    return [g for g in groups if g]


def test_results_of_one_turn_sent_in_call_order(provider, server, make_model):
    """Case E3: results appended out of order (a2 before a1) go back in the order of the calls."""
    server.queue(Reply(text="ok"))
    conversation = [
        HumanMessage("Clima em Paris e 2 + 2?"),
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "a1"},
                                  {"name": "calculate", "args": {"expression": "2 + 2"}, "id": "a2"}]),
        ToolMessage("4", tool_call_id="a2", name="calculate"),
        ToolMessage("It's always sunny in Paris!", tool_call_id="a1", name="get_weather"),
    ]
    make_model().bind_tools(BOOK_TOOLS).invoke(conversation)
    groups = result_groups(provider, server.requests[-1].body)
    expected = {"openai-chat": [["a1"], ["a2"]], "openai-responses": [["a1"], ["a2"]], "anthropic": [["a1", "a2"]],
                "gemini": [["get_weather", "calculate"]]}
    assert groups == expected[provider]


def test_tool_result_given_as_text_parts(provider, server, make_model):
    """Case E4: a result whose content is a list of text parts is accepted everywhere."""
    conversation = [
        HumanMessage("Como está o clima em Paris?"),
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}]),
        ToolMessage([{"type": "text", "text": "Ensolarado"}, {"type": "text", "text": "22 graus"}], tool_call_id="c1"),
    ]
    reply = make_model().bind_tools(BOOK_TOOLS).invoke(conversation)
    assert "Ensolarado" in reply.text and "22 graus" in reply.text
    body = server.requests[-1].body
    if provider == "anthropic":  # blocks stay blocks
        block = body["messages"][-1]["content"][0]
        assert block["content"] == [{"type": "text", "text": "Ensolarado"}, {"type": "text", "text": "22 graus"}]


def test_empty_text_dropped_and_system_placed(provider, server, make_model):
    server.queue(Reply(text="ok"))
    conversation = [
        SystemMessage("Responda em português."),
        HumanMessage(["", {"type": "text", "text": "  "}, "Olá", {"type": "text", "text": "tudo bem?"}]),
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}]),
        ToolMessage("sol", tool_call_id="c1"),
    ]
    make_model().bind_tools(BOOK_TOOLS).invoke(conversation)
    body = server.requests[-1].body
    system = {"openai-chat": lambda: body["messages"][0], "openai-responses": lambda: body["input"][0],
              "anthropic": lambda: body["system"], "gemini": lambda: body["systemInstruction"]}[provider]()
    assert "Responda em português." in json.dumps(system, ensure_ascii=False)
    assert '"text": ""' not in json.dumps(body) and '"  "' not in json.dumps(body)


@pytest.mark.parametrize("streaming", [False, True])
def test_opaque_provider_data_sent_back_unchanged(provider, server, make_model, streaming):
    """Thinking blocks (Anthropic), thought signatures (Gemini), reasoning items (Responses)."""
    if provider == "openai-chat":
        pytest.skip("Chat Completions replies carry no provider-opaque data")
    server.queue(Reply(text="Vou ver.", calls=[("get_weather", {"city": "Paris"})], opaque="t0k3n"))
    result = Agent(make_model(streaming=streaming), BOOK_TOOLS).invoke("Como está o clima em Paris?")
    assert result.messages[1].provider_data and result.output == "Resposta: It's always sunny in Paris!"
    expected = {"openai-responses": "enc-t0k3n", "anthropic": "sig-t0k3n",
                "gemini": base64.b64encode(b"sig-t0k3n").decode()}[provider]
    assert server.returned == [expected]


def test_strict_schemas_and_unreadable_arguments(provider, server, make_model):
    """S4 strict mode (OpenAI), and P1 cut-off arguments kept as an invalid call (JSON-text APIs)."""
    if not provider.startswith("openai"):
        pytest.skip("strict mode and argument text are OpenAI features; the others send decoded objects")
    server.queue(Reply(calls=[("get_weather", {})], raw_arguments={0: '{"city": "Pa'}))
    reply = make_model().bind_tools(BOOK_TOOLS, strict=True).invoke("clima?")
    assert reply.tool_calls == [] and reply.invalid_tool_calls[0]["args"] == '{"city": "Pa'
    result = Agent(make_model(), BOOK_TOOLS).invoke([HumanMessage("Como está o clima em Paris?")])
    assert result.output.startswith("Resposta:")


def test_a_nameless_call_is_answered_with_the_bound_tools(provider, server, make_model):
    """Finding 5: the model is told which tools it can call, not that there are none."""
    server.queue(Reply(calls=[("", {"city": "Paris"})]), Reply(text="Resposta: ok"))
    result = Agent(make_model(), BOOK_TOOLS).invoke("clima?")
    (bad,) = result.messages[1].invalid_tool_calls
    names = ", ".join(sorted(t.name for t in BOOK_TOOLS))
    assert bad["error"] == f"The tool call has no name; call one of the available tools: {names}."
    answer = result.messages[2]
    assert answer.status == "error" and answer.tool_call_id == bad["id"] and names in answer.text
    assert result.output == "Resposta: ok"


# --------------------------------------------------------------------------- replies and errors


def test_usage_and_metadata(provider, server, make_model):
    server.queue(Reply(text="abcdefgh"), Reply(text="abcdefgh"), Reply(text="abcdefgh"))
    model = make_model()
    whole = model.invoke("oi")
    model.close()  # the next call opens a new client
    for reply in (whole, model.invoke("oi"), merge_chunks(model.stream("oi"), as_chunk=False)):
        assert reply.usage == {"input_tokens": 13, "output_tokens": 3, "total_tokens": 16}
        assert reply.response_metadata["model"] == MODEL_NAMES[provider]
        assert reply.response_metadata["finish_reason"] in ("stop", "completed", "end_turn", "STOP")
        assert reply.id


def test_http_error_is_one_provider_error(provider, server, make_model):
    server.queue(Fail(400, "messages[0]: bad field"), Fail(401, "invalid key"))
    model = make_model(max_retries=3)
    with pytest.raises(ProviderError) as bad:
        model.invoke("oi")
    assert bad.value.status == 400 and not bad.value.retryable and "bad field" in str(bad.value)
    assert bad.value.provider == PREFIX[provider]
    with pytest.raises(ProviderError) as denied:
        model.invoke("oi")
    assert denied.value.status == 401 and "API key" in str(denied.value)
    assert len(server.requests) == 2  # neither was retried


def test_api_key_never_in_repr_or_logs(provider, server, make_model, caplog):
    caplog.set_level(logging.DEBUG)
    model = make_model().bind_tools(BOOK_TOOLS)
    server.queue(Reply(text="ok"), Reply(text="ok"))
    model.invoke("oi")
    list(model.stream("oi"))
    for text in (repr(model), str(model), repr(vars(model)), caplog.text):
        assert KEY not in text
    assert MODEL_NAMES[provider] in repr(model)
    assert all(KEY in r.headers.get("authorization", "") + r.headers.get("x-api-key", "")
               + r.headers.get("x-goog-api-key", "") for r in server.requests)


ENV = {"openai-chat": ["OPENAI_API_KEY"], "openai-responses": ["OPENAI_API_KEY"],
       "anthropic": ["ANTHROPIC_API_KEY"], "gemini": ["GOOGLE_API_KEY", "GEMINI_API_KEY"]}


def test_api_key_from_environment(provider, server, monkeypatch):
    with pytest.raises(UserError) as missing:
        if provider.startswith("openai"):  # OpenAI itself needs a key; a local base_url does not (see below)
            init_chat_model(f"openai:{MODEL_NAMES[provider]}")
        else:
            build_model(provider, server.url, api_key=None)
    assert all(name in str(missing.value) for name in ENV[provider])
    monkeypatch.setenv(ENV[provider][-1], KEY)
    server.queue(Reply(text="ok"))
    assert build_model(provider, server.url, api_key=None).invoke("oi").text == "ok"


def test_init_chat_model(provider, server):
    url = server.url + "/v1" if provider.startswith("openai") else server.url
    extra = {"use_responses_api": True} if provider == "openai-responses" else {}
    model = init_chat_model(f"{PREFIX[provider]}:{MODEL_NAMES[provider]}", api_key=KEY, base_url=url,
                            dialect="ignored", **extra)
    assert model.model_name == MODEL_NAMES[provider]
    server.queue(Reply(text="ok"))
    assert model.invoke("oi").text == "ok"


def test_openai_compatible_server_needs_no_key(provider, server):
    if provider != "openai-chat":
        pytest.skip("OpenAI-compatible servers speak Chat Completions")
    model = init_chat_model(f"openai-compatible:qwen2.5-7b-instruct@{server.url}/v1", max_tokens=64)
    result = Agent(model, BOOK_TOOLS).invoke("Quanto é 123 multiplicado por 456?")
    assert result.output == "Resposta: 56088"
    assert server.requests[0].body["max_tokens"] == 64  # vLLM / llama.cpp name, not max_completion_tokens


MODULES = {"openai-chat": "openai", "openai-responses": "openai", "anthropic": "anthropic",
           "gemini": "google.genai"}
EXTRAS = {"openai-chat": "openai", "openai-responses": "openai", "anthropic": "anthropic", "gemini": "google"}


def test_missing_sdk_says_what_to_install(provider, server, monkeypatch):
    monkeypatch.setitem(sys.modules, MODULES[provider], None)
    with pytest.raises(UserError) as missing:
        build_model(provider, server.url)
    assert f"toolwire's [{EXTRAS[provider]}] extra: run pip install '" in str(missing.value)
    assert "pip install 'toolwire[" not in str(missing.value)  # toolwire is not on PyPI (review 87)


def test_tools_validate_what_the_lowering_dropped(provider, server, make_model):
    """The model's arguments are checked against the full schema before any tool runs."""
    server.queue(Reply(calls=[("get_weather", {"city": 5})]), Reply(text="done"))
    result = Agent(make_model(), [get_weather, calculate]).invoke("clima?")
    error = result.messages[2]
    assert isinstance(error, ToolMessage) and error.status == "error" and "city" in error.text


@pytest.mark.parametrize("url", ["not a url", "localhost:8000", "ftp://host/v1", "http://", "http://host name/v1"])
def test_unreachable_base_url_is_refused_at_construction(provider, server, url):
    with pytest.raises(UserError, match="is not an http\\(s\\) URL"):
        build_model(provider, url)


def _dead_port() -> int:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_credentials_in_base_url_are_masked(provider, caplog, mode):
    """``http://user:token@host`` works as a base_url, but the token shows in no repr, error or log of ours."""
    caplog.set_level(logging.DEBUG, logger="toolwire")
    model = build_model(provider, f"http://user:s3cr3t-token@127.0.0.1:{_dead_port()}")
    with pytest.raises(ProviderError) as failed:
        asyncio.run(model.ainvoke("oi")) if mode == "ainvoke" else model.invoke("oi")
    with pytest.raises(UserError) as refused:
        build_model(provider, "http://user:s3cr3t-token@host name")
    ours = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("toolwire"))
    for text in (repr(model), str(failed.value), str(refused.value), ours):
        assert "s3cr3t-token" not in text and "user:" not in text
    assert "base_url='http://****@127.0.0.1:" in repr(model)
    assert "server http://****@127.0.0.1:" in str(failed.value) and "http://****@127.0.0.1:" in ours


def test_openai_compatible_name_splits_before_the_url_scheme():
    model = init_chat_model("openai-compatible:team@qwen-7b@http://user:s3cr3t@127.0.0.1:9/v1")
    assert model.model_name == "team@qwen-7b"
    assert model.base_url == "http://user:s3cr3t@127.0.0.1:9/v1"  # kept whole for the SDK; masked when shown
    assert "s3cr3t" not in repr(model)
    assert init_chat_model("openai-compatible:m@HTTPS://gpu-box:8000/v1").base_url == "HTTPS://gpu-box:8000/v1"
    with pytest.raises(UserError, match="is not an http\\(s\\) URL"):
        init_chat_model("openai-compatible:m@gpu-box:8000/v1")
    with pytest.raises(UserError, match="openai-compatible:<model>@<base_url>"):
        init_chat_model("openai-compatible:http://gpu-box:8000/v1")


def test_pickle_is_refused_clearly_and_deepcopy_is_independent(provider, server, make_model):
    model = make_model(max_tokens=500).bind_tools(BOOK_TOOLS)
    server.queue(Reply(text="original"), Reply(text="copy"))
    assert model.invoke("oi").text == "original"  # its SDK client is open now
    with pytest.raises(TypeError) as refused:
        pickle.dumps(model)
    assert str(refused.value) == (f"A {type(model).__name__} cannot be pickled, as it holds an API key and open "
                                  "connections: build the model again where it is needed.")
    assert copy.copy(model)._clients is model._clients  # a shallow copy (bind_tools) shares the clients
    clone = copy.deepcopy(model)
    clone.options["max_tokens"] = 100
    assert model.options["max_tokens"] == 500 and clone._clients is not model._clients
    assert [t.name for t in clone.tools] == [t.name for t in model.tools] and KEY not in repr(clone)
    assert clone.invoke("oi").text == "copy"
    last = server.requests[-1].headers
    assert KEY in last.get("authorization", "") + last.get("x-api-key", "") + last.get("x-goog-api-key", "")


def test_sampling_options_reach_the_api_even_where_the_sdk_method_lacks_them(provider, server, make_model):
    """anthropic 2.x's ``Messages.create`` has no ``temperature`` keyword; such keys go in ``extra_body``
    (``fit_to_endpoint``) and arrive in the request body all the same, for every provider."""
    model = make_model(temperature=0.25, max_tokens=64)
    server.queue(Reply(text="ok"), Reply(text="ok"))
    assert model.invoke("oi").text == "ok"
    assert asyncio.run(model.ainvoke("oi")).text == "ok"
    for body in server.bodies()[-2:]:
        found = body.get("temperature", (body.get("generationConfig") or {}).get("temperature"))
        assert found == 0.25


def test_fit_to_endpoint_moves_only_unknown_keys():
    from toolwire.models._sdk import fit_to_endpoint

    def create(*, model: str, messages: list, extra_body: dict | None = None) -> None: ...
    def loose(**kwargs: object) -> None: ...

    assert fit_to_endpoint(create, {"model": "m", "messages": [], "temperature": 0, "extra_body": {"a": 1}}) == {
        "model": "m", "messages": [], "extra_body": {"temperature": 0, "a": 1}}
    same = {"model": "m", "messages": []}
    assert fit_to_endpoint(create, same) is same
    assert fit_to_endpoint(loose, {"x": 1}) == {"x": 1}
