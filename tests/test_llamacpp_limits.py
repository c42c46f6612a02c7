"""ChatLlamaCpp at its limits (review 4 #5, #9): options checked alike per call and at construction,
``n_ctx``, and a context too small for the reply.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from _llama_fixtures import smol1_fixture  # noqa: F401
from toolwire.errors import UserError
from toolwire.models._options import check_options
from toolwire.models.llamacpp import ChatLlamaCpp

# -- options, without a model ----------------------------------------------------------------------------

BAD_OPTIONS = [
    ({"max_token": 3}, "Unknown ChatLlamaCpp option 'max_token': did you mean 'max_tokens'?"),
    ({"temprature": 0.7}, "Unknown ChatLlamaCpp option 'temprature': did you mean 'temperature'?"),
    ({"colour": 1}, "Unknown ChatLlamaCpp option 'colour': use one of temperature, max_tokens,"),
    ({"max_tokens": 0}, "max_tokens must be a whole number of tokens, at least 1, not 0."),
    ({"max_tokens": -5}, "max_tokens must be a whole number of tokens, at least 1, not -5."),
    ({"max_tokens": 2.5}, "max_tokens must be a whole number"),
    ({"stop": 5}, "stop must be a string or a list of strings, not 5."),
    ({"stop": ["\n", 3]}, "stop must be a string or a list of strings"),
    ({"seed": "abc", "temperature": 0.5}, "seed must be a whole number, not 'abc'."),
    ({"temperature": -1}, "temperature must be a number of 0 or more"),
    ({"temperature": float("nan")}, "temperature must be a number of 0 or more"),
    ({"top_p": 2}, "top_p must be a number from 0 to 1, not 2."),
    ({"top_k": "40"}, "top_k must be a whole number"),
    ({"repeat_penalty": 0}, "repeat_penalty must be a number above 0"),
]


@pytest.mark.parametrize(("options", "message"), BAD_OPTIONS)
def test_per_call_options_are_checked_on_every_path_before_loading(options, message):
    model = ChatLlamaCpp("no-such-model-file.gguf")  # never loaded: the options are refused first

    async def both() -> None:
        with pytest.raises(UserError, match=re.escape(message)):
            await model.ainvoke("hi", **options)
        with pytest.raises(UserError, match=re.escape(message)):
            [c async for c in model.astream("hi", **options)]

    with pytest.raises(UserError) as error:
        model.invoke("hi", **options)
    assert message in str(error.value) and str(error.value).count(". ") == 0  # one sentence
    with pytest.raises(UserError, match=re.escape(message)):
        next(iter(model.stream("hi", **options)))
    asyncio.run(both())


@pytest.mark.parametrize(("options", "message"), BAD_OPTIONS)
def test_the_constructor_checks_options_the_same_way(options, message):
    with pytest.raises(UserError) as error:
        ChatLlamaCpp(**options)
    assert message in str(error.value)


def test_none_means_not_given_and_good_options_pass():
    assert check_options({"max_tokens": None, "stop": None, "temperature": None}) == {}
    good = {"temperature": 0.7, "max_tokens": 3, "stop": ["\n", "END"], "seed": 5, "top_p": 0.9, "top_k": 0,
            "min_p": 0.0, "repeat_penalty": 1.1}
    assert check_options(good) == good and check_options({"stop": "x"}) == {"stop": "x"}
    ChatLlamaCpp(stop="\n", top_k=20, temperature=0, seed=1)
    with pytest.raises(UserError, match="max_tokens must be a whole number of tokens, at least 1, not None"):
        ChatLlamaCpp(max_tokens=None)  # type: ignore[arg-type]
    with pytest.raises(UserError, match="seed must be a whole number, not 'x'"):
        ChatLlamaCpp(seed="x")  # type: ignore[arg-type]


@pytest.mark.parametrize("n_ctx", [0, -1, 1.5, "4096", True])
def test_n_ctx_is_checked_at_construction(n_ctx):
    with pytest.raises(UserError) as error:
        ChatLlamaCpp(n_ctx=n_ctx)  # type: ignore[arg-type]
    assert str(error.value) == f"n_ctx must be a whole number of tokens, at least 1 (such as 4096), not {n_ctx!r}."


# -- on the model ------------------------------------------------------------------------------------------


@pytest.mark.model
def test_a_conversation_too_long_for_the_reply_says_what_room_it_needs(smol1):
    small = ChatLlamaCpp("smollm2-135m", n_ctx=128, n_threads=1)
    with pytest.raises(UserError) as error:
        small.invoke("word " * 400)
    message = str(error.value)
    assert "the reply needs room for at least 8 more, but the context holds 128" in message
    assert message.endswith("pass a larger n_ctx or shorten the conversation.")
