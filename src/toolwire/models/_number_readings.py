"""The readings of numbers written with grouped thousands or a decimal comma, for the value check.

The value check of the embedded model (:func:`~toolwire.models._call_checks.context_numbers`) reads each number of
the conversation as written, with ``.`` as the decimal mark (``2.5``, ``1.500`` as 1.5). People also group
thousands (``1,500,000``, ``1 500 000``, ``1'500'000``) and, in Portuguese, Spanish, German and French, write the
decimal mark as a comma and group thousands with a dot (``2,5``, ``1.500``, ``1.500,75``, ``12,5%``). A call's
``2.5`` for "Converta 2,5 km em milhas." was counted as made up (review 221 #4). Such a number is read here in each
way it may be meant; every reading counts as written (``1.500`` is 1.5 and 1500, ``1,500`` is 1500 and 1.5), so a
value the conversation holds in either reading is found, and no number read before is lost.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["grouped_readings"]

# thousands grouped with one separator throughout and a decimal point: ``1,500,000``, ``1 500 000`` (also a no-break
# or thin space, which NFKC makes a space), ``1'500'000``, ``1,500.75``
_GROUPED = re.compile(r"(?<![\d.,'])-?\d{1,3}(?P<sep>[, '])\d{3}(?:(?P=sep)\d{3})*(?:\.\d+)?(?!\d|[, ']\d)")
# thousands grouped with a dot, a space or ``'``, and a decimal comma or none: ``1.500``, ``1.500,75``, ``1 500,75``;
# not an address (``192.168.1.1``) or a fraction with a leading zero (``0.015``)
_DOTTED = re.compile(r"(?<![\d.,'])-?[1-9]\d{0,2}(?P<sep>[. '])\d{3}(?:(?P=sep)\d{3})*(?:,\d+)?"
                     r"(?!\d|[.,]\d|(?P=sep)\d)")
# a decimal comma: ``2,5``, ``12,5%``; not a list written without spaces (``1,2,3``)
_COMMA = re.compile(r"(?<![\d.,'])-?\d+,\d+(?!\d|[.,]\d)")


def grouped_readings(text: str) -> Iterator[str]:
    """The numbers of ``text`` written with grouped thousands or a decimal comma, as plain decimal text.

    Args:
        text: a conversation's text, NFKC-normalised (a no-break space is a space).

    Returns:
        An iterator of texts ``Decimal`` reads (``"-1500.75"``): for ``1,500,000``, ``1 500 000`` and ``1'500'000``
        ``"1500000"``; for ``2,5`` ``"2.5"``; for ``1.500`` ``"1500"``; for ``1.500,75`` and ``1 500,75``
        ``"1500.75"``; for ``1,500`` both ``"1500"`` and ``"1.5"``. A number without a separator is not given
        (it is read as written).
    """
    for match in _GROUPED.finditer(text):
        yield match.group(0).replace(match.group("sep"), "")
    for match in _DOTTED.finditer(text):
        yield match.group(0).replace(match.group("sep"), "").replace(",", ".")
    for match in _COMMA.finditer(text):
        yield match.group(0).replace(",", ".")
