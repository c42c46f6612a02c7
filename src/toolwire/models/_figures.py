"""Figures an answer after failed tool calls makes up, for declining them (``ChatLlamaCpp(decline_made_up_figures=)``).

When every tool result the model answers is an error, no tool gave it a figure, so a number in its answer that no
message of the conversation holds is made up: "O saldo da conta 4417 é R$ 0.00." after ``get_balance`` failed,
"Der Kontostand von Konto 7788 beträgt 123456." (``benchmarks/failed_results.py``: the default model wrote such a
figure in 8 of 20 answers after failed calls, forty-sixth session; a hint against it in the results turn cut that to
5 but made 3 answers echo the English error, thirty-fifth session). This is the rule the value check applies to a
call's arguments (a value the conversation does not hold is made up, :mod:`toolwire.models._call_checks`), applied
to the answer's figures, where it can be decided by reading (:func:`made_up_figure`): a standalone number of two
digits or more that no message holds, in the same digit groups, in a value it may mean (the value check's reading of
numbers, :mod:`toolwire.models._number_readings`) or group by group, is made up.

:class:`~toolwire.models._generation.Generation` applies it at temperature 0 only (a sampled reply regenerated
with the same seed comes out the same: review 134 #1). It holds every reply to such results back from the stream
until the reply ends, judges the whole reply then (a call the model makes instead, to try again, is not judged:
review 134 #2), and one that states a made-up figure is generated again from its first token, that token banned (up
to three times, the bans accumulating, as for an echo: :mod:`toolwire.models._echo`; the fourth reply is kept as it
is). Banning the figure's own first token was tried first and does not work: the model, committed by "é R$ ", wrote
another made-up figure each time (8 of 20 still). From the first token, the eight answers became statements that
the call failed ("A conta 4417 não existe.", "Não foi possível encontrar informações sobre quando foi fundada a
cidade de Curitiba."), one of them in English for a German question; the other twelve answers, and every answer of
``benchmarks/chained_calls.py`` and of the 0.5b model's run, are the same as without the rule.

What it cannot tell (review 134 #3): a figure of general knowledge an honest answer may give after a failure (a
year, an HTTP status the error did not name, "press for 10 seconds") is declined like a made-up one, and a made-up
result in words ("pending", "twelve") is not.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from toolwire.models._number_readings import grouped_spans, readings
from toolwire.models._text_content import prompt_text, result_text

__all__ = ["figure_context", "figure_restart", "made_up_figure"]

_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")  # standalone: not in "v2", "MP3", "sha256", "1st"
_GROUPS = re.compile(r"[.,]")


def _ascii(number: str) -> str:
    """``number`` in ASCII digits (``"٤٤١٧"``, the Arabic-Indic digits, -> ``"4417"``)."""
    if number.isascii():
        return number
    return "".join(str(unicodedata.digit(c)) if c.isdigit() else c for c in number)


def _groups(number: str) -> tuple[str, ...]:
    """The digit groups of ``number`` in ASCII digits (``"1.744.000"`` -> ``("1", "744", "000")``; ``"٤٤١٧"``, the
    Arabic-Indic digits, -> ``("4417",)``), a last group of zeros after a separator left out (``"80,00"`` and
    ``"80.0"`` are ``("80",)``) unless it is a group of thousands (``"100.000"`` is ``("100", "000")``, not the
    100 of "100 ações": review 231 #3)."""
    groups = tuple(_GROUPS.split(_ascii(number)))
    if len(groups) < 2 or groups[-1].strip("0") or _thousands(groups):
        return groups
    return groups[:-1]


def _thousands(groups: tuple[str, ...]) -> bool:
    """Whether digit ``groups`` are groups of thousands: a first of one to three digits not starting with ``0``
    (not ``"0.250"``) and every other of three (``"4.417"``, ``"1,744,000"``, ``"100.000"``)."""
    return (len(groups) > 1 and 1 <= len(groups[0]) <= 3 and not groups[0].startswith("0")
            and all(len(group) == 3 for group in groups[1:]))


def _with_cents(number: str) -> bool:
    """Whether ``number`` is an amount of groups of thousands with a decimal part, told by its other separator:
    ``"12.345,67"``, ``"12,345.67"``, ``"1.234.567,89"`` (review 221 #1); not an address or a version, whose
    separators are all one (``"192.168.1.1"``, ``"1.100.12"``)."""
    marks = _GROUPS.findall(number)
    raw = _GROUPS.split(_ascii(number))
    return (len(raw) > 2 and 1 <= len(raw[0]) <= 3 and all(len(group) == 3 for group in raw[1:-1])
            and len(set(marks[:-1])) == 1 and marks[-1] != marks[0])


def _digits(value: Decimal) -> tuple[str, ...]:
    """A value as the digit groups a figure is compared by: its whole part and its decimal part without trailing
    zeros, if any (``12345.670`` -> ``("12345", "67")``, ``100.000`` -> ``("100",)``)."""
    whole, _, part = f"{abs(value):f}".partition(".")
    part = part.rstrip("0")
    return (whole, part) if part else (whole,)


def _readings(number: str) -> set[tuple[str, ...]]:
    """The digit groups ``number`` may be compared by: its :func:`_groups`, and each value it may mean
    (:func:`~toolwire.models._number_readings.readings`, the value check's reading) as :func:`_digits`: groups of
    thousands by all their digits (``"4.417"`` -> ``("4417",)``; ``"100.000"`` -> ``("100000",)``, never the
    ``("100",)`` of "100 ações": review 231 #3), an amount with cents (``"12.345,67"`` -> ``("12345", "67")``), a
    decimal part without its trailing zeros (``"80,50"``, ``"80.50"`` -> ``("80", "5")``, as ``"80.5"``: review
    221 #2; ``"0.250"`` -> ``("0", "25")``: review 231 #4), both readings where both are usual (``"1.500"`` ->
    ``("1500",)`` and ``("1", "5")``)."""
    if not _GROUPS.search(number):
        return {_groups(number)}  # digits alone, as written ("08" stays "08")
    return {_groups(number), *(_digits(value) for value in readings(_ascii(number)))}


def figure_context(messages: Sequence[Any]) -> tuple[frozenset[tuple[str, ...]], frozenset[str]] | None:
    """The figures an answer to ``messages`` may state, or None when the rule does not apply.

    Args:
        messages: the conversation the reply answers (toolwire messages, as ``ChatLlamaCpp`` renders them).

    Returns:
        None unless the conversation ends with tool results (the ToolMessages after the last AIMessage) and every one
        of them is an error; then ``(numbers, groups)``: the digit groups of every number in the conversation's text
        (each message's text, the tool calls' arguments and the results, error texts included: "HTTP 503"), in each
        way it may be read (:func:`_readings`: ``"4.417"`` also as ``("4417",)``, ``"80.50"`` also as ``("80",
        "5")``; ``"12 345,67"`` as ``("12345", "67")``), and every single group of them (:func:`_groups`).
    """
    if not messages or getattr(messages[-1], "type", None) != "tool":
        return None
    results = []
    for message in reversed(messages):
        if getattr(message, "type", None) != "tool":
            break
        results.append(message)
    if any(getattr(m, "status", "success") != "error" for m in results):
        return None
    said: list[str] = []
    for message in messages:
        kind = getattr(message, "type", None)
        if kind == "tool":
            said.append(result_text(message.content))
        elif kind in ("human", "system"):
            said.append(prompt_text(message))
        else:
            content = getattr(message, "content", "")
            said.append(content if isinstance(content, str) else json.dumps(content, default=str))
            said += [json.dumps(call.get("args"), default=str) for call in getattr(message, "tool_calls", None) or ()]
    written = [n for text in said for n in _NUMBER.findall(text)]
    groups = frozenset(group for n in written for group in _groups(n))
    spaced = {_digits(value) for text in said for _, _, values in grouped_spans(text) for value in values}
    return frozenset(reading for n in written for reading in _readings(n)) | spaced, groups


def made_up_figure(text: str, known: tuple[frozenset[tuple[str, ...]], frozenset[str]]) -> int | None:
    """Where the first figure of the whole reply ``text`` that the conversation does not hold begins, or None.

    A figure is a standalone number (no letter, digit or ``_`` touching it: not the ``2`` of ``get_v2_balance``, the
    ``3`` of ``MP3``, the ``1`` of ``1st``) of two digits or more, or with a decimal part (a single digit, as in
    "try again in 5 minutes" or a list's "1.", is left alone), and not of three groups or more other than groups of
    thousands, with or without a decimal part after the other separator (``"12.345,67"``, ``"$12,345.67"``: review
    221 #1): an address such as ``192.168.1.1``, a version, a dotted date are identifiers a how-to gives from general
    knowledge (the default model's answer to a failed search for resetting a router was declined for its
    ``192.168.1.1``, review 134). The conversation holds it when some number in it has
    the same digit groups (``"80,00"`` for ``80``; not ``"44.17"`` for ``4417``), or a value it may mean in the
    value check's reading (:func:`~toolwire.models._number_readings.readings`): the same digits in groups of
    thousands (``"4.417"`` for ``4417``, either way; ``"R$ 100.000"`` is 100000, never the question's 100: review
    231 #3), the same decimal part but for trailing zeros (``"80,50"`` for ``80.5``: review 221 #2; ``"0.250"`` for
    ``0.25``), thousands grouped by a space or an apostrophe (``"12 345,67"``, ``"1'500'000"``: review 231 #4);
    or, for a number not in groups of thousands, when each of its groups is a group of a number there
    (``"18.04.2026"`` for ``2026-04-18``).

    Args:
        text: the whole reply.
        known: :func:`figure_context`'s ``(numbers, groups)`` of the conversation.

    Returns:
        The index in ``text`` where the first made-up figure begins, or None when there is none.
    """
    numbers, groups = known
    held = [(start, end) for start, end, values in grouped_spans(text)  # "12 345,67", "1'500'000"
            if not numbers.isdisjoint(_digits(value) for value in values)]
    for found in _NUMBER.finditer(text):
        if len(found.group()) < 2 or any(start <= found.start() < end for start, end in held):
            continue  # a single digit, or a part of a number grouped by spaces that the conversation holds
        number = _groups(found.group())
        grouped = _thousands(tuple(_GROUPS.split(_ascii(found.group())))) or _with_cents(found.group())
        if len(number) > 2 and not grouped:
            continue  # an identifier, not a figure: an address (192.168.1.1), a version (2.10.3), a dotted date
        if numbers.isdisjoint(_readings(found.group())) and (grouped or not all(group in groups for group in number)):
            return found.start()
    return None


def figure_restart(text: str, known: tuple[frozenset[tuple[str, ...]], frozenset[str]], base: int,
                   made: list[int]) -> tuple[int, list[int], None] | None:
    """The restart of a reply that ended (``text``) stating a figure the conversation does not hold
    (:func:`made_up_figure`), as :meth:`~toolwire.models._generation.Generation._free` takes it: ``(0, [the current
    stream's first token] banned, None: its bans stay, as an echo's)``; None when there is none, or when it is
    before the current stream (``base`` characters: it is left as it is). ``made`` is the current stream's tokens."""
    at = made_up_figure(text, known)
    if at is None or at < base or not made:
        return None
    return 0, [made[0]], None
