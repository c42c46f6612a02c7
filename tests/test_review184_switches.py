"""Review 184 #1: every on/off parameter of ChatLlamaCpp takes True or False (a NumPy bool too); ``"false"``, ``"no"``,
0 or None is one UserError sentence naming it, not read as True. No model is loaded."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("llama_cpp")
np = pytest.importorskip("numpy")

from toolwire.errors import UserError  # noqa: E402
from toolwire.models.llamacpp import ChatLlamaCpp  # noqa: E402

SWITCHES = ("grammar", "pull", "prompt_cache", "reuse_kv", "verbose", "decline_unknown_calls", "decline_repeat_calls",
            "decline_value_lists", "decline_echoes", "decline_made_up_figures")

# -- #1: the on/off switches take a bool ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", SWITCHES)
@pytest.mark.parametrize("value", ["false", "no", "off", "0", "", 0, 1, None, 1.0, [False]])
def test_a_switch_given_no_bool_is_one_sentence_naming_it(name: str, value: Any) -> None:
    with pytest.raises(UserError) as error:
        ChatLlamaCpp("qwen2.5-coder-0.5b", **{name: value})
    assert str(error.value) == f"{name} must be True or False, not {value!r}."


@pytest.mark.parametrize("name", SWITCHES)
def test_a_switch_takes_true_false_and_numpy_bools(name: str) -> None:
    for value in (True, False, np.bool_(True), np.bool_(False)):
        model = ChatLlamaCpp("qwen2.5-coder-0.5b", **{name: value})
        assert getattr(model, name) is bool(value)  # a Python bool, whatever was given


def test_the_switches_keep_their_defaults() -> None:
    model = ChatLlamaCpp("qwen2.5-coder-0.5b")
    assert [getattr(model, name) for name in SWITCHES] == [True, True, True, True, False, True, True, False, True,
                                                            True]
