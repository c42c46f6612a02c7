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

VOCAB = [b")", b")]", b", ", b",", b'")', b'", ', b"x", b'"', b"(", b"[", b"f", b"a=1", b"),", b",)", b",\n",
         b", city", b", 2"]
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


@tool
def find_hotels(city: str, pool: bool | None = None, pets: bool | None = None) -> str:
    """Find hotels.

    Args:
        city: the city.
        pool: only hotels with a pool.
        pets: only hotels that take pets.
    """
    return "none"


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
    lean.feed(COMMA_SPACE)
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


def test_only_tokens_that_can_begin_another_keyword_argument_count_as_going_on() -> None:
    lean = _lean(0.3, b"[f(a=1")
    assert sorted(lean._going_on(b"").tolist()) == [COMMA_SPACE, COMMA, 15]  # not ",)", ",\\n" or ", 2"
    # the trailing-comma close ",)" is likely, the real ways of going on are not: the greedy token stands
    logits = _logits(close_list=0.3, comma_space=0.02)
    logits[13] = np.log(0.6)
    assert lean.choose(CLOSE_LIST, logits, ALL) == CLOSE_LIST


def test_a_replacement_counts_only_once_the_token_is_fed() -> None:
    lean = _lean(0.3, b"[f(a=1")
    logits = _logits(close_list=0.5, comma_space=0.4)
    assert lean.choose(CLOSE_LIST, logits, ALL) == COMMA_SPACE and lean.continued == 0
    assert lean.choose(CLOSE_LIST, logits, ALL) == COMMA_SPACE  # chosen again (a draft position): not fed yet
    lean.feed(COMMA_SPACE)
    assert lean.continued == 1
    lean.feed(6)  # a token that was no replacement
    assert lean.continued == 1


def test_the_arguments_a_call_went_on_to_are_known_up_to_its_close() -> None:
    vocab = [b"[f(", b"a=", b'"x', b'")]', b'", ', b"b=", b"1", b")]", b"), g(", b"c=2", b")"]
    starting = lambda p: np.array([i for i, b in enumerate(vocab) if b.startswith(p)], dtype=np.intp)  # noqa: E731
    lean = ArgumentLean(lambda t: vocab[t], starting, 0.3)
    logits = np.log(np.array([0.01, 0.01, 0.01, 0.5, 0.4, 0.01, 0.01, 0.01, 0.02, 0.01, 0.01]))
    for token in (0, 1, 2):
        lean.feed(token)
    assert lean.choose(3, logits, ALL) == 4  # '")]' becomes '", ': the string ends, the call goes on
    for token in (4, 5, 6):
        lean.feed(token)
    assert lean.added_tokens() == [(3, 1, 5)]  # open: from the comma (1 byte into token 3) to the last fed
    lean.feed(8)  # "), g(" closes the call
    lean.feed(9)
    lean.feed(10)
    assert lean.added_tokens() == [(3, 1, 6)] and lean.continued == 1


@pytest.mark.parametrize("share", [float("nan"), -0.5])
def test_a_share_that_is_not_a_positive_number_turns_the_rule_off(share: float) -> None:
    logits = _logits(close_list=0.5, comma_space=0.4)
    assert _lean(share, b"[f(a=1").choose(CLOSE_LIST, logits, ALL) == CLOSE_LIST


@pytest.mark.parametrize("name", ["min_call_probability", "min_value_probability", "optional_argument_share"])
@pytest.mark.parametrize("value", [True, "0.3", float("nan"), 1.5, -0.1, [0.3]])
def test_probability_options_are_numbers_from_0_to_1(name: str, value: object) -> None:
    from toolwire.errors import UserError
    from toolwire.models.llamacpp import ChatLlamaCpp

    with pytest.raises(UserError, match=f"{name} must be a number from 0 to 1"):
        ChatLlamaCpp("smollm2-135m", **{name: value})
    assert getattr(ChatLlamaCpp("smollm2-135m", **{name: np.float32(0.25)}), name) == 0.25


@pytest.mark.model
def test_tokens_starting_with_finds_every_token(smol) -> None:
    loaded = smol.load()
    pieces = [loaded.piece(t) for t in range(loaded.llm.n_vocab())]
    for prefix in (b",", b'")', b")", b", ", b"\xe2", b"zzzzzz-none"):
        assert loaded.tokens_starting_with(prefix).tolist() == [t for t, p in enumerate(pieces) if p.startswith(prefix)]


class _ReplaceAt:
    """A stand-in lean that puts ``token`` in place of the greedy choice at step ``at`` (counted in feeds)."""

    def __init__(self, at: int, token: int) -> None:
        self.at, self.token, self.fed, self.greedy = at, token, 0, None

    def feed(self, token: int) -> None:
        self.fed += 1

    def choose(self, token: int, logits, grammar) -> int:
        if self.fed == self.at:
            self.greedy = token
            return self.token
        return token


@pytest.mark.model
def test_a_replaced_token_is_recorded_as_sure_as_the_one_it_replaced(smol) -> None:
    import llama_cpp

    from toolwire.models._decoding import greedy_tokens

    loaded = smol.load()
    prompt = loaded.tokenize("<|im_start|>user\nSay hello.<|im_end|>\n<|im_start|>assistant\n")
    other = loaded.tokenize(" zebra", bos=False)[0]
    lean = _ReplaceAt(3, other)
    candidates: list[dict[int, float]] = []
    stream = greedy_tokens(llama_cpp, loaded.llm, prompt, is_eog=loaded.is_eog, draft_tokens=0,
                           candidates=candidates, lean=lean)  # type: ignore[arg-type]
    out = [t for _, t in zip(range(6), stream, strict=False)]
    stream.close()
    assert out[3] == other and lean.greedy is not None and lean.greedy != other
    assert candidates[3][other] == candidates[3][lean.greedy] > 0.0


@pytest.mark.model
def test_the_rule_goes_on_at_the_same_places_with_and_without_drafts(smol) -> None:
    from toolwire.models.llamacpp import ChatLlamaCpp

    question = [HumanMessage("Hotels in Paris, in Oslo and in Rome?")]

    def ask(drafts: int):
        model = ChatLlamaCpp("smollm2-135m", dialect="pythonic", optional_argument_share=1e-6, draft_tokens=drafts)
        return model.bind_tools([find_hotels], tool_choice="required").invoke(question, max_tokens=120)

    plain, drafted = ask(0), ask(8)
    assert plain.response_metadata.get("calls_continued", 0) >= 1
    # the same calls going on at the same places; a value the rule led to may differ, since a batch's logits
    # differ a little from one token's (see toolwire.models._decoding) and the model hesitates there
    assert [(c["name"], sorted(c["args"])) for c in plain.tool_calls] == [
        (c["name"], sorted(c["args"])) for c in drafted.tool_calls]
    assert plain.response_metadata.get("calls_continued") == drafted.response_metadata.get("calls_continued")


@pytest.mark.model
def test_the_embedded_model_passes_the_optional_arguments_it_hesitated_over(smol) -> None:
    from toolwire.models.llamacpp import ChatLlamaCpp

    question = [HumanMessage("Find a hotel in Rome.")]

    def ask(share: float):
        model = ChatLlamaCpp("smollm2-135m", dialect="pythonic", optional_argument_share=share)
        return model.bind_tools([find_hotels], tool_choice="required").invoke(question, max_tokens=60)

    plain, leaning = ask(0.0), ask(1e-6)
    assert "calls_continued" not in plain.response_metadata
    assert leaning.response_metadata.get("calls_continued", 0) >= 1
    before, after = plain.tool_calls[0]["args"], leaning.tool_calls[0]["args"]
    assert set(before) < set(after) and all(after[k] == v for k, v in before.items())
    # flags (never refused) only: a string or number the call went on to must be in the conversation
    assert all(isinstance(after[k], bool) for k in set(after) - set(before))


@pytest.mark.model
def test_a_number_the_call_went_on_to_that_the_request_never_gave_is_refused(smol) -> None:
    from toolwire.models.llamacpp import ChatLlamaCpp

    @tool
    def rate_hotels(city: str, stars: int | None = None) -> str:
        """Find hotels.

        Args:
            city: the city.
            stars: the least number of stars.
        """
        return "none"

    question = [HumanMessage("Find a hotel in Rome.")]

    def ask(share: float):
        model = ChatLlamaCpp("smollm2-135m", dialect="pythonic", optional_argument_share=share)
        return model.bind_tools([rate_hotels], tool_choice="required").invoke(question, max_tokens=60)

    plain, leaning = ask(0.0), ask(1e-6)
    # the call went on to a number of stars the question does not hold: made as the model would have closed it
    assert [c["args"] for c in leaning.tool_calls] == [c["args"] for c in plain.tool_calls]
    assert all("stars" not in c["args"] for c in leaning.tool_calls)
    assert "calls_continued" not in leaning.response_metadata
