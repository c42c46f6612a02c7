"""Review 113 on the embedded model (ChatLlamaCpp): a stopped ``batch`` stops its replies (#3), an input the model
cannot read is refused before it waits for the model (#4), and ``n_threads`` is checked at construction (#5).
"""

from __future__ import annotations

import os
import signal
import threading
import time
import warnings
from typing import Any

import pytest

from _llama_fixtures import smol1_fixture  # noqa: F401
from toolwire._batch import Batching
from toolwire.errors import UserError
from toolwire.messages import AIMessage, HumanMessage
from toolwire.models._cancel import GenerationCancelled, cancelled
from toolwire.models._loaded import check_n_threads
from toolwire.models.llamacpp import ChatLlamaCpp

IMAGE = [HumanMessage([{"type": "text", "text": "what is it"}, {"type": "image", "url": "http://x/y.png"}])]
REFUSAL = "smollm2-135m reads text only: describe the image in text or use a model that takes images."


def _until(condition: Any, deadline: float = 120.0) -> None:
    """Wait for ``condition()`` to hold, polling, failing past a generous ``deadline`` (seconds)."""
    end = time.monotonic() + deadline
    while not condition():
        assert time.monotonic() < end, "the condition did not come to hold"
        time.sleep(0.02)


# -- #5: n_threads --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_threads", ["2", 2.5, -3, 0, True])
def test_n_threads_is_checked_at_construction(n_threads: Any) -> None:
    with pytest.raises(UserError) as error:
        ChatLlamaCpp("smollm2-135m", n_threads=n_threads)
    cores = os.cpu_count() or 1
    assert str(error.value) == (f"n_threads must be a whole number of CPU threads, at least 1 (such as {cores}, the "
                                f"cores here), or None to use all cores, not {n_threads!r}.")


def test_more_threads_than_cores_warns_and_a_fitting_number_does_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ChatLlamaCpp("smollm2-135m", n_threads=2)
        ChatLlamaCpp("smollm2-135m")
        assert not caught
        model = ChatLlamaCpp("smollm2-135m", n_threads=200)
    assert model.n_threads == 200 and [str(w.message) for w in caught] == [
        "n_threads=200 is more than the 2 CPU cores here, which makes the model slower, not faster: pass "
        "n_threads=2 or fewer, or leave it out to use all cores."]
    assert caught[0].filename == __file__  # at the user's line


def test_load_model_checks_n_threads_too() -> None:
    from toolwire.models._loaded import load_model

    with pytest.raises(UserError, match="n_threads must be a whole number"):
        load_model("no-such-file.gguf", n_threads="4")
    assert check_n_threads(None) is None and check_n_threads(3, warn=False) == 3


# -- #4: an input the model cannot read, refused before any wait ------------------------------------------------


def _no_loading(monkeypatch: pytest.MonkeyPatch, model: ChatLlamaCpp) -> list[str]:
    """Record (and refuse) every attempt of ``model`` to load or use the model: nothing may wait for it."""
    used: list[str] = []

    def load() -> Any:
        used.append("load")
        raise AssertionError("the model was used")

    monkeypatch.setattr(model, "load", load)
    return used


def test_an_image_is_refused_before_the_model_is_loaded_or_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    model = ChatLlamaCpp("smollm2-135m")
    used = _no_loading(monkeypatch, model)
    for call in (lambda: model.invoke(IMAGE), lambda: list(model.stream(IMAGE))):
        with pytest.raises(UserError) as error:
            call()
        assert str(error.value) == REFUSAL
    assert used == []


def test_a_batch_with_an_image_is_refused_before_any_input_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    model = ChatLlamaCpp("smollm2-135m")
    used = _no_loading(monkeypatch, model)
    for run in (lambda: model.batch(["hi", "there", IMAGE], max_concurrency=1),
                lambda: asyncio.run(model.abatch(["hi", IMAGE]))):
        with pytest.raises(UserError) as error:
            run()
        assert str(error.value) == REFUSAL
    assert used == []


def test_with_return_exceptions_the_image_gets_its_error_and_the_others_are_answered(
        monkeypatch: pytest.MonkeyPatch) -> None:
    model = ChatLlamaCpp("smollm2-135m")
    asked: list[Any] = []

    def invoke(input: Any, **options: Any) -> AIMessage:
        asked.append(input)
        return AIMessage(f"answer to {input}")

    monkeypatch.setattr(model, "invoke", invoke)
    answers = model.batch(["hi", IMAGE, "there"], return_exceptions=True)
    assert [a.content for a in (answers[0], answers[2])] == ["answer to hi", "answer to there"]
    assert isinstance(answers[1], UserError) and str(answers[1]) == REFUSAL and asked == ["hi", "there"]


# -- #3: a stopped batch stops its calls ------------------------------------------------------------------------


class _Waiting(Batching):
    """``invoke("fail")`` raises; any other input waits until its call is cancelled (recorded), or 60 s."""

    def __init__(self) -> None:
        self.outcomes: list[str] = []

    def invoke(self, input: Any, **options: Any) -> str:
        if input == "fail":
            raise ValueError("failed")
        end = time.monotonic() + 60
        while time.monotonic() < end:
            if cancelled():
                self.outcomes.append("cancelled")
                raise GenerationCancelled("stopped")
            time.sleep(0.01)
        self.outcomes.append("ran to its end")
        return input

    async def ainvoke(self, input: Any, **options: Any) -> str:  # pragma: no cover - not used
        return self.invoke(input)


def test_a_failed_batch_cancels_the_calls_still_running_on_its_threads() -> None:
    owner = _Waiting()
    started = threading.Event()
    original = owner.invoke

    def invoke(input: Any, **options: Any) -> str:
        if input != "fail":
            started.set()
        else:
            started.wait(30)  # the other call is running when this one fails
        return original(input)

    owner.invoke = invoke  # type: ignore[method-assign]
    with pytest.raises(ValueError, match="failed"):
        owner.batch(["wait", "fail"])
    _until(lambda: owner.outcomes)
    assert owner.outcomes == ["cancelled"]


@pytest.mark.model
def test_ctrl_c_in_a_batch_stops_the_replies_at_their_next_token(smol1: ChatLlamaCpp,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Three long replies asked at once (one generating, two waiting for their turn); a Ctrl-C (a real SIGINT) at the
    third generated token: the batch raises KeyboardInterrupt, the generating reply stops at its next token and the
    others never start, and the model answers the next request as before."""
    model = smol1
    reference = model.invoke("Say hi.", max_tokens=6).content
    llm = model.load().llm
    decode = llm._ctx.decode
    steps: list[int] = []  # one per llama_decode: a generated token, or a batch of a prompt
    outcomes: list[str] = []

    def counting(batch: Any) -> Any:
        steps.append(1)
        if len(steps) == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return decode(batch)

    real_invoke = model.invoke

    def invoke(input: Any, **options: Any) -> AIMessage:
        try:
            reply = real_invoke(input, **options)
        except BaseException as exc:
            outcomes.append(type(exc).__name__)
            raise
        outcomes.append(f"a reply of {reply.usage['output_tokens']} tokens")
        return reply

    monkeypatch.setattr(llm._ctx, "decode", counting)
    monkeypatch.setattr(model, "invoke", invoke)
    long = [f"Write a long story about dragon number {i}." for i in range(3)]
    with pytest.raises(KeyboardInterrupt):
        model.batch(long, max_tokens=60)
    _until(lambda: len(outcomes) == 3)  # every call has ended (a thread of the pool runs each)
    assert outcomes == ["GenerationCancelled"] * 3
    assert len(steps) <= 6  # the prompt's batch, a few tokens: not three replies of up to 60 tokens
    monkeypatch.setattr(model, "invoke", real_invoke)
    assert model.invoke("Say hi.", max_tokens=6).content == reference


def test_the_command_line_warns_of_too_many_threads_once_in_its_own_words(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.cli import _model

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = _model("smollm2-135m", None, None, 3)
    assert model.n_threads == 3 and [str(w.message) for w in caught] == [
        "--n-threads=3 is more than the 2 CPU cores here, which makes the model slower, not faster: pass "
        "--n-threads=2 or fewer, or leave it out to use all cores."]
