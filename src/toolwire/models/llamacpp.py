"""ChatLlamaCpp: the embedded local chat model (llama.cpp through llama-cpp-python), with tool calling.

How one reply is made:

1. The conversation is written with the model's tool-call *dialect* (:mod:`toolwire.models.dialects`)
   and rendered with the chat template stored in the GGUF (jinja2, sandboxed, as llama-cpp-python's
   ``Jinja2ChatFormatter`` and Hugging Face do).
2. With ``tool_choice`` ``"auto"`` the model first writes freely. When its reply (or a line of it)
   starts like a call to a bound tool in one of the dialect's formats (``[get_weather(``,
   ``{"name": "get_weather"``, ``<tool_call>``), generation restarts at that point under a GBNF grammar
   built from the tools' JSON Schemas (:mod:`toolwire.models.grammar`), so the call names a bound tool
   and its arguments match the schema; the model stops after the calls. A reply that never starts a
   call stays plain text, unconstrained. With ``"required"`` or a tool name the whole reply is
   constrained; with ``"none"`` no tools are shown and nothing is constrained.
3. The call text is read with :func:`toolwire.parsing.parse_tool_calls` into ``AIMessage.tool_calls``.

A loaded model is shared by every ChatLlamaCpp alive on the same file and ``n_ctx`` (a module-level cache keyed by
both, holding it weakly): ``close()`` (or ``with ChatLlamaCpp(...) as model:``) lets go of it, and it is freed
once no model object (``bind_tools`` copies included) or reply in progress holds it. Replies take turns on a model
(:mod:`toolwire.models._turns`): one runs at a time, and a paused stream holds nothing (another reply may go on
meanwhile; its state is put back after).
Consecutive calls of one conversation reuse the KV cache: the prompt of turn N+1 extends the prompt and
reply of turn N byte for byte (replies keep their exact text in ``provider_data``), so only new tokens
are processed; ``usage["cached_tokens"]`` says how many were reused.
"""

from __future__ import annotations

import copy
import dataclasses
import numbers
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Self, SupportsIndex

from toolwire._concurrency import iterate_in_thread
from toolwire._extras import require_local
from toolwire.errors import UserError
from toolwire.messages import AIMessage, AIMessageChunk, coerce_messages, merge_chunks
from toolwire.models.base import BaseChatModel, ChatRequest
from toolwire.models.registry import DEFAULT_MODEL, REGISTRY, model_file, registry_hint

# Without the [local] extra, say so in one sentence before the pipeline's imports fail on numpy (review 161 #1).
require_local(at_import=True)

from toolwire.models._cancel import GenerationCancelled, cancel_on, stop_if_cancelled  # noqa: E402
from toolwire.models._generation import Generation  # noqa: E402
from toolwire.models._loaded import (  # noqa: E402
    LoadedModel,
    _llama_cpp,
    check_n_threads,
    check_process,
    load_model,
    release,
)
from toolwire.models._options import check_draft_tokens, check_options, check_switch  # noqa: E402
from toolwire.models._text_content import check_readable  # noqa: E402
from toolwire.models._turns import Turn, take_turns  # noqa: E402
from toolwire.models.dialects import DIALECTS, Dialect, default_dialect_for, get_dialect  # noqa: E402

DEFAULT_N_CTX = 8192
"""The context window (tokens) a model gets when ``n_ctx`` is not given, unless it was trained on fewer."""

__all__ = ["ChatLlamaCpp", "LoadedModel", "load_model"]



def _local_path(model: str) -> Path:
    """The path a model that is no registry name stands for: an existing file or folder, or a ``.gguf`` name, which
    :func:`~toolwire.models.registry.model_file` checks when the model is loaded. Only the file system's entries
    are looked at, never a file's contents.

    Raises:
        UserError: ``model`` is neither (an unknown name such as ``"nope"``, an empty name, a hub-style name such
            as ``"Qwen/qwen2.5-coder-0.5b"`` with nothing at that path: the registry name it is close to is named),
            or the system refuses it as a path (too long: review 78).
    """
    if not model.strip():
        raise UserError(f"The model name is empty: pass one of {', '.join(REGISTRY)} or the path of a .gguf file "
                        "(or leave model out for the default).")
    path = Path(model).expanduser()
    try:
        if path.is_file() or path.suffix == ".gguf" or path.is_dir():
            return path
    except OSError as exc:  # (a name too long for a path: is_file() raises)
        raise UserError(f"The model name {model[:60]!r}... is not a usable path ({exc.strerror}): pass one of "
                        f"{', '.join(REGISTRY)} or the path of a .gguf file.") from None
    hint = registry_hint(model)
    if os.sep in model or "/" in model:  # nothing there, and no .gguf name: a hub name, "Qwen/qwen2.5-coder-0.5b"
        raise UserError(f"There is no file or folder at {model!r}: pass one of {', '.join(REGISTRY)} or the path "
                        f"of a .gguf file{hint}")  # (review 109: taken, and refused only at the first call)
    raise UserError(f"Unknown model {model!r}: use one of {', '.join(REGISTRY)} or the path of a .gguf file{hint}")


class ChatLlamaCpp(BaseChatModel):
    """A local GGUF chat model with tool calling, run in-process by llama.cpp.

    Args:
        model: a registry name (``"qwen2.5-coder-1.5b"``, the default; see ``toolwire models list``),
            pulled on first use if missing, or the path of a ``.gguf`` file.
        n_ctx: context size in tokens (prompt plus reply), at least 1; by default 8192, or the model's trained
            context when that is less; more than the trained context is refused when the model loads. Instances
            alive at once on the same file and ``n_ctx`` share one loaded model (and its KV cache, taken in turns),
            and the first one's ``n_threads`` and ``verbose`` apply to all of them; it is freed when the last of them
            is closed (:meth:`close`) or garbage-collected.
        n_threads: CPU threads llama.cpp uses, a whole number from 1 to 512 (more is refused: 512 is ggml's own limit;
            default None: all cores, ``os.cpu_count()``, up to 512); more than the cores gives a warning, since the
            extra threads make it slower.
        temperature: sampling temperature; 0 (default) is greedy: the same prompt gives the same reply, but with
            ``reuse_kv`` (the default) the logits of a prompt that shares a prefix with the one before may differ
            in their last bits, which can flip a near tie (even call against text); ``reuse_kv=False`` for replies
            that must not depend on what ran before (tests, evaluations).
        seed: sampling seed used when ``temperature`` > 0. A seeded reply repeats exactly only with ``reuse_kv=False``:
            a prompt taken partly from the KV cache is evaluated in other batches, whose logits differ in their last
            bits, and sampling turns that into another reply (review 73).
        dialect: ``"pythonic"``, ``"json"`` or ``"template"`` (see :mod:`toolwire.models.dialects`);
            None picks the model family's default for the number of tools a request binds
            (:func:`~toolwire.models.dialects.default_dialect`: the default model writes ``pythonic`` with one
            tool, ``json`` with two or more).
        max_tokens: the most tokens one reply may have. Tokens of a call the model writes and the checks below
            decline (then generated again from before it, at most 3 times) do not count against it; they do count
            in ``usage["output_tokens"]``, which can so exceed ``max_tokens``.
        grammar: constrain tool calls with a GBNF grammar (default True).
        pull: download a registry model that is missing (default True); False raises instead.
        draft_tokens: at temperature 0, the most prompt-lookup draft tokens checked per decoding step
            inside a tool call (see :mod:`toolwire.models._decoding`; the same greedy rule, fewer model steps),
            a whole number of 0 or more (default 2); 0 turns drafts off. Free text is decoded without drafts.
        prompt_cache: keep the KV state of the system turn (with the tools) on disk, in
            ``$TOOLWIRE_HOME/prompt-cache``, so the next process skips its prompt processing (see
            :mod:`toolwire.models._prompt_cache`; at most 32 prefixes and 512 MB). False: memory only.
        reuse_kv: reuse the KV cache of the previous reply's prompt (default True). False clears the KV cache before
            each prompt, so a reply cannot depend on an earlier reply; the system turn may still be restored from the
            disk prompt cache (the same prefix evaluated in the same batches): pass ``prompt_cache=False`` too for no
            state from outside the process, as ``toolwire eval`` does.
        min_call_probability: at temperature 0 with ``tool_choice`` auto, a tool call is made only when the
            model's probability of opening a call there (``[get_weather(``: at each of its tokens, the
            summed probability of every token that goes on opening a call to a bound tool, multiplied over
            its tokens; before a decline, each first token of the opening with probability 0.05 or more is
            followed one token further instead of taken to go on as the path the model took:
            :func:`~toolwire.models._call_checks.opening_paths_probability`) is at least this (0 to 1);
            otherwise the reply goes on from before that opening
            with those tokens banned (up to 3 openings per reply, then text). 0 turns the check off; None
            (default) takes the dialect's bar (:attr:`~toolwire.models.dialects.Dialect.min_call_probability`:
            0.25 for ``pythonic``, 0 for the others, but 0.25 for the ``json`` the default model uses with two or
            more tools bound, :data:`~toolwire.models.dialects.SEVERAL_TOOLS_DIALECTS`). When it or
            ``min_value_probability`` is on and a call
            opening was seen, ``response_metadata`` holds ``call_probability`` (of the last opening judged)
            and ``declined_calls`` (0 to 3: calls declined by either bar).
        min_value_probability: likewise, a tool call (any call format) is declined (and the reply goes on as above)
            when one of its argument values is both unsure (the model's probability of writing it, the
            product over its tokens, is below this, 0 to 1, where the call or the reply's prose before it
            first writes it) and not found in the conversation (a string or
            number that no message of the conversation, system message included, or earlier call's
            arguments hold): the value of a call to a tool
            that does not fit, made up to fill its schema (:mod:`toolwire.models._call_checks`). Text the model
            writes (a string of more than 20 characters and three words or more: an email's body, a SQL query; in
            a script written without spaces, two Chinese or Japanese characters or four Thai letters count as a word
            of five characters)
            is not judged so (:func:`~toolwire.models._call_checks.written_text`); for a tool whose short values
            the model must invent (a title, a file name), pass 0. 0 turns the check off; None (default) takes the
            dialect's bar
            (:attr:`~toolwire.models.dialects.Dialect.min_value_probability`). A call of the tool the
            prompt's example calls is also declined, however sure the model was, when it copies one of the
            example's made-up strings (``"value"``) that the conversation does not hold. Declined values are listed
            in ``response_metadata["made_up_values"]`` (``"keyword=literal"``).
        optional_argument_share: with greedy decoding (temperature 0, no repeat penalty) and the grammar on,
            where a pythonic tool call would close although its function has an optional parameter left (in
            signature order), the call goes on with another argument when the model gives going on (``, name=``)
            at least this share (0 to 1) of its probability of closing or going on
            (:mod:`toolwire.models._argument_lean`). A call whose added argument ``min_value_probability`` finds
            made up is judged as the model would have closed it. 0 turns it off; None (default) takes the
            dialect's (:attr:`~toolwire.models.dialects.Dialect.optional_argument_share`). ``response_metadata``
            then holds ``calls_continued`` (how many times a call went on where it would have closed; the model
            may then add more than one argument).
        parallel_call_share: with greedy decoding and the grammar on, where a ``pythonic`` or ``json`` call list
            would close (its ``]``) although the grammar allows another call, the list goes on with another call
            when the model gives going on (``,``) at least this share (0 to 1) of its probability of closing or
            going on (:mod:`toolwire.models._call_lean`); JSON call objects written one per line are weighed
            likewise where the line after one would close its code fence, or end the reply. A list whose added
            calls hold a string or number the conversation does not, or that runs out of ``max_tokens``, is made
            as the model would have closed it;
            one whose added call repeats a call keeps the calls added before that one. 0 turns it off;
            None (default) takes the dialect's (:attr:`~toolwire.models.dialects.Dialect.parallel_call_share`).
            ``response_metadata`` then holds ``parallel_call_shares`` (the share of going on the model gave at
            each close of the call list weighed, whether the rule acted or not), ``parallel_calls_added`` and
            ``parallel_calls_refused``; 1 records the shares and acts only where closing has no probability at all.
        decline_unknown_calls: at temperature 0 with ``tool_choice`` auto, a reply that opens as a call of no
            bound tool (a call list of a made-up function, ``[calculate_area(width=5)]``; a bound one written
            as no call list is, ``[[get_weather(city="Oslo")]]``, or ``[[{"name": ...}]]`` in JSON; a bare
            ``fibonacci(20)`` alone on its line; a JSON call object of a made-up name; judged once the list or
            line is whole, as BFCL reads a call, see
            :meth:`~toolwire.models.openers.OpenerScanner.unknown_call`) is generated again from its start
            without the tokens that open one (as a declined call is, up to 3 times; those tokens stay banned
            there): the model asked for a tool it was not given and
            answers in text instead. Once 3 calls were declined by the bars above, a call opening of a bound
            tool is declined this way too, so that the text does not open as a call list. Default True;
            ``response_metadata["declined_unknown_calls"]`` counts them.
        decline_repeat_calls: where the call bars judge calls (temperature 0, ``tool_choice`` auto, a bar on), a
            reply whose every call repeats a call answered with success since the newest user message (same tool,
            same arguments) is declined as a call with a made-up value is, and the model answers from the results
            it has (:mod:`toolwire.models._answered`; ``response_metadata["declined_repeat_calls"]`` counts them, and
            ``declined_calls`` includes them): qwen2.5-coder-0.5b otherwise asks for the same call again after its
            result. Default True; pass False for a tool whose result changes between two identical calls (polling
            a job), as ``Agent(repeat_calls=[...])`` does for the agent's own check.
        decline_echoes: a reply after tool results that only says the user's request (of three words or more)
            again, word for word, is generated again from its first token, at temperature 0 with that token banned
            (up to 3 times per reply, the first tokens of earlier echoes staying banned; sampled again otherwise);
            it is held back from a stream while it is still the request's start (:mod:`toolwire.models._echo`;
            ``response_metadata["declined_echoes"]``): the default model answered "Adicione uma despesa de 80 reais
            com transporte no dia 2026-04-18." with that sentence after the expense was added (review 126 #4).
            Default True.
        decline_made_up_figures: at temperature 0, a reply to tool results that are all errors is held back from a
            stream until it ends, and one that states a figure no message of the conversation holds (a standalone
            number of two digits or more, or with a decimal part: :func:`toolwire.models._figures.made_up_figure`)
            is generated again from its first token, that token banned (up to 3 times, the fourth reply kept;
            ``response_metadata["declined_figures"]``): the default model wrote a balance or a price no tool gave in
            8 of 20 answers after failed calls (``benchmarks/failed_results.py``), none with the rule. A figure of
            general knowledge (a year, "10 seconds") is declined alike. Default True.
        decline_value_lists: with ``decline_unknown_calls``, in the ``pythonic`` format and before any tool result
            since the newest user message, a reply that is only a list of values (``['BRCA1']``, ``[1494]``,
            written where a call list was wanted) is declined as a call of no tool is, from its first value: the
            ``[`` stays and what would open a value there is banned, so the model writes a call or answers in
            text. With the call bar on (``min_call_probability`` > 0, greedy decoding), only where the model's
            probability of opening a call of a bound tool there instead reaches that bar
            (:func:`~toolwire.models._value_lists.value_list_call_probability`); a list kept is counted in
            ``response_metadata["value_lists_kept"]``. Default False (BFCL: ``benchmarks/ACCURACY.md``, "Thirty-sixth
            session"). Counted in ``response_metadata["declined_unknown_calls"]``.
        verbose: let llama.cpp print its logs.
        **options: default generation options: ``top_p``, ``top_k``, ``min_p``, ``repeat_penalty``, ``stop``. Any
            other name is refused with the close match among these and the parameters above (LangChain's
            ``model_path`` is the ``model`` parameter here).

    Per-call options (``invoke(..., temperature=..., max_tokens=..., stop=[...], seed=...)``) override
    these (None: the model's own); both are checked alike. Replies carry ``usage`` (tokens:
    ``input_tokens``, ``output_tokens``, ``total_tokens``, ``cached_tokens``) and ``response_metadata``
    (``finish_reason``: ``"stop"``, ``"length"`` or ``"tool_calls"``; ``seconds`` of the call; ``model_name``;
    ``dialect``; ``call_format``; ``context_full``: True when a ``"length"`` reply was cut where the context window
    ran out, with less room than ``max_tokens`` left, and then ``n_ctx`` and ``trained_context`` (tokens; the
    GGUF's context length, or None) to tell whether a larger window could help; ``call_limit``: the most calls one
    reply may hold, :data:`~toolwire.models.grammar.MAX_CALLS`, when the reply reached it). A reply cut off by
    ``max_tokens`` (or the window) inside a call (``"length"``) has that call as an invalid tool call whose ``args``
    is its raw argument text (what follows ``"arguments":``, ``<function=NAME>`` or the Python call's ``(``; all of
    the call's text when its arguments had not started; the reply as generated is in
    ``provider_data["llamacpp"]["text"]``), whose error is the one hosted providers' cut calls get (send shorter
    arguments, or raise ``max_tokens``:
    :data:`~toolwire.models.lowering._calls.CUT_OFF`; where the window ran out, shorten the conversation or pass a
    larger ``n_ctx``: :data:`~toolwire.models._reply.WINDOW_CUT`). ``stop`` strings end the reply's text
    (``"stop"``; the string itself is left out) and never cut a tool call: one that falls where a call may still be
    opening waits until that is decided, and is ignored inside a call.

    Raises:
        UserError: an unknown model name (no registry name, and no existing file or ``.gguf`` path), a bad
            ``n_ctx``, ``n_threads``, ``draft_tokens``, fraction, dialect or option (also a per-call option, on the
            call), or an on/off parameter (``grammar``, ``pull``, ``prompt_cache``, ``reuse_kv``, ``verbose``, the
            ``decline_*`` ones) that is not True or False (a NumPy bool too; ``"false"`` is refused, not read as
            True); on first use a model
            file missing and no source reachable; a conversation that leaves no
            room for the reply in ``n_ctx``; a user or system message holding an image (or audio, video, file,
            document), on the call and before it waits for the replies ahead of it; a call in a child of ``os.fork()``
            (gunicorn ``--preload``) of the process that loaded the model (load it in each worker, after the fork).
        MissingExtraError: (a UserError and an ImportError) llama-cpp-python, toolwire's ``[local]`` extra, is not
            installed: when the model is made (numpy: when this module is imported).
        ProviderError: llama.cpp failed while generating.
    """

    provider = "llamacpp"
    strict_mode = True  # the grammar always holds a call to its tool's schema

    def __init__(self, model: str | os.PathLike[str] | None = None, *, n_ctx: int | None = None,
                 n_threads: int | None = None, temperature: float = 0.0, seed: int = 0,
                 dialect: str | None = None, max_tokens: int = 512, grammar: bool = True, pull: bool = True,
                 draft_tokens: int = 2, prompt_cache: bool = True, min_call_probability: float | None = None,
                 min_value_probability: float | None = None, verbose: bool = False, reuse_kv: bool = True,
                 optional_argument_share: float | None = None, decline_unknown_calls: bool = True,
                 parallel_call_share: float | None = None, decline_repeat_calls: bool = True,
                 decline_value_lists: bool = False, decline_echoes: bool = True,
                 decline_made_up_figures: bool = True, **options: Any) -> None:
        require_local()  # (llama-cpp-python missing: one sentence now, not at the first call)
        self.model = str(model) if model is not None else DEFAULT_MODEL
        if self.model not in REGISTRY:  # an unknown name is refused now, as init_chat_model does (review 77)
            _local_path(self.model)
        self._n_ctx_given = n_ctx is not None  # (not given: 8192, or less where the model was trained on less)
        n_ctx = DEFAULT_N_CTX if n_ctx is None else n_ctx
        if isinstance(n_ctx, bool) or not isinstance(n_ctx, int) or n_ctx < 1:
            raise UserError(f"n_ctx must be a whole number of tokens, at least 1 (such as 4096), not {n_ctx!r}.")
        check_options({"temperature": temperature, "max_tokens": max_tokens, "seed": seed}, required=("max_tokens",))
        n_threads = check_n_threads(n_threads)
        self.n_ctx, self.n_threads, self.temperature, self.seed = n_ctx, n_threads, temperature, seed
        self.dialect, self.max_tokens = dialect, max_tokens
        self.grammar, self.pull = check_switch("grammar", grammar), check_switch("pull", pull)
        self.draft_tokens = check_draft_tokens(draft_tokens)
        self.prompt_cache = check_switch("prompt_cache", prompt_cache)
        self.reuse_kv = check_switch("reuse_kv", reuse_kv)
        self.min_call_probability = _fraction("min_call_probability", min_call_probability)
        self.min_value_probability = _fraction("min_value_probability", min_value_probability)
        self.optional_argument_share = _fraction("optional_argument_share", optional_argument_share)
        self.parallel_call_share = _fraction("parallel_call_share", parallel_call_share)
        self.decline_unknown_calls = check_switch("decline_unknown_calls", decline_unknown_calls)
        self.decline_repeat_calls = check_switch("decline_repeat_calls", decline_repeat_calls)
        self.decline_value_lists = check_switch("decline_value_lists", decline_value_lists)
        self.decline_echoes = check_switch("decline_echoes", decline_echoes)
        self.decline_made_up_figures = check_switch("decline_made_up_figures", decline_made_up_figures)
        self.verbose = check_switch("verbose", verbose)
        self.options = check_options(options, at_construction=True)
        if dialect is not None and dialect not in DIALECTS:
            raise UserError(f"Unknown dialect {dialect!r}: use one of {', '.join(DIALECTS)}.")
        self._loaded: LoadedModel | None = None
        self._closes = 0  # close() calls, for a load that runs meanwhile (review 286 #4)

    @property
    def model_name(self) -> str:
        """The registry name, or the GGUF file's name without ``.gguf`` (a name without it whole: ``my-0.5b``)."""
        if self.model in REGISTRY:
            return self.model
        name = Path(self.model).name
        return name.removesuffix(".gguf") or name

    # -- loading ----------------------------------------------------------------------------------

    def model_path(self) -> Path:
        """Return the path of the GGUF file this model runs (pulling a registry model first when ``pull`` is set).

        Raises:
            UserError: unknown name, a registry model not pulled (``pull=False``) or that cannot be pulled, or a
                missing file.
        """
        if self.model in REGISTRY:
            from toolwire.models.pull import find_model, not_pulled_error, pull_model

            if self.pull:
                return pull_model(self.model)
            found = find_model(self.model)
            if found is None:
                raise not_pulled_error(self.model)
            return found
        path = _local_path(self.model)
        return path if path.is_file() else model_file(path)  # says whether it is a folder or missing

    def load(self) -> LoadedModel:
        """Load the model now and return it: the one already loaded from the same file with the same ``n_ctx`` when
        another ChatLlamaCpp (or a copy) holds it, else a new load; later calls return the same one until
        :meth:`close`.

        Returns:
            The :class:`~toolwire.models._loaded.LoadedModel` (the ``llama_cpp.Llama`` object and its chat template).

        Raises:
            UserError: llama-cpp-python is missing, or :meth:`model_path` fails, or the file is not a loadable
                GGUF model, or the model was loaded in the process this one was forked from (gunicorn ``--preload``:
                llama.cpp cannot run it in the child, :func:`~toolwire.models._loaded.check_process`).
        """
        loaded = self._loaded  # (read once: close() from another thread may drop it meanwhile)
        if loaded is not None:
            check_process(loaded)  # (before any reply: it would hang in a fork child, review 207 #3)
            return loaded
        _llama_cpp()
        path = self.model_path()
        closes = self._closes
        loaded = load_model(path, n_ctx=self.n_ctx, n_threads=self.n_threads, verbose=self.verbose,
                            fit=not self._n_ctx_given)
        trained = loaded.trained_context  # (review 111: trained on 4096 tokens, 4096 by default; the
        if not self._n_ctx_given and trained is not None and trained < self.n_ctx:  # value asked for, which
            self.n_ctx = trained  # llama-cpp-python's buffers hold, not llama.cpp's rounded one: review 112)
        if self._closes != closes:  # close() was called during the load (review 286 #4): not kept
            release(loaded)
        else:
            self._loaded = loaded
        return loaded

    def close(self) -> None:
        """Let go of the loaded model (idempotent; nothing to do before the first call). Its weights and llama.cpp
        context are freed at once unless something else still holds them: another ChatLlamaCpp on the same file
        and ``n_ctx``, a copy of this one (``bind_tools``, ``bind``, ``with_structured_output``: those go on working
        with the same weights until they are closed or collected too), a reply still in progress, or a
        :class:`~toolwire.models._loaded.LoadedModel` the caller kept from :meth:`load`. A closed model used again
        loads again (from the cache, if another holder kept it).

        The model used last in the process stays loaded after its ChatLlamaCpp is dropped without ``close()``, so
        that a ChatLlamaCpp made per question does not load the file again (at most one model is kept so, until
        another file or ``n_ctx`` is loaded); ``close()`` lets that hold go too. A ``close()`` called while
        :meth:`load` runs in another thread takes effect when the load ends: the model is not kept."""
        self._closes += 1
        loaded, self._loaded = self._loaded, None
        if loaded is not None:
            release(loaded)

    async def aclose(self) -> None:
        """:meth:`close`, for code that closes any model with ``await model.aclose()`` (freeing needs no waiting)."""
        self.close()

    def __enter__(self) -> Self:
        """``with ChatLlamaCpp(...) as model:``: the model itself, closed (:meth:`close`) when the block ends."""
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- copies ------------------------------------------------------------------------------------

    def __copy__(self) -> Self:
        """A shallow copy (what ``bind_tools``, ``bind`` and ``with_structured_output`` make): it shares the loaded
        model and the bound tools with this one."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        return clone

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """An independent copy (``copy.deepcopy``, also of an Agent over this model): settings and bound tools are
        copied, and the loaded model, if any, is shared, as another ChatLlamaCpp on the same file and ``n_ctx``
        shares it (never loaded again; the copy's :meth:`close` lets go of its own hold only), so a copy made after
        the first reply is like one made before it (review 312 #3)."""
        clone = object.__new__(type(self))
        memo[id(self)] = clone
        for name, value in self.__dict__.items():
            if name == "_loaded":
                if value is not None:
                    memo[id(value)] = value  # (shared wherever else the copied objects point at it)
            else:
                value = copy.deepcopy(value, memo)
            clone.__dict__[name] = value
        return clone

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        """Pickle the settings and bound tools only, never the loaded model (which holds llama.cpp's state and locks:
        review 312 #3): the unpickled model, in a worker process say, loads its file on its first reply, from the
        same path or registry name, as a new ``ChatLlamaCpp(...)`` would."""
        state = {name: value for name, value in self.__dict__.items() if name != "_loaded"}
        return _unpickled, (type(self), state)

    def dialect_for(self, loaded: LoadedModel, tool_count: int = 1, no_parameters: bool = False) -> Dialect:
        """Return the :class:`Dialect` used with ``loaded`` for a request binding ``tool_count`` tools
        (``no_parameters``: one tool that takes no parameters): the ``dialect`` argument, else the family default
        for those tools (:func:`~toolwire.models.dialects.default_dialect_for`).

        Raises:
            UserError: an unknown dialect name, or one the model's chat template cannot take.
        """
        if self.dialect:
            return get_dialect(self.dialect, loaded.template)
        return default_dialect_for(loaded.metadata, loaded.template, tool_count, no_parameters)

    def file_sha256(self) -> str:
        """Return the sha256 (lowercase hex) of the GGUF file this model runs: a registry model's from the registry, a
        file of the user's hashed once and then read from its sidecar record (so a BFCL report tells two files
        of one name apart).

        Raises:
            UserError: as :meth:`model_path`, or the file cannot be read.
        """
        if self.model in REGISTRY:
            return REGISTRY[self.model].sha256
        from toolwire.models._pull_verify import known_sha256

        path = self.model_path()
        try:
            return known_sha256(path)
        except OSError as exc:
            raise UserError(f"The model file {str(path)!r} cannot be read ({exc.strerror or exc}).") from None

    def default_dialects(self) -> str | None:
        """Return the dialects this model writes by default, as a report records them (a BFCL run resumed with other
        defaults is refused rather than mixed): ``None`` when ``dialect`` is set; else the dialect with one
        tool, with the bars the model family sets where they differ from the dialect's (``"json
        (parallel_call_share 0.02)"`` for qwen2.5-coder-0.5b), followed by ``"; <name> with 2+ tools"`` when
        another is used with several (``"pythonic; json with 2+ tools"`` for the default model). Loads the model
        (its GGUF metadata decides).

        Raises:
            UserError: as :meth:`load`.
        """
        if self.dialect:
            return None
        loaded = self.load()
        family = self.dialect_for(loaded, 1)
        one, several = family.name, self.dialect_for(loaded, 2).name
        plain = get_dialect(one, loaded.template)  # the family's own bars, where they differ from the dialect's
        one += "".join(f" ({f.name} {getattr(family, f.name)})" for f in dataclasses.fields(family)
                       if getattr(family, f.name) != getattr(plain, f.name))
        return one if family.name == several else f"{one}; {several} with 2+ tools or one without parameters"

    # -- generation ------------------------------------------------------------------------------

    def _refuse_input(self, input: Any, options: dict[str, Any]) -> None:
        """Refuse, before a batch starts, an input that :meth:`invoke` would refuse: a user or system message holding
        an image (or audio, video, file, document), or one that is no conversation (see
        :meth:`~toolwire._batch.Batching._refuse_input`).

        Raises:
            UserError: ``input`` would be refused.
        """
        check_readable(coerce_messages(input), self.model_name)

    def _stream(self, request: ChatRequest) -> Iterator[AIMessageChunk]:
        started = time.perf_counter()
        options = check_options(request.options)
        check_readable(request.messages, self.model_name)  # refused now, not after the replies ahead (review 113)
        stop_if_cancelled()  # (a batch input handed to its thread just before the batch stopped)
        fresh = self._loaded is None
        loaded = self.load()
        turn = Turn(loaded)
        generation = Generation(self, request, options, loaded, turn, started=started, fresh=fresh)
        yield from take_turns(turn, generation.run())

    async def _agenerate(self, request: ChatRequest) -> AIMessage:
        """The reply of ``ainvoke``: :meth:`_astream`'s chunks merged, so that a cancelled call (``asyncio.wait_for``
        timing out, a cancelled task or Agent run) stops generating at the next token instead of writing its whole
        reply in a worker thread while holding the model (review 29); a prompt still being evaluated stops at the next
        batch of ``n_batch`` tokens (review 73; a sampled reply's too, since the thirty-second session)."""
        chunks = [chunk async for chunk in self._astream(request)]
        return merge_chunks(chunks, as_chunk=False, tool_names=[t.name for t in request.tools])  # type: ignore[return-value]

    async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessageChunk]:
        def produce(stop: threading.Event) -> Iterator[AIMessageChunk]:
            with cancel_on(stop):  # the prompt's evaluation stops too, between batches (review 73)
                try:
                    yield from self._stream(request)
                except GenerationCancelled:
                    return  # nobody waits for this reply any more

        async for chunk in iterate_in_thread(produce, "toolwire-llamacpp"):
            yield chunk


def _fraction(name: str, value: Any) -> float | None:
    """``value`` as a float from 0 to 1 (None stays None).

    Raises:
        UserError: a bool, a string, NaN or anything else that is not a real number from 0 to 1.
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= float(value) <= 1.0:
        raise UserError(f"{name} must be a number from 0 to 1 (such as 0.3), not {value!r}.")
    return float(value)


def _unpickled(cls: type[ChatLlamaCpp], state: dict[str, Any]) -> ChatLlamaCpp:
    """A ``ChatLlamaCpp`` rebuilt from its pickled settings (:meth:`ChatLlamaCpp.__reduce_ex__`), not loaded yet."""
    model = object.__new__(cls)
    model.__dict__.update(state)
    model._loaded = None
    return model
