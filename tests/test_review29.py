"""Review 29: the embedded model used the way real users do (concurrency, cancellation, context limits, CLI).

What the review found (each fixed; the tests below failed before the fix):

1. ``ChatLlamaCpp.ainvoke`` cancelled (``asyncio.wait_for`` timing out, a cancelled task, a cancelled
   async ``Agent`` run) keeps generating in its worker thread to the end of the reply, holding the model: the
   next call waits for the abandoned reply (14.7 s instead of about 1 s with qwen2.5-coder-0.5b and
   ``max_tokens=300``). ``astream`` stops at once on cancellation; ``ainvoke`` does not use it.
2. ``toolwire chat``: once the conversation no longer fits the context, every later question fails with
   the same error, and each failed question is kept, so the session can never recover.
3. The context-overflow error tells a command-line user to "pass a larger n_ctx", which ``toolwire ask``
   and ``toolwire chat`` have no option for (a tool result cut to the Agent's 20,000 characters is still 17,945
   tokens of hex text, over the default 8,192).
4. When the bound tools alone fill the context, the error says "The conversation is 7484 tokens long ...
   shorten the conversation" for a conversation of one word: the tools are not named as the cause.
5. ``tool_choice="none"`` on a conversation that already holds calls (what ``Agent(on_max_steps="answer")``
   sends for its last call) gives the text ``[slow_lookup(term="tomato")]`` as the answer with the default model:
   a call list of a bound tool, which ``decline_unknown_calls`` would decline, is left as the final answer.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from typer.testing import CliRunner

from _llama_fixtures import qwen_fixture, smol1_fixture, smol_fixture  # noqa: F401
from toolwire import AIMessage, HumanMessage, SystemMessage, Tool, ToolMessage, cli, tool
from toolwire.errors import ContextOverflowError, UserError
from toolwire.messages import AIMessageChunk, tool_call
from toolwire.models.llamacpp import ChatLlamaCpp
from toolwire.parsing import parse_tool_calls

# -- 1: a cancelled ainvoke keeps the model busy ------------------------------------------------------------


class _SlowLocal(ChatLlamaCpp):
    """A ChatLlamaCpp whose reply is 100 slow chunks (no model file): it records when its reply is closed."""

    def __init__(self) -> None:
        super().__init__("/nonexistent/slow.gguf")
        self.produced = 0
        self.closed = threading.Event()

    def _stream(self, request):  # type: ignore[override]
        try:
            for i in range(100):
                time.sleep(0.05)
                self.produced += 1
                yield AIMessageChunk(f"w{i} ")
        finally:
            self.closed.set()


def test_a_cancelled_ainvoke_stops_generating() -> None:
    model = _SlowLocal()

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(model.ainvoke("Write a long essay."), 0.3)

    asyncio.run(main())
    stopped = model.closed.wait(3.0)  # (it stops at its next chunk; untouched, it goes on for 5 s)
    produced = model.produced
    model.closed.wait(10)  # let the background reply end before the next test
    assert stopped, f"the reply went on after the cancellation ({produced} chunks three seconds later)"
    assert produced < 40


def test_a_cancelled_astream_stops_generating() -> None:
    """The behaviour asked of ``ainvoke`` above, which ``astream`` already has."""
    model = _SlowLocal()

    async def read() -> None:
        async for _ in model.astream("Write a long essay."):
            pass

    async def main() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(read(), 0.3)

    asyncio.run(main())
    assert model.closed.wait(3.0) and model.produced < 40


# -- 2, 3: the command line and a conversation longer than the context ---------------------------------------

_LONG = "Please read this carefully: " + "lorem ipsum dolor sit amet " * 700  # over 4096 tokens (the fixture's
# n_ctx), under the 8192 smollm2 was trained on, so a larger n_ctx would help (over it, the error says to shorten)


@pytest.mark.model
def test_chat_goes_on_after_a_question_too_long_for_the_context(smol, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: smol)
    result = CliRunner().invoke(cli.app, ["chat", "--max-steps", "1"], input=f"{_LONG}\nhi\nexit\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("the context holds") == 1, result.output[-2000:]


@pytest.mark.model
def test_the_cli_overflow_error_gives_advice_the_cli_can_follow(smol, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: smol)
    result = CliRunner().invoke(cli.app, ["ask", _LONG])
    assert result.exit_code == 1
    assert "the context holds" in result.output
    helps = CliRunner().invoke(cli.app, ["ask", "--help"]).output
    if "n_ctx" in result.output:
        assert "--n-ctx" in helps, "the error's advice names an option `toolwire ask` does not take"


# -- 4: tools that fill the context are not named as the cause -----------------------------------------------


def _long_tool(i: int) -> Tool:
    def lookup(city: str, days: int = 1) -> str:
        return f"{city} {days}"

    lookup.__name__ = f"city_lookup_{i}"
    lookup.__doc__ = (f"Look up fact number {i} about a city: " + "it reports data and many details. " * 40
                      + "\n\nArgs:\n    city: the city.\n    days: how many days.")
    return Tool.from_function(lookup)


@pytest.mark.model
def test_tools_too_long_for_the_context_are_named_as_the_cause(smol) -> None:
    with pytest.raises(UserError) as caught:
        smol.bind_tools([_long_tool(i) for i in range(40)]).invoke("hi")
    message = str(caught.value)
    assert "the context holds" in message
    assert "tool" in message.lower(), message


# -- 5: tool_choice="none" answers with a call list ----------------------------------------------------------


@tool
def slow_lookup(term: str) -> str:
    """Look a term up in the encyclopedia."""
    return f"{term}: a thing."


@pytest.mark.model
def test_tool_choice_none_does_not_answer_with_a_call_list(qwen) -> None:
    """The conversation of an Agent run that reached ``max_steps`` (the model repeated its call) and now makes
    its ``on_max_steps="answer"`` call: the user gets ``[slow_lookup(term="tomato")]`` as the answer."""
    conversation = [
        HumanMessage("Look up 'tomato' in the encyclopedia."),
        AIMessage("", tool_calls=[tool_call("slow_lookup", {"term": "tomato"}, "c1")]),
        ToolMessage("tomato: a thing.", tool_call_id="c1"),
        AIMessage("", tool_calls=[tool_call("slow_lookup", {"term": "tomato"}, "c2")]),
        ToolMessage("You already called slow_lookup with these same arguments, and the result was: tomato: a thing.\n"
                    "Do not call it again: use this result to answer.", tool_call_id="c2"),
    ]
    reply = qwen.bind_tools([slow_lookup], tool_choice="none").invoke(conversation, max_tokens=60)
    assert not reply.tool_calls
    assert not parse_tool_calls(reply.text, ["slow_lookup"]).tool_calls, reply.text


# -- 2-4 without a model: the error, and the command line's handling of it ------------------------------------


def _fits_or_overflows(messages: list) -> str:
    """A scripted reply: overflow when the latest question is long, else say how many questions the model saw."""
    from toolwire.errors import ContextOverflowError

    questions = [m for m in messages if isinstance(m, HumanMessage)]
    if len(questions[-1].text) > 100:
        raise ContextOverflowError(9000, 8192)
    return f"seen {len(questions)} questions"


def test_chat_drops_a_question_that_overflows_and_clear_starts_over(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.testing import ScriptedChatModel

    model = ScriptedChatModel([_fits_or_overflows], cycle=True)
    monkeypatch.setattr(cli, "_model", lambda *args, **kwargs: model)
    result = CliRunner().invoke(cli.app, ["chat"], input=f"one\n{'x' * 200}\ntwo\nclear\nthree\nexit\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("the context holds") == 1
    assert "--n-ctx" in result.output and "that question was dropped" in result.output
    assert "seen 1 questions" in result.output  # "one"
    assert "seen 2 questions" in result.output  # "two": the long question is not in the conversation
    assert result.output.count("seen 1 questions") == 2  # "three", after clear


def test_the_overflow_error_names_the_tools_when_they_take_the_room() -> None:
    from toolwire import ContextOverflowError

    by_tools = ContextOverflowError(1100, 1024, tools_tokens=1000, tool_count=40)
    assert "40 tools bound take 1000 of the 1024 tokens" in str(by_tools) and "bind fewer tools" in str(by_tools)
    by_talk = ContextOverflowError(9000, 8192, tools_tokens=300, tool_count=3)
    assert str(by_talk).startswith("The conversation is 9000 tokens long") and "a larger n_ctx" in str(by_talk)
    assert "--n-ctx 16384" in by_talk.advice("--n-ctx 16384")
    assert isinstance(by_talk, UserError)


def test_n_ctx_is_passed_to_a_local_model_and_refused_for_a_hosted_one(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list = []

    def fake(name: str | None, dialect: str | None, n_ctx: int | None = None,
             n_threads: int | None = None) -> object:
        seen.append(n_ctx)
        raise UserError("stop here.")

    monkeypatch.setattr(cli, "_model", fake)
    result = CliRunner().invoke(cli.app, ["ask", "hi", "--n-ctx", "16384"])
    assert result.exit_code == 1 and seen == [16384]
    hosted = CliRunner().invoke(cli.app, ["ask", "hi", "--model", "openai:gpt-4o-mini", "--n-ctx", "16384"])
    assert hosted.exit_code == 1 and "--n-ctx applies to local models only" in hosted.output and seen == [16384]


# -- 3 again: a tool result too long for the context is shown cut, and the reply keeps its room ---------------


def test_fit_tool_results_cuts_the_longest_results_first_to_a_common_length() -> None:
    from toolwire.models._fit import fit_tool_results

    def measure(messages: list) -> int:  # a model whose tokens are 4 characters each
        return sum(len(m.text) for m in messages) // 4

    question = HumanMessage("Summarise these.")
    calls = AIMessage("", tool_calls=[tool_call("read", {"n": i}, f"c{i}") for i in range(3)])
    results = [ToolMessage("a" * 40_000, tool_call_id="c0"), ToolMessage("b" * 300, tool_call_id="c1"),
               ToolMessage("c" * 8_000, tool_call_id="c2")]
    messages = [question, calls, *results]
    fitted = fit_tool_results(messages, measure, 2_000)
    assert fitted is not None
    shown, cut = fitted
    assert measure(shown) <= 2_000 and cut == 2
    assert shown[3] is results[1]  # the short result stays whole
    assert shown[2].text.startswith("a" * 1_000) and "result truncated" in shown[2].text
    assert shown[2].tool_call_id == "c0" and shown[4].tool_call_id == "c2"
    assert messages[2] is results[0] and len(results[0].text) == 40_000  # the caller's messages are unchanged
    assert fit_tool_results(messages, measure, 100) is None  # the rest of the conversation does not fit
    assert fit_tool_results([question], measure, 1) is None  # no tool result to cut


def test_floor_size_measures_the_conversation_with_every_long_result_cut_as_far_as_it_goes() -> None:
    from toolwire.models._fit import floor_size

    def measure(messages: list) -> int:  # a model whose tokens are 4 characters each
        return sum(len(m.text) for m in messages) // 4

    calls = AIMessage("", tool_calls=[tool_call("read", {"n": 1}, "c1")])
    long = [HumanMessage("Summarise it."), calls, ToolMessage("a" * 100_000, tool_call_id="c1")]
    assert floor_size(long, measure) < 200 < measure(long)  # (review 73: the error quoted the uncut size)
    assert floor_size([HumanMessage("Hi.")], measure) is None  # no result to cut


@pytest.mark.model
def test_the_overflow_error_gives_the_size_left_once_results_are_cut(smol1) -> None:
    small = ChatLlamaCpp("smollm2-135m", n_ctx=128, n_threads=1)
    conversation = [HumanMessage("What does the file say? " * 10),
                    AIMessage("", tool_calls=[tool_call("slow_lookup", {"term": "file"}, "c1")]),
                    ToolMessage("0123456789abcdef" * 6_000, tool_call_id="c1")]  # 96,000 characters
    with pytest.raises(ContextOverflowError) as error:
        small.bind_tools([slow_lookup]).invoke(conversation)
    size = int(str(error.value).split(" tokens long")[0].rsplit(" ", 1)[1])
    assert 128 < size < 600  # the cut conversation's size, not the 30,000 tokens of the whole result


@pytest.mark.model
def test_a_tool_result_longer_than_the_context_is_shown_cut(smol) -> None:
    conversation = [
        HumanMessage("What does the file say?"),
        AIMessage("", tool_calls=[tool_call("slow_lookup", {"term": "file"}, "c1")]),
        ToolMessage("0123456789abcdef" * 12_000, tool_call_id="c1"),  # 192,000 characters
    ]
    reply = smol.bind_tools([slow_lookup]).invoke(conversation, max_tokens=16)
    assert reply.response_metadata.get("tool_results_cut") == 1
    assert reply.usage_metadata["input_tokens"] <= smol.n_ctx - 16
    assert len(conversation[2].text) == 192_000


@pytest.mark.model
def test_results_cut_as_far_as_they_go_leave_the_reply_the_room_there_is() -> None:
    # review 50: at n_ctx=1024 with max_tokens above what the cut results leave, the prompt was not cut at all
    # and ContextOverflowError was raised, although the cut prompt left room for a reply
    small = ChatLlamaCpp("smollm2-135m", n_ctx=1152)  # (1024 before results turns said the request again)
    conversation: list = [SystemMessage("You are terse.")]
    for i in range(4):
        conversation += [HumanMessage(f"Look up item{i}."),
                         AIMessage("", tool_calls=[tool_call("slow_lookup", {"term": f"item{i}"}, f"c{i}")]),
                         ToolMessage(f"item{i}: " + "lorem ipsum " * 40, tool_call_id=f"c{i}"),
                         AIMessage(f"Item{i} is lorem ipsum.")]
    conversation.append(HumanMessage("Look up item9."))
    bound = small.bind_tools([slow_lookup])
    reply = bound.invoke(conversation, max_tokens=512)
    assert reply.response_metadata.get("tool_results_cut", 0) >= 1
    assert reply.usage_metadata["input_tokens"] > 1152 - 256  # less room than max_tokens wanted, but room
