"""How sure the embedded model is of a tool call: the checks ``ChatLlamaCpp`` makes before keeping one.

Both read the model's own token probabilities, which greedy decoding reports for every token it chooses
(:func:`toolwire.models._decoding.greedy_tokens`, ``candidates``: the softmax of the raw logits, before any
grammar or ban):

* :func:`opening_probability`: the probability that the model opens a call where it did (``[get_weather(``),
  summed over every way of opening one (``min_call_probability``).
* :func:`made_up_value`: an argument value that the model was unsure of *and* that the conversation does not
  hold: the value of a call to a tool that does not fit, made up to fill the schema
  (``min_value_probability``). A value the model copies from the question is kept however unsure the model
  was of its spelling (``"Seattle, Washington"`` against ``"Seattle, WA"``); a value it is sure of is kept
  even when it was worked out (``70`` inches for "5 feet 10 inches"). Pythonic call lists only for now: the
  spans of their values come from Python's own parser (``ast.parse``, nothing is evaluated but literals).
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolwire.models._loaded import LoadedModel
    from toolwire.models.grammar import OpenerScanner

__all__ = ["made_up_value", "opening_probability"]

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def opening_probability(loaded: LoadedModel, scanner: OpenerScanner, text: str, base: str, ends: list[int],
                        steps: list[dict[int, float]], first: int) -> tuple[float, list[int], list[int]]:
    """The probability that the model opens a call where it did, and the tokens that open one there.

    ``text`` is the reply so far, ``base`` its part before the current stream, ``ends[i]`` the length
    of ``text`` after the stream's token ``i`` and ``steps[i]`` that token's candidates (see
    :func:`~toolwire.models._decoding.greedy_tokens`). For each token of the opening (indexes
    ``first`` to the last of ``steps``), the probabilities of
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
        mass = 0.0
        for token, p in steps[i].items():
            piece = loaded.piece(token).decode("utf-8", "replace")
            if i == first and not piece.strip():
                spaces.append(token)  # whitespace before an opening opens nothing (inside one it may: ```\n[)
                continue
            candidate = before + piece
            starts = {line, before.rfind("\n") + 1,
                      *(len(before) + j + 1 for j, c in enumerate(piece) if c == "\n")}
            # a start counts once the candidate writes something there (a piece ending in a newline
            # only begins a line that may or may not become a call)
            if any(candidate[s:].strip() and scanner.opens(candidate, s) for s in starts):
                mass += p
                if i == first:
                    opening.append(token)
        probability *= mass
    return probability, opening, spaces


def _value_nodes(text: str) -> Iterator[tuple[str, ast.expr, int]]:
    """``(keyword, value node, offset of the node's line 1 in text)`` for each argument of a pythonic call
    list in ``text`` (fenced or not); nothing when it is not one."""
    start = text.find("[")
    if start < 0:
        return
    body = text[start:].rstrip().removesuffix("```").rstrip()
    try:
        tree = ast.parse(body, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    if not isinstance(tree.body, ast.List):
        return
    for call in tree.body.elts:
        if isinstance(call, ast.Call):
            for kw in call.keywords:
                if kw.arg and kw.value.lineno == 1 and kw.value.end_lineno == 1:
                    yield kw.arg, kw.value, start


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list | tuple | set):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _in_context(value: Any, words: str, numbers: set[float]) -> bool:
    """Whether a literal comes from the conversation: a string found in it (letter case and runs of spaces
    aside), a number written in it; ``True``, ``False`` and ``None`` carry no evidence either way."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int | float):
        return float(value) in numbers
    if isinstance(value, str):
        return " ".join(value.split()).casefold() in words
    return True


def made_up_value(text: str, tokens: Iterable[tuple[int, int, float]], context: Iterable[str],
                  bar: float) -> str | None:
    """The first argument value of a pythonic call list that the model was unsure of and did not take from
    the conversation, as ``"keyword=literal"``; None when there is none (or ``text`` is not such a list).

    Args:
        text: the reply's call text (``[f(a=1), g(b="x")]``, fenced or not).
        tokens: ``(start, end, probability)`` of each generated token: its character span in ``text`` and the
            model's probability of it (0..1, before the grammar). Tokens ``text`` begins with that were not
            generated (a call's opening kept as written) may be left out.
        context: the conversation's texts the values may come from (the user's messages, the earlier replies
            and tool results; not the tool descriptions, whose example values would count).
        bar: a value is unsure when the product of its tokens' probabilities is below this (0..1).

    Returns:
        ``"keyword=literal"`` of the first value that is unsure and holds a string or number (at any depth)
        not found in ``context``; None otherwise.
    """
    spans = list(tokens)
    if bar <= 0 or not spans:
        return None
    words = " ".join(" ".join(context).split()).casefold()
    numbers = {float(n) for n in _NUMBER.findall(" ".join(context).replace(",", ""))}
    for key, node, offset in _value_nodes(text):
        line = text[offset:].split("\n", 1)[0].encode("utf-8")  # ast's offsets count UTF-8 bytes of the line
        a = offset + len(line[:node.col_offset].decode("utf-8", "replace"))
        b = offset + len(line[:node.end_col_offset].decode("utf-8", "replace"))
        inside = [p for start, end, p in spans if start < b and end > a]
        if not inside or math.prod(inside) >= bar:
            continue
        try:
            value = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if not all(_in_context(leaf, words, numbers) for leaf in _leaves(value)):
            return f"{key}={text[a:b]}"
    return None
