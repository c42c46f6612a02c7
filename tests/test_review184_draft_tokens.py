"""Review 184 #3: ChatLlamaCpp's draft_tokens takes a whole number of 0 or more (a NumPy integer too); anything else,
``2.9`` and ``-1`` included, is one UserError sentence. No model is loaded."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("llama_cpp")
np = pytest.importorskip("numpy")

from toolwire.errors import UserError  # noqa: E402
from toolwire.models.llamacpp import ChatLlamaCpp  # noqa: E402


@pytest.mark.parametrize("value", ["many", "2", None, 2.9, 2.0, -1, True, False, float("nan"), np.float64(2.0)])
def test_a_bad_draft_tokens_is_one_sentence(value: Any) -> None:
    with pytest.raises(UserError) as error:
        ChatLlamaCpp("qwen2.5-coder-0.5b", draft_tokens=value)
    assert str(error.value) == (f"draft_tokens must be a whole number of 0 or more (such as 2; 0 turns drafts off), "
                                f"not {value!r}.")


@pytest.mark.parametrize(("value", "kept"), [(0, 0), (2, 2), (8, 8), (np.int64(3), 3), (np.uint8(0), 0)])
def test_draft_tokens_takes_whole_numbers_numpy_ones_too(value: Any, kept: int) -> None:
    model = ChatLlamaCpp("qwen2.5-coder-0.5b", draft_tokens=value)
    assert model.draft_tokens == kept and type(model.draft_tokens) is int
