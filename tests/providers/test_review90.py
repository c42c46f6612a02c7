"""Review 90 (a real llama-cpp-python server driven through ChatOpenAI): hints that sent users the wrong way."""

from __future__ import annotations

import socket

import pytest

from toolwire.errors import ProviderError

from .conftest import build_model
from .scripted_http import Answer, ScriptedServer


def _error(status: int, compatible: bool) -> ProviderError:
    with ScriptedServer() as server:
        server.push(*[Answer(status=status, body={"detail": "Not Found" if status == 404 else "boom"})] * 4)
        with pytest.raises(ProviderError) as caught:
            build_model("openai-chat", server.url, compatible=compatible).invoke("hi")
    return caught.value


def test_a_compatible_servers_404_and_500_point_at_the_url_and_the_servers_log() -> None:
    missing = _error(404, compatible=True)
    assert "/v1" in (missing.hint or "") and "base_url (http://127.0.0.1:" in (missing.hint or "")
    failed = _error(500, compatible=True)
    assert "its log says why" in (failed.hint or "") and "try again later" not in str(failed)  # (was: try later)
    assert _error(404, compatible=False).hint == "Check the model name (and base_url)."  # OpenAI's own: unchanged


def test_a_refused_connection_does_not_advise_a_longer_timeout() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the block ends: nothing listens there
    with pytest.raises(ProviderError) as caught:
        build_model("openai-chat", f"http://127.0.0.1:{port}", compatible=True).invoke("hi")
    assert "Could not connect" in str(caught.value)
    assert "timeout" not in (caught.value.hint or "") and "is running, then try again" in (caught.value.hint or "")


def test_tool_choice_errors_name_the_unbound_tool_or_the_close_match() -> None:
    from toolwire import tool
    from toolwire.errors import UserError
    from toolwire.testing import ScriptedChatModel

    @tool
    def Get_Weather(city: str) -> str:  # (a tool name in two cases)
        """Weather."""
        return city

    model = ScriptedChatModel(["ok"])
    with pytest.raises(UserError, match=r"names the tool 'nope', which is not bound \(Get_Weather\)"):
        model.bind_tools([Get_Weather], tool_choice={"type": "function", "function": {"name": "nope"}})
    with pytest.raises(UserError, match=r"did you mean 'required'\?$"):
        model.bind_tools([Get_Weather], tool_choice="Required")
    with pytest.raises(UserError, match=r"did you mean 'Get_Weather'\?$"):
        model.bind_tools([Get_Weather], tool_choice="get_wether")


def test_a_call_cut_at_max_tokens_that_the_server_calls_finished_is_read_as_cut() -> None:
    """llama-cpp-python's server answers finish_reason "tool_calls" for a call it stopped at max_tokens; the error
    then told the model to send complete JSON, not the user to raise max_tokens (review 90)."""
    from toolwire.models.lowering._calls import CUT_OFF

    def reply(finish: str, used: int) -> dict:
        return {"id": "c", "object": "chat.completion", "created": 1, "model": "qwen",
                "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": None,
                             "tool_calls": [{"id": "call_1", "type": "function", "function": {
                                 "name": "get_weather", "arguments": '{"city": "Os'}}]}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": used, "total_tokens": 10 + used}}

    weather = {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
    with ScriptedServer() as server:
        server.push(Answer(body=reply("tool_calls", 8)), Answer(body=reply("tool_calls", 5)))
        model = build_model("openai-chat", server.url, compatible=True, max_tokens=8).bind_tools([weather])
        cut = model.invoke("Weather in Oslo?")
        short = model.invoke("Weather in Oslo?")
    assert cut.invalid_tool_calls[0]["error"] == CUT_OFF  # (was: "...send one complete JSON object...")
    assert cut.response_metadata["finish_reason"] == "length"
    assert cut.response_metadata["server_finish_reason"] == "tool_calls"
    assert short.invalid_tool_calls[0]["error"] != CUT_OFF  # under the limit: broken JSON, said as such
    assert short.response_metadata["finish_reason"] == "tool_calls"


def test_fenced_calls_one_block_each_keep_the_complete_ones_when_the_last_is_cut() -> None:
    """Review 90: a reply of one fenced JSON call per block whose last block max_tokens cut stayed text whole; the
    complete calls are now read, the cut one answered as cut (as <tool_call> blocks already were)."""
    from toolwire.messages import AIMessage, AIMessageChunk, merge_chunks
    from toolwire.models._text_calls import TextCallStream, with_text_calls

    cut = ('```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```\n\n'
           '```json\n{"name": "get_weather", "arguments": {"city": "Ber')
    whole = cut.replace('"Ber', '"Berlin"}}\n```')
    names = {"get_weather": {"type": "object", "properties": {"city": {"type": "string"}}}}
    read = with_text_calls(AIMessage(cut), names)
    assert [c["args"] for c in read.tool_calls] == [{"city": "Oslo"}] and read.content == ""
    assert len(read.invalid_tool_calls) == 1 and "cut off" in read.invalid_tool_calls[0]["error"]
    both = with_text_calls(AIMessage(whole), names)
    assert [c["args"] for c in both.tool_calls] == [{"city": "Oslo"}, {"city": "Berlin"}] and both.content == ""
    stream = TextCallStream(names)
    pieces = [piece for i in range(0, len(cut), 7) for piece in stream.feed(AIMessageChunk(cut[i:i + 7]))]
    streamed = merge_chunks([*pieces, *stream.finish()], as_chunk=False)
    assert [c["args"] for c in streamed.tool_calls] == [{"city": "Oslo"}] and streamed.content == ""


def test_the_retry_log_says_why_an_attempt_without_a_status_failed(caplog: pytest.LogCaptureFixture) -> None:
    """Review 90: a stream cut short was logged as "attempt 1 failed (None)"."""
    import logging

    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": {"content": "Hel"}, "finish_reason": None}]}
    done = {**chunk, "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}]}
    with ScriptedServer() as server, caplog.at_level(logging.INFO, "toolwire.providers"):
        server.push(Answer(events=[chunk]), Answer(events=[chunk, done]))
        model = build_model("openai-chat", server.url, compatible=False, max_retries=1, streaming=True)
        assert model.invoke("hi").text == "Hello"  # (invoke of a streaming model retries a cut stream)
    assert "attempt 1 failed (The stream ended before the reply was complete" in caplog.text  # (was: None)


def test_the_cut_at_max_tokens_reads_the_same_streamed_and_spares_other_invalid_calls() -> None:
    """Review 91: the stream kept the server's finish_reason and a "not valid JSON" error; and every invalid call
    got the cut-off error, an unknown tool's too."""
    from toolwire.messages import merge_chunks
    from toolwire.models.lowering._calls import CUT_OFF

    weather = {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "qwen"}
    events = [
        {**head, "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_wether",
                                                                          "arguments": '{"city": "Oslo"}'}},
            {"index": 1, "id": "call_2", "type": "function", "function": {"name": "get_weather",
                                                                          "arguments": '{"city": "Os'}}]},
                              "finish_reason": None}]},
        {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        {**head, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 8, "total_tokens": 18}},
    ]
    whole = {"id": "c", "object": "chat.completion", "created": 1, "model": "qwen",
             "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None,
                          "tool_calls": [{"id": f"call_{i + 1}", "type": "function", "function": {
                              "name": name, "arguments": args}} for i, (name, args) in enumerate(
                              [("get_wether", '{"city": "Oslo"}'), ("get_weather", '{"city": "Os')])]}}],
             "usage": {"prompt_tokens": 10, "completion_tokens": 8, "total_tokens": 18}}
    with ScriptedServer() as server:
        server.push(Answer(events=events), Answer(body=whole))
        model = build_model("openai-chat", server.url, compatible=True).bind_tools([weather])
        streamed = merge_chunks(model.stream("Weather in Oslo?", max_tokens=8), as_chunk=False)
        invoked = model.invoke("Weather in Oslo?", max_tokens=8)
    for reply in (streamed, invoked):
        errors = {bad["name"]: bad["error"] for bad in reply.invalid_tool_calls}
        assert errors["get_weather"] == CUT_OFF
        assert errors.get("get_wether", "") != CUT_OFF  # the unknown tool's call keeps its own answer
        assert reply.response_metadata["finish_reason"] == "length"
        assert reply.response_metadata["server_finish_reason"] == "tool_calls"


def test_a_hosted_compatible_apis_404_and_503_keep_the_usual_hints() -> None:
    """Review 91: the own-server hints ("its log", "/v1") went to Groq or OpenRouter users too."""
    from toolwire.models.openai import _own_server, _server_hint

    assert _own_server("http://127.0.0.1:8000/v1") and _own_server("http://localhost:11434/v1")
    assert _own_server("http://192.168.1.20:8000/v1") and _own_server("http://gpu-box.local/v1")
    assert not _own_server("https://api.groq.com/openai/v1") and not _own_server("https://openrouter.ai/api/v1")
    assert not _own_server(None) and _server_hint(400, "http://127.0.0.1:8000/v1") is None


def test_review92_blank_arguments_at_the_limit_stay_a_call_and_private_hosts_are_own_servers() -> None:
    """Review 92: a streamed call whose argument text was blank got the cut-off error at the limit (invoke read {});
    docker-compose names, .internal/.lan/.home.arpa hosts and carrier-grade NAT addresses got the hosted hints."""
    from toolwire.messages import merge_chunks
    from toolwire.models.openai import _own_server

    tool = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "qwen"}
    events = [{**head, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type":
                                                                          "function", "function": {"name": "get_time",
                                                                                                   "arguments": ""}}]},
                                    "finish_reason": None}]},
              {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
              {**head, "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9}}]
    with ScriptedServer() as server:
        server.push(Answer(events=events))
        model = build_model("openai-chat", server.url, compatible=True).bind_tools([tool])
        streamed = merge_chunks(model.stream("Time?", max_tokens=4), as_chunk=False)
    assert [(c["name"], c["args"]) for c in streamed.tool_calls] == [("get_time", {})]
    assert not streamed.invalid_tool_calls and streamed.response_metadata["finish_reason"] == "tool_calls"
    for own in ("http://vllm:8000/v1", "http://host.docker.internal:8000/v1", "http://box.lan/v1",
                "http://box.home.arpa/v1", "http://100.100.1.2/v1", "http://[::1]:8000/v1", "http://localhost./v1"):
        assert _own_server(own), own
    assert not _own_server("http://8.8.8.8/v1") and not _own_server("https://api.together.xyz/v1")
