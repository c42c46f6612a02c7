"""The readings of numbers written with grouped thousands or a decimal comma, shared by the value check and the
figures rule.

The value check of the embedded model (:func:`context_numbers`, through
:func:`~toolwire.models._call_checks.in_context`) reads each number of the conversation as written, with ``.`` as the
decimal mark (``2.5``, ``1.500`` as 1.5). People also group thousands (``1,500,000``, ``1 500 000``, ``1'500'000``)
and, in Portuguese, Spanish, German and French, write the decimal mark as a comma and group thousands with a dot
(``2,5``, ``1.500``, ``1.500,75``, ``12,5%``). A call's ``2.5`` for "Converta 2,5 km em milhas." was counted as made
up (review 221 #4). Such a number is read here in each way it may be meant (:func:`readings`); every reading counts
as written (``1.500`` is 1.5 and 1500, ``1,500`` is 1500 and 1.5), so a value the conversation holds in either
reading is found, and no number read before is lost. The figures rule after failed calls
(:mod:`toolwire.models._figures`) compares an answer's figures by the same readings (review 231 #3, #4).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from decimal import Decimal

__all__ = ["context_numbers", "exact", "grouped_readings", "grouped_spans", "normal_text", "readings"]

WRITTEN = re.compile(r"(?<![\d.])-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")
"""A number as written, ``.`` its decimal mark (``1,2,3`` is 1, 2 and 3; ``.5``; ``1e3``)."""

# thousands grouped with one separator throughout and a decimal point: ``1,500,000``, ``1 500 000`` (also a no-break
# or thin space, which NFKC makes a space), ``1'500'000``, ``1,500.75``
_GROUPED = re.compile(r"(?<![\d.,'])-?\d{1,3}(?P<sep>[, '])\d{3}(?:(?P=sep)\d{3})*(?:\.\d+)?(?!\d|[, ']\d)")
# thousands grouped with a dot, a space or ``'``, and a decimal comma or none: ``1.500``, ``1.500,75``, ``1 500,75``;
# not an address (``192.168.1.1``) or a fraction with a leading zero (``0.015``)
_DOTTED = re.compile(r"(?<![\d.,'])-?[1-9]\d{0,2}(?P<sep>[. '])\d{3}(?:(?P=sep)\d{3})*(?:,\d+)?"
                     r"(?!\d|[.,]\d|(?P=sep)\d)")
# a decimal comma: ``2,5``, ``12,5%``; not a list written without spaces (``1,2,3``)
_COMMA = re.compile(r"(?<![\d.,'])-?\d+,\d+(?!\d|[.,]\d)")
_MARKS = re.compile(r"[.,' ]")
_DIGITS = re.compile(r"[0-9]+")
# the spaces and apostrophes people group thousands with, as one character each (indexes stay): no-break, narrow
# no-break and thin spaces, the typographic apostrophe
_SEPARATORS = str.maketrans({"\u00a0": " ", "\u202f": " ", "\u2009": " ", "\u2019": "'"})


def readings(written: str) -> frozenset[Decimal]:
    """Each value a number written with digit groups may mean.

    Args:
        written: ASCII digits with an optional leading ``-`` and the marks ``.``, ``,``, ``'`` or a space between
            them (``"12 345,67"``).

    Returns:
        The values (empty for what is no number of these shapes: ``"1.2.3"``, ``"12a"``): for digits alone their
        number; for groups of thousands, the leading group of one to three digits not starting with ``0``, every
        other group of three, one mark throughout, the digits joined (``"1.500"``, ``"1 500 000"``,
        ``"1'500'000"``); for such groups followed by a decimal part after the other of ``.`` and ``,`` that value
        (``"12.345,67"``, ``"12 345,67"``, ``"12,345.67"``); and after a single ``.`` or ``,`` the decimal reading
        (``"2,5"`` 2.5, ``"0.250"`` 0.25, ``"1.500"`` 1.5 besides 1500), except for a part of three zeros after
        groups of thousands (``"100.000"`` is 100000, not 100: review 231 #3). Never raises.
    """
    sign, body = ("-", written[1:]) if written.startswith("-") else ("", written)
    groups, marks = _MARKS.split(body), _MARKS.findall(body)
    if not all(_DIGITS.fullmatch(group) for group in groups):
        return frozenset()
    if not marks:
        return frozenset({Decimal(sign + body)})
    found: set[Decimal] = set()
    lead, rest = groups[0], groups[1:]
    leads = 1 <= len(lead) <= 3 and not lead.startswith("0")
    if leads and len(set(marks)) == 1 and all(len(group) == 3 for group in rest):
        found.add(Decimal(sign + "".join(groups)))  # 1.500, 1 500 000, 1'500'000
    if (len(groups) > 2 and leads and len(set(marks[:-1])) == 1 and marks[-1] in ".," and marks[-1] != marks[0]
            and all(len(group) == 3 for group in groups[1:-1])):
        found.add(Decimal(f"{sign}{''.join(groups[:-1])}.{groups[-1]}"))  # 12.345,67, 12 345,67, 1'234.50
    if len(marks) == 1 and marks[0] in ".," and not (found and rest[0] == "000"):
        found.add(Decimal(f"{sign}{lead}.{rest[0]}"))  # 2,5; 80.50; 0.250; 1.500 (also 1500)
    return frozenset(found)


def grouped_spans(text: str) -> Iterator[tuple[int, int, frozenset[Decimal]]]:
    """The numbers of ``text`` whose thousands are grouped by a space or an apostrophe (``12 345,67``, ``1 500
    000``, ``1'500'000``; a no-break, narrow no-break or thin space and ``’`` count too), which a reader of
    ``.`` and ``,`` alone takes for several numbers.

    Args:
        text: any text (not normalised: the spans are indexes of ``text``).

    Returns:
        An iterator of ``(start, end, values)``: each such number's span in ``text`` and its :func:`readings`.
    """
    plain = text.translate(_SEPARATORS)
    for pattern in (_GROUPED, _DOTTED):
        for match in pattern.finditer(plain):
            if match.group("sep") in " '":
                yield match.start(), match.end(), readings(match.group(0))


def grouped_readings(text: str) -> Iterator[str]:
    """The numbers of ``text`` written with grouped thousands or a decimal comma, as plain decimal text.

    Args:
        text: a conversation's text, NFKC-normalised (a no-break space is a space).

    Returns:
        An iterator of texts ``Decimal`` reads (``"-1500.75"``): for ``1,500,000``, ``1 500 000`` and ``1'500'000``
        ``"1500000"``; for ``2,5`` ``"2.5"``; for ``1.500`` ``"1500"`` and ``"1.5"``; for ``1.500,75`` and
        ``1 500,75`` ``"1500.75"``; for ``1,500`` both ``"1500"`` and ``"1.5"``: each number's :func:`readings`,
        and as these patterns read it. A number without a separator is not given (it is read as written).
    """
    for match in _GROUPED.finditer(text):
        yield match.group(0).replace(match.group("sep"), "")
        yield from map(str, readings(match.group(0)))
    for match in _DOTTED.finditer(text):
        yield match.group(0).replace(match.group("sep"), "").replace(",", ".")
        yield from map(str, readings(match.group(0)))
    for match in _COMMA.finditer(text):
        yield match.group(0).replace(",", ".")


def exact(value: int | float | str) -> Decimal | None:
    """A number as an exact decimal (None for NaN, infinities and integers too long to write out)."""
    try:
        number = Decimal(repr(value) if isinstance(value, float) else str(value))
    except (ValueError, ArithmeticError):  # int too long for str(), or not a number
        return None
    return number if number.is_finite() else None


def normal_text(text: str) -> str:
    """Text as the checks compare it: Unicode NFKC (full-width digits, ligatures), the minus sign as ``-``,
    letter case folded, ``_`` as a space (identifiers spell words that way: ``"interest_rates"`` for
    "interest rates", ``"pet_friendly"`` for "pet friendly"), runs of whitespace as one space."""
    return " ".join(unicodedata.normalize("NFKC", text).replace("\u2212", "-").replace("_", " ").casefold().split())


def context_numbers(context: Iterable[str]) -> set[Decimal]:
    """Every number written in the texts, exactly: as written (``1,2,3`` is 1, 2 and 3; ``.5``; the digits of
    ``T4521`` or ``order_42``) and, for numbers grouped by thousands (``1,500,000``, ``1 500 000``,
    ``1'500'000``) or written with a decimal comma (``2,5``, ``1.500``, ``1.500,75``: review 221 #4), also in each
    reading :func:`grouped_readings` gives (``1.500`` is 1.5 and 1500).

    Args:
        context: the conversation's texts.

    Returns:
        The set of numbers, as exact decimals.
    """
    found: set[Decimal] = set()
    for text in context:
        text = normal_text(text)
        for match in WRITTEN.findall(text):
            number = exact(match)
            if number is not None:
                found.add(number)
        for reading in grouped_readings(text):
            number = exact(reading)
            if number is not None:
                found.add(number)
    return found
