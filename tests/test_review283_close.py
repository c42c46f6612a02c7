"""Review 283 #1: a local model can be freed.

``ChatLlamaCpp.close()`` (also ``with ChatLlamaCpp(...) as model:`` and ``await model.aclose()``) lets go of the loaded
weights; they are freed once nothing else holds them (a ``bind_tools``/``bind``/``with_structured_output`` copy shares
them, and keeps them), and a model no longer referenced anywhere frees them with it. Two models alive at once on the
same file and ``n_ctx`` still share one load. A closed model used again loads again.

The cache logic runs on a fake llama.cpp (no weights); one test, marked ``model``, runs the real one.
"""

from __future__ import annotations

import asyncio
import gc
import os
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numpy")


from fake_llama import _FakeLlama, fake_model_cache


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A fake llama.cpp, an empty model cache and no model held (:func:`fake_llama.fake_model_cache`)."""
    yield from fake_model_cache(monkeypatch, tmp_path)


def _cached() -> list[int]:
    """The n_ctx of each model the cache holds."""
    from toolwire.models import _loaded

    return sorted(key[1] for key in list(_loaded._MODELS.keys()))


def _model(path: Path, n_ctx: int = 64) -> Any:
    from toolwire.models.llamacpp import ChatLlamaCpp

    return ChatLlamaCpp(str(path), n_ctx=n_ctx)


def test_close_frees_the_weights_at_once(fake: Path) -> None:
    model = _model(fake)
    model.load()
    (llm,) = _FakeLlama.made
    gc.disable()  # freed by the close itself, not by a later collection
    try:
        model.close()
        assert llm.closed == 1 and _cached() == []
    finally:
        gc.enable()
    model.close()  # again: nothing more to do
    assert llm.closed == 1


def test_a_model_dropped_without_close_is_freed_with_it(fake: Path) -> None:
    """The reviewer's loop: each n_ctx loaded, used and dropped; only the one used last is kept (review 286 #3)."""
    from toolwire.models import _loaded

    for n_ctx in (512, 1024, 2048, 4096):
        model = _model(fake, n_ctx)
        model.load()
        del model
        gc.collect()
        assert [llm.closed for llm in _FakeLlama.made] == [1] * (len(_FakeLlama.made) - 1) + [0]
        assert _cached() == [n_ctx]
    assert len(_FakeLlama.made) == 4
    _loaded._HELD.clear()  # (what loading another file, or close() of the model, does)
    assert _FakeLlama.made[-1].closed == 1 and _cached() == []


def test_with_block_and_aclose(fake: Path) -> None:
    with _model(fake) as model:
        assert model.load() is model.load()
    assert _FakeLlama.made[-1].closed == 1 and _cached() == []

    other = _model(fake)
    other.load()
    asyncio.run(other.aclose())
    assert _FakeLlama.made[-1].closed == 1 and _cached() == []


def test_two_models_alive_at_once_share_one_load(fake: Path) -> None:
    a, b = _model(fake), _model(fake)
    assert a.load() is b.load() and len(_FakeLlama.made) == 1
    a.close()
    assert _FakeLlama.made[0].closed == 0 and _cached() == [64]  # b still uses it
    assert _model(fake).load() is b.load()  # and a third one made now shares it
    b.close()
    assert _FakeLlama.made[0].closed == 1 and _cached() == []


def test_copies_keep_the_weights_until_the_last_one_lets_go(fake: Path) -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    model = _model(fake)
    loaded = model.load()
    bound = model.bind_tools([add])
    options = model.bind(temperature=0.5)
    structured = model.with_structured_output({"title": "Answer", "type": "object",
                                               "properties": {"text": {"type": "string"}}, "required": ["text"]})
    del loaded
    model.close()  # the original closed: its copies go on with the same weights
    (llm,) = _FakeLlama.made
    assert llm.closed == 0 and bound.load().llm is llm and options.load().llm is llm
    bound.close()
    options.close()
    assert llm.closed == 0  # the structured-output model still holds them
    del structured
    gc.collect()
    assert llm.closed == 1 and _cached() == []


def test_a_closed_model_used_again_loads_again(fake: Path) -> None:
    model = _model(fake)
    first = model.load()
    old = weakref.ref(first)
    del first
    model.close()
    assert old() is None
    again = model.load()
    assert len(_FakeLlama.made) == 2 and _FakeLlama.made[1].closed == 0 and again.llm is _FakeLlama.made[1]
    assert _cached() == [64]


def test_a_loaded_model_held_elsewhere_is_not_freed_under_it(fake: Path) -> None:
    """A reply in progress holds the LoadedModel (as this test does): close() leaves the weights to it."""
    model = _model(fake)
    held = model.load()
    model.close()
    assert held.llm.closed == 0 and _cached() == [64]
    del held
    gc.collect()
    assert _FakeLlama.made[0].closed == 1 and _cached() == []


def test_a_fitted_default_shares_its_load_with_an_explicit_n_ctx(fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A default n_ctx lowered to the trained context (4096) is cached under both sizes; both go with the model."""
    from toolwire.models import _loaded
    from toolwire.models.llamacpp import ChatLlamaCpp

    monkeypatch.setattr(_loaded, "gguf_metadata", lambda path: {"general.architecture": "llama",
                                                                 "llama.context_length": "4096"})
    model = ChatLlamaCpp(str(fake))  # 8192 by default, fitted to 4096
    loaded = model.load()
    assert _cached() == [4096, 8192] and ChatLlamaCpp(str(fake), n_ctx=4096).load() is loaded
    del loaded
    model.close()
    assert _FakeLlama.made[0].closed == 1 and _cached() == []


def test_the_atexit_hook_closes_the_models_still_loaded(fake: Path) -> None:
    from toolwire.models import _loaded

    model = _model(fake)
    model.load()
    _loaded._close_models()
    assert _FakeLlama.made[0].closed >= 1 and _cached() == []
    del model


@pytest.mark.model
def test_the_real_weights_are_freed() -> None:
    pytest.importorskip("llama_cpp")
    from toolwire.models import _loaded
    from toolwire.models.llamacpp import ChatLlamaCpp
    from toolwire.models.pull import find_model

    if find_model("smollm2-135m") is None:
        pytest.skip("smollm2-135m is not pulled")
    sizes = []
    for n_ctx in (512, 1024):  # (the fixtures' n_ctx values are 4096 and 2048: never these)
        model = ChatLlamaCpp("smollm2-135m", n_ctx=n_ctx, max_tokens=2, pull=False, prompt_cache=False)
        loaded = weakref.ref(model.load())
        llm = model.load().llm
        assert model.invoke("hi").response_metadata["finish_reason"] in ("stop", "length")
        model.close()
        assert loaded() is None and llm._ctx.ctx is None  # llama.cpp's context (and weights) freed
        sizes.append(n_ctx)
        del llm
    assert not any(key[1] in sizes and os.path.basename(key[0]).startswith("SmolLM2") for key in _loaded._MODELS)
