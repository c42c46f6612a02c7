"""Loading a GGUF model into this process, and what every reply needs from it (re-exported by
:mod:`toolwire.models.llamacpp`).

:func:`load_model` shares one :class:`LoadedModel` per resolved file path and ``n_ctx`` among everything that
holds it (``ChatLlamaCpp`` objects and their ``bind_tools`` copies, replies in progress): the cache holds it weakly, so
when the last holder lets go (``ChatLlamaCpp.close()``, or the object is garbage-collected) its llama.cpp context and
weights are freed at once. The model used last is held as well (one model), so that a ``ChatLlamaCpp`` made per
question does not load the file again; ``close()`` lets that hold go too. Those still loaded are freed at exit, before
llama-cpp-python's own finalisers would fail, except one a reply is still running on (a daemon thread inside
llama.cpp), which is left to the operating system. Replies take turns on a model (:mod:`toolwire.models._turns`),
since a llama.cpp context holds one reply's state at a time.
"""

from __future__ import annotations

import atexit
import bisect
import contextlib
import ctypes
import dataclasses
import json
import os
import threading
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from toolwire._extras import install_hint
from toolwire.errors import MissingExtraError, ProviderError, UserError
from toolwire.models._cancel import stop_if_cancelled
from toolwire.models._decoding import GrammarSampler
from toolwire.models._gguf import _GGUF_TEXT_MAX, gguf_metadata, trained_context  # noqa: F401 (the tests' names)
from toolwire.models._load_interrupt import load_or_interrupt
from toolwire.models._prompt_cache import PromptCache
from toolwire.models._quiet_load import quiet_load
from toolwire.models._recent import _Recent
from toolwire.models._special import Neutraliser, control_strings, template_markup
from toolwire.models._threads import check_n_threads, default_n_threads
from toolwire.models._turns import ModelTurns
from toolwire.models.dialects import CHATML_TEMPLATE, ChatTemplate, Rendered
from toolwire.models.grammar import call_grammar
from toolwire.models.registry import DEFAULT_MODEL, toolwire_home

__all__ = ["LoadedModel", "ReplyState", "check_n_threads", "check_process", "gguf_metadata", "load_model", "release",
           "trained_context"]

_INSTALL = f"Local models need llama-cpp-python, {install_hint('local')}."


def _llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError:
        raise MissingExtraError(_INSTALL) from None
    return llama_cpp


_KEEP_GRAMMARS = 16  # tool sets whose grammar text and samplers a loaded model keeps


@dataclasses.dataclass(slots=True)
class ReplyState:
    """A paused reply's state in a loaded model (see :meth:`LoadedModel.save_state`)."""

    tokens: np.ndarray  # the token ids in the KV cache
    kv: ctypes.Array[ctypes.c_ubyte] | None  # llama.cpp's sequence state (the KV cache); None if refused
    sampler: Any  # llama-cpp-python's sampler chain (a reply at temperature > 0)
    grammars: list[tuple[GrammarSampler, list[int]]]  # each grammar sampler and the tokens it had accepted


class LoadedModel:
    """A llama.cpp model loaded in this process, with what every call needs.

    Attributes:
        llm: the ``llama_cpp.Llama`` object.
        path: the GGUF file.
        turns: whose turn it is on the model (:class:`~toolwire.models._turns.ModelTurns`): a reply's steps
            run one at a time, and a paused reply holds nothing.
        metadata: the GGUF metadata (strings).
        trained_context: the most tokens the model was trained to attend to (:func:`trained_context`), or None.
        template: the chat template text (the GGUF's, else ChatML).
        load_seconds: how long loading took (seconds).
        neutraliser: defuses the model's control tokens and its template's markup inside message text
            before rendering (:mod:`toolwire.models._special`: message text must never end a turn).
        pid: the process that loaded it; a child of ``os.fork()`` cannot run it (:func:`check_process`).

    Its llama.cpp context and weights (and grammar samplers) are freed when the object is (once nothing holds it:
    the cache of :func:`load_model` holds it weakly), or at exit.
    """

    def __init__(self, llm: Any, path: Path, load_seconds: float) -> None:
        self.llm = llm
        self.path = path
        self.pid = os.getpid()
        self.turns = ModelTurns()
        self.metadata: dict[str, str] = dict(getattr(llm, "metadata", {}) or {})
        self.template = self.metadata.get("tokenizer.chat_template") or CHATML_TEMPLATE
        self.trained_context = trained_context(self.metadata)
        self.load_seconds = load_seconds
        self._file_id = _file_identity(path)  # which file was loaded, for the prompt cache's key
        # per tool set: an evaluation offers a new tool set with nearly every item, so these keep the
        # most recently used ones only (a sampler's llama.cpp memory is freed when it leaves)
        self.grammar_texts: _Recent[Any, str | None] = _Recent(_KEEP_GRAMMARS)
        self._samplers: _Recent[str, GrammarSampler] = _Recent(_KEEP_GRAMMARS, on_drop=GrammarSampler.close)
        self._llama_grammars: _Recent[str, Any] = _Recent(_KEEP_GRAMMARS)
        self._prompt_cache: PromptCache | None = None
        self._neutraliser: Neutraliser | None = None
        self._pieces: dict[int, bytes] = {}
        self._sorted_pieces: tuple[list[bytes], np.ndarray] | None = None  # for tokens_starting_with
        self._end_tokens: np.ndarray | None = None  # for end_tokens
        llama_cpp = _llama_cpp()
        self._token_to_piece = llama_cpp.llama_token_to_piece
        self._vocab = llm._model.vocab
        self._is_eog = llama_cpp.llama_vocab_is_eog
        self.add_bos = bool(llama_cpp.llama_vocab_get_add_bos(self._vocab))
        self.bos = llm.token_bos()
        self.chat_template = ChatTemplate(self.template, bos_token=self._piece(self.bos),
                                          eos_token=self._piece(llm.token_eos()))
        # freed with this object (review 283 #1); at exit _close_models frees what is left, in this process only
        self._finalizer = weakref.finalize(self, _free, llm, self._samplers, self.pid)
        self._finalizer.atexit = False

    def _piece(self, token: int) -> str:
        if token is None or token < 0:
            return ""
        return self.piece(token).decode("utf-8", "replace")

    def piece(self, token: int) -> bytes:
        """Return the bytes of one ``token`` (an id) as generated text (special tokens written out, no space cut)."""
        cached = self._pieces.get(token)
        if cached is None:
            size = 64
            while True:
                buf = ctypes.create_string_buffer(size)
                n = self._token_to_piece(self._vocab, token, buf, size, 0, True)
                if n >= 0:
                    cached = buf.raw[:n]
                    break
                size = -n + 1
            self._pieces[token] = cached
        return cached

    def tokens_starting_with(self, prefix: bytes) -> np.ndarray:
        """Return the ids (a NumPy integer array, ascending) of every token whose bytes (:meth:`piece`) start with
        ``prefix``. The first call sorts the whole vocabulary's pieces (about 150,000 tokens for Qwen2.5,
        under a second); later ones search that order (microseconds plus the matches)."""
        if self._sorted_pieces is None:
            order = sorted(range(self.llm.n_vocab()), key=self.piece)
            self._sorted_pieces = ([self.piece(t) for t in order], np.array(order, dtype=np.intp))
        pieces, ids = self._sorted_pieces
        start = bisect.bisect_left(pieces, prefix)
        end = start
        while end < len(pieces) and pieces[end].startswith(prefix):
            end += 1
        return np.sort(ids[start:end])

    def prompt_cache(self) -> PromptCache | None:
        """Return the disk cache of this model's prompt prefixes (``$TOOLWIRE_HOME/prompt-cache``); None when there
        is no home folder to keep it in (HOME unset: the cache is only a saving, so the model runs without it)."""
        if self._prompt_cache is None:
            try:
                folder = toolwire_home() / "prompt-cache"
                key = PromptCache.key_for(self.path, self.llm.n_ctx(), _llama_cpp())
            except (UserError, OSError):  # (the file gone since it was loaded: its key cannot be known)
                return None
            loaded_file = getattr(self, "_file_id", None)
            if loaded_file is not None and _file_identity(self.path) != loaded_file:  # the file on disk is not the
                return None  # one loaded (replaced since): its key would name other weights (review 138)
            self._prompt_cache = PromptCache(folder, key)
        return self._prompt_cache

    def sampler(self, grammar: str) -> GrammarSampler:
        """Return the llama.cpp grammar sampler of GBNF ``grammar`` (built once; reset before each use).

        Raises:
            ValueError: llama.cpp refused the grammar.
        """
        return self._samplers.get_or_make(grammar, lambda: GrammarSampler(_llama_cpp(), self._vocab, grammar))

    def call_grammar(self, tools: Sequence[Any], fmt: str, parallel: bool, signature: bool) -> str | None:
        """The GBNF text constraining calls of ``tools`` (ToolSpecs) in ``fmt``
        (:func:`toolwire.models.grammar.call_grammar`), kept per tool set with the most recent ones; None when
        llama.cpp refuses it (never expected: calls are then unconstrained rather than crash llama.cpp)."""
        key = (tuple((t.name, json.dumps(t.parameters, sort_keys=True, default=str)) for t in tools), fmt, parallel,
               signature)
        if key not in self.grammar_texts:
            text: str | None = call_grammar(tools, fmt, parallel=parallel, signature=signature)
            try:
                self.sampler(text)
            except ValueError:
                text = None
            self.grammar_texts[key] = text
        return self.grammar_texts[key]

    def grammar_samplers(self) -> list[GrammarSampler]:
        """Return the grammar samplers kept (see :meth:`sampler`), least recently used first."""
        return list(self._samplers.values())

    def llama_grammar(self, grammar: str) -> Any:
        """Return GBNF ``grammar`` as llama-cpp-python's ``LlamaGrammar`` (for sampling at temperature > 0)."""
        return self._llama_grammars.get_or_make(
            grammar, lambda: _llama_cpp().LlamaGrammar.from_string(grammar, verbose=False))

    @property
    def end_tokens(self) -> np.ndarray:
        """The ids (a NumPy integer array, ascending) of the tokens that end generation, found among the tokens
        whose written-out piece starts with ``<`` (special tokens: ``<|im_end|>``, ``<|endoftext|>``, ``</s>``...;
        found once, then kept)."""
        if self._end_tokens is None:
            self._end_tokens = np.array([t for t in self.tokens_starting_with(b"<").tolist() if self.is_eog(t)],
                                        dtype=np.intp)
        return self._end_tokens

    def is_eog(self, token: int) -> bool:
        """Return whether ``token`` ends generation (end of turn / end of text)."""
        return bool(self._is_eog(self._vocab, token))

    @property
    def neutraliser(self) -> Neutraliser:
        """The :class:`~toolwire.models._special.Neutraliser` of this model's vocabulary and template (made on
        first use: reading the vocabulary's token attributes takes a moment for 150k tokens)."""
        if self._neutraliser is None:
            control, user_defined = control_strings(_llama_cpp(), self._vocab)
            self._neutraliser = Neutraliser(control, template_markup(self.template, user_defined))
        return self._neutraliser

    def render(self, chat: Rendered, *, add_generation_prompt: bool = True) -> str:
        """Return the prompt text of ``chat`` rendered with the chat template (``add_generation_prompt``: open the
        assistant turn; see :class:`ChatTemplate`).

        The messages' text is defused first (:attr:`neutraliser`): the prompt is tokenized with special
        tokens parsed, so a tool result holding ``<|im_end|>`` would otherwise end its turn and forge the
        next ones. Only the prompt changes, never the messages."""
        return self.chat_template.render(self.neutraliser.rendered(chat), add_generation_prompt=add_generation_prompt)

    def tokenize(self, text: str, *, bos: bool = True) -> list[int]:
        """Return the token ids of ``text`` (special tokens such as ``<|im_start|>`` parsed), with BOS when ``bos``
        is true, the model wants one and the text does not start with it. Message text in ``text`` must have been
        defused (:meth:`render` does it)."""
        tokens = list(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))
        if bos and self.add_bos and self.bos is not None and self.bos >= 0 and tokens[:1] != [self.bos]:
            tokens.insert(0, self.bos)
        return tokens

    def save_state(self) -> ReplyState:
        """Return the state of the reply now in the model, to put back with :meth:`restore_state` after another
        reply used the model: its tokens, a copy of its KV cache (llama.cpp's sequence state, as the disk
        prompt cache keeps it), and its samplers (references, with the tokens each grammar had accepted)."""
        llm = self.llm
        tokens = np.array(llm.input_ids[: llm.n_tokens], copy=True)
        kv: ctypes.Array[ctypes.c_ubyte] | None = None
        if len(tokens):
            llama_cpp = _llama_cpp()
            size = llama_cpp.llama_state_seq_get_size(llm._ctx.ctx, 0)
            buffer = (ctypes.c_ubyte * size)()
            kv = buffer if llama_cpp.llama_state_seq_get_data(llm._ctx.ctx, buffer, size, 0) == size else None
        return ReplyState(tokens, kv, getattr(llm, "_sampler", None),
                          [(sampler, list(sampler.history)) for sampler in self.grammar_samplers()])

    def restore_state(self, state: ReplyState) -> None:
        """Put a reply's ``state`` back as :meth:`save_state` found it (should llama.cpp refuse the KV copy, its
        tokens after the KV cache's common prefix are evaluated again: the same tokens, though logits
        computed in a batch may differ in their last bits).

        Raises:
            ProviderError: llama.cpp failed evaluating the tokens again.
        """
        llm = self.llm
        tokens = state.tokens
        if state.kv is not None:
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)
            llm.n_tokens = 0
            if _llama_cpp().llama_state_seq_set_data(llm._ctx.ctx, state.kv, len(state.kv), 0) == len(state.kv):
                llm.input_ids[: len(tokens)] = tokens
                llm.n_tokens = len(tokens)
            else:  # never expected
                llm.reset()
        current = np.asarray(llm.input_ids[: llm.n_tokens])
        common = min(len(current), len(tokens))
        differ = np.flatnonzero(current[:common] != tokens[:common])
        common = int(differ[0]) if differ.size else common
        if common < llm.n_tokens and not llm._ctx.kv_cache_seq_rm(-1, common, -1):
            llm.reset()  # a memory that cannot drop its last positions (recurrent models): start again
            common = 0
        llm.n_tokens = common
        if common < len(tokens):
            try:
                llm.eval([int(t) for t in tokens[common:]])
            except Exception as exc:
                raise ProviderError(f"llama.cpp failed while generating: {exc}", provider="llamacpp") from exc
        llm._requires_eval = True  # llama-cpp-python's generate() must not sample from these logits
        if hasattr(llm, "_sampler"):
            llm._sampler = state.sampler
        for sampler, history in state.grammars:
            sampler.restore(history)

    def cached_prefix(self, tokens: Sequence[int]) -> int:
        """Return how many leading ``tokens`` (a count of tokens) are already in the KV cache, which
        llama-cpp-python reuses; the last prompt token is always evaluated again."""
        n = 0
        current = self.llm.input_ids[: self.llm.n_tokens]
        for a, b in zip(current, tokens, strict=False):
            if a != b:
                break
            n += 1
        return min(n, max(len(tokens) - 1, 0))

    def system_head(self, chat: Rendered) -> list[int]:
        """Return the tokens of ``chat``'s system turn alone, which carries the offered tools' descriptions; empty when
        there is no system turn or the template refuses a conversation of one system turn."""
        if not chat.messages or chat.messages[0].get("role") != "system":
            return []
        try:
            return self.tokenize(self.render(Rendered(chat.messages[:1], chat.tools), add_generation_prompt=False))
        except UserError:
            return []

    def warm(self, tokens: list[int], size: int, *, reuse_kv: bool = True) -> int:
        """Make the KV cache hold ``tokens[:size]`` (the system turn; ``size`` 0: nothing to keep): from memory,
        else from the disk prompt cache, else by evaluating it now and keeping its state on disk for the next
        process. ``reuse_kv`` False clears the cache first (the same batches, so the same logits, whatever ran
        before).

        Returns:
            How many leading prompt tokens were reused (from memory or disk), not evaluated.

        Raises:
            GenerationCancelled: the reply was cancelled (:func:`~toolwire.models._cancel.cancel_on`); checked before
                each batch of ``n_batch`` tokens, as :func:`~toolwire.models._decoding.evaluate_prompt` does. The
                cache keeps the batches evaluated so far; nothing is stored on disk.
        """
        if not reuse_kv:
            self.llm._ctx.kv_cache_clear()
            self.llm.n_tokens = 0
        have = self.cached_prefix(tokens)
        if size <= 0 or have >= size:
            return have
        llama_cpp = _llama_cpp()
        cache = self.prompt_cache()
        if cache is not None:
            have = cache.restore(llama_cpp, self.llm, tokens, have)
        if have < size:
            self.llm.n_tokens = have
            rest = tokens[have:size]
            for start in range(0, len(rest), self.llm.n_batch):  # Llama.eval's own batches, so the same logits
                stop_if_cancelled("evaluating the tools' part of its prompt")  # (review 150 #1: not before, 55 s)
                self.llm.eval(rest[start:start + self.llm.n_batch])
            if cache is not None:
                cache.store(llama_cpp, self.llm, tokens[:size])
        return have


_MODELS: weakref.WeakValueDictionary[tuple[str, int], LoadedModel] = weakref.WeakValueDictionary()
"""The models loaded, by resolved path and ``n_ctx``: held weakly, so a model nothing else holds is freed (review 283
#1: each ``n_ctx`` kept another copy of the weights for the life of the process)."""
_MODELS_LOCK = threading.Lock()
_HELD: list[LoadedModel] = []
"""The most recently used model, held strongly (review 286 #3): a ``ChatLlamaCpp`` made per question finds it loaded
instead of loading the file again, and at most one model is kept that nothing else holds."""


def _hold(loaded: LoadedModel) -> list[LoadedModel]:
    """Make ``loaded`` the model held (call with ``_MODELS_LOCK`` held); returns the model let go, to drop outside
    the lock (freeing weights takes a moment)."""
    if _HELD and _HELD[0] is loaded:
        return []
    dropped = list(_HELD)
    _HELD[:] = [loaded]
    return dropped


def release(loaded: LoadedModel) -> None:
    """Let go of the hold on ``loaded`` (a :class:`LoadedModel`) when it is the model held (see :func:`load_model`);
    it is then freed at once unless something else holds it. Thread-safe; nothing happens for another model."""
    with _MODELS_LOCK:
        dropped = list(_HELD) if _HELD and _HELD[0] is loaded else []
        if dropped:
            _HELD.clear()
    del dropped


def _free(llm: Any, samplers: _Recent[str, GrammarSampler], pid: int) -> None:
    """Free a loaded model's grammar ``samplers`` and then its ``llm`` (llama.cpp's context and weights), when its
    :class:`LoadedModel` goes; a model another process loaded (``pid``: this one's parent) is left alone."""
    if pid != os.getpid():
        return
    for sampler in list(samplers.values()):
        with contextlib.suppress(Exception):
            sampler.close()
    with contextlib.suppress(Exception):
        llm.close()


def _forked(loaded: LoadedModel) -> bool:
    """Whether ``loaded`` was loaded by another process (this one's parent, before ``os.fork()``)."""
    return getattr(loaded, "pid", None) not in (None, os.getpid())


def check_process(loaded: LoadedModel) -> None:
    """Refuse a model loaded in the process this one was forked from (gunicorn ``--preload``, a 'fork'
    multiprocessing pool): llama.cpp's OpenMP threads do not survive ``os.fork()``, and the child's reply would
    hang for ever (review 207 #3). A model without a recorded ``pid`` passes.

    Raises:
        UserError: ``loaded.pid`` is another process's id.
    """
    pid = getattr(loaded, "pid", None)
    if pid is not None and pid != os.getpid():
        raise UserError(f"The local model {Path(loaded.path).name} was loaded in the process this one was forked from "
                        "(gunicorn --preload, a 'fork' multiprocessing pool), and llama.cpp cannot run it here: load "
                        "the model in each worker, after the fork (gunicorn without --preload, or multiprocessing's "
                        "'spawn' start method).")


def _stepping(loaded: LoadedModel) -> bool:
    """Whether a reply is now running a step on ``loaded`` (inside llama.cpp, maybe on a daemon thread)."""
    holder = getattr(getattr(loaded, "turns", None), "holder", None)
    return bool(holder is not None and holder.stepping)


def _close_at_exit(loaded: LoadedModel) -> None:
    """Free ``loaded`` at exit unless a reply is running a step on it (review 286 #1: a daemon thread, such as the
    one of an ``ainvoke`` that ``asyncio.wait_for`` timed out, may still be inside llama.cpp, and freeing the model
    under it crashed the process): that one is left to the operating system, and its finaliser is detached.

    The model's turn lock is taken and kept: the threads left at exit are daemons, and none may start another step
    on a model freed (or left) here; the thread calling this may still end its own replies (the lock is
    re-entrant). A step another thread is running is waited for, :data:`_EXIT_WAIT` seconds at most (its thread
    then waits in Python for a turn that never comes, out of llama.cpp, which the process's exit tears down: review
    288 #1); only one still running after that is left as it is."""
    finalizer = getattr(loaded, "_finalizer", None)
    turns = getattr(loaded, "turns", None)
    lock = getattr(turns, "changed", None)
    if lock is not None and not lock.acquire(timeout=1.0):  # (held only for a moment by a step's start or end)
        if finalizer is not None:
            finalizer.detach()
        return
    if turns is not None:
        from toolwire.models import _turns

        _turns._EXITING_THREAD[0] = threading.get_ident()
        turns.exiting = True
    deadline = time.monotonic() + _EXIT_WAIT  # (review 288 #1: the step's thread left inside llama.cpp while the
    # process tore llama.cpp's globals down, a crash 1 run in 6: wait for the step to end; its next one cannot begin)
    while lock is not None and _stepping(loaded) and turns.holder.thread != threading.get_ident():  # type: ignore
        left = deadline - time.monotonic()
        if left <= 0:
            break
        lock.wait(left)
    if not _stepping(loaded):
        _free(loaded.llm, getattr(loaded, "_samplers", _Recent(0)), getattr(loaded, "pid", os.getpid()))
    if finalizer is not None:
        finalizer.detach()


_EXIT_WAIT = 5.0  # seconds the exit waits for a step another thread runs on a model (a token; a prompt's evaluation)


@atexit.register
def _close_models() -> None:
    """Free the cached models before interpreter shutdown (llama-cpp-python's finalisers fail later), except one a
    reply is running on (:func:`_close_at_exit`); a child of ``os.fork()`` leaves the models it inherited alone."""
    with _MODELS_LOCK:
        models = {id(loaded): loaded for loaded in [*_MODELS.values(), *_HELD]}
        _MODELS.clear()
        _HELD.clear()
    for loaded in models.values():
        if getattr(loaded, "pid", os.getpid()) == os.getpid():
            with contextlib.suppress(Exception):
                _close_at_exit(loaded)


def _file_identity(path: Path) -> tuple[int, int, int, int] | None:
    """The device, inode, size and ``mtime_ns`` of the file at ``path`` (None when it cannot be read)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def load_model(path: str | os.PathLike[str], *, n_ctx: int = 8192, n_threads: int | None = None,
               n_batch: int = 512, verbose: bool = False, fit: bool = False) -> LoadedModel:
    """Load a GGUF file, or return the model already loaded from it with this ``n_ctx`` (by resolved path; thread-safe).

    The cache holds each model weakly: it is shared while something holds it (a ``ChatLlamaCpp``, the caller's
    reference to the returned object, a reply in progress) and freed, weights and context, when nothing does; the
    next call then loads the file again. The model returned last is also held (one model: review 286 #3), so that a
    ``ChatLlamaCpp`` made per question finds it loaded; loading another file or ``n_ctx`` lets it go first, and
    :func:`release` (``ChatLlamaCpp.close()``) lets it go at once.

    Args:
        path: the GGUF file.
        n_ctx: context size in tokens; more than the model's trained context (:func:`trained_context`, read from the
            GGUF header before llama.cpp allocates anything) is refused, or with ``fit`` (a default, not the caller's
            choice) lowered to it (the model's :attr:`LoadedModel.n_ctx` says which it got).
        n_threads: CPU threads, 1 to 512 (default: all cores, ``os.cpu_count()``, up to 512:
            :func:`~toolwire.models._threads.default_n_threads`). Used only when the model is first loaded.
        n_batch: prompt tokens processed per batch.
        verbose: let llama.cpp print its logs.

    Returns:
        The :class:`LoadedModel` (the same object for the same resolved path and ``n_ctx`` while it is held).

    Raises:
        UserError: llama-cpp-python is missing, or the file is missing or not a loadable GGUF model, or ``n_ctx`` is
            more than it was trained on (without ``fit``), or llama.cpp cannot allocate that context, or ``n_threads``
            is not a whole number from 1 to 512 (:func:`check_n_threads`). A model cached by the process this one was
            forked from is not handed out: this process loads its own.
    """
    n_threads = check_n_threads(n_threads, warn=False)
    llama_cpp = _llama_cpp()
    resolved = Path(path).expanduser().resolve()
    key = (str(resolved), n_ctx)
    with _MODELS_LOCK:
        loaded = _MODELS.get(key)
        if loaded is not None and _forked(loaded):  # (the parent's: a model made in the child loads its own: r. 210 #1)
            loaded = None
        if loaded is not None:
            trained = loaded.trained_context  # (a fitted default is not what an explicit n_ctx asked for)
            if not fit and trained is not None and n_ctx > trained:
                raise _beyond_training(n_ctx, trained, resolved)
            _dropped = _hold(loaded)
            return loaded
        if not resolved.is_file():
            from toolwire.models.registry import model_file

            model_file(resolved)  # raises: a folder, or nothing there
        threads = n_threads or default_n_threads()  # (all cores, held to 512 like a given value: review 208 #2)
        start = time.perf_counter()
        size = n_ctx
        header = trained_context(gguf_metadata(resolved) or {})  # before llama.cpp allocates a KV cache of n_ctx
        if header is not None and n_ctx > header:  # tokens (review 138: GBs to refuse n_ctx=120000)
            if not fit:
                raise _beyond_training(n_ctx, header, resolved)
            size = header  # (review 111: a default above it was refused)
            fitted = _MODELS.get((str(resolved), size))
            if fitted is not None and not _forked(fitted):
                _MODELS[key] = fitted
                _dropped = _hold(fitted)
                return fitted
        _HELD.clear()  # (the model held before: freed first, unless something else holds it, so at most one is kept)
        llm = _llama(llama_cpp, resolved, size, threads, n_batch, verbose)
        loaded = LoadedModel(llm, resolved, time.perf_counter() - start)
        trained = loaded.trained_context
        if trained is not None and size > trained:  # (review 110) the header was not read: llama.cpp's metadata says
            llm.close()
            if not fit:
                raise _beyond_training(n_ctx, trained, resolved)
            loaded = LoadedModel(_llama(llama_cpp, resolved, trained, threads, n_batch, verbose), resolved,
                                 time.perf_counter() - start)
            size = trained
        if size != n_ctx:
            _MODELS.setdefault((str(resolved), size), loaded)  # (an explicit n_ctx of that size shares it)
        _MODELS[key] = loaded
        _dropped = _hold(loaded)
        return loaded


def _beyond_training(n_ctx: int, trained: int, path: Path) -> UserError:
    """The error for an ``n_ctx`` larger than the ``trained`` context of the model at ``path``; its ``beyond_training``
    attribute, ``(n_ctx, trained, file name)``, lets the command line say it with ``--n-ctx`` (review 150 #3)."""
    error = UserError(f"n_ctx={n_ctx} is more than the {trained} tokens {path.name} was trained on, so the model "
                      f"cannot use the rest: pass n_ctx={trained} or less.")
    error.beyond_training = (n_ctx, trained, path.name)  # type: ignore[attr-defined]
    return error


def _llama(llama_cpp: Any, path: Path, n_ctx: int, threads: int, n_batch: int, verbose: bool) -> Any:
    """``llama_cpp.Llama`` on ``path`` with a context of ``n_ctx`` tokens.

    Raises:
        UserError: not a loadable GGUF model (the message says to download it again, check its sha256, or use a
            registry name: review 138), or a context llama.cpp cannot allocate (named as such).
    """
    try:
        with quiet_load(llama_cpp, verbose):  # (not other threads' output to /dev/null meanwhile: review 286 #4)
            return load_or_interrupt(lambda: llama_cpp.Llama(  # (a Ctrl-C during the load stops it: review 274 #1)
                str(path), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads, n_batch=n_batch, verbose=verbose))
    except (ValueError, RuntimeError, OSError) as exc:
        if "llama_context" in str(exc):  # the weights loaded; the KV cache for n_ctx tokens did not (memory)
            raise UserError(f"llama.cpp could not make a context of n_ctx={n_ctx} tokens for {path.name} ({exc}), "
                            "most often for lack of memory: pass a smaller n_ctx.") from None
        raise UserError(f"Cannot load {path.name} as a llama.cpp model ({exc}): it is not a complete GGUF model this "
                        "llama-cpp-python can run (cut short, damaged, another format or a newer architecture), so "
                        "download it again and check it against its source's sha256 (or upgrade llama-cpp-python for "
                        f"a newer architecture), or pass a registry name such as {DEFAULT_MODEL}.") from None
