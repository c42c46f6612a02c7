"""Review 208: the default thread count is held to :data:`MOST_THREADS` like a given one, and the advice for too many
names a count that is taken (#2); ``--tools nsp/tools.py`` of a namespace package (no ``__init__.py``) whose relative
import fails is told to pass ``--tools nsp.tools`` when that name imports it (#6)."""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from toolwire.errors import UserError
from toolwire.models import _loaded
from toolwire.models._threads import MOST_THREADS, check_n_threads, default_n_threads

# -- #2: threads on a host with more cores than ggml's bound ---------------------------------------------------------


@pytest.mark.parametrize(("cores", "expected"), [(1024, MOST_THREADS), (513, MOST_THREADS), (512, 512), (2, 2),
                                                 (None, 1)])
def test_the_default_is_all_cores_up_to_the_most(monkeypatch: pytest.MonkeyPatch, cores: int | None,
                                                 expected: int) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    assert default_n_threads() == expected


def test_load_model_hands_llama_cpp_at_most_the_most_threads_by_default(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    """A host of 1024 cores gave llama.cpp 1024 threads by default while ``n_threads=1024`` was refused."""
    monkeypatch.setattr(os, "cpu_count", lambda: 1024)
    monkeypatch.setattr(_loaded, "_llama_cpp", lambda: object())
    given: list[int] = []

    def llama(llama_cpp: Any, path: Path, n_ctx: int, threads: int, n_batch: int, verbose: bool) -> Any:
        given.append(threads)
        raise UserError("stop here")

    monkeypatch.setattr(_loaded, "_llama", llama)
    model = tmp_path / f"m{uuid.uuid4().hex[:8]}.gguf"
    model.write_bytes(b"not a model")
    with pytest.raises(UserError, match="stop here"):
        _loaded.load_model(model, n_ctx=512)
    with pytest.raises(UserError, match="stop here"):
        _loaded.load_model(model, n_ctx=512, n_threads=7)
    assert given == [MOST_THREADS, 7]


def test_the_advice_for_too_many_threads_names_a_count_that_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 1024)
    with pytest.raises(UserError) as info:
        check_n_threads(1024)
    text = str(info.value)
    advised = [int(n) for n in re.findall(r"pass n_threads=(\d+)", text)]
    assert advised == [MOST_THREADS] and "1024 cores here" in text and "\n" not in text
    assert "can run a model on" not in text  # (1024 did run: review 208 #2; only far more aborted)
    assert check_n_threads(advised[0]) == MOST_THREADS  # taken, and no warning: fewer than the cores
    with pytest.raises(UserError, match=r"such as 512, the most, with 1024 cores here"):
        check_n_threads(0)


def test_on_a_host_of_fewer_cores_the_advice_is_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    with pytest.raises(UserError, match=r"^n_threads=513 is more CPU threads than toolwire lets llama\.cpp use \(512 "
                                        r"at most, ggml's own bound\): pass n_threads=2 \(the cores here\) or fewer"):
        check_n_threads(513)
