"""Faults a fresh user's review found in the hosted-provider classes (review 76), each kept fixed by a test here; no
model is loaded and no request leaves 127.0.0.1.

1. Audio given by URL to OpenAI's Chat Completions crashed with ``KeyError: 'data'``; it is the documented
   UserError (OpenAI takes audio only as base64 data).
2. A call's options (``invoke(x, temperature=..., max_tokens=0, top_p=7, stop=5, temprature=0.2)``, also
   ``stream`` and ``batch``) were sent unchecked: they are checked as the constructor's are, a close misspelling
   of a generation option gets "did you mean", and the provider's own options (``top_k``) still go as given.
3. ``model_kwargs`` (or a call's options) naming a request field toolwire writes (``messages``, ``system``,
   ``model``, ``tool_choice``, ``stream``, ``input``...) silently replaced it: a UserError naming the toolwire
   option to use instead.
4. An API key of only spaces or a line end (``api_key="   "``, ``"\\n"``) was taken, and the first request failed
   confusingly (an illegal header, the SDK's missing credentials); it is the same UserError as ``api_key=""``
   when the model is built.
5. ``init_chat_model`` took any name with a ``/`` for a local GGUF path: ``models/gemini-2.5-flash`` (Gemini's
   full name) is Google's, and a name with a ``/`` that is no file here and does not end in ``.gguf`` is refused
   at once, pointing to ``openai-compatible:<model>@<base_url>``. ``openai-compatible:<model>`` with no URL reads
   ``OPENAI_BASE_URL``, and an invalid ``OPENAI_BASE_URL`` is named in its error.
6. Content blocks a provider cannot take went to it unchanged and came back as its 400: an Anthropic ``document``
   of a ``content`` source sent to OpenAI, a block of an unknown type. Each codec refuses a block type it does not
   know (a UserError saying what to send), sending only its own API's types as given; and ``input_file`` with
   base64 data and the file name ``a.pdf`` gets ``application/pdf`` for Gemini too, as for OpenAI and Anthropic.
7. ChatOpenAI's ``stream_usage``, ``use_responses_api``, ``text_tool_calls`` (bools) and ``organization`` (text)
   were not checked, and ``stop=""`` passed: they are checked like the other options; ``stop=[]`` is no stop
   sequence (left out, as None), an empty string in it a UserError.
8. An invalid call written back to Anthropic (and Gemini) went as ``input: {}`` while both OpenAI APIs send what
   can be read of its text: all send the same (:func:`~toolwire.models.lowering._calls.arguments_object`), also
   when Anthropic's turn is sent back as the API streamed it.
"""

from __future__ import annotations

from typing import Any

import pytest

from providers.wire_anthropic import Anthropic as AnthropicWire
from providers.wire_gemini import Gemini as GeminiWire
from providers.wire_openai import OpenAIChat
from providers.wire_servers import Reply, WireServer
from toolwire import HumanMessage
from toolwire.errors import UserError
from toolwire.messages import AIMessage
from toolwire.models.factory import init_chat_model
from toolwire.models.lowering import anthropic as anthropic_codec
from toolwire.models.lowering import gemini as gemini_codec
from toolwire.models.lowering import openai as openai_codec

pytest.importorskip("openai")
pytest.importorskip("anthropic")
pytest.importorskip("google.genai")

from toolwire.models import ChatAnthropic, ChatGoogleGenAI, ChatOpenAI

KEY = "sk-review76-0123456789"
_KEY_ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_BASE_URL",
            "AZURE_OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL")
CLOUD = (ChatOpenAI, ChatAnthropic, ChatGoogleGenAI)


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _KEY_ENV:
        monkeypatch.delenv(name, raising=False)


def _offline(cls: type, **kwargs: Any) -> Any:
    """A model aimed at a local port nothing listens on, tried once: what should be refused before any request
    fails fast here, never reaching the network."""
    return cls(model="m", api_key=KEY, base_url="http://127.0.0.1:9" + ("/v1" if cls is ChatOpenAI else ""),
               max_retries=0, **kwargs)


# -- 1: audio by URL to Chat Completions ------------------------------------------------------------------


@pytest.mark.parametrize("block", [
    {"type": "audio", "url": "https://example.org/a.wav", "mime_type": "audio/wav"},
    {"type": "audio", "file_id": "file-1", "mime_type": "audio/wav"},
])
def test_audio_by_url_or_file_id_to_chat_completions_is_a_user_error(block: dict[str, Any]) -> None:
    with pytest.raises(UserError, match="OpenAI takes audio only as base64 data"):
        _offline(ChatOpenAI, compatible=False).invoke([HumanMessage(["Transcribe.", block])])


# -- 4: a blank API key ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", CLOUD)
@pytest.mark.parametrize("blank", ["", "   ", "\n", " \r\n\t"])
def test_a_blank_key_is_refused_when_the_model_is_built(cls: type, blank: str) -> None:
    with pytest.raises(UserError, match=f"{cls.__name__} needs an API key: set "):
        cls(model="m", api_key=blank)


def test_a_blank_key_falls_back_to_the_environment_and_a_blank_variable_counts_as_unset(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    assert ChatAnthropic(model="m", api_key="  \n")._api_key.get() == KEY
    monkeypatch.setenv("ANTHROPIC_API_KEY", " \n")
    with pytest.raises(UserError, match="ChatAnthropic needs an API key"):
        ChatAnthropic(model="m")


def _wire(adapter: Any, cls: type, **kwargs: Any) -> tuple[WireServer, Any]:
    server = WireServer(adapter, brain=None)
    for _ in range(4):
        server.queue(Reply(text="Read."))
    url = server.url + ("/v1" if cls is ChatOpenAI else "")
    extra = {"compatible": False} if cls is ChatOpenAI else {}
    return server, cls(model="m", api_key=KEY, base_url=url, max_retries=0, **extra, **kwargs)


WIRES = {ChatOpenAI: OpenAIChat, ChatAnthropic: AnthropicWire, ChatGoogleGenAI: GeminiWire}


# -- 2: a call's options ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", CLOUD)
@pytest.mark.parametrize(("options", "said"), [
    ({"temprature": 0.2}, "Unknown {} option 'temprature': did you mean 'temperature'?"),
    ({"max_token": 5}, "Unknown {} option 'max_token': did you mean 'max_tokens'?"),
    ({"max_tokens": 0}, "{}: max_tokens must be a whole number of tokens, at least 1, not 0"),
    ({"top_p": 7}, "{}: top_p must be a number from 0 to 1, not 7"),
    ({"temperature": "hot"}, "{}: temperature must be a number of 0 or more, not 'hot'"),
    ({"stop": 5}, "{}: stop must be a non-empty string or a list of them, not 5"),
    ({"seed": "x"}, "{}: seed must be a whole number, not 'x'"),
])
def test_a_calls_options_are_checked_in_invoke_stream_and_batch(cls: type, options: dict[str, Any],
                                                                  said: str) -> None:
    model = _offline(cls)
    expected = said.format(cls.__name__)
    with pytest.raises(UserError) as caught:
        model.invoke("hi", **options)
    assert str(caught.value).startswith(expected)
    with pytest.raises(UserError, match="^" + expected.replace("(", r"\(").replace("?", r"\?")):
        list(model.stream("hi", **options))
    with pytest.raises(UserError) as caught:
        model.batch(["hi", "ho"], **options)
    assert str(caught.value).startswith(expected)


@pytest.mark.parametrize("cls", [ChatAnthropic, ChatGoogleGenAI])
def test_good_call_options_and_the_providers_own_still_go_out(cls: type) -> None:
    server, model = _wire(WIRES[cls](), cls)
    try:
        assert model.invoke("hi", temperature=0.2, top_k=5, stop=["END"], max_tokens=7).text == "Read."
        body = server.requests[-1].body
    finally:
        server.close()
    config = body.get("generationConfig", body)
    assert config.get("topK", config.get("top_k")) == 5
    assert config.get("stopSequences", config.get("stop_sequences")) == ["END"]


# -- 3: model_kwargs that would replace what toolwire writes -------------------------------------------------


@pytest.mark.parametrize("cls", CLOUD)
@pytest.mark.parametrize(("key", "instead"), [
    ("messages", "pass the conversation as the input of invoke/stream"),
    ("input", "pass the conversation as the input of invoke/stream"),
    ("contents", "pass the conversation as the input of invoke/stream"),
    ("system", "give the system prompt as a SystemMessage"),
    ("model", "give the model name as model="),
    ("tool_choice", "bind_tools(tools, tool_choice=...)"),
    ("parallel_tool_calls", "bind_tools(tools, parallel_tool_calls=...)"),
    ("stream", "call model.stream(...), or build the model with streaming=True"),
])
def test_model_kwargs_cannot_replace_a_field_toolwire_writes(cls: type, key: str, instead: str) -> None:
    said = f"{cls.__name__}: model_kwargs cannot set {key!r}, a request field toolwire writes itself: "
    with pytest.raises(UserError) as caught:
        cls(model="m", api_key=KEY, model_kwargs={key: "x"})
    assert str(caught.value).startswith(said) and instead in str(caught.value)
    if key != "input":  # (invoke's own first argument)
        with pytest.raises(UserError, match="a call's options cannot set"):
            _offline(cls).invoke("hi", **{key: "x"})


def test_model_kwargs_generation_options_are_checked_and_tools_are_still_added() -> None:
    with pytest.raises(UserError, match="ChatAnthropic: max_tokens must be a whole number of tokens, at least 1"):
        ChatAnthropic(model="m", api_key=KEY, model_kwargs={"max_tokens": 0})
    model = ChatAnthropic(model="m", api_key=KEY, model_kwargs={"tools": [{"type": "web_search_20250305",
                                                                           "name": "web_search"}], "top_k": 3})
    assert model.options["top_k"] == 3


# -- 7: ChatOpenAI's own options, and stop ---------------------------------------------------------------


@pytest.mark.parametrize(("option", "value", "said"), [
    ("stream_usage", "no", "ChatOpenAI: stream_usage must be True or False, not 'no'"),
    ("use_responses_api", 1, "ChatOpenAI: use_responses_api must be True or False, not 1"),
    ("text_tool_calls", "x", "ChatOpenAI: text_tool_calls must be True, False or None, not 'x'"),
    ("organization", 5, "ChatOpenAI: organization must be the organization id as text, not 5"),
    ("organization", " ", "ChatOpenAI: organization must be the organization id as text, not ' '"),
])
def test_chat_openais_own_options_are_checked(option: str, value: Any, said: str) -> None:
    with pytest.raises(UserError) as caught:
        ChatOpenAI(model="m", api_key=KEY, **{option: value})
    assert str(caught.value).startswith(said)


@pytest.mark.parametrize("cls", CLOUD)
def test_an_empty_stop_string_is_refused_and_an_empty_list_is_none(cls: type) -> None:
    for stop in ("", ["a", ""]):
        with pytest.raises(UserError, match="stop must be a non-empty string or a list of them"):
            cls(model="m", api_key=KEY, stop=stop)
    assert "stop" not in cls(model="m", api_key=KEY, stop=[]).options


# -- 5: init_chat_model and names with a slash -----------------------------------------------------------------


def test_gemini_full_model_name_is_googles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", KEY)
    model = init_chat_model("models/gemini-2.5-flash")
    assert isinstance(model, ChatGoogleGenAI) and model.model == "gemini-2.5-flash"


@pytest.mark.parametrize("name", ["Qwen/Qwen2.5-7B-Instruct", "meta-llama/Llama-3.1-8B", "models/nosuch"])
def test_a_slash_name_that_is_no_file_is_refused_at_once(name: str, tmp_path: Any,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as caught:
        init_chat_model(name)
    assert str(caught.value) == (f"{name!r} is no local file: for a model a server runs, write "
                                 f"'openai-compatible:{name}@<base_url>' (or 'provider:{name}'), and for a local "
                                 "one give the path of its .gguf file.")


def test_an_existing_file_with_a_slash_is_still_a_local_model(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "weights").mkdir()
    (tmp_path / "weights" / "model.bin").write_bytes(b"GGUF")
    monkeypatch.chdir(tmp_path)
    pytest.importorskip("llama_cpp")
    model = init_chat_model("weights/model.bin")
    assert type(model).__name__ == "ChatLlamaCpp"


def test_openai_compatible_without_a_url_reads_openai_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UserError, match="with base_url= or OPENAI_BASE_URL set"):
        init_chat_model("openai-compatible:qwen")
    monkeypatch.setenv("OPENAI_BASE_URL", " http://localhost:8000/v1\n")
    model = init_chat_model("openai-compatible:qwen")
    assert (model.model, model.base_url, model._compatible) == ("qwen", "http://localhost:8000/v1", True)
    monkeypatch.setenv("OPENAI_BASE_URL", "not a url")
    with pytest.raises(UserError, match=r"^The environment variable OPENAI_BASE_URL holds 'not a url', which is "
                                        r"not an http"):
        init_chat_model("openai-compatible:qwen")
    with pytest.raises(UserError, match=r"^The environment variable OPENAI_BASE_URL holds"):
        ChatOpenAI(model="m", api_key=KEY)
    with pytest.raises(UserError, match=r"^base_url 'nope' is not an http"):
        ChatOpenAI(model="m", api_key=KEY, base_url="nope")


# -- 8: an invalid call written back --------------------------------------------------------------------------


def _turn() -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "f", "args": {"x": 2}, "id": "toolu_B", "type": "tool_call"}],
                     invalid_tool_calls=[{"name": "f", "args": '{"x": 1,, }', "id": "toolu_A",
                                          "error": "not valid JSON", "type": "invalid_tool_call", "index": 0}])


def test_an_invalid_call_goes_back_with_what_can_be_read_to_every_provider() -> None:
    chat = next(m for m in openai_codec.lower_messages([HumanMessage("go"), _turn()]) if m["role"] == "assistant")
    assert [c["function"]["arguments"] for c in chat["tool_calls"]] == ['{"x": 1}', '{"x": 2}']
    _, sent = anthropic_codec.lower_messages([HumanMessage("go"), _turn()])
    assert [(b["id"], b["input"]) for b in sent[1]["content"]] == [("toolu_A", {"x": 1}), ("toolu_B", {"x": 2})]
    contents = gemini_codec.lower_request(_request([HumanMessage("go"), _turn()]), "gemini-2.5-flash")["contents"]
    assert [p["function_call"]["args"] for p in contents[1]["parts"]] == [{"x": 1}, {"x": 2}]


def _request(messages: list[Any]) -> Any:
    from toolwire.models.base import ChatRequest

    return ChatRequest(messages, (), None, None, False, {})


def test_anthropics_kept_turn_gets_the_readable_input_of_an_invalid_call() -> None:
    turn = _turn().copy(provider_data={"anthropic": {"content": [
        {"type": "tool_use", "id": "toolu_A", "name": "f", "input": {}},
        {"type": "tool_use", "id": "toolu_B", "name": "f", "input": {"x": 2}}]}})
    _, sent = anthropic_codec.lower_messages([HumanMessage("go"), turn])
    assert [(b["id"], b["input"]) for b in sent[1]["content"]] == [("toolu_A", {"x": 1}), ("toolu_B", {"x": 2})]


# -- 6: blocks a provider cannot take ---------------------------------------------------------------------------

PDF = "JVBERi0xLjQgZmFrZQ=="
CONTENT_DOC = {"type": "document", "source": {"type": "content", "content": [{"type": "text", "text": "chunk"}]}}


def _user(block: dict[str, Any]) -> list[Any]:
    return [HumanMessage([{"type": "text", "text": "see"}, block])]


@pytest.mark.parametrize("block", [{"type": "weird", "x": 1}, {"type": "input_text", "text": "hi", "x": 1},
                                   {"type": "image_url", "url": "bad shape"}])
def test_an_unknown_block_is_refused_by_every_codec(block: dict[str, Any]) -> None:
    said = f"cannot take a content block of type {block['type']!r}"
    if block["type"] not in ("input_text", "image_url"):  # (Chat Completions' own type: sent as given)
        with pytest.raises(UserError, match="^OpenAI's Chat Completions API " + said):
            openai_codec.lower_messages(_user(block))
    with pytest.raises(UserError, match="^Anthropic's Messages API " + said):
        anthropic_codec.lower_messages(_user(block))
    with pytest.raises(UserError, match="Gemini cannot take"):
        gemini_codec.lower_request(_request(_user(block)), "gemini-2.5-flash")
    if block["type"] == "weird":
        with pytest.raises(UserError, match="^OpenAI's Responses API " + said):
            openai_codec.lower_responses_messages(_user(block))


def test_an_anthropic_content_document_is_anthropics_only() -> None:
    for lower, api in ((openai_codec.lower_messages, "OpenAI's Chat Completions API"),
                       (openai_codec.lower_responses_messages, "OpenAI's Responses API")):
        with pytest.raises(UserError) as caught:
            lower(_user(CONTENT_DOC))
        assert str(caught.value) == (f"{api} cannot take an Anthropic document whose source is of type 'content': "
                                     "send its text as text blocks, or the file as a file block with base64 data "
                                     "and a mime_type.")
    _, sent = anthropic_codec.lower_messages(_user(CONTENT_DOC))
    assert sent[0]["content"][1] == CONTENT_DOC


def test_each_apis_own_blocks_still_go_as_given() -> None:
    audio = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "flac"}, "x": 1}
    oddity = {"type": "file", "file": {"file_id": "file-1", "extra": True}}
    assert openai_codec.lower_messages(_user(oddity))[0]["content"][1]["type"] == "file"
    assert openai_codec.lower_responses_messages(_user({"type": "input_image", "file_id": "file-1"}))[0][
        "content"][1] == {"type": "input_image", "file_id": "file-1"}
    for block in ({"type": "search_result", "source": "s", "title": "t", "content": []},
                  {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                  {"type": "image", "source": {"type": "file", "file_id": "f"}, "cache_control": {"type": "x"}}):
        _, sent = anthropic_codec.lower_messages(_user(block))
        assert sent[0]["content"][1] == block
    assert audio  # (an input_audio of another format: refused by its own rule, see review 74)


def test_a_file_name_gives_gemini_the_media_type_too() -> None:
    block = {"type": "input_file", "file_data": PDF, "filename": "a.pdf"}
    parts = gemini_codec.lower_request(_request(_user(block)), "gemini-2.5-flash")["contents"][0]["parts"]
    inline = parts[1].get("inline_data") or parts[1].get("inlineData")
    assert (inline.get("mime_type") or inline.get("mimeType")) == "application/pdf"
    assert openai_codec.lower_messages(_user(block))[0]["content"][1]["file"]["file_data"].startswith(
        "data:application/pdf;base64,")
