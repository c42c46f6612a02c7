"""Review 312 #3: copying and pickling models after they have replied.

- ``copy.deepcopy`` of a ``ChatLlamaCpp`` that has loaded its model gives an independent model object that shares the
  loaded weights (no second load, no lock error), as a copy made before the first reply does; an ``Agent`` over it
  deep-copies too.
- ``pickle`` of a ``ChatLlamaCpp``, before or after its first reply, keeps its settings and bound tools, not the loaded
  model (the unpickled one loads on its first reply).
- ``ScriptedChatModel`` copies and pickles like LangChain's fake chat models, after replying too.

The local model runs on a fake llama.cpp (no weights: ``tests/fake_llama.py``); one test, marked ``model``, runs the
real one.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolwire import Agent, AIMessage, tool
from toolwire.testing import ScriptedChatModel


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


# ---- ChatLlamaCpp, on a fake llama.cpp


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A fake llama.cpp, an empty model cache and no model held (:func:`fake_llama.fake_model_cache`)."""
    pytest.importorskip("numpy")
    pytest.importorskip("llama_cpp")
    from fake_llama import fake_model_cache

    yield from fake_model_cache(monkeypatch, tmp_path)


def _model(path: Path, **kwargs: Any) -> Any:
    from toolwire.models.llamacpp import ChatLlamaCpp

    return ChatLlamaCpp(str(path), n_ctx=64, **kwargs)


def test_deepcopy_of_a_loaded_llamacpp_shares_the_weights_and_is_independent(fake: Path) -> None:
    from fake_llama import _FakeLlama

    model = _model(fake, max_tokens=100).bind_tools([add])
    loaded = model.load()  # (what the first reply does)
    clone = copy.deepcopy(model)
    assert clone is not model and type(clone) is type(model)
    assert clone._loaded is loaded and clone.load() is loaded  # the same weights: nothing loaded again
    assert len(_FakeLlama.made) == 1
    assert [t.name for t in clone.tools] == ["add"] and clone.tools[0] is not model.tools[0]
    assert clone.max_tokens == 100 and clone.n_ctx == model.n_ctx
    clone.max_tokens = 7  # independent settings
    assert model.max_tokens == 100
    clone.close()  # the copy lets go; the original keeps its model
    assert clone._loaded is None and model._loaded is loaded and not loaded.llm.closed
    assert model.load() is loaded and len(_FakeLlama.made) == 1


def test_deepcopy_before_and_after_loading_agree(fake: Path) -> None:
    model = _model(fake)
    before = copy.deepcopy(model)
    assert before._loaded is None
    loaded = model.load()
    after = copy.deepcopy(model)
    assert after._loaded is loaded
    assert {k: v for k, v in vars(before).items() if k != "_loaded"} == {
        k: v for k, v in vars(after).items() if k != "_loaded"}


def test_deepcopy_of_an_agent_over_a_loaded_llamacpp(fake: Path) -> None:
    model = _model(fake)
    loaded = model.load()
    agent = Agent(model, [add])
    clone = copy.deepcopy(agent)
    assert clone is not agent and clone.executor is not agent.executor
    assert list(clone.executor.tools) == ["add"]
    assert clone.model is not model and clone.model._loaded is loaded


@pytest.mark.parametrize("use", [False, True])
def test_pickling_a_llamacpp_keeps_its_settings_and_tools_not_the_loaded_model(fake: Path, use: bool) -> None:
    model = _model(fake, max_tokens=100, temperature=0.5).bind_tools([add], tool_choice="add")
    loaded = model.load() if use else None
    restored = pickle.loads(pickle.dumps(model))
    assert restored._loaded is None  # loaded on its first reply, as a new ChatLlamaCpp(...) would be
    assert (restored.model, restored.max_tokens, restored.temperature) == (model.model, 100, 0.5)
    assert [t.name for t in restored.tools] == ["add"] and restored.tool_choice == model.tool_choice
    if use:
        assert model._loaded is loaded  # the original is untouched
        assert restored.load() is loaded  # (in this process: the same file and n_ctx share the cached weights)


# ---- ScriptedChatModel


def test_scripted_model_deepcopies_and_pickles_after_replying() -> None:
    model = ScriptedChatModel(["one", AIMessage("two"), "three"]).bind_tools([add])
    assert model.invoke("hi").content == "one"
    clone = copy.deepcopy(model)
    assert clone.invoke("again").content == "two"
    assert model.invoke("again").content == "two"  # the copy's script is its own
    assert len(clone.requests) == 2 and len(model.requests) == 2
    restored = pickle.loads(pickle.dumps(model))
    assert restored.invoke("last").content == "three"
    assert [r.messages[-1].content for r in restored.requests] == ["hi", "again", "last"]
    assert restored.requests[0].tools == ["add"]
    assert len(model.requests) == 2
    shallow = copy.copy(model)  # a shallow copy shares the script, as bind_tools' copies do
    assert shallow.invoke("x").content == "three" and len(model.requests) == 3


def test_scripted_model_copy_works_with_streams_and_locks_after_pickling() -> None:
    import threading

    restored = pickle.loads(pickle.dumps(ScriptedChatModel(["a b c"], cycle=True)))
    assert isinstance(restored._script.lock, type(threading.Lock()))
    assert "".join(str(c.content) for c in restored.stream("go")) == "a b c"
    assert copy.deepcopy(Agent(restored, [add])).invoke("q").output == "a b c"


# ---- the real model


@pytest.mark.model
def test_real_llamacpp_deepcopy_after_a_reply_shares_the_weights() -> None:
    pytest.importorskip("llama_cpp")
    from toolwire.models.llamacpp import ChatLlamaCpp

    model = ChatLlamaCpp(pull=False, max_tokens=8)
    try:
        model.invoke("Say hi in one word.")
    except Exception as exc:  # (no model pulled here)
        if "pull" in str(exc).lower() or "not pulled" in str(exc).lower():
            pytest.skip(str(exc))
        raise
    loaded = model._loaded
    clone = copy.deepcopy(Agent(model, [add]))
    assert clone.model._loaded is loaded
    assert copy.deepcopy(model).invoke("Say hi in one word.").content
    assert pickle.loads(pickle.dumps(model))._loaded is None
