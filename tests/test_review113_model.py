"""Review 113 on the embedded model (ChatLlamaCpp): a stopped ``batch`` stops its replies (#3), an input the model
cannot read is refused before it waits for the model (#4), and ``n_threads`` is checked at construction (#5).
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import pytest

from toolwire.errors import UserError
from toolwire.models._loaded import check_n_threads
from toolwire.models.llamacpp import ChatLlamaCpp

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


def test_the_command_line_warns_of_too_many_threads_once_in_its_own_words(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.cli import _model

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = _model("smollm2-135m", None, None, 3)
    assert model.n_threads == 3 and [str(w.message) for w in caught] == [
        "--n-threads=3 is more than the 2 CPU cores here, which makes the model slower, not faster: pass "
        "--n-threads=2 or fewer, or leave it out to use all cores."]
