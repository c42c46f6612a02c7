"""Review 111 (a skeptic on the forty-first session's fixes for reviews 109 and 110): what changed in code."""

from __future__ import annotations

import base64
import collections
import logging
import types
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire import Agent, ContextOverflowError, Tool, UserError, tool
from toolwire.errors import MaxStepsExceeded
from toolwire.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from toolwire.results import result_to_content
from toolwire.testing import ScriptedChatModel

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAA"
                       "AABJRU5ErkJggg==")


# -- #1: an image in a tool result where the API takes only text ---------------------------------------------


def test_an_image_result_reaches_a_text_only_api_as_a_note_and_the_developer_is_told(
        caplog: pytest.LogCaptureFixture) -> None:
    from toolwire.models.lowering import _common
    from toolwire.models.lowering.openai import lower_messages

    monkey = pytest.MonkeyPatch()
    monkey.setattr(_common, "_TOLD_MEDIA", [])
    call = {"name": "chart", "args": {}, "id": "c1", "type": "tool_call"}
    result = ToolMessage(result_to_content(PNG), tool_call_id="c1", name="chart")
    try:
        with caplog.at_level(logging.WARNING, logger="toolwire"):
            lowered = lower_messages([HumanMessage("?"), AIMessage("", tool_calls=[call]), result])
            lower_messages([HumanMessage("?"), AIMessage("", tool_calls=[call]), result])
    finally:
        monkey.undo()
    assert lowered[2]["content"] == ("[The result holds an image (image/png) that cannot be shown here: this API takes "
                                     "only text in a tool result.]")
    assert len([r for r in caplog.records if "tool result holds an image" in r.getMessage()]) == 1


def test_utf8_text_that_starts_like_an_image_stays_text() -> None:
    assert result_to_content(b"GIF89a is the name of a file format") == "GIF89a is the name of a file format"
    assert result_to_content(PNG)[0]["mime_type"] == "image/png"  # (not UTF-8: the image)


# -- #3: a UserString result -------------------------------------------------------------------------------------


def test_a_userstring_result_is_its_text() -> None:
    assert result_to_content(collections.UserString("hello world")) == '"hello world"'
    assert result_to_content({"greeting": collections.UserString("hi")}) == '{"greeting": "hi"}'


# -- #4, #5: the context window and what the model was trained on -----------------------------------------------


class _FakeLlama:
    """Enough of ``llama_cpp.Llama`` for load_model: a GGUF whose header says it was trained on 4096 tokens."""

    def __init__(self, path: str, n_ctx: int, **kwargs: Any) -> None:
        self._n_ctx = n_ctx
        self.metadata = {"general.architecture": "llama", "llama.context_length": "4096"}

    def n_ctx(self) -> int:
        return self._n_ctx

    def close(self) -> None:
        pass


def test_the_default_n_ctx_fits_a_model_trained_on_less_and_an_explicit_one_is_refused(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import _loaded, llamacpp

    class Loaded:  # (LoadedModel's own reads llama.cpp's vocabulary; what load_model decides is checked here)
        def __init__(self, llm: _FakeLlama, path: Any, seconds: float) -> None:
            self.llm, self.trained_context = llm, _loaded.trained_context(llm.metadata)

    lib = types.SimpleNamespace(Llama=_FakeLlama)
    monkeypatch.setattr(_loaded, "_llama_cpp", lambda: lib)
    monkeypatch.setattr(llamacpp, "_llama_cpp", lambda: lib)
    monkeypatch.setattr(_loaded, "LoadedModel", Loaded)
    gguf = tmp_path / "tiny-4k.gguf"
    gguf.write_bytes(b"GGUF")
    model = llamacpp.ChatLlamaCpp(gguf)
    loaded = model.load()
    assert loaded.llm.n_ctx() == 4096 and model.n_ctx == 4096  # (review 111: refused although never asked for)
    with pytest.raises(UserError, match="n_ctx=8192 is more than the 4096 tokens"):  # (not the fitted one, cached)
        llamacpp.ChatLlamaCpp(gguf, n_ctx=8192).load()
    assert llamacpp.ChatLlamaCpp(gguf, n_ctx=4096).load() is loaded  # (one copy of the weights: review 112)
    small = llamacpp.ChatLlamaCpp(gguf, n_ctx=300)
    assert small.load().llm.n_ctx() == 300 and small.n_ctx == 300  # (what was asked, whatever llama.cpp rounds to)


def test_at_the_models_whole_context_the_advice_still_names_what_fills_it() -> None:
    by_prompt = ContextOverflowError(7300, 8192, system_tokens=7291, trained_context=8192)
    assert str(by_prompt).startswith("The system prompt takes 7291") and "n_ctx" not in str(by_prompt)
    by_tools = ContextOverflowError(8300, 8192, tools_tokens=8000, tool_count=40, trained_context=8192)
    assert "40 tools bound take 8000" in str(by_tools) and "n_ctx" not in str(by_tools)
    talk = ContextOverflowError(8190, 8192, trained_context=8192)
    assert "more than the 8192 tokens the model can hold at all" in str(talk) and "n_ctx" not in str(talk)
    more = ContextOverflowError(9000, 4096, trained_context=32768)
    assert "pass a larger n_ctx" in str(more)


# -- #6: system messages, one turn ------------------------------------------------------------------------------


def test_every_system_message_after_the_agents_prompt_is_merged_into_one() -> None:
    model = ScriptedChatModel(["a"])
    conversation = [SystemMessage("Old prompt."), SystemMessage("Mine.", id="app"), HumanMessage("q")]  # (ids lost)
    Agent(model, [], system_prompt="New prompt.").invoke(conversation)
    sent = [m for m in model.requests[0].messages if m.type == "system"]
    assert [(m.content, m.id) for m in sent] == [("New prompt.\n\nOld prompt.\n\nMine.", "app")]


def test_the_local_dialects_join_leading_system_messages_into_one_turn() -> None:
    from toolwire.models.dialects import get_dialect

    for name in ("pythonic", "json"):
        chat = get_dialect(name).render([SystemMessage("One."), SystemMessage("Two."), HumanMessage("q")], [])
        assert [m["role"] for m in chat.messages] == ["system", "user"] and chat.messages[0]["content"] == \
            "One.\n\nTwo."


# -- #7: the command line's step-limit sentence when calls were cut -----------------------------------------------


@tool
def lookup(term: str) -> str:
    """Look a term up."""
    return term


def _cut(full: bool) -> AIMessage:
    return AIMessage("", invalid_tool_calls=[{"name": "lookup", "args": '{"te', "id": "c", "error": "cut off"}],
                     response_metadata={"finish_reason": "length", **({"context_full": True} if full else {})})


@pytest.mark.parametrize(("full", "said"), [(True, "context window ran out: pass a larger --n-ctx"),
                                            (False, "at the most tokens a reply may have")])
def test_the_cli_says_what_would_help_when_calls_were_cut(monkeypatch: pytest.MonkeyPatch, full: bool,
                                                          said: str) -> None:
    from toolwire import cli

    model = ScriptedChatModel([_cut(full)], cycle=True)
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    monkeypatch.setattr(cli, "_loaded", lambda specs: [lookup])
    result = CliRunner().invoke(cli.app, ["ask", "look it up", "--max-steps", "2"])
    assert said in result.output and "raise --max-steps" not in result.output
    agent = Agent(ScriptedChatModel([_cut(full)], cycle=True), [lookup], max_steps=2)
    if full:  # (review 267 #1: a reply the window cut ends the run)
        assert agent.invoke("q").stop_reason == "length"
    else:
        with pytest.raises(MaxStepsExceeded):
            agent.invoke("q")


# -- #9: the Args-section warning ----------------------------------------------------------------------------------


def test_the_warning_fits_every_docstring_style() -> None:
    from toolwire.errors import ToolDefinitionWarning

    with pytest.warns(ToolDefinitionWarning, match="parameter section"):
        @tool
        def forecast(city: str, days: int = 3) -> str:
            """The weather forecast.

            Parameters
            ----------
            city : str
                The city's name.
            """
            return city


# -- #10: a smolagents-style tool whose forward comes from a mixin ---------------------------------------------------


def test_a_forward_from_a_mixin_is_refused_too() -> None:
    class Forwarding:
        def forward(self, word: str) -> str:
            return word

    with pytest.raises(UserError, match="decorate it with @tool"):
        class LookupTool(Forwarding, Tool):
            name = "lookup"


# -- review 112: a return_direct tool's error, and a reused answer --------------------------------------------------


@pytest.mark.filterwarnings("ignore::toolwire.errors.RepeatedCallWarning")
def test_a_return_direct_tools_error_is_cut_once_as_an_error_and_a_reused_answer_keeps_its_place() -> None:
    @tool(return_direct=True)
    def final_answer(answer: str) -> str:
        """Give the final answer."""
        raise ValueError("x" * 30_000)

    call = {"name": "final_answer", "args": {"answer": "a"}, "id": "f1", "type": "tool_call"}
    model = ScriptedChatModel([AIMessage("", tool_calls=[call]), "gave up"])
    result = Agent(model, [final_answer]).invoke("q")
    error = next(m for m in result.messages if m.type == "tool")
    assert error.status == "error" and "error text truncated" in error.content and "narrower" not in error.content

    @tool(return_direct=True)
    def report(topic: str) -> str:
        """Write the whole report."""
        return "y" * 30_000

    twice = AIMessage("", tool_calls=[{"name": "report", "args": {"topic": "t"}, "id": "r1", "type": "tool_call"},
                                      {"name": "report", "args": {"topic": "t"}, "id": "r2", "type": "tool_call"}])
    result = Agent(ScriptedChatModel([twice]), [report]).invoke("q")
    assert result.output == "y" * 30_000 and result.reused_calls == {3: 2}  # (it was {} once the answer was cut)
