"""Greedy decoding with prompt-lookup drafts and a lazy grammar (toolwire.models._decoding, issue [6]).

The drafts and the lazy grammar may only make decoding cheaper: the tokens must be those of plain
greedy decoding (llama-cpp-python's own sampler at temperature 0), with and without a grammar.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from _llama_fixtures import calculate, get_weather, smol_fixture  # noqa: F401
from toolwire.messages import HumanMessage
from toolwire.models._decoding import greedy_tokens, lookup_draft
from toolwire.models.grammar import call_grammar

# -- drafts ---------------------------------------------------------------------------------------------


def test_draft_continues_the_latest_earlier_occurrence() -> None:
    history = [1, 2, 3, 4, 5, 9, 1, 2, 3, 7, 8, 0, 2, 3]
    assert lookup_draft(history, max_tokens=3) == [7, 8, 0]  # "2 3" last seen before the end at index 7
    assert lookup_draft([5, 6, 7, 5, 6], max_tokens=8) == [7, 5, 6]
    assert lookup_draft([1, 2, 3, 4], max_tokens=8) == []  # the ending bigram occurs nowhere earlier
    assert lookup_draft([], max_tokens=8) == [] and lookup_draft([1], max_tokens=8) == []


def test_longer_ngrams_win() -> None:
    # "2 3" occurs at 1 (followed by 9) and "1 2 3" at 4 (followed by 8): the trigram's continuation wins
    history = [0, 2, 3, 9, 1, 2, 3, 8, 5, 2, 3, 6, 1, 2, 3]
    assert lookup_draft(history, max_tokens=2) == [8, 5]


@given(st.lists(st.integers(0, 4), max_size=60), st.integers(0, 10))
def test_draft_is_a_real_continuation(history: list[int], size: int) -> None:
    draft = lookup_draft(history, max_tokens=size)
    assert len(draft) <= size
    if draft:  # the draft follows an earlier copy of the history's last two tokens
        assert any(history[i:i + 2] == history[-2:] and history[i + 2:i + 2 + len(draft)] == draft
                   for i in range(len(history) - 2))


# -- same tokens as plain greedy decoding ---------------------------------------------------------------


def _reference(loaded, prompt: list[int], grammar_text: str | None, limit: int) -> list[int]:
    import llama_cpp

    llm = loaded.llm
    llm.reset()
    grammar = llama_cpp.LlamaGrammar.from_string(grammar_text, verbose=False) if grammar_text else None
    out: list[int] = []
    for token in llm.generate(prompt, temp=0.0, repeat_penalty=1.0, grammar=grammar):
        if loaded.is_eog(token) or len(out) >= limit:
            break
        out.append(token)
    return out


def _ours(loaded, prompt: list[int], grammar_text: str | None, limit: int, draft: int) -> list[int]:
    import llama_cpp

    grammar = loaded.sampler(grammar_text) if grammar_text else None
    stream = greedy_tokens(llama_cpp, loaded.llm, prompt, grammar=grammar, is_eog=loaded.is_eog, draft_tokens=draft)
    out = []
    for token in stream:
        out.append(token)
        if len(out) >= limit:
            break
    stream.close()
    return out


@pytest.mark.model
@pytest.mark.parametrize("with_grammar", [False, True], ids=["free", "grammar"])
def test_drafts_and_lazy_grammar_give_the_greedy_tokens(smol, with_grammar: bool, monkeypatch) -> None:
    import toolwire.models._decoding as decoding

    drafts: list[list[int]] = []
    real = decoding.lookup_draft
    monkeypatch.setattr(decoding, "lookup_draft", lambda h, **kw: drafts.append(real(h, **kw)) or drafts[-1])
    loaded = smol.load()
    text = ("Cities: Paris, Oslo, Rome. Weather in Paris: sunny. Weather in Oslo: cold. Weather in Rome: warm.\n"
            "Repeat the list of cities and their weather.")
    prompt = loaded.tokenize(f"<|im_start|>user\n{text}<|im_end|>\n<|im_start|>assistant\n")
    grammar = call_grammar([get_weather.spec, calculate.spec], "json", parallel=True) if with_grammar else None
    reference = _reference(loaded, prompt, grammar, 60)
    assert reference
    for draft in (0, 2, 8):
        drafts.clear()
        assert _ours(loaded, prompt, grammar, 60, draft) == reference
        if draft and not with_grammar:  # this reply repeats the prompt: drafts were kept and rejected
            steps, proposed = len(drafts), sum(len(d) for d in drafts)
            kept = len(reference) - 1 - steps  # tokens that took no model step of their own
            assert 0 < kept < proposed, (steps, proposed, kept)
    # a second run reuses the KV cache of the first (the prompt's common prefix) and still agrees
    assert _ours(loaded, prompt, grammar, 60, 8) == reference
    # the next turn of the conversation, after the reply (the KV cache holds prompt + reply + drafts)
    follow = [*prompt, *reference, *loaded.tokenize("<|im_end|>\n<|im_start|>user\nAnd Oslo?<|im_end|>\n"
                                                   "<|im_start|>assistant\n", bos=False)]
    ours = _ours(loaded, follow, grammar, 40, 8)
    assert ours == _reference(loaded, follow, grammar, 40)


@pytest.mark.model
def test_replies_are_the_same_with_and_without_drafts(smol) -> None:
    from toolwire.models.llamacpp import ChatLlamaCpp

    question = [HumanMessage("Weather in Paris, in Oslo and in Rome?")]
    plain = ChatLlamaCpp("smollm2-135m", draft_tokens=0).bind_tools([get_weather], tool_choice="required")
    drafted = ChatLlamaCpp("smollm2-135m", draft_tokens=8).bind_tools([get_weather], tool_choice="required")
    a, b = plain.invoke(question, max_tokens=80), drafted.invoke(question, max_tokens=80)
    assert a.text == b.text and [(c["name"], c["args"]) for c in a.tool_calls] == [
        (c["name"], c["args"]) for c in b.tool_calls]
    assert a.usage["output_tokens"] == b.usage["output_tokens"]


@pytest.mark.model
def test_grammar_accepts_a_call_opening_as_written(smol) -> None:
    loaded = smol.load()
    pythonic = loaded.sampler(call_grammar([get_weather.spec, calculate.spec], "pythonic", parallel=True))
    json_calls = loaded.sampler(call_grammar([get_weather.spec, calculate.spec], "json", parallel=True))
    tokens = lambda text: loaded.tokenize(text, bos=False)  # noqa: E731
    assert pythonic.accepts(tokens('[get_weather(city="Par'))
    assert pythonic.accepts(tokens("[calculate("))
    assert not pythonic.accepts(tokens("get_weather("))  # a bare call: the grammar wants the list
    assert not pythonic.accepts(tokens("[search_web("))  # not a bound tool
    assert json_calls.accepts(tokens('[{"name": "get_weather"'))
    assert not json_calls.accepts(tokens('{"nom": '))
    # the check leaves the grammar at its start: a whole call is still accepted afterwards
    assert pythonic.accepts(tokens('[get_weather(city="Paris")]'))


@pytest.mark.model
def test_token_probabilities_and_a_banned_first_token(smol) -> None:
    import llama_cpp
    import numpy as np

    loaded = smol.load()
    prompt = loaded.tokenize("<|im_start|>user\nName three colours.<|im_end|>\n<|im_start|>assistant\n")
    reference = _reference(loaded, prompt, None, 12)
    steps: list[dict[int, float]] = []
    stream = greedy_tokens(llama_cpp, loaded.llm, prompt, is_eog=loaded.is_eog, draft_tokens=0, candidates=steps,
                           top_k=5)
    tokens = [t for _, t in zip(range(12), stream, strict=False)]
    stream.close()
    assert tokens == reference and len(steps) == len(tokens)
    for token, step in zip(tokens, steps, strict=True):
        assert len(step) == 5 and token in step and step[token] == max(step.values())
        assert all(0.0 < p <= 1.0 for p in step.values()) and sum(step.values()) <= 1.0 + 1e-9
    # the first step holds the softmax of the prompt's last logits at its five best tokens; the logits are
    # taken as greedy_tokens took them (the cached prompt, its last token evaluated alone), since llama.cpp's
    # results move a little with the batch size
    loaded.llm.reset()
    loaded.llm.eval(prompt[:-1])
    loaded.llm.eval(prompt[-1:])
    logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(loaded.llm._ctx.ctx, -1),
                                   shape=(loaded.llm.n_vocab(),)).astype(np.float64)
    soft = np.exp(logits - logits.max())
    soft /= soft.sum()
    order = [int(t) for t in np.argsort(-soft)]
    assert set(steps[0]) == set(order[:5]) and order[0] == tokens[0]
    assert all(abs(steps[0][t] - float(soft[t])) < 1e-6 for t in order[:5])
    # banning tokens makes the reply start with the best one left, and the candidates still tell the
    # banned tokens' probabilities (the model's, before the ban)
    banned: list[dict[int, float]] = []
    stream = greedy_tokens(llama_cpp, loaded.llm, prompt, is_eog=loaded.is_eog, draft_tokens=0, ban=order[:2],
                           candidates=banned, top_k=5)
    third = next(stream)
    stream.close()
    assert third == order[2] and set(banned[0]) == set(order[:5])


def test_a_loaded_model_keeps_only_recent_grammars(smol) -> None:
    from toolwire.models._loaded import _KEEP_GRAMMARS

    loaded = smol.load()
    first = loaded.sampler('root ::= "x0"')
    assert loaded.sampler('root ::= "x0"') is first  # built once
    for i in range(1, _KEEP_GRAMMARS + 2):
        loaded.sampler(f'root ::= "x{i}"')
    assert len(loaded._samplers) == _KEEP_GRAMMARS
    assert first._ptr is None  # the oldest sampler was let go and its llama.cpp memory freed
    again = loaded.sampler('root ::= "x0"')
    assert again is not first and again.accepts(loaded.tokenize("x0", bos=False))


# -- cancelling while the prompt is evaluated (review 73) ---------------------------------------------------------


def _cancelling_eval(llm):  # type: ignore[no-untyped-def]
    """``(batch sizes evaluated, the cancel event, an llm.eval that sets it once a batch is evaluated)``: the
    consumer goes away after the first batch."""
    import threading

    evaluated: list[int] = []
    event = threading.Event()
    real_eval = llm.eval

    def eval_once(tokens: list[int]) -> None:
        evaluated.append(len(tokens))
        real_eval(tokens)
        event.set()

    return evaluated, event, eval_once


@pytest.mark.model
def test_a_cancelled_reply_stops_evaluating_its_prompt_between_batches(smol) -> None:

    import llama_cpp

    from toolwire.models._decoding import GenerationCancelled, cancel_on

    loaded = smol.load()
    llm = loaded.llm
    prompt = llm.tokenize(("word " * 1500).encode())  # three batches of n_batch (512)
    llm.reset()
    evaluated, event, eval_once = _cancelling_eval(llm)
    llm.eval = eval_once
    try:
        with cancel_on(event), pytest.raises(GenerationCancelled):
            next(greedy_tokens(llama_cpp, llm, prompt, is_eog=loaded.is_eog))
    finally:
        del llm.eval
    assert evaluated == [llm.n_batch] and llm.n_tokens == llm.n_batch  # one batch, and the bookkeeping kept
    reference = _reference(loaded, prompt[:40], None, 8)  # the model goes on working, from its cache
    assert _ours(loaded, prompt[:40], None, 8, 2) == reference


@pytest.mark.model
def test_a_cancelled_sampled_reply_stops_evaluating_its_prompt_between_batches(smol) -> None:
    """temperature > 0 goes through Llama.generate, which would evaluate the prompt whole: toolwire evaluates all
    but its last token first, in batches, and a cancelled reply stops there as a greedy one does."""

    from toolwire.models._decoding import GenerationCancelled, cancel_on

    model = smol
    loaded = model.load()
    llm = loaded.llm
    llm.reset()
    evaluated, event, eval_once = _cancelling_eval(llm)
    request = model._request("word " * 1500, {"temperature": 0.8, "seed": 7, "max_tokens": 4})
    llm.eval = eval_once
    try:
        with cancel_on(event), pytest.raises(GenerationCancelled):
            list(model._stream(request))
    finally:
        del llm.eval
    assert evaluated == [llm.n_batch] and llm.n_tokens == llm.n_batch
    # not cancelled: the rest of the prompt but its last token in batches, then generate evaluates that token only
    real_generate = llm.generate
    prompts: list[int] = []

    def generate(tokens, **kw):  # type: ignore[no-untyped-def]
        prompts.append(len(tokens))
        evaluated.append(-1)  # where generate starts
        yield from real_generate(tokens, **kw)

    llm.eval, llm.generate = eval_once, generate
    event.clear()
    evaluated.clear()
    try:
        reply = "".join(chunk.text for chunk in model._stream(request))
    finally:
        del llm.eval, llm.generate
    before = evaluated[: evaluated.index(-1)]
    assert max(before) <= llm.n_batch and sum(before) == prompts[0] - 1 - llm.n_batch  # the first batch was kept
    assert evaluated[evaluated.index(-1) + 1] == 1 and isinstance(reply, str)


@pytest.mark.model
def test_a_cancelled_reply_stops_evaluating_its_system_turn_between_batches(smol) -> None:
    """review 150 #1: with the disk prompt cache on (the default), the system turn with the tools was evaluated in one
    call that no cancellation stopped (55 s with 30 tools)."""
    import time

    from toolwire import tool
    from toolwire.models._decoding import GenerationCancelled, cancel_on

    stamp = time.time_ns()  # (a system turn no earlier run stored on disk)

    def make(i: int):  # type: ignore[no-untyped-def]
        def lookup(query: str, limit: int = 5) -> str:
            return query

        lookup.__name__ = f"lookup_{i}"
        lookup.__doc__ = f"Look up {stamp} records of kind {i} matching a query, best first, in the archive."
        return tool(lookup)

    bound = smol.bind_tools([make(i) for i in range(30)])
    assert bound.prompt_cache
    llm = smol.load().llm
    llm.reset()
    evaluated, event, eval_once = _cancelling_eval(llm)
    request = bound._request("hi", {"max_tokens": 2})
    llm.eval = eval_once
    try:
        with cancel_on(event), pytest.raises(GenerationCancelled, match="tools' part of its prompt"):
            list(bound._stream(request))
    finally:
        del llm.eval
    assert evaluated == [llm.n_batch] and llm.n_tokens == llm.n_batch
