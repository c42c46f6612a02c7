"""How sure the embedded model is of a tool call: the checks ``ChatLlamaCpp`` makes before keeping one.

Both read the model's own token probabilities, which greedy decoding reports for every token it chooses
(:func:`toolwire.models._decoding.greedy_tokens`, ``candidates``: the softmax of the raw logits, before any
grammar or ban):

* :func:`opening_probability`: the probability that the model opens a call where it did (``[get_weather(``), summed
  over every way of opening one (``min_call_probability``); :func:`opening_paths_probability`, a closer estimate.
* :func:`made_up_value`: an argument value that the model was unsure of *and* that the conversation does not
  hold: the value of a call to a tool that does not fit, made up to fill the schema
  (``min_value_probability``). A value the model copies from the question is kept however unsure the model
  was of its spelling (``"Seattle, Washington"`` against ``"Seattle, WA"``); a value it is sure of is kept
  even when it was worked out (``70`` inches for "5 feet 10 inches"). The spans of the values come from Python's
  own parser for pythonic call lists (``parse_source``: ``ast.parse`` one at a time, nothing is evaluated but
  literals) and from the standard JSON decoder for JSON calls (``{"name": ..., "arguments": {...}}``, one per
  line, in a list, in a ```` ```json ```` fence or in hermes ``<tool_call>`` blocks).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import math
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from toolwire.models._date_values import date_time_in_context
from toolwire.models._number_readings import WRITTEN as _NUMBER
from toolwire.models._number_readings import context_numbers
from toolwire.models._number_readings import exact as _exact
from toolwire.models._number_readings import normal_text as _normal
from toolwire.models._unspaced import has_unspaced, pieces_found, text_measure, whole_run, word_start
from toolwire.parsing._python_parse import parse_source

if TYPE_CHECKING:
    from toolwire.models._loaded import LoadedModel
    from toolwire.models.openers import OpenerScanner
    from toolwire.tools import ToolSpec

__all__ = ["CallSpec", "context_numbers", "context_words", "conversation_texts", "follower", "in_context",
           "made_up_value", "opening_paths_probability", "opening_probability", "stream_spans"]

@dataclasses.dataclass(frozen=True, slots=True)
class CallSpec:
    """What constrains and judges a call of one reply: the tools offered, parallel calls allowed, signature
    order, the made-up values of the prompt's example calls."""

    tools: tuple[ToolSpec, ...]
    parallel: bool
    signature: bool
    example_values: Mapping[str, frozenset[str]] = dataclasses.field(default_factory=dict)


def opening_probability(loaded: LoadedModel, scanner: OpenerScanner, text: str, base: str, ends: list[int],
                        steps: list[dict[int, float]], first: int) -> tuple[float, list[int], list[int]]:
    """The probability that the model opens a call where it did, and the tokens that open one there.

    Args:
        loaded: the model (for each token's text).
        scanner: the call-opening recogniser of the reply (its formats and bound tools).
        text: the reply so far.
        base: the part of ``text`` before the current stream (kept over declined calls).
        ends: ``ends[i]`` is the length of ``text`` after the stream's token ``i``.
        steps: ``steps[i]`` is that token's candidates, ``{token id: probability}`` (see
            :func:`~toolwire.models._decoding.greedy_tokens`).
        first: the index of the opening's first token in the stream.

    For each token of the opening (indexes ``first`` to the last of ``steps``), the probabilities of
    the candidates that would go on opening a call (a piece with text that keeps the line a call
    opening of any format and bound tool; see :meth:`OpenerScanner.opens`) are added up, and those
    sums multiplied: so ``[`` + ``note`` and ``[note`` both count, and a reply that was about to be
    a call to some bound tool counts whichever tool it was. It is an estimate of the probability of
    the opening as text, not an exact sum over token paths: after the first step only the path taken
    is followed (other spellings are taken to go on as surely), a candidate counts when the line may
    still become an opening (``[get`` could go on as ``[getting``), and only the ``top_k`` most likely
    candidates of each step are seen (see :func:`~toolwire.models._decoding.greedy_tokens`).

    Returns:
        ``(probability 0..1, the token ids at ``first`` that open a call, the whitespace-only ones
        at ``first``)``: the two lists are what a decline bans.
    """
    probability = 1.0
    opening: list[int] = []
    spaces: list[int] = []
    line = text.rfind("\n", 0, ends[first - 1] if first else len(base)) + 1
    for i in range(first, len(steps)):
        before = text[:ends[i - 1]] if i else base
        mass = _opening_mass(loaded, scanner, before, line, steps[i], opening if i == first else None,
                             spaces if i == first else None)
        probability *= mass
    return probability, opening, spaces


def _opening_mass(loaded: LoadedModel, scanner: OpenerScanner, before: str, line: int, candidates: dict[int, float],
                  opening: list[int] | None = None, spaces: list[int] | None = None) -> float:
    """The probability of the ``candidates`` that keep ``before`` + their text a call opening (the line starting
    at ``line``); at an opening's first step, ``opening`` and ``spaces`` collect the opening and the
    whitespace-only tokens (whitespace there opens nothing)."""
    mass = 0.0
    for token, p in candidates.items():
        piece = loaded.piece(token).decode("utf-8", "replace")
        if spaces is not None and not piece.strip():
            spaces.append(token)  # whitespace before an opening opens nothing (inside one it may: ```\n[)
            continue
        candidate = before + piece
        starts = {line, before.rfind("\n") + 1, *(len(before) + j + 1 for j, c in enumerate(piece) if c == "\n")}
        # a start counts once the candidate writes something there (a piece ending in "\n" only begins a line)
        if any(candidate[s:].strip() and scanner.opens(candidate, s) for s in starts):
            mass += p
            if opening is not None:
                opening.append(token)
    return mass


FOLLOWED = 0.05
"""The least probability of an opening's first token that :func:`opening_paths_probability` follows apart."""


def opening_paths_probability(loaded: LoadedModel, scanner: OpenerScanner, text: str, base: str, ends: list[int],
                              steps: list[dict[int, float]], first: int, taken: int,
                              follow: Callable[[int], dict[int, float] | None], banned: Collection[int] = ()) -> float:
    """A closer estimate than :func:`opening_probability`, for an opening about to be declined: every token that
    opens a call at its first step with probability at least :data:`FOLLOWED` is followed one token further.

    :func:`opening_probability` takes every way of opening to go on as surely as the path the model took. That
    fails where the path taken is a detour: in some KV-cache states qwen2.5-coder-1.5b opened the book's call as
    ``['`` (0.44, a call written as a string in the list, after which the name was unsure: 0.23) rather than
    ``[`` (0.39, after which it is sure), so the estimate was 0.22 where the model's probability of the call is
    about 0.5 (a hand probe, twenty-first session). From an empty cache the model takes ``[`` (0.43; ``['`` 0.40,
    after which the name has 0.39): ``python benchmarks/probe_opening_paths.py --min-call-probability 1.0``
    prints these steps. Here each
    first token ``t`` weighs ``P(t) * P(the next token goes on opening a call | t)``, from ``follow(t)`` (the
    model's next-token candidates after ``t``, one evaluation each) for the likely ones and from the path taken
    for the others, times the path taken's later steps.

    Args:
        taken: the token the model took at ``first``.
        follow: the candidates ``{token: probability}`` after a first token instead of ``taken``, or None when
            they cannot be had.
        banned: tokens banned at ``first`` (a restart after a decline): they open nothing.
        (the others: as :func:`opening_probability`.)

    Returns:
        The probability, 0..1; the same as :func:`opening_probability`'s when the opening is one token long.
    """
    if len(steps) - first < 2:
        return opening_probability(loaded, scanner, text, base, ends, steps, first)[0]
    line = text.rfind("\n", 0, ends[first - 1] if first else len(base)) + 1
    start = text[:ends[first - 1]] if first else base
    later = 1.0
    for i in range(first + 2, len(steps)):
        later *= _opening_mass(loaded, scanner, text[:ends[i - 1]], line, steps[i])
    second = _opening_mass(loaded, scanner, text[:ends[first]], line, steps[first + 1])
    opening: list[int] = []
    _opening_mass(loaded, scanner, start, line, steps[first], opening, [])
    total = 0.0
    for token in opening:
        p = steps[first][token]
        if token in banned:
            continue
        after = follow(token) if token != taken and p >= FOLLOWED else None
        piece = loaded.piece(token).decode("utf-8", "replace")
        total += p * (second if after is None else _opening_mass(loaded, scanner, start + piece, line, after))
    return min(1.0, total * later)


_LINE_END = re.compile(r"\r\n|\r|\n")  # what Python's parser counts as a line end


def _value_nodes(text: str) -> Iterator[tuple[str, str, ast.expr, int, int]]:
    """``(function name, keyword, value node, start, end)`` for each argument of a pythonic call list in
    ``text`` (fenced or not, on one line or several): the call's (dotted) name as written, the node and its
    character span in ``text``; nothing when ``text`` is not such a list."""
    start = text.find("[")
    if start < 0:
        return
    body = text[start:].rstrip().removesuffix("```").rstrip()
    try:
        tree = cast(ast.Expression, parse_source(body))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    if not isinstance(tree.body, ast.List):
        return
    firsts = [0, *(m.end() for m in _LINE_END.finditer(body))]  # where each line of body starts

    def where(lineno: int, col: int) -> int:  # ast gives a line and a UTF-8 byte offset in it
        if lineno - 1 >= len(firsts):
            return len(text)
        line = body[firsts[lineno - 1]:]
        return start + firsts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8", "replace"))

    for call in tree.body.elts:
        if isinstance(call, ast.Call):
            name = ast.get_source_segment(body, call.func) or ""
            for kw in call.keywords:
                node = kw.value
                if kw.arg and node.end_lineno is not None and node.end_col_offset is not None:
                    yield name, kw.arg, node, where(node.lineno, node.col_offset), where(node.end_lineno,
                                                                                           node.end_col_offset)


_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")  # JSON's whitespace
_BETWEEN = re.compile(r"(?:[ \t\n\r,]|</?tool_call>)*")  # what may part two call objects (a hermes block's tags)


def _json_members(text: str, i: int) -> tuple[list[tuple[str, int, int, Any]], int]:
    """The members of the JSON object that opens at ``text[i]`` (``{``), as ``(key, start, end, value)``
    with the value's character span, and the index just after its ``}``.

    Raises:
        ValueError: the text there is not a JSON object (json.JSONDecodeError is one).
    """
    members: list[tuple[str, int, int, Any]] = []
    i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
    if text.startswith("}", i):
        return members, i + 1
    while True:
        if not text.startswith('"', i):
            raise ValueError("a key was expected")
        key, i = _DECODER.raw_decode(text, i)
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        if not text.startswith(":", i):
            raise ValueError("':' was expected")
        start = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
        value, end = _DECODER.raw_decode(text, start)
        members.append((key, start, end, value))
        i = _WS.match(text, end).end()  # type: ignore[union-attr]
        if text.startswith(",", i):
            i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
        elif text.startswith("}", i):
            return members, i + 1
        else:
            raise ValueError("',' or '}' was expected")


def _json_values(text: str) -> list[tuple[str, str, Any, int, int]]:
    """``(function name, argument name, value, start, end)`` for each argument of the JSON calls in ``text``
    (``{"name": ..., "arguments": {...}}`` objects: one, several one per line or in hermes blocks, or a JSON
    list of them; fenced or not), each value's character span in ``text``; [] when ``text`` holds no such
    calls or is not valid JSON where they are."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return []
    i = min(starts)
    in_list = text.startswith("[", i)
    if in_list:
        i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
    found: list[tuple[str, str, Any, int, int]] = []
    try:
        while text.startswith("{", i):
            members, i = _json_members(text, i)
            name = next((v for k, _, _, v in members if k == "name" and isinstance(v, str)), "")
            for key, a, _, value in members:
                if key in ("arguments", "parameters") and isinstance(value, dict):
                    found += [(name, arg, v, start, end) for arg, start, end, v in _json_members(text, a)[0]]
            i = _BETWEEN.match(text, i).end()  # type: ignore[union-attr]
    except (ValueError, RecursionError, MemoryError):
        return []
    return found


def _values(text: str, fmt: str) -> Iterator[tuple[str, str, Any, int, int]]:
    """``(function name, argument name, value, start, end)`` for each argument of the calls in ``text``
    written in call format ``fmt`` (``"pythonic"``; ``"json"`` and ``"hermes"``): the value as a Python
    object (a literal Python cannot read is left out) and its character span in ``text``."""
    if fmt != "pythonic":
        yield from _json_values(text)
        return
    for name, key, node, a, b in _value_nodes(text):
        try:
            yield name, key, ast.literal_eval(node), a, b
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue


def _leaves(value: Any, depth: int = 0) -> Iterator[Any]:
    """The scalars inside a value (dict values, list/tuple/set items), at most 32 levels down."""
    if depth > 32:
        return
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item, depth + 1)
    elif isinstance(value, list | tuple | set):
        for item in value:
            yield from _leaves(item, depth + 1)
    else:
        yield value


def context_words(context: Iterable[str]) -> str:
    """The texts as one string to look strings up in (:func:`_normal`: NFKC, case folded, whitespace runs as
    one space), the texts apart by a line break."""
    return "\n".join(_normal(text) for text in context)


def in_context(value: Any, words: str, numbers: set[Decimal]) -> bool:
    """Whether a literal comes from the conversation (``words`` and ``numbers`` from :func:`context_words` and
    :func:`context_numbers`).

    Args:
        value: a leaf of a tool call's arguments.
        words: the conversation's text, normalised.
        numbers: the numbers written in it.

    Returns:
        For a string: whether the conversation holds it from the start of a word (letter case, Unicode form,
        ``_`` against a space and runs of whitespace aside: ``"Rome"`` is not found in "Jerome", ``"in"`` is
        found in "inches" and ``"EUR"`` in "euros", the abbreviations models write, and ``"pet_friendly"`` in
        "pet friendly"), or as the number it spells (``"1500"`` in "1,500"), or, for two words or more written with
        spaces, each of its words so (``"Copa do Mundo 2022"`` in "a Copa do Mundo de 2022": a query or title the
        model composed from the user's words; replayed on every decline the stored BFCL runs record, it turns none
        of the 23 multi-word irrelevance declines into a call), or, for an ISO 8601 date, time or date-time, each of
        its parts in a form people write it (``2025-05-02T09:00`` for "May 2nd, 2025 at 9am";
        :func:`~toolwire.models._date_values.date_time_in_context`). In a script written without spaces
        (Chinese, Japanese, Thai...) any place is the start of a word (``"北京"`` in "明天北京的天气"), but a value
        shorter than a word there (one character; :func:`~toolwire.models._unspaced.whole_run`) is found only as a
        whole run of such letters (``"天"`` is not in "明天北京的天气"), and a value of
        two words or more by :func:`~toolwire.models._unspaced.text_measure` is found when its runs are made of
        pieces of the conversation a word long or more (``"東京大阪天気"``;
        :func:`~toolwire.models._unspaced.pieces_found`). For a number: whether it is written there, exactly (``5``
        and ``5.0`` are one number, two ids that differ in their last digit are not). ``True``, ``False``,
        ``None`` and other values carry no evidence either way: True.
    """
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int | float):
        number = _exact(value)
        return number is not None and number in numbers
    if isinstance(value, str):
        wanted = _normal(value)
        if not wanted:
            return True
        # at the start of a word: "Rome" is not in "Jerome", but "in" is in "inches" and "EUR" in "euros"
        # (abbreviations the model writes for the user's words)
        # (anywhere in a script written without spaces: "北京" in "明天北京的天气"; review 282 #1)
        # (but shorter than a word there, only as a whole run: not 天 in "明天北京的天气"; review 286 #6)
        behind, ahead = whole_run(wanted) if not wanted.isascii() else ("", "")
        if re.search(word_start(wanted[0]) + behind + re.escape(wanted) + ahead, words):
            return True
        if (dated := date_time_in_context(wanted, words, numbers)) is not None:  # 2025-05-02T09:00 for "May 2, 9am"
            return dated
        number = _exact(wanted) if _NUMBER.fullmatch(wanted) else None
        if number is not None:
            return number in numbers
        # words the conversation holds, put together anew with spaces (review 69: "Copa do Mundo 2022" for "a Copa do
        # Mundo de 2022", a search query the value check declined): every word found counts as found; not an
        # identifier joined by "_" ("pet_friendly" from "a pet hotel, friendly staff" is an enum value made up)
        # (without spaces: "東京大阪天気" of pieces a word long or more, _unspaced.pieces_found)
        parts = _WORD.findall(wanted)
        return (text_measure(value)[1] >= 2 and (len(parts) >= 2 or has_unspaced(wanted))
                and all(pieces_found(part, words) for part in parts))
    return True


_WORD = re.compile(r"\w+")


def _json_strings(text: str) -> list[str]:
    """The string and number leaves of ``text`` when it is JSON (a dict or list result), as text; else []."""
    if text[:1] not in ("{", "["):
        return []
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return []
    return [str(leaf) for leaf in _leaves(value) if isinstance(leaf, str | int | float) and not isinstance(leaf, bool)]


def conversation_texts(messages: Iterable[Any]) -> list[str]:
    """The texts a tool call's values may come from, in the conversation ``messages``.

    Args:
        messages: the conversation (toolwire messages).

    Returns:
        Each message's text as the model reads it (a tool result's blocks as the prompt writes them,
        :func:`toolwire.models._text_content.result_text`; other messages' text parts a line each), the string and
        number values inside results that are JSON text, and those of the arguments of earlier tool calls.
    """
    from toolwire.messages import content_text
    from toolwire.models._text_content import result_text

    texts: list[str] = []
    for message in messages:
        if getattr(message, "type", "") == "tool":
            try:
                shown = result_text(message.content)
            except Exception:  # a block the prompt cannot write is not a value the model read
                shown = content_text(message.content, sep="\n")
            texts.append(shown)
            texts += _json_strings(shown.strip())
        else:
            texts.append(content_text(message.content, sep="\n"))
        for call in getattr(message, "tool_calls", None) or ():
            texts += [str(leaf) for leaf in _leaves(call.get("args")) if leaf is not None]
    return texts


_WRITTEN_CHARS = 20  # (more than) the characters of a value the model writes rather than picks, three words or more


def written_text(value: Any) -> bool:
    """Whether ``value`` is text the model writes rather than a value it picks: a string of more than 20
    characters and three words or more (an email's body, a SQL query, a search sentence, code). The model is
    unsure of such text word by word, however right it is to write it, so how unsure it was says nothing of
    whether the tool fits; :func:`made_up_value` judges it only when it copies a prompt example (review 50:
    ``send_email`` and ``run_sql`` calls were declined), or an arithmetic expression (:func:`is_formula`). The
    values the check is for, made up to fill the schema of
    a tool that does not fit, are numbers, names and single words: of the 48 BFCL irrelevance items the declines
    turned right for the default model, 47 had such a value made up (``benchmarks/bfcl_declined_values.py``).
    Text in a script written without spaces is measured as the same text written with spaces would be
    (:func:`~toolwire.models._unspaced.text_measure`: two Chinese or Japanese characters, four Thai letters, make a
    word of five characters; review 282 #1), so a Chinese e-mail body is written text as an English one is, and a
    name such as "北京市朝阳区" is not."""
    if not isinstance(value, str):
        return False
    characters, words = text_measure(value)
    return (characters > _WRITTEN_CHARS and words >= 3) or is_formula(value)


_FORMULA = re.compile(r"[\d.\s()+\-*/%^]+")
_OPERATOR = re.compile(r"[\d.)]\s*[*/+^%]\s*[\d.(]|[\d.)]\s+-\s+[\d.(]")


def is_formula(value: str) -> bool:
    """Whether ``value`` is an arithmetic expression the model wrote (``"15 * 80 / 100"`` for "15% of 80"): only
    numbers, parentheses and the operators ``+ - * / % ^``, with at least one operator between two numbers (a
    minus with spaces around it: ``2023-09-15`` is a date). The model composes it from the request, so it holds
    numbers the request does not (``100`` for a percentage) and is unsure of it token by token however right it
    is (review 67: "Calculate 15% of 80." had its calculator call declined, and the model answered from memory)."""
    return bool(_FORMULA.fullmatch(value)) and bool(_OPERATOR.search(value))


def made_up_value(text: str, tokens: Iterable[tuple[int, int, float]], context: Iterable[str],
                  bar: float, example_values: Mapping[str, Collection[str]] | Collection[str] = (),
                  head: tuple[str, Iterable[tuple[int, int, float]]] = ("", ()), fmt: str = "pythonic",
                  defaults: Mapping[str, Mapping[str, Collection[str]]] | None = None) -> str | None:
    """The first argument value of a reply's tool calls that the model was unsure of and did not take from
    the conversation, as ``"keyword=literal"``; None when there is none (or ``text`` holds no calls in ``fmt``).

    Args:
        text: the reply's call text (``[f(a=1), g(b="x")]`` in ``"pythonic"``, ``[{"name": "f", "arguments":
            {"a": 1}}]`` in ``"json"``; fenced or not).
        tokens: ``(start, end, probability)`` of each generated token: its character span in ``text`` and the
            model's probability of it (0..1, before the grammar). Tokens ``text`` begins with that were not
            generated (a call's opening kept as written) may be left out.
        context: the conversation's texts the values may come from: every message's text (the system
            message's too) and the arguments of earlier tool calls, but not the prompt's tool descriptions,
            whose example values would count.
        bar: a value is unsure when the product of its tokens' probabilities is below this (0..1).
        example_values: the made-up strings of the prompt's example calls, by the function name a call writes
            (:func:`toolwire.models._tool_text.example_strings`; a plain collection applies to every
            call): a value of that function holding one of them that ``context`` does not hold counts as
            made up however sure the model was (it copied the example).
        head: the reply's text before the call and ``(start, end, probability)`` of the tokens generated in
            it whose probabilities are known (spans in that text). A value the model first wrote there,
            in its own prose ("I need the period "16th century""), and then copied into the call surely
            is judged by how sure the model was where it wrote it first: the copy is sure, the choice was not.
        fmt: the call format of ``text`` (:data:`toolwire.models.grammar.FORMATS`).
        defaults: texts that count as found for one argument of one function only, ``{function name: {argument
            name: texts}}`` (the schema's own defaults: :func:`toolwire.models._tool_text.default_values`), found
            in them as in ``context``.

    Returns:
        ``"keyword=literal"`` of the first value that is unsure (in the call, or where ``head`` first writes
        it) and holds a string or number (at any depth) not found in ``context`` (:func:`in_context`) that is
        not :func:`written_text` (such text is judged only as a copy of an example value), or
        holds an example value not found there; None
        otherwise (also when ``bar`` is 0: the check is off). Never raises on odd text: what Python's
        parser does not read as a call list of literals, or the JSON decoder as call objects, is not judged.
    """
    spans = list(tokens)
    if bar <= 0 or not spans:
        return None
    texts = list(context)
    words, numbers = context_words(texts), context_numbers(texts)
    said, said_spans = head[0], list(head[1])
    for name, key, value, a, b in _values(text, fmt):
        inside = [p for start, end, p in spans if start < b and end > a]
        unsure = bool(inside) and math.prod(inside) < bar
        examples = example_values.get(name, ()) if isinstance(example_values, Mapping) else example_values
        if not unsure and not examples and not said_spans:
            continue
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = text[a:b]  # a bare number as written: literal_eval rounds long fractions and 1e400
        for leaf in _leaves(value):
            picked = not written_text(leaf) and (unsure or _unsure_where_said(leaf, said, said_spans, bar))
            flagged = picked or (isinstance(leaf, str) and leaf in examples)
            if flagged and not in_context(leaf, words, numbers) and not _a_default(leaf, name, key, defaults):
                return f"{key}={text[a:b]}"
    return None


def _a_default(leaf: Any, name: str, key: str, defaults: Mapping[str, Mapping[str, Collection[str]]] | None) -> bool:
    texts = list((defaults or {}).get(name, {}).get(key, ()))
    return bool(texts) and in_context(leaf, context_words(texts), context_numbers(texts))


def _unsure_where_said(leaf: Any, said: str, spans: list[tuple[int, int, float]], bar: float) -> bool:
    """Whether the reply's prose before the call (``said``) first writes ``leaf`` with tokens whose
    probabilities multiply to less than ``bar``. It is found there as :func:`in_context` finds a value: a
    number exactly as written (``30`` is not in "2030"), a string from the start of a word, letter case aside
    and ``_`` as a space (``"in"`` is not in "thinking"; ``"pet_friendly"`` is in "pet friendly"), anywhere in
    a script written without spaces (``"北京"`` in "我查一下北京的天气"). Tokens of unknown probability (not in
    ``spans``) count as sure."""
    if not spans or not isinstance(leaf, str | int | float) or isinstance(leaf, bool):
        return False
    wanted = str(leaf).strip()
    if _NUMBER.fullmatch(wanted):
        pattern = r"(?<![\w.])" + re.escape(wanted) + r"(?!\.?\d)"
    else:
        words = _normal(wanted).split()
        if not words:
            return False
        pattern = r"[\s_]+".join(re.escape(word) for word in words)
        pattern = word_start(words[0][0], underscore=False) + pattern  # from the start of a word ("_" as a space)
    found = re.search(pattern, said, re.IGNORECASE)
    if found is None:
        return False
    inside = [p for start, end, p in spans if start < found.end() and end > found.start()]
    return bool(inside) and math.prod(inside) < bar


def stream_spans(start: int, ends: list[int], made: list[int], steps: list[dict[int, float]] | None,
                 stop: int) -> list[tuple[int, int, float]]:
    """``(start, end, probability)`` of the tokens of a reply's current stream that end by ``stop``.

    Args:
        start: where the stream's text starts in the reply.
        ends: the reply's length after each of the stream's tokens.
        made: the stream's token ids.
        steps: each token's candidates (``{token id: probability}``), or None when they were not read.
        stop: the end of the part wanted (the reply's text before a call).
    """
    if steps is None:
        return []
    out = []
    for token, end, candidates in zip(made, ends, steps, strict=False):
        if end > stop:
            break
        out.append((start, end, candidates.get(token, 0.0)))
        start = end
    return out


def follower(loaded: LoadedModel, prefix: list[int]) -> Callable[[int], dict[int, float] | None]:
    """``follow(token)``: the model's 32 likeliest next tokens after ``prefix`` + ``token`` with their
    probabilities (softmax of the logits), for :func:`~toolwire.models._call_checks.opening_paths_probability`.
    The paused reply's state (KV cache, tokens) is saved before and put back after, so its generation goes
    on as if nothing had run; None when the KV cache does not hold ``prefix`` or cannot drop what follows."""
    from toolwire.models._loaded import _llama_cpp

    def follow(token: int) -> dict[int, float] | None:
        llm = getattr(loaded, "llm", None)  # a stand-in model without llama.cpp state follows nothing
        n = len(prefix)
        if llm is None or llm.n_tokens < n or list(llm.input_ids[:n]) != prefix:
            return None
        state = loaded.save_state()
        try:
            if not llm._ctx.kv_cache_seq_rm(-1, n, -1):
                return None
            llm.n_tokens = n
            llm.eval([token])
            logits = np.ctypeslib.as_array(_llama_cpp().llama_get_logits_ith(llm._ctx.ctx, -1),
                                           shape=(llm.n_vocab(),)).astype(np.float64)
        finally:
            loaded.restore_state(state)
        p = np.exp(logits - logits.max())
        p /= p.sum()
        top = np.argpartition(p, -32)[-32:]
        return {int(t): float(p[t]) for t in top}
    return follow
