"""Replies taking turns on one loaded model (toolwire.models._turns; review 4 #1, #2).

A paused stream holds nothing: two streams read alternately in one thread each get their own reply (the
same one as read alone), and a stream left half read neither blocks other callers for good nor loses its
place. The logic is checked on a fake model; the real one (smollm2-135m, one thread) checks that a reply
set aside and put back goes on exactly as if it had been read alone.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from _llama_fixtures import get_weather, smol1_fixture  # noqa: F401
from toolwire.messages import AIMessage, HumanMessage, ToolMessage, merge_chunks
from toolwire.models._turns import ModelTurns, Turn, take_turns

# -- the turns, on a fake model -------------------------------------------------------------------------


class _FakeModel:
    """A model whose "KV cache" is a list of the tokens put in it; it records saves and restores."""

    def __init__(self, grace: float = 0.2) -> None:
        self.turns = ModelTurns(grace)
        self.cache: list[str] = []
        self.saves = 0
        self.restores = 0

    def save_state(self) -> list[str]:
        self.saves += 1
        return list(self.cache)

    def restore_state(self, state: list[str]) -> None:
        self.restores += 1
        self.cache = list(state)


def _reply(model: _FakeModel, name: str, size: int, step: threading.Event | None = None):
    """A reply that starts a new "prompt" and checks at each step that the cache holds its own tokens."""
    model.cache = [f"{name}-prompt"]
    mine = list(model.cache)
    for i in range(size):
        if step is not None:
            step.wait(5)
        assert model.cache == mine, f"{name} sees {model.cache}"
        model.cache.append(f"{name}{i}")
        mine.append(f"{name}{i}")
        yield f"{name}{i}"


def _stream(model: _FakeModel, name: str, size: int, step: threading.Event | None = None):
    return take_turns(Turn(model), _reply(model, name, size, step))


def test_streams_read_alternately_in_one_thread_each_keep_their_own_state():
    model = _FakeModel()
    a, b = _stream(model, "a", 3), _stream(model, "b", 3)
    assert [(next(a), next(b)) for _ in range(3)] == [("a0", "b0"), ("a1", "b1"), ("a2", "b2")]
    assert (model.saves, model.restores) == (5, 4)  # each switch set one reply aside and put the other back
    # one read to its end while another waits half read, then that one goes on
    a, b = _stream(model, "a", 3), _stream(model, "b", 3)
    assert next(b) == "b0" and list(a) == ["a0", "a1", "a2"] and list(b) == ["b1", "b2"]
    assert model.turns.holder is None


def test_a_reply_paused_in_another_thread_is_set_aside_after_the_grace_and_goes_on_after():
    model = _FakeModel(grace=0.2)
    paused = _stream(model, "a", 3)
    worker = threading.Thread(target=lambda: next(paused))
    # taken before the reply pauses, so the bound below holds on any machine: the set-aside happens only
    # once monotonic() - paused_at >= grace, and paused_at >= started (CI once saw 0.19992 s when this
    # was taken after the pause)
    started = time.monotonic()
    worker.start()
    worker.join()
    assert list(_stream(model, "b", 2)) == ["b0", "b1"]  # not blocked for good
    assert time.monotonic() - started >= 0.2  # it waited for the paused reply's reader first
    assert model.turns.holder is None and model.saves == 1
    assert list(paused) == ["a1", "a2"] and model.restores == 1  # went on from its own state


def test_a_reply_paused_in_the_asking_thread_is_set_aside_at_once():
    model = _FakeModel(grace=30)
    paused = _stream(model, "a", 2)
    assert next(paused) == "a0"
    started = time.monotonic()
    assert list(_stream(model, "b", 2)) == ["b0", "b1"]
    assert time.monotonic() - started < 5  # waiting would hang: the paused reply cannot go on meanwhile
    assert list(paused) == ["a1"]


def test_a_running_reply_and_one_read_steadily_are_waited_for():
    # (a grace of 0.5 s, not 0.1: the reader's pauses must stay below it also on a loaded machine)
    model = _FakeModel(grace=0.5)
    step = threading.Event()
    running = _stream(model, "a", 6, step)
    out: list[str] = []

    def read() -> None:
        for item in running:
            out.append(item)
            time.sleep(0.02)  # a reader that goes straight on: paused far below the grace

    worker = threading.Thread(target=read)
    worker.start()
    deadline = time.monotonic() + 10
    while model.turns.holder is None and time.monotonic() < deadline:  # its first step has begun (not a fixed
        time.sleep(0.01)  # 50 ms, after which a slow machine could let the other reply take the model first)
    assert model.turns.holder is not None
    other: list[str] = []
    asking = threading.Thread(target=lambda: other.extend(_stream(model, "b", 2)))
    asking.start()
    time.sleep(1.0)  # the first step is still running, well past the grace: the other reply waits
    assert other == [] and out == []
    step.set()
    worker.join(5)
    asking.join(5)
    assert out == [f"a{i}" for i in range(6)] and other == ["b0", "b1"]
    assert model.saves == 0  # never set aside


def test_a_closed_or_dropped_stream_gives_the_model_up_at_once():
    model = _FakeModel(grace=30)
    for drop in (False, True):
        stream = _stream(model, "a", 3)
        worker = threading.Thread(target=lambda s=stream: next(s))
        worker.start()
        worker.join()
        assert model.turns.holder is not None
        if drop:
            del stream
        else:
            stream.close()
        assert model.turns.holder is None
        started = time.monotonic()
        assert list(_stream(model, "b", 1)) == ["b0"] and time.monotonic() - started < 5
    assert model.saves == 0


def test_an_error_in_a_step_ends_the_turn():
    model = _FakeModel(grace=30)

    def failing():
        yield "x"
        raise ValueError("boom")

    stream = take_turns(Turn(model), failing())
    assert next(stream) == "x"
    with pytest.raises(ValueError, match="boom"):
        next(stream)
    assert model.turns.holder is None


# -- the real model -------------------------------------------------------------------------------------


def _read(stream) -> AIMessage:
    return merge_chunks(list(stream), as_chunk=False)  # type: ignore[return-value]


def _alternately(*streams) -> list[AIMessage]:
    chunks: list[list] = [[] for _ in streams]
    live = list(range(len(streams)))
    while live:
        for i in list(live):
            try:
                chunks[i].append(next(streams[i]))
            except StopIteration:
                live.remove(i)
    return [merge_chunks(c, as_chunk=False) for c in chunks]  # type: ignore[misc]


def _few_shot(question: str) -> list:
    call = {"name": "get_weather", "args": {"city": "Rome"}, "id": "c1", "type": "tool_call"}
    return [HumanMessage("What's the weather in Rome?"), AIMessage("", tool_calls=[call]),
            ToolMessage("Sunny, 25C", tool_call_id="c1", name="get_weather"), AIMessage("It is sunny in Rome, 25C."),
            HumanMessage(question)]


@pytest.mark.model
@pytest.mark.parametrize("options", [{}, {"temperature": 0.8, "seed": 7}], ids=["greedy", "sampled"])
def test_streams_read_alternately_give_the_replies_read_alone(smol1, options):
    qa, qb = "Count from one to ten in words.", "Name three colors."
    # each reference starts from the KV state the interleaved run starts from (the other's reply)
    _read(smol1.stream(qa, max_tokens=16, **options))
    _read(smol1.stream(qb, max_tokens=16, **options))
    ref_a = _read(smol1.stream(qa, max_tokens=16, **options))
    ref_b = _read(smol1.stream(qb, max_tokens=16, **options))
    got_a, got_b = _alternately(smol1.stream(qa, max_tokens=16, **options), smol1.stream(qb, max_tokens=16, **options))
    assert (got_a.content, got_b.content) == (ref_a.content, ref_b.content)
    assert got_a.usage["output_tokens"] == ref_a.usage["output_tokens"]


@pytest.mark.model
def test_a_call_and_a_text_reply_read_alternately(smol1):
    tools = smol1.bind_tools([get_weather])
    question = _few_shot("What's the weather in Paris?")
    tools.invoke(question, max_tokens=24)
    ref_text = _read(smol1.stream("Name three colors.", max_tokens=16))
    ref_call = _read(tools.stream(question, max_tokens=24))
    got_text, got_call = _alternately(smol1.stream("Name three colors.", max_tokens=16),
                                      tools.stream(question, max_tokens=24))
    assert got_call.tool_calls and [c["args"] for c in got_call.tool_calls] == [c["args"] for c in ref_call.tool_calls]
    assert got_text.content == ref_text.content


@pytest.mark.model
def test_a_stream_left_half_read_does_not_block_other_threads(smol1):
    question = "Count from one to twenty in words."
    smol1.invoke("Say hi.", max_tokens=4)
    ref = _read(smol1.stream(question, max_tokens=20))
    smol1.invoke("Say hi.", max_tokens=4)
    stream = smol1.stream(question, max_tokens=20)
    chunks = [next(stream)]
    results: list[AIMessage] = []
    other = threading.Thread(target=lambda: results.append(smol1.invoke("Say hi.", max_tokens=4)))
    other.start()
    other.join(30)
    assert not other.is_alive() and results[0].content
    chunks.extend(stream)  # goes on where it was, as if it had been read alone
    assert merge_chunks(chunks, as_chunk=False).content == ref.content


@pytest.mark.model
def test_a_closed_stream_or_a_left_async_stream_gives_the_model_up(smol1):
    turns = smol1.load().turns
    stream = smol1.stream("Count from one to twenty in words.", max_tokens=20)
    next(stream)
    assert turns.holder is not None
    stream.close()
    assert turns.holder is None

    async def leave() -> None:
        async for _ in smol1.astream("Count from one to twenty in words.", max_tokens=20):
            break

    asyncio.run(leave())
    deadline = time.monotonic() + 30
    while turns.holder is not None and time.monotonic() < deadline:  # its worker thread stops at the next chunk
        time.sleep(0.02)
    assert turns.holder is None


@pytest.mark.model
def test_a_saved_state_puts_back_the_kv_cache_and_the_grammar(smol1):
    loaded = smol1.load()
    llm = loaded.llm
    prompt = loaded.tokenize("<|im_start|>user\nHello there<|im_end|>\n<|im_start|>assistant\n")
    llm.reset()
    llm.eval(prompt)
    sampler = loaded.sampler('root ::= "hello" " world" " again"')
    written = loaded.tokenize("hello world again", bos=False)
    assert len(written) >= 2
    sampler.reset()
    sampler.accept(written[0])
    state = loaded.save_state()
    llm.reset()
    llm.eval(loaded.tokenize("Something else entirely."))
    sampler.reset()
    sampler.close()  # as when newer grammars pushed it out of the model's cache meanwhile
    loaded.restore_state(state)
    assert list(llm.input_ids[: llm.n_tokens]) == prompt and llm.n_tokens == len(prompt)
    assert sampler.history == written[:1]
    assert sampler.allows(written[1], 0.0) and not sampler.allows(written[0], 0.0)
