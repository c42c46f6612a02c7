"""Settings for the whole test suite.

Hypothesis runs deterministically everywhere (a fixed seed, no example database) and without its per-example
deadline: CI runs on a shared 2-core machine, where a garbage collection or another job can make one example
slow, and timings belong in ``benchmarks/``, not in tests. A test's own ``@settings`` still sets its example count.

Ctrl-C raises ``KeyboardInterrupt`` here even when the suite was started in the background of a shell script
(``make test &``), which starts it with SIGINT ignored: the tests of Ctrl-C send SIGINT to their own process.
"""

from __future__ import annotations

import signal
from typing import Any

import pytest
from hypothesis import settings

if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:  # (inherited from a background job)
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile("toolwire", derandomize=True, database=None, deadline=None)
settings.load_profile("toolwire")


@pytest.fixture(scope="session")
def vocab() -> Any:
    """``(llama_cpp, Llama)``: a llama.cpp vocabulary to parse grammars with (the tiny model's, vocabulary only: no
    weights, no generation); skipped when llama-cpp-python or the tiny model is missing."""
    llama_cpp = pytest.importorskip("llama_cpp")
    from toolwire.models.pull import find_model

    path = find_model("smollm2-135m")
    if path is None:
        pytest.skip("smollm2-135m is not pulled (toolwire models pull smollm2-135m)")
    return llama_cpp, llama_cpp.Llama(str(path), vocab_only=True, verbose=False)


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The seconds each ``with_retry`` retry waited (sync and async; ``toolwire.models._runnable``), with no real
    waiting: the sleeps are replaced by recording their seconds."""
    from toolwire.models import _runnable

    seen: list[float] = []

    async def asleep(seconds: float) -> None:
        seen.append(seconds)

    monkeypatch.setattr(_runnable, "_sleep", seen.append)
    monkeypatch.setattr(_runnable, "_async_sleep", asleep)
    return seen
