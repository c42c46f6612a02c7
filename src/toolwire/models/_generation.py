"""One reply of :class:`~toolwire.models.llamacpp.ChatLlamaCpp`: render the conversation, generate (free text,
then a tool call under its grammar once one starts), judge the call where the model's own probabilities say
so, parse, and yield the reply as chunks. The steps are described in :mod:`toolwire.models.llamacpp`.
"""

from __future__ import annotations

import codecs
import json
import re
import time
from collections.abc import Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from toolwire.errors import ProviderError, UserError
from toolwire.messages import AIMessageChunk
from toolwire.models._answered import answer_bans, answered_calls, only_answered, results_since_user
from toolwire.models._argument_lean import ArgumentLean
from toolwire.models._call_checks import (
    CallSpec,
    conversation_texts,
    follower,
    made_up_value,
    opening_paths_probability,
    opening_probability,
    stream_spans,
)
from toolwire.models._call_lean import CallLean, Leans, first_repeat
from toolwire.models._decoding import GenerationCancelled, Lean, greedy_tokens, sampled_tokens
from toolwire.models._echo import echo_target, is_echo, may_echo
from toolwire.models._figures import figure_context, figure_restart
from toolwire.models._loaded import LoadedModel, _llama_cpp
from toolwire.models._reply import find_stop, read_reply, stop_list, visible_part
from toolwire.models._room import MIN_ROOM, fitted_prompt, overflow_error
from toolwire.models._tool_text import default_values, example_strings
from toolwire.models._turns import Turn
from toolwire.models._value_lists import value_list_call_probability
from toolwire.models.base import ChatRequest
from toolwire.models.dialects import RAW_KEY, Rendered, fingerprint, local_parameters
from toolwire.models.grammar import MAX_CALLS
from toolwire.models.openers import OpenerScanner
from toolwire.tools import ToolSpec

if TYPE_CHECKING:
    from toolwire.models.llamacpp import ChatLlamaCpp

__all__ = ["Generation"]

_MAX_DECLINES = 3  # call openings declined in one reply (min_call_probability) before the rest is text
_EMPTY_LIST = re.compile(r"\s*\[\s*\]\s*")  # "[]": a call list with no call
_EMPTY_LIST_START = re.compile(r"\s*(\[\s*(\]\s*)?)?")  # a reply that may still be only that


class Generation:
    """One reply: render, generate (free, then constrained from a call's start), parse, report."""

    def __init__(self, model: ChatLlamaCpp, request: ChatRequest, options: dict[str, Any] | None = None,
                 loaded: LoadedModel | None = None, turn: Turn | None = None, *, started: float = 0.0,
                 fresh: bool = False) -> None:
        self.model, self.request = model, request
        self.opts = {"temperature": model.temperature, "max_tokens": model.max_tokens, "seed": model.seed,
                     **model.options, **(request.options if options is None else options)}
        self.loaded = loaded
        self.turn = turn  # ended as soon as the model is not needed any more
        self.started = started or time.perf_counter()
        self.fresh = fresh
        self.generated = 0
        self.declined_calls = 0
        self.call_probability: float | None = None  # of the call opening seen, when min_call_probability is set
        self.finish = "stop"
        self.prefix = 0
        self.bar = 0.0  # min_call_probability in effect (the model's, else its dialect's)
        self.value_bar = 0.0  # min_value_probability in effect (likewise)
        self.share = 0.0  # optional_argument_share in effect (likewise)
        self.calls_continued = 0  # times a call made went on where it would have closed (optional_argument_share)
        self.parallel_share = 0.0  # parallel_call_share in effect (the model's, else its dialect's)
        self.calls_added = 0  # calls a call list made went on to where it would have closed (parallel_call_share)
        self.list_shares: list[float] = []  # the share of going on at each close of the last call list generated
        self._listed = 0  # calls the last call generated went on to (CallLean)
        self._list_starts: list[int] = []  # the index of the call each of those began
        self.calls_refused = 0  # call lists generated again without calls they went on to (repeats, made-up values)
        self.made_up_values: list[str] = []  # of the calls declined by min_value_probability
        self.unknown_calls = 0  # reply openings declined as calls of no bound tool (OpenerScanner.unknown_call)
        self.value_lists_kept = 0  # lists of values kept as text: no call was likely there (decline_value_lists)
        self.repeat_calls = 0  # calls declined as asked again after their results (decline_repeat_calls)
        self.echoes = 0  # replies after tool results declined as the user's request said again (models/_echo.py)
        self.figures = 0  # numbers after failed calls declined as made up (models/_figures.py)
        self.results_cut = 0  # tool results shown cut so that the prompt fits the context (models/_fit.py)
        self.window_bound = False  # the context window left the reply less room than max_tokens asks
        self.defaults: dict[str, dict[str, list[str]]] = {}  # schema defaults: found for a value the model chose

    def run(self) -> Iterator[AIMessageChunk]:
        loaded = self.loaded if self.loaded is not None else self.model.load()
        tools = self.request.tools  # the bound tools, whatever tool_choice
        bare = len(tools) == 1 and not local_parameters(tools[0].parameters).get("properties")  # (r. 198 #1)
        dialect = self.model.dialect_for(loaded, len(tools), bare)
        bar = self.model.min_call_probability
        self.bar = dialect.min_call_probability if bar is None else bar
        value_bar = self.model.min_value_probability
        self.value_bar = dialect.min_value_probability if value_bar is None else value_bar
        share = self.model.optional_argument_share
        self.share = dialect.optional_argument_share if share is None else share
        parallel_share = self.model.parallel_call_share
        self.parallel_share = dialect.parallel_call_share if parallel_share is None else parallel_share
        request = self.request
        choice = request.tool_choice or "auto"
        offered: tuple[ToolSpec, ...] = ()
        if choice in ("auto", "required"):
            offered = request.tools
        elif choice != "none":
            offered = tuple(t for t in request.tools if t.name == choice)
        names = [t.name for t in offered]

        def render(messages: Sequence[Any], tools: tuple[ToolSpec, ...] = offered) -> tuple[Rendered, list[int]]:
            chat = dialect.render(messages, tools, tool_choice=choice, parallel=request.parallel_tool_calls,
                                  model=self.model.model_name)
            return chat, loaded.tokenize(loaded.render(chat))

        chat, tokens, self.results_cut = fitted_prompt(request.messages, render, self.model.n_ctx,
                                                       int(self.opts["max_tokens"]))
        self.prefix = self._system_prefix(loaded, chat, tokens)
        room = self.model.n_ctx - len(tokens)
        if room < MIN_ROOM:
            raise overflow_error(request.messages, render, lambda messages: render(messages, ()), loaded, chat,
                                 tokens, self.model.n_ctx, len(offered))
        self.budget = min(int(self.opts["max_tokens"]), room)
        self.window_bound = room < int(self.opts["max_tokens"])  # the window, not max_tokens, bounds the reply
        parallel = request.parallel_tool_calls is not False
        signature = dialect.formats[0] == "pythonic"  # the prompt shows Python signatures (required arguments first)
        fmt: str | None = None
        cached = loaded.warm(tokens, self.prefix, reuse_kv=self.model.reuse_kv)
        context = conversation_texts(request.messages)  # where a call's values may come from
        self.defaults = default_values(offered)  # (not for arguments a call went on to: the request gave those)
        if offered and choice != "auto":
            fmt = dialect.formats[0]
            spec = CallSpec(offered, parallel, signature, {})
            head = ""
            call_text, _ = self._made_call(loaded, tokens, "", "", fmt, spec, context)
        else:
            values = self.model.decline_value_lists and not results_since_user(request.messages)
            scanner = OpenerScanner(dialect.formats, names, values=values) if offered else None
            if choice == "none" and request.tools:  # a call written anyway (as earlier turns show them) is declined:
                # with calls=False every call opening counts as a call of no tool (review 29: the final answer of
                # Agent(on_max_steps="answer") was the text "[lookup(term=...)]")
                scanner = OpenerScanner(dialect.formats, [t.name for t in request.tools], calls=False)
            judged = self.value_bar > 0 and dialect.name != "template"  # the template's prompt shows no examples
            spec = CallSpec(offered, parallel, signature, example_strings(offered, parallel) if judged else {})
            head, call_text, fmt = yield from self._free(loaded, tokens, scanner, spec, context)
        if self.turn is not None:
            self.turn.end()  # the model is not needed any more: the next reply may go on
        cut = self.finish == "length" and ("n_ctx" if self.window_bound else "max_tokens")  # (review 184 #2)
        reply = read_reply(head, call_text, offered, dialect.formats, fmt, cut=cut)
        content, calls = reply.content, reply.tool_calls
        for index, call in enumerate(calls):
            yield AIMessageChunk(tool_call_chunks=[{
                "name": call["name"], "args": json.dumps(call["args"], ensure_ascii=False),
                "id": call["id"], "index": index, "type": "tool_call_chunk"}])
        if reply.invalid_tool_calls:  # as they are: merging chunks would read their raw text as arguments
            yield AIMessageChunk(invalid_tool_calls=reply.invalid_tool_calls)
        if len(content) > len(head.strip()):  # text the parser left around the calls (head: already streamed)
            yield AIMessageChunk(content[len(head.strip()):])
        if calls and self.finish != "length":
            self.finish = "tool_calls"
        raw = head + call_text
        usage = {"input_tokens": len(tokens), "output_tokens": self.generated,
                 "total_tokens": len(tokens) + self.generated, "cached_tokens": cached}
        metadata: dict[str, Any] = {
            "model": self.model.model_name, "model_name": self.model.model_name, "finish_reason": self.finish,
            "seconds": round(time.perf_counter() - self.started, 3), "dialect": dialect.name, "call_format": fmt}
        if self.finish == "length" and self.window_bound:  # cut where the context window ran out (review 110); with
            trained = getattr(self.loaded or self.model.load(), "trained_context", None)  # the sizes, so advice
            metadata.update(context_full=True, n_ctx=self.model.n_ctx, trained_context=trained)  # knows (review 112)
        if self.call_probability is not None:
            metadata["call_probability"] = round(self.call_probability, 4)
            metadata["declined_calls"] = self.declined_calls
        counts = {"made_up_values": list(self.made_up_values), "calls_continued": self.calls_continued,
                  "parallel_call_shares": [round(x, 4) for x in self.list_shares],
                  "parallel_calls_added": self.calls_added, "parallel_calls_refused": self.calls_refused,
                  "declined_unknown_calls": self.unknown_calls, "value_lists_kept": self.value_lists_kept,
                  "declined_repeat_calls": self.repeat_calls, "declined_echoes": self.echoes,
                  "declined_figures": self.figures,
                  "tool_results_cut": self.results_cut,
                  "call_limit": MAX_CALLS if len(calls) >= MAX_CALLS else 0}
        metadata.update((key, value) for key, value in counts.items() if value)  # (only what happened)
        if self.fresh:
            metadata["load_seconds"] = round(loaded.load_seconds, 3)
        provider_data = {RAW_KEY: {"dialect": dialect.name, "text": raw, "check": fingerprint(content, calls)}}
        yield AIMessageChunk(usage=usage, response_metadata=metadata,  # type: ignore[arg-type]
                             provider_data=provider_data)

    def _made_call(self, loaded: LoadedModel, tokens: list[int], head: str, opener: str, fmt: str, spec: CallSpec,
                   context: list[str], said: Any = None, value_gate: float = 0.0) -> tuple[str, str | None]:
        """Generate a call (:meth:`_call`) and judge it: ``(call text, the value it made up or None)``.

        With ``said`` (a call judged by ``min_value_probability``), a value the model was unsure of that neither
        the conversation holds nor a tool's schema gives as its default is made up
        (:func:`~toolwire.models._call_checks.made_up_value`). Where the call went on to more arguments
        (``optional_argument_share``), a string or number among those that the conversation does not hold (a
        schema default is no reason to go on) is made up however sure the model was: the rule is there for
        arguments the request gave. A call list that went on to more calls (``parallel_call_share``) is refused the same
        way; where one of the calls it went on to repeats a call, it is first generated again going on only to the
        calls before that one. A call or list that went on and was then cut off by ``max_tokens`` is refused too.
        Either way, a call that went on is then generated again as the model would have closed it, judged by
        ``said`` alone (the first attempts' tokens do not count against the budget).
        """
        before = self.budget
        text, continued, made_up, cap = self._judged_call(loaded, tokens, head, opener, fmt, spec, context, said,
                                                          value_gate)
        if made_up is not None and continued and cap is not None:  # a repeat: the calls before it are kept
            self.calls_refused += self._listed - cap
            self.budget = before
            text, continued, made_up, _ = self._judged_call(loaded, tokens, head, opener, fmt, spec, context, said,
                                                            value_gate, call_cap=cap)
        if made_up is not None and continued:
            self.calls_refused += self._listed
            self.budget = before
            text, continued, made_up, _ = self._judged_call(loaded, tokens, head, opener, fmt, spec, context, said,
                                                            value_gate, lean=False)
        if made_up is None:
            self.calls_continued += continued - self._listed
            self.calls_added += self._listed
        return text, made_up

    def _judged_call(self, loaded: LoadedModel, tokens: list[int], head: str, opener: str, fmt: str,
                     spec: CallSpec, context: list[str], said: Any, value_gate: float, *,
                     lean: bool = True, call_cap: int | None = None) -> tuple[str, int, str | None, int | None]:
        """``(call text, times it went on, made-up value or None, calls to go on to at most when generated again)``,
        as :meth:`_made_call` judges one attempt; the last is None but for a call list that went on to a call that
        repeats one: then it counts the calls it went on to before that one."""
        call_text, spans, continued, added = self._call(loaded, tokens, head, opener, fmt, spec, said is not None,
                                                        use_lean=lean, call_cap=call_cap)
        made_up = None
        if said is not None:
            made_up = made_up_value(call_text, spans, context, value_gate, spec.example_values, said, fmt,
                                    self.defaults)
        if made_up is None and added:  # every value the call went on to is judged as unsure
            made_up = made_up_value(call_text, [(a, b, 0.0) for a, b in added], context, 1.0, fmt=fmt)
        cap = None
        if (made_up is None and self._listed
                and (repeat := first_repeat(call_text, spec.tools, fmt, min(self._list_starts))) is not None):
            made_up = "(a call repeated)"  # never kept: the call is generated again (_made_call)
            cap = sum(start < repeat for start in self._list_starts)
        if made_up is None and continued and self.finish == "length":  # going on ran out of max_tokens: closing
            made_up = "(cut off)"  # would have given a whole call, so it is generated again that way (_made_call)
        return call_text, continued, made_up, cap

    def _call(self, loaded: LoadedModel, tokens: list[int], head: str, opener: str, fmt: str, spec: CallSpec,
              judged: bool, *, use_lean: bool = True, call_cap: int | None = None
              ) -> tuple[str, list[tuple[int, int, float]], int, list[tuple[int, int]]]:
        """Generate under the grammar the call in ``fmt`` whose ``opener`` the free text began after ``head``.

        Returns ``(the call's text, opener included; with ``judged``, for each token generated here, its
        character span in that text and the model's probability of it; how many times it went on
        where it would have closed (optional_argument_share, parallel_call_share; ``use_lean`` False: never;
        ``call_cap``: the most calls the list may go on to); the character spans of the arguments and calls it went
        on to, from the comma to the call's ``)`` or the list's end)``.
        """
        more = loaded.tokenize(head, bos=False) if head else []
        grammar = self._grammar(loaded, spec.tools, fmt, spec.parallel, spec.signature)
        # the call's opening (``[get_weather(``) is kept when the grammar accepts it as written, instead of
        # being generated again under the grammar
        forced = loaded.tokenize(opener, bos=False) if opener and self._greedy() else []
        if not (forced and grammar and loaded.sampler(grammar).accepts(forced)):
            forced = []
        left = self.model.n_ctx - len(tokens) - len(more) - len(forced)
        self.window_bound = self.window_bound or left < self.budget
        self.budget = min(self.budget, left)
        if self.budget <= 0:  # the opening took the last token allowed: the call is cut off there
            self.finish = "length"
            return opener, [], 0, []
        steps: list[dict[int, float]] | None = [] if judged else None
        made: list[int] = []
        start = len(opener) if forced else 0
        lean = self._lean(loaded, fmt, grammar) if use_lean else None
        listing = self._call_lean(loaded, fmt, grammar, spec.parallel, call_cap) if use_lean else None
        both = Leans(lean, listing) if lean is not None and listing is not None else lean or listing
        text = (opener if forced else "") + self._text(loaded, tokens + more, grammar, forced, steps, made, both)
        self._listed = listing.continued if listing is not None else 0
        self._list_starts = list(listing.starts) if listing is not None else []
        if listing is not None:  # (an attempt without the leans keeps the shares of the one before)
            self.list_shares = list(listing.shares)
        continued = (lean.continued if lean is not None else 0) + self._listed
        if steps is None and not continued:
            return text, [], 0, []
        starts = _char_starts(loaded, made, start)
        spans = [(starts[i], starts[i + 1], candidates.get(token, 0.0))
                 for i, (token, candidates) in enumerate(zip(made, steps or (), strict=False))]
        added = []
        for first, skip, last in sorted(t for one in (lean, listing) if one is not None for t in one.added_tokens()):
            i, j = first - len(forced), last - len(forced)  # the lean was fed the forced tokens first
            if 0 <= i <= j < len(made):  # from the comma: bytes before it in a ``",`` token end the value before
                added.append((starts[i] + len(loaded.piece(made[i])[:skip].decode("utf-8", "replace")), starts[j + 1]))
        return text, spans, continued, added

    def _free(self, loaded: LoadedModel, tokens: list[int], scanner: OpenerScanner | None, spec: CallSpec,
              context: list[str]) -> Generator[AIMessageChunk, None, tuple[str, str, str | None]]:
        """Generate unconstrained, streaming the text that cannot be the start of a call; a call that starts
        is generated under the grammar (:meth:`_call`).

        With greedy decoding (temperature 0, no repeat penalty) each call is judged twice
        (:mod:`toolwire.models._call_checks`). With ``min_call_probability`` set, its opening, when it is
        recognised: its probability is the product, over its tokens (from the ``[`` or ``{`` to the
        name), of the probability of every token that would go on opening a call (any format, any
        bound tool, any tokenization). With ``min_value_probability`` set, the whole call once generated
        (any call format): declined when one of its values is below that bar and not found in ``context``.
        A declined call is not made: the reply is generated again from just before its opening with the
        opening's tokens banned (and whitespace there too, so that the same call cannot just move to the
        next position), and later openings are judged the same way, up to ``_MAX_DECLINES``; after that
        the rest of the reply is text. The declined tokens do not count against ``max_tokens`` (they do
        count in ``usage["output_tokens"]``, the tokens generated). A reply that opens as a call of no bound
        tool (:meth:`~toolwire.models.openers.OpenerScanner.unknown_call`) is declined the same way, with every
        likely token that would open one again banned (``decline_unknown_calls``).

        Returns (as the generator's value) ``(text before the call, the call's text, call format)`` when a
        call is made, else ``(whole text, "", None)``.
        """
        stops = stop_list(self.opts.get("stop"))
        hold = max((len(s) for s in stops), default=1) - 1
        greedy = scanner is not None and self._greedy()
        unknown = greedy and self.model.decline_unknown_calls
        gate = self.bar if greedy else 0.0
        value_gate = self.value_bar if greedy else 0.0
        judging = gate > 0 or value_gate > 0
        # (declined as a call is: from its opening, known where the bars judge openings)
        answered = (answered_calls(self.request.messages) if judging and self.model.decline_repeat_calls
                    else frozenset())
        # the candidates of each token: for the bars, and for banning every way to open a declined call again
        steps: list[dict[int, float]] | None = [] if judging or unknown else None
        prior: list[int] = []  # the reply's tokens before the current stream (kept over declined calls)
        bans_at: dict[int, set[int]] = {}  # reply token index -> tokens banned there by declines
        kept_at: set[int] = set()  # reply token indexes where a call of no tool, or an echo, was declined
        calls_on, unknown_on = True, unknown  # calls still recognised; unknown calls still declined
        # the request a reply after tool results must not only say again (decline_echoes)
        echo = echo_target(self.request.messages) if self.model.decline_echoes else None
        known = figure_context(self.request.messages) if self.model.decline_made_up_figures and self._greedy() else None
        made: list[int] = []  # the current stream's tokens (for a restart before a declined call)
        ends: list[int] = []  # the text length after each of them
        base = ""
        shown = 0
        text = ""
        stream = self._texts(loaded, tokens, None, candidates=steps, made=made)
        while True:
            # (stream index, tokens banned, unknown call: True, a call declined: False, an echo: None)
            restart: tuple[int, list[int], bool | None] | None = None
            for latest in stream:
                text = base + latest
                ends.append(len(text))
                # a stop string ends the text, not a call: one in what may still open a call waits until
                # the opening is decided (a call then ignores it; text stops there)
                stop_at = find_stop(text, stops)
                found = scanner.feed(text) if scanner is not None else None
                if 0 <= stop_at < (found[0] if found is not None else -1):  # the text stopped before the call
                    text = text[:stop_at]
                    self.finish = "stop"
                    break
                if found is not None and calls_on:
                    pos, fmt = found
                    if steps is not None and judging:
                        first = next(i for i, end in enumerate(ends) if end > pos)
                        probability, opening, spaces = opening_probability(loaded, scanner, text, base, ends, steps,
                                                                           first)
                        if probability < gate:  # before declining, the other first tokens followed apart
                            follow = follower(loaded, [*tokens, *prior, *made[:first]])
                            probability = max(probability, opening_paths_probability(
                                loaded, scanner, text, base, ends, steps, first, made[first], follow,
                                bans_at.get(len(prior) + first, ())))
                        self.call_probability = probability
                        if probability < gate:
                            restart = first, [*opening, *spaces], False
                            break
                    stream.close()  # its tokens come off the budget now
                    head = text[:pos]
                    before = self.budget
                    judged = steps is not None and value_gate > 0
                    said = (head, stream_spans(len(base), ends, made, steps, len(head))) if judged else None
                    call_text, made_up = self._made_call(loaded, tokens, head, text[pos:], fmt, spec, context, said,
                                                         value_gate)
                    repeat = made_up is None and bool(answered) and only_answered(call_text, spec.tools, fmt, answered)
                    self.repeat_calls += repeat  # decline_repeat_calls: the model answers from the results instead
                    if made_up is not None or repeat:
                        self.made_up_values += [made_up] if made_up is not None else []
                        self.budget = before  # the declined call's tokens do not count
                        # a repeat's place is the answer's: neither the end of the reply nor a list there (review
                        # 172 #1: qwen2.5-coder-0.5b then ended with nothing, or "[]", and the Agent had no answer)
                        answer = answer_bans(loaded) if repeat else []
                        restart = first, [*dict.fromkeys([*opening, *spaces, *answer])], False
                        break
                    piece = visible_part(head, shown, len(head.rstrip()))
                    if piece:
                        yield AIMessageChunk(piece)
                    return head, call_text, fmt
                if (unknown_on and scanner is not None and (pos := scanner.unknown_call(text)) is not None
                        and not 0 <= stop_at < pos):
                    restart = self._unknown_restart(loaded, scanner, text, base, pos, ends, made, steps)
                    break
                if 0 <= stop_at < (scanner.held_from(text) if scanner is not None else len(text)):
                    text = text[:stop_at]
                    self.finish = "stop"
                    break
                end = scanner.safe_end(text) if scanner else len(text.rstrip())
                end = min(end, len(text) - hold)
                if (self.declined_calls or self.unknown_calls) and _EMPTY_LIST_START.fullmatch(text):
                    end = 0  # held: it may end as the empty list a declined call leaves (below)
                if echo is not None and not shown and may_echo(text, echo):  # (once shown, it left the request)
                    end = 0  # held: it may end as the request said again, declined (below)
                if known is not None and self.figures < _MAX_DECLINES:
                    end = 0  # held: the whole reply is judged when it ends, for a made-up figure (below)
                piece = visible_part(text, shown, end)
                if piece:
                    shown = end
                    yield AIMessageChunk(piece)
            else:  # the reply ended: what may still have been a call of no tool is judged as it stands
                if unknown_on and scanner is not None and (pos := scanner.unknown_call(text, final=True)) is not None:
                    restart = self._unknown_restart(loaded, scanner, text, base, pos, ends, made, steps)
                    if scanner.found == "values" and gate > 0 and steps:  # a list of values: declined only where a
                        follow = follower(loaded, [*tokens, *prior, *made[:restart[0]]])  # call was likely enough
                        kept = text[:ends[restart[0] - 1]] if restart[0] else base
                        if value_list_call_probability(loaded, scanner, kept, steps[restart[0]], follow) < gate:
                            self.unknown_calls -= 1
                            self.value_lists_kept += 1
                            restart = None
            if restart is None and known is not None and self.figures < _MAX_DECLINES and (  # a figure no message
                    restart := figure_restart(text, known, len(base), made)) is not None:  # holds, after failures
                self.figures += 1
            if (restart is None and echo is not None and made and not shown and self.echoes < _MAX_DECLINES
                    and is_echo(text, echo)):  # the request said again: from the stream's first token, that token
                self.echoes += 1  # banned with those an earlier echo began with (up to _MAX_DECLINES echoes)
                restart = 0, [made[0]], None
            if restart is None:
                break
            # not sure enough of this call: the reply goes on from just before its opening, without it
            stream.close()
            first, banned, was_unknown = restart
            at = len(prior) + first  # the reply's token index the generation goes on from
            self.declined_calls += was_unknown is False
            kept_at.update([at] if was_unknown is not False else [])
            bans_at.setdefault(at, set()).update(banned)
            # where a call of no tool opened (or an echo), every token banned there stays banned (each decline's own
            # else)
            banned = sorted(bans_at[at]) if at in kept_at else banned
            base = text = text[:ends[first - 1]] if first else base
            prior += made[:first]
            # closing the stream took all its tokens off the budget; the declined ones do not count
            self.budget += len(made) - first
            del made[:], ends[:]
            # after _MAX_DECLINES declined calls the reply is text: a call opening then counts as an unknown
            # call (declined up to _MAX_DECLINES times as well, so that the text is not a call list either)
            # (a scanner without calls, tool_choice "none", stays without: review 67, a call of a bound tool
            # after a declined unknown one was made with no tool offered, and crashed)
            calls_on = self.declined_calls < _MAX_DECLINES and bool(scanner and scanner.calls)
            unknown_on = unknown and self.unknown_calls < _MAX_DECLINES
            if not (calls_on or unknown_on):
                scanner = steps = None
            else:
                scanner = OpenerScanner(scanner.formats, scanner.names, calls=calls_on,  # type: ignore[union-attr]
                                        values=scanner.values)  # type: ignore[union-attr]
                scanner.feed(text)
                steps = []
            stream = self._texts(loaded, [*tokens, *prior], None, candidates=steps, ban=banned, made=made)
        stream.close()
        if (stop_at := find_stop(text, stops)) >= 0:  # held back as a possible call opening until the reply ended
            text = text[:stop_at]
            self.finish = "stop"
        if self.finish == "length" and scanner is not None and scanner.calls:  # cut while a call opened (review 73:
            pos = scanner.held_from(text)  # '[{"name": "get_weather' came back as the answer): a cut call, as one
            fmt = next((f for f in scanner.formats if pos < len(text)  # cut after its opening is
                        and OpenerScanner((f,), scanner.names).opens(text, pos)), None)
            if fmt is not None:
                start = len(text) - len(text[pos:].lstrip())
                piece = visible_part(text, shown, len(text[:start].rstrip()))
                if piece:
                    yield AIMessageChunk(piece)
                return text[:start], text[start:], fmt
        if (self.declined_calls or self.unknown_calls) and not shown and _EMPTY_LIST.fullmatch(text):
            text = ""  # all a declined call left: the call format's empty list, no answer (review 109: it was one)
        piece = visible_part(text, shown, len(text.rstrip()))
        if piece:
            yield AIMessageChunk(piece)
        return text, "", None

    def _unknown_restart(self, loaded: LoadedModel, scanner: OpenerScanner, text: str, base: str, pos: int,
                         ends: list[int], made: list[int], steps: list[dict[int, float]] | None
                         ) -> tuple[int, list[int], bool]:
        """The restart that declines a reply opening at ``pos`` as a call of no bound tool (or of one once calls
        are off): from the opening's first token, banning it and every likely token there that would open
        such a call again (:meth:`~toolwire.models.openers.OpenerScanner.opens_unknown`), so that the model
        answers in text."""
        first = next(i for i, end in enumerate(ends) if end > pos)
        kept = text[:ends[first - 1]] if first else base
        others = [t for t in (steps[first] if steps else ()) if t != made[first]
                  and scanner.opens_unknown(kept + loaded.piece(t).decode("utf-8", "replace"))]
        self.unknown_calls += 1
        return first, [made[first], *others], True

    # -- pieces ---------------------------------------------------------------------------------

    def _grammar(self, loaded: LoadedModel, tools: Sequence[ToolSpec], fmt: str, parallel: bool,
                 signature: bool) -> str | None:
        """The GBNF text constraining calls of ``tools`` in ``fmt`` (None: grammar off, or refused); with
        ``signature``, JSON calls take their arguments in the order the pythonic prompt's signatures show."""
        return loaded.call_grammar(tools, fmt, parallel, signature) if self.model.grammar else None

    def _system_prefix(self, loaded: LoadedModel, chat: Rendered, tokens: list[int]) -> int:
        """How many leading ``tokens`` are the system turn (with the tools), for the disk prompt cache;
        0 when the cache is off, there is no system turn, or it does not render as a prefix."""
        if not self.model.prompt_cache:
            return 0
        head = loaded.system_head(chat)
        return len(head) if head and len(head) < len(tokens) and tokens[:len(head)] == head else 0

    def _greedy(self) -> bool:
        """Whether replies are decoded greedily by :func:`~toolwire.models._decoding.greedy_tokens`."""
        return float(self.opts.get("temperature") or 0.0) <= 0 and float(self.opts.get("repeat_penalty", 1.0)) == 1.0

    def _texts(self, loaded: LoadedModel, tokens: list[int], grammar: str | None,
               forced: Sequence[int] = (), *, candidates: list[dict[int, float]] | None = None,
               ban: Sequence[int] = (), made: list[int] | None = None,
               lean: Lean | None = None) -> Iterator[str]:
        """Generate, yielding the whole decoded reply text after each token (``forced``: tokens already
        written after ``tokens``, accepted by the grammar first and not yielded; ``candidates``, ``ban``,
        ``lean``: see :func:`~toolwire.models._decoding.greedy_tokens`, greedy decoding only; ``made``: each
        generated token is appended to it)."""
        if self.budget <= 0:  # max_tokens reached already: not one more token
            self.finish = "length"
            return
        llm = loaded.llm
        temperature = float(self.opts.get("temperature") or 0.0)
        if temperature > 0 and self.opts.get("seed") is not None:
            llm.set_seed(int(self.opts["seed"]))
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        text = ""
        count = 0
        if self._greedy():  # prompt-lookup drafts, lazy grammar
            # drafts only inside tool calls (names and values copied from the prompt): on free text they
            # were rejected too often and cost more than they saved (B8: 0.90 of raw speed with them)
            stream = greedy_tokens(_llama_cpp(), llm, tokens, grammar=loaded.sampler(grammar) if grammar else None,
                                   is_eog=loaded.is_eog, draft_tokens=self.model.draft_tokens if grammar else 0,
                                   forced=forced, candidates=candidates, ban=ban, lean=lean)
        else:
            stream = sampled_tokens(loaded.llm, tokens, self.opts, temperature,
                                    loaded.llama_grammar(grammar) if grammar else None)
        try:
            for token in stream:
                if loaded.is_eog(token):
                    self.finish = "stop"
                    return
                count += 1
                self.generated += 1
                if made is not None:
                    made.append(token)
                text += decoder.decode(loaded.piece(token))
                yield text
                if count >= self.budget:
                    self.finish = "length"
                    return
            self.finish = "stop"
        except (UserError, GenerationCancelled):
            raise
        except Exception as exc:
            raise ProviderError(f"llama.cpp failed while generating: {exc}", provider="llamacpp") from exc
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
            self.budget -= count

    def _text(self, loaded: LoadedModel, tokens: list[int], grammar: str | None, forced: Sequence[int] = (),
              candidates: list[dict[int, float]] | None = None, made: list[int] | None = None,
              lean: Lean | None = None) -> str:
        text = ""
        for latest in self._texts(loaded, tokens, grammar, forced, candidates=candidates, made=made, lean=lean):
            text = latest
        return text

    def _call_lean(self, loaded: LoadedModel, fmt: str, grammar: str | None, parallel: bool,
                   limit: int | None = None) -> CallLean | None:
        """The one-more-call rule for a call list in ``fmt``, adding at most ``limit`` calls (None: off, not pythonic
        or json, one call allowed, no grammar, or not greedy). Off, it costs nothing: on, its first use in a process
        indexes the vocabulary (:meth:`~toolwire.models._loaded.LoadedModel.tokens_starting_with`, about 0.4 s)."""
        if (not self.parallel_share > 0 or fmt not in ("pythonic", "json") or not parallel or not grammar
                or not self._greedy()):
            return None
        return CallLean(loaded.piece, loaded.tokens_starting_with, self.parallel_share, fmt, limit,
                        ends=loaded.end_tokens)

    def _lean(self, loaded: LoadedModel, fmt: str, grammar: str | None) -> ArgumentLean | None:
        """The optional-argument rule for a call in ``fmt`` (None: off, not pythonic, no grammar, or not greedy)."""
        if self.share <= 0 or fmt != "pythonic" or not grammar or not self._greedy():
            return None
        return ArgumentLean(loaded.piece, loaded.tokens_starting_with, self.share)


def _char_starts(loaded: LoadedModel, tokens: Sequence[int], start: int) -> list[int]:
    """Where each of ``tokens`` starts in their decoded text placed at character ``start``, then where the last ends."""
    starts, pos = [start], start
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    for token in tokens:
        pos += len(decoder.decode(loaded.piece(token)))
        starts.append(pos)
    return starts
