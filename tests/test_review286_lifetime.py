"""Review 286 #1, #3, #5: the embedded model's lifetime.

- #1: at exit, a model a reply is still running a step on (a daemon thread inside llama.cpp: a timed-out ``ainvoke``)
  is not freed under it (that crashed the process, status 139); others are, and no thread starts another step after.
- #3: the model used last stays loaded after its ChatLlamaCpp is dropped (one model), so a ChatLlamaCpp made per
  question does not load the file again; another ``n_ctx`` replaces it; ``close()`` still frees at once.
- #5: a ``close()`` called while another thread loads the model is not lost: the model is not kept.

The cache logic runs on a fake llama.cpp (no weights); one test, marked ``model``, runs the real one in a subprocess.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading
import time
import types
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


def _model(path: Path, n_ctx: int = 64) -> Any:
    from toolwire.models.llamacpp import ChatLlamaCpp

    return ChatLlamaCpp(str(path), n_ctx=n_ctx)


# ---- #1: exit while a reply runs


def test_exit_leaves_a_model_a_step_runs_on_and_frees_the_others(fake: Path) -> None:
    from toolwire.models import _loaded
    from toolwire.models._turns import Turn

    running, paused = _model(fake, 64), _model(fake, 128)
    busy, idle = running.load(), paused.load()
    step = Turn(busy)
    step.begin()  # a reply inside llama.cpp (on a daemon thread, at exit)
    between = Turn(idle)
    between.begin()
    between.pause()  # a reply between two tokens
    _loaded._close_models()
    assert busy.llm.closed == 0 and idle.llm.closed == 1
    assert not busy._finalizer.alive  # not freed later by its finaliser either (the OS frees it)

    got: list[bool] = []
    other = threading.Thread(target=lambda: got.append(idle.turns.changed.acquire(blocking=False)))
    other.start()
    other.join()
    assert got == [False]  # no other thread may start a step on the freed model
    step.pause()  # the thread that exits may still end its own replies (the lock is re-entrant)
    step.end()
    between.end()


@pytest.mark.model
def test_a_program_ending_while_a_daemon_thread_generates_exits_cleanly(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    from toolwire.models.pull import find_model

    if find_model("smollm2-135m") is None:
        pytest.skip("smollm2-135m is not pulled")
    script = tmp_path / "exit_while_generating.py"
    script.write_text(textwrap.dedent("""
        import threading
        from toolwire.models.llamacpp import ChatLlamaCpp

        model = ChatLlamaCpp("smollm2-135m", max_tokens=400, n_ctx=2048, pull=False, prompt_cache=False)
        loaded = model.load()
        started = threading.Event()

        def reply():
            for _ in model.stream("Write a long story about a dragon."):
                started.set()

        threading.Thread(target=reply, daemon=True).start()
        started.wait(60)
        print("main exits", flush=True)
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "main exits" in done.stdout and "Traceback" not in done.stderr, done.stderr[-2000:]


# ---- #3: a ChatLlamaCpp per question


def test_a_model_made_per_question_finds_the_last_one_loaded(fake: Path) -> None:
    for _ in range(3):
        model = _model(fake)
        model.load()
        del model
        gc.collect()
    assert len(_FakeLlama.made) == 1 and _FakeLlama.made[0].closed == 0


def test_another_n_ctx_replaces_the_model_held(fake: Path) -> None:
    first = _model(fake, 64)
    first.load()
    del first
    second = _model(fake, 128)
    second.load()
    gc.collect()
    assert [llm.closed for llm in _FakeLlama.made] == [1, 0]  # one model kept, not two


def test_close_still_frees_at_once(fake: Path) -> None:
    model = _model(fake)
    model.load()
    gc.disable()
    try:
        model.close()
        assert _FakeLlama.made[0].closed == 1
    finally:
        gc.enable()


def test_close_of_another_model_leaves_the_hold(fake: Path) -> None:
    kept, other = _model(fake, 64), _model(fake, 128)
    other.load()
    kept.load()  # the one used last: held
    other.close()
    del kept
    gc.collect()
    assert [llm.closed for llm in _FakeLlama.made] == [1, 0]


# ---- #5: close() during a load


def test_close_during_a_load_is_not_lost(fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.models import _loaded

    model = _model(fake)
    made = _loaded._llama

    def load_then_close(*args: Any) -> Any:
        llm = made(*args)
        model.close()  # another thread's close(), while this load runs
        return llm

    monkeypatch.setattr(_loaded, "_llama", load_then_close)
    loaded = model.load()
    assert model._loaded is None and _loaded._HELD == []
    assert loaded.llm.closed == 0  # the caller of load() still holds what it got
    del loaded
    gc.collect()
    assert _FakeLlama.made[0].closed == 1


# ---- #4: a load does not silence the process's other threads


def test_quiet_load_turns_the_fd_redirect_off_and_puts_it_back() -> None:
    from toolwire.models._quiet_load import quiet_load

    def redirect(disable: bool = True) -> Any:
        raise AssertionError("the process's stdout and stderr were redirected")

    llama = types.SimpleNamespace(suppress_stdout_stderr=redirect)
    internals = types.SimpleNamespace(suppress_stdout_stderr=redirect)
    modules = {"llama_cpp.llama": llama, "llama_cpp._internals": internals}
    with quiet_load(types.SimpleNamespace(), verbose=True, modules=modules), \
            llama.suppress_stdout_stderr(disable=False), internals.suppress_stdout_stderr(disable=False):
        pass
    assert llama.suppress_stdout_stderr is redirect and internals.suppress_stdout_stderr is redirect


@pytest.mark.model
def test_a_real_load_leaves_stdout_and_stderr_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("llama_cpp")
    from toolwire.models._loaded import _llama
    from toolwire.models.pull import find_model

    found = find_model("smollm2-135m")
    if found is None:
        pytest.skip("smollm2-135m is not pulled")
    import llama_cpp

    moved: list[int] = []
    real_dup2 = os.dup2
    monkeypatch.setattr(os, "dup2", lambda fd, fd2, *rest: (moved.append(fd2), real_dup2(fd, fd2, *rest))[1])
    llm = _llama(llama_cpp, Path(found), 512, 2, 512, False)
    llm.close()
    assert 1 not in moved and 2 not in moved


def test_exit_waits_for_a_step_another_thread_runs_and_then_frees_the_model(fake: Path) -> None:
    # review 288 #1: the step's thread was left inside llama.cpp while the process tore it down (exit code 139)
    from toolwire.models import _loaded
    from toolwire.models._turns import Turn

    model = _model(fake, 64)
    busy = model.load()
    step = Turn(busy)
    started, order = threading.Event(), []

    def reply() -> None:
        step.begin()
        started.set()
        time.sleep(0.3)  # a token's step inside llama.cpp
        order.append("step ended")
        step.pause()
        step.begin()  # the next step waits for a turn that never comes (the exit keeps the lock)
        order.append("next step began")

    thread = threading.Thread(target=reply, daemon=True)
    thread.start()
    started.wait()
    _loaded._close_models()
    order.append("freed" if busy.llm.closed == 1 else "left")
    assert order == ["step ended", "freed"]
    thread.join(0.2)
    assert thread.is_alive() and order == ["step ended", "freed"]
