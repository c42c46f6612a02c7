"""Going on with an optional argument where the model nearly does (toolwire.models._argument_lean, issue [5]).

The rule replaces the greedy token only at a token that closes a pythonic call's argument list, only when the
grammar allows going on, and only when going on gets at least the given share of the probability of the two
choices; everywhere else the greedy token stands.
"""

from __future__ import annotations

import numpy as np
import pytest

from _llama_fixtures import smol_fixture  # noqa: F401
from toolwire.messages import HumanMessage
from toolwire.models._argument_lean import ArgumentLean, _Nesting
from toolwire.tools import tool

VOCAB = [b")", b")]", b", ", b",", b'")', b'", ', b"x", b'"', b"(", b"[", b"f", b"a=1", b"),"]
CLOSE, CLOSE_LIST, COMMA_SPACE, COMMA, QUOTE_CLOSE, QUOTE_COMMA = 0, 1, 2, 3, 4, 5


class _Grammar:
    """Allows the tokens given (a stand-in for llama.cpp's grammar sampler)."""

    def __init__(self, allowed: set[int]) -> None:
        self.allowed = allowed

    def allows(self, token: int, logit: float) -> bool:
        return token in self.allowed


def _lean(share: float, fed: bytes) -> ArgumentLean:
    lean = ArgumentLean(lambda t: VOCAB[t], lambda p: np.array([i for i, b in enumerate(VOCAB) if b.startswith(p)],
                                                                dtype=np.intp), share)
    for byte in fed:  # feed the call text so far one byte at a time, as tokens of one byte each would be
        lean._nesting.step(byte)
    return lean


def _logits(**probs: float) -> np.ndarray:
    """Logits whose softmax gives the named tokens these probabilities (the rest shares what is left)."""
    names = {"close": CLOSE, "close_list": CLOSE_LIST, "comma_space": COMMA_SPACE, "comma": COMMA,
             "quote_close": QUOTE_CLOSE, "quote_comma": QUOTE_COMMA}
    p = np.full(len(VOCAB), (1.0 - sum(probs.values())) / (len(VOCAB) - len(probs)))
    for name, value in probs.items():
        p[names[name]] = value
    return np.log(p).astype(np.float32)


ALL = _Grammar(set(range(len(VOCAB))))


def test_nesting_finds_the_parenthesis_that_closes_the_call() -> None:
    state = _Nesting()
    for byte in b'[f(a="x)", b=[1, 2], c={"k": (1)}':
        state.step(byte)
    assert state.closing_at(b")]") == 0
    assert state.closing_at(b"x") is None
    inside = _Nesting()
    for byte in b'[f(a="x':
        inside.step(byte)
    assert inside.closing_at(b")") is None  # a ")" inside a string
    assert inside.closing_at(b'")') == 1  # the string ends, then the call
    escaped = _Nesting()
    for byte in b'[f(a="x\\"':  # an escaped quote does not end the string
        escaped.step(byte)
    assert escaped.closing_at(b")") is None
    second = _Nesting()
    for byte in b"[f(a=1), g(b=2":
        second.step(byte)
    assert second.closing_at(b"),") == 0


def test_goes_on_when_the_model_gives_going_on_the_share() -> None:
    lean = _lean(0.3, b"[f(a=1")
    logits = _logits(close_list=0.5, comma_space=0.3, comma=0.1)  # going on: 0.4 of 0.9
    assert lean.choose(CLOSE_LIST, logits, ALL) == COMMA_SPACE  # the likelier way of going on
    assert lean.continued == 1
    assert _lean(0.5, b"[f(a=1").choose(CLOSE_LIST, logits, ALL) == CLOSE_LIST  # 0.44 < 0.5


def test_the_greedy_token_stands_elsewhere() -> None:
    logits = _logits(close_list=0.5, comma_space=0.4)
    assert _lean(0.3, b'[f(a="x').choose(CLOSE, logits, ALL) == CLOSE  # inside a string
    assert _lean(0.3, b"[f(a=1").choose(6, logits, ALL) == 6  # not a closing token
    assert _lean(0.3, b"[f(a=[1").choose(CLOSE, logits, ALL) == CLOSE  # inside a list value
    assert _lean(0.3, b"[f(a=1").choose(CLOSE_LIST, logits, None) == CLOSE_LIST  # no grammar
    assert _lean(0.0, b"[f(a=1").choose(CLOSE_LIST, logits, ALL) == CLOSE_LIST  # off
    no_more = _Grammar({CLOSE, CLOSE_LIST})  # the function has no optional parameter left
    lean = _lean(0.3, b"[f(a=1")
    assert lean.choose(CLOSE_LIST, logits, no_more) == CLOSE_LIST and lean.continued == 0


def test_a_token_that_ends_a_string_and_the_call_goes_on_after_the_string() -> None:
    logits = _logits(quote_close=0.5, quote_comma=0.45)
    assert _lean(0.3, b'[f(a="x').choose(QUOTE_CLOSE, logits, ALL) == QUOTE_COMMA


@pytest.mark.model
def test_the_embedded_model_passes_the_optional_arguments_it_hesitated_over(smol) -> None:
    from toolwire.models.llamacpp import ChatLlamaCpp

    @tool
    def find_hotels(city: str, stars: int | None = None, pool: bool | None = None, pets: bool | None = None) -> str:
        """Find hotels.

        Args:
            city: the city.
            stars: the least number of stars.
            pool: only hotels with a pool.
            pets: only hotels that take pets.
        """
        return "none"

    question = [HumanMessage("Find a hotel in Rome.")]

    def ask(share: float):
        model = ChatLlamaCpp("smollm2-135m", dialect="pythonic", optional_argument_share=share)
        return model.bind_tools([find_hotels], tool_choice="required").invoke(question, max_tokens=60)

    plain, leaning = ask(0.0), ask(1e-6)
    assert "calls_continued" not in plain.response_metadata
    assert leaning.response_metadata.get("calls_continued", 0) >= 1
    before, after = plain.tool_calls[0]["args"], leaning.tool_calls[0]["args"]
    assert set(before) < set(after) and all(after[k] == v for k, v in before.items())
