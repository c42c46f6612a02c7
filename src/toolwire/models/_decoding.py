"""Greedy decoding for the embedded model, with prompt-lookup drafts and a lazily applied grammar.

At temperature 0 a reply is the argmax token at every step (the one exception: with a ``lean``, where a
pythonic tool call would close and the model nearly goes on with another argument, see
:mod:`toolwire.models._argument_lean`). Two things make that cheaper than llama-cpp-python's general sampler
chain, choosing the same tokens by the same rule (argmax):

* **Prompt-lookup drafts** (speculative decoding with the conversation as the draft model, after
  Saxena's "prompt lookup decoding", also in llama.cpp as ``--lookup``): tool calls and answers copy a
  lot of text from the prompt (tool names, parameter names, values from the question, results). When
  the last few tokens also occur earlier in the prompt or reply, the tokens that followed them there
  are proposed as a draft and checked in one batch: the model scores the draft positions together,
  and every draft token that equals the argmax is kept; a wrong draft changes nothing. On a CPU a
  batch is not free: on the 2-core development machine a step of qwen2.5-coder-1.5b took 73 ms for
  one token and 131 ms for three, so each draft token costs about 0.4 of a step and drafts pay only
  when they are mostly right. Replaying 32 BFCL replies of that model offline, the best setting was
  drafts of at most 2 tokens after a 2- to 4-token match (about 0.8 of the plain decoding time);
  longer drafts were slower (``benchmarks/draft_replay.py`` collects and replays such replies).
* **Lazy grammar**: a GBNF grammar (llama.cpp's grammar sampler) is checked on the argmax token only;
  the whole vocabulary is masked only when that token is not allowed, as llama.cpp's own common
  sampler does. The argmax of the allowed tokens is the same either way.

One caveat, from llama.cpp itself: logits computed in a batch of several tokens (a draft being checked,
a prefix evaluated apart from the rest of the prompt) can differ from those of one token at a time in
the last floating-point bits, so where two tokens are nearly tied the choice can flip. The tests
compare whole replies with plain greedy decoding on the tiny model; on qwen2.5-coder-1.5b one free-text
answer of the book's third question changed wording when drafts were used on free text (they now are
used only inside tool calls, where they were measured to save time).

This module drives llama-cpp-python's low-level API (``llama_decode`` on a batch with logits at every
position, ``llama_get_logits_ith``, ``llama_sampler_*`` for the grammar) and keeps the ``Llama``
object's own bookkeeping (``input_ids``, ``n_tokens``) right, so that its KV-cache reuse keeps working.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any, Protocol

import numpy as np

from toolwire.models._cancel import GenerationCancelled, cancel_on, cancelled, stop_if_cancelled

__all__ = [
    "GenerationCancelled", "GrammarSampler", "Lean", "cancel_on", "cancelled", "evaluate_prompt", "greedy_tokens",
    "lookup_draft", "sampled_tokens",
]


class Lean(Protocol):
    """What :func:`greedy_tokens` asks of a ``lean`` (:class:`~toolwire.models._argument_lean.ArgumentLean`,
    :class:`~toolwire.models._call_lean.CallLean`, or :class:`~toolwire.models._call_lean.Leans` of them)."""

    def feed(self, token: int) -> None:
        """Move past ``token``, a token of the reply."""

    def choose(self, token: int, logits: np.ndarray, grammar: GrammarSampler | None) -> int:
        """The token to take at this step instead of ``token``, the greedy grammar-allowed one."""


_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])


def lookup_draft(history: Sequence[int], *, max_ngram: int = 4, min_ngram: int = 2,
                 max_tokens: int = 2) -> list[int]:
    """Propose the tokens that followed the latest earlier occurrence of the last n tokens of ``history``.

    Args:
        history: token ids, prompt then reply so far.
        max_ngram, min_ngram: the n-gram lengths tried, longest first (tokens).
        max_tokens: the most draft tokens returned.

    Returns:
        Up to ``max_tokens`` token ids; empty when no n-gram of ``history``'s end occurs earlier.
    """
    size = len(history)
    for n in range(max_ngram, min_ngram - 1, -1):
        if size <= n:
            continue
        pattern = list(history[size - n:])
        first = pattern[0]
        for start in range(size - n - 1, -1, -1):
            if history[start] == first and list(history[start:start + n]) == pattern:
                return list(history[start + n:start + n + max_tokens])
    return []


class GrammarSampler:
    """A llama.cpp grammar (GBNF) as a sampler: checks one token cheaply, masks all tokens when needed.

    Args:
        llama_cpp: the ``llama_cpp`` module.
        vocab: the model's ``llama_vocab`` pointer.
        grammar: GBNF text with a ``root`` rule.

    Raises:
        ValueError: llama.cpp refused the grammar.
    """

    def __init__(self, llama_cpp: Any, vocab: Any, grammar: str) -> None:
        self._lib = llama_cpp
        self._ptr = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root")
        if not self._ptr:
            raise ValueError("llama.cpp refused the grammar")
        self._vocab = vocab
        self._grammar = grammar
        self._one = (llama_cpp.llama_token_data * 1)()
        self._one_array = llama_cpp.llama_token_data_array(data=self._one, size=1, selected=-1, sorted=False)
        self._all: np.ndarray | None = None
        self.history: list[int] = []  # the tokens accepted since the last reset

    def reset(self) -> None:
        """Go back to the grammar's start (before a new reply)."""
        self._lib.llama_sampler_reset(self._ptr)
        self.history.clear()

    def restore(self, history: Sequence[int]) -> None:
        """Put the grammar back where it was after accepting ``history`` from its start (another reply
        used it meanwhile); a sampler freed meanwhile (:meth:`close`) is made again first."""
        if self._ptr is None:
            self._ptr = self._lib.llama_sampler_init_grammar(self._vocab, self._grammar.encode("utf-8"), b"root")
            if not self._ptr:  # never expected: the same grammar was accepted before
                raise ValueError("llama.cpp refused the grammar")
        elif list(history) == self.history:
            return
        self.reset()
        for token in list(history):
            self.accept(token)

    def allows(self, token: int, logit: float) -> bool:
        """Whether the grammar allows ``token`` next (end-of-generation tokens only once it is complete)."""
        self._one[0].id = token
        self._one[0].logit = logit
        self._one[0].p = 0.0
        self._one_array.size = 1
        self._one_array.selected = -1
        self._lib.llama_sampler_apply(self._ptr, ctypes.byref(self._one_array))
        return bool(np.isfinite(self._one[0].logit))

    def accepts(self, tokens: Sequence[int]) -> bool:
        """Whether the grammar, from its start, accepts ``tokens`` in order (it is left at its start)."""
        self.reset()
        try:
            for token in tokens:
                if not self.allows(token, 0.0):
                    return False
                self.accept(token)
            return True
        finally:
            self.reset()

    def best(self, logits: np.ndarray) -> int:
        """The allowed token with the highest logit (the whole vocabulary masked by the grammar)."""
        if self._all is None or len(self._all) != len(logits):
            self._all = np.zeros(len(logits), dtype=_TOKEN_DATA)
            self._all["id"] = np.arange(len(logits), dtype=np.int32)
        data = self._all
        data["logit"] = logits
        array = self._lib.llama_token_data_array(
            data=data.ctypes.data_as(ctypes.POINTER(self._lib.llama_token_data)), size=len(data), selected=-1,
            sorted=False)
        self._lib.llama_sampler_apply(self._ptr, ctypes.byref(array))
        return int(np.argmax(data["logit"]))

    def accept(self, token: int) -> None:
        """Advance the grammar past ``token``."""
        self._lib.llama_sampler_accept(self._ptr, token)
        self.history.append(token)

    def close(self) -> None:
        """Free the llama.cpp sampler (idempotent)."""
        if self._ptr:
            self._lib.llama_sampler_free(self._ptr)
            self._ptr = None

    def __del__(self) -> None:  # pragma: no cover - interpreter shutdown order varies
        with contextlib.suppress(Exception):
            self.close()


def evaluate_prompt(llm: Any, prompt: Sequence[int], *, fresh_logits: bool = True) -> None:
    """Bring ``llm``'s KV cache to hold exactly ``prompt``: keep the cached common prefix, evaluate the rest.

    The rest is evaluated in the batches of ``n_batch`` tokens that ``Llama.eval`` makes (so the logits are the
    same), and before each batch a cancelled reply (:func:`cancel_on`) stops it (review 73: a cancelled ``ainvoke``
    held the model for its whole prompt, 65 s with 30 tools).

    Args:
        llm: a loaded ``llama_cpp.Llama``.
        prompt: the token ids the cache must hold (not empty).
        fresh_logits: evaluate at least the last token, so that the logits are its own; False when the caller
            evaluates more tokens after these (``Llama.generate`` always evaluates the prompt's last token).

    Raises:
        GenerationCancelled: the reply was cancelled; the cache keeps the batches evaluated so far.
    """
    common = 0
    for a, b in zip(llm.input_ids[: llm.n_tokens], prompt, strict=False):
        if a != b:
            break
        common += 1
    if fresh_logits:
        common = min(common, len(prompt) - 1)
    if common and not llm._ctx.kv_cache_seq_rm(-1, common, -1):
        common = 0  # a memory that cannot drop its last positions (recurrent models): start again
    llm.n_tokens = common
    llm._requires_eval = True
    rest = list(prompt[common:])
    for start in range(0, len(rest), llm.n_batch):
        if cancelled():
            raise GenerationCancelled("The reply was cancelled while its prompt was evaluated.")
        llm.eval(rest[start:start + llm.n_batch])


def greedy_tokens(
    llama_cpp: Any,
    llm: Any,
    prompt: Sequence[int],
    *,
    grammar: GrammarSampler | None = None,
    is_eog: Callable[[int], bool],
    draft_tokens: int = 2,
    forced: Sequence[int] = (),
    candidates: list[dict[int, float]] | None = None,
    ban: Collection[int] = (),
    top_k: int = 16,
    lean: Lean | None = None,
) -> Iterator[int]:
    """Generate the argmax token at each step after ``prompt`` (``lean`` aside), until an end-of-generation token.

    The caller stops early by closing the iterator (``max_tokens``, stop strings); a cancelled reply
    (:func:`~toolwire.models._cancel.cancel_on`) stops before its next token, raising
    :class:`~toolwire.models._cancel.GenerationCancelled`.

    Args:
        llama_cpp: the ``llama_cpp`` module.
        llm: a loaded ``llama_cpp.Llama``; its KV cache is reused for the longest common prefix.
        prompt: the prompt's token ids.
        grammar: constrain the reply (reset here before use), or None.
        is_eog: whether a token ends generation.
        draft_tokens: the most prompt-lookup draft tokens checked per step (0: plain greedy decoding).
        forced: tokens of the reply already written (the opening of a tool call found while generating
            without the grammar): evaluated with the prompt and accepted by the grammar, not yielded.
            The grammar must accept them (see :meth:`GrammarSampler.accepts`).
        candidates: when given, just before each token is yielded, a dict ``{token id: probability}`` of
            the ``top_k`` most likely tokens at that step and the chosen one is appended to it
            (probabilities: softmax of the logits at temperature 1, before any grammar or ``ban``).
        ban: tokens that may not be the reply's first token (the most likely other token is taken).
        top_k: how many tokens ``candidates`` holds per step (besides the chosen one).
        lean: may replace the greedy token where a pythonic call would close (see
            :class:`~toolwire.models._argument_lean.ArgumentLean`) or a call list would close
            (:class:`~toolwire.models._call_lean.CallLean`); fed every token of the reply, ``forced`` too.

    Yields:
        Token ids, end-of-generation excluded.
    """
    ctx = llm._ctx.ctx
    n_vocab = llm.n_vocab()
    # llama.cpp may round the context up (n_ctx=300 gives 512), while llama-cpp-python's input_ids holds the n_ctx
    # asked for: the smaller bounds the tokens a batch may write (review 73: a batch of a token and its drafts
    # past the end of input_ids failed, "could not broadcast input array from shape (3,) into shape (2,)")
    n_ctx = min(llm.n_ctx(), len(llm.input_ids))
    if grammar is not None:
        grammar.reset()
        for token in forced:
            grammar.accept(token)
    if lean is not None:
        for token in forced:
            lean.feed(token)
    prompt = [*prompt, *forced]

    def pick(index: int, banned: Collection[int] = ()) -> int:
        raw = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx, index), shape=(n_vocab,))
        logits = raw
        if banned:
            logits = raw.copy()
            logits[list(banned)] = -np.inf
        token = int(np.argmax(logits))
        if grammar is not None and not grammar.allows(token, float(logits[token])):
            token = grammar.best(logits)
        greedy = token
        if lean is not None:
            token = lean.choose(token, logits, grammar)
        if candidates is not None:
            peak = float(np.max(raw))
            total = float(np.exp(raw.astype(np.float64) - peak).sum())
            top = np.argpartition(raw, -top_k)[-top_k:] if 0 < top_k < n_vocab else np.arange(n_vocab)
            step[0] = {int(t): math.exp(float(raw[t]) - peak) / total for t in {*top.tolist(), token, greedy}}
            if token != greedy:  # the lean's token (``",`` ending a string value) is as sure as the one it replaced
                step[0][token] = max(step[0][token], step[0][greedy])
        return token

    step: list[dict[int, float]] = [{}]  # the candidates of the token ``pick`` returned last

    evaluate_prompt(llm, prompt)
    history = list(prompt)
    token = pick(-1, ban)
    while True:
        if is_eog(token):
            return
        if grammar is not None:
            grammar.accept(token)
        if lean is not None:
            lean.feed(token)
        if candidates is not None:
            candidates.append(step[0])
        yield token
        stop_if_cancelled()  # nobody waits for this reply any more (an interrupted batch: review 113)
        history.append(token)
        n_past = llm.n_tokens
        room = n_ctx - n_past - 1
        if room < 0:
            return
        limit = min(draft_tokens, room, llm.n_batch - 1)  # a batch holds at most n_batch tokens
        draft = lookup_draft(history, max_tokens=limit) if limit > 0 else []
        batch = [token, *draft]
        llm._batch.set_batch(batch=batch, n_past=n_past, logits_all=True)
        llm._ctx.decode(llm._batch)
        llm.input_ids[n_past:n_past + len(batch)] = batch
        llm.n_tokens = n_past + len(batch)
        llm._requires_eval = True  # llama-cpp-python's generate() must not sample from these logits
        agreed: list[tuple[int, dict[int, float]]] = []  # the draft tokens that are the argmax, with candidates
        token = pick(0)
        while len(agreed) < len(draft) and token == draft[len(agreed)] and not is_eog(token):
            if grammar is not None:
                grammar.accept(token)
            if lean is not None:
                lean.feed(token)
            agreed.append((token, step[0]))
            token = pick(len(agreed))
        history.extend(t for t, _ in agreed)
        if len(agreed) < len(draft):  # drop the rejected draft from the KV cache
            llm.n_tokens = n_past + 1 + len(agreed)
            if not llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1):
                # a memory that cannot drop its last positions (recurrent models): evaluate what was kept
                # again (the last logits are then those of ``token``'s position) and stop drafting
                draft_tokens = 0
                llm.n_tokens = 0
                llm.eval(history)
        # the agreed tokens are yielded only now that the KV cache holds exactly ``history``: no logits are
        # read after a yield, so another reply may use the model while this one is paused (see _turns.py)
        for kept, kept_candidates in agreed:
            if candidates is not None:
                candidates.append(kept_candidates)
            yield kept


def sampled_tokens(llm: Any, prompt: Sequence[int], options: dict[str, Any], temperature: float,
                   grammar: Any = None) -> Iterator[int]:
    """Sample a reply after ``prompt`` with ``Llama.generate`` (end-of-generation tokens included: the caller stops).

    The prompt but its last token is evaluated first by :func:`evaluate_prompt`, and a cancelled reply
    (:func:`~toolwire.models._cancel.cancel_on`) stops there between batches, and before each token after.

    Args:
        llm: a loaded ``llama_cpp.Llama``.
        prompt: the prompt's token ids.
        options: the generation options (``top_k``, ``top_p``, ``min_p``, ``repeat_penalty``; llama.cpp's
            defaults where missing).
        temperature: the sampling temperature (> 0).
        grammar: a ``llama_cpp.LlamaGrammar`` constraining the reply, or None.

    Yields:
        Token ids.

    Raises:
        GenerationCancelled: the reply was cancelled.
    """
    if len(prompt) > 1:
        evaluate_prompt(llm, prompt[:-1], fresh_logits=False)
    stream = llm.generate(
        prompt, temp=temperature, top_k=int(options.get("top_k", 40)), top_p=float(options.get("top_p", 0.95)),
        min_p=float(options.get("min_p", 0.05)), repeat_penalty=float(options.get("repeat_penalty", 1.0)),
        grammar=grammar)
    try:
        for token in stream:
            yield token
            stop_if_cancelled()
    finally:
        stream.close()
