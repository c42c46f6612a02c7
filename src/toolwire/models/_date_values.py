"""Whether a date or time a tool call holds comes from the conversation, in whatever form the user wrote it.

The value check of the embedded model (``min_value_probability``, :func:`~toolwire.models._call_checks.in_context`)
declines a call whose value the model is unsure of and the conversation does not hold. A date or time is often
unsure token by token (each digit is a choice) and rarely written in the conversation as the call writes it: a
``date-time`` parameter is written in RFC 3339 form (``2025-05-02T09:00``, the form the prompt asks for and validation
takes; the grammar no longer holds it, review 126 #2) and models turn "May 2nd, 2025" into ``2025-05-02``. Review
71 had the right call for "What's the weather in Berlin on 2025-05-02 at 09:00?" declined twice, because
``2025-05-02T09:00`` is found nowhere as written.

:func:`date_time_in_context` reads an ISO 8601 date, time or date-time value (the shapes of JSON Schema's ``date``,
``time`` and ``date-time`` formats) and looks for each part in the forms people write it:

* the date: as written (``2025-05-02``); or the day next to the month's name (English, Portuguese, Spanish; full or
  abbreviated: "May 2nd", "2 May", "2 de maio", "1º de março", "1.º de marzo") or day and month as numbers in either
  order (``5/2``, ``02.05``), with the year written somewhere in the conversation (a made-up year is the most common
  made-up date);
* the time: ``09:00``, ``9:00``, with seconds when they are not zero, ``9am``, ``9 a.m.``, ``9:30 pm``, ``9h``,
  ``9h30``; a zone offset or ``Z`` is not looked for.

Relative dates ("tomorrow", "next Friday") are not resolved: such a value is judged by how sure the model is of it.
"""

from __future__ import annotations

import re
from decimal import Decimal

__all__ = ["date_time_in_context"]

_ISO_DATE_TIME = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?"
                            r"(?:z|[+-]\d{2}:?\d{2})?)?")
_ISO_TIME = re.compile(r"(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?")
_MONTHS = (  # per month: English, Portuguese, Spanish names (casefolded), longest first within a month
    ("january", "janeiro", "enero", "jan", "ene"),
    ("february", "fevereiro", "febrero", "feb", "fev"),
    ("march", "março", "marzo", "mar"),
    ("april", "abril", "apr", "abr"),
    ("may", "maio", "mayo", "mai"),
    ("june", "junho", "junio", "jun"),
    ("july", "julho", "julio", "jul"),
    ("august", "agosto", "aug", "ago"),
    ("september", "setembro", "septiembre", "sept", "sep", "set"),
    ("october", "outubro", "octubre", "oct", "out"),
    ("november", "novembro", "noviembre", "nov"),
    ("december", "dezembro", "diciembre", "dec", "dez", "dic"),
)
# "1º de março": the conversation's text is NFKC-normalised before it is searched, which writes "º" as "o" (review
# 221 #3), so "o" after the day is read as the ordinal too; "°" (the degree sign some write for it) stays as it is.
# European Portuguese and Spanish (RAE) put a period before the indicator: "1.º de março", "1.º de marzo", "1.er de
# marzo" (review 231 #7); Spanish also writes "1ro", "1ero"
_ORDINAL = r"(?:st|nd|rd|th|\.?(?:º|°|o|er|ro|ero))?"


def date_time_in_context(wanted: str, words: str, numbers: set[Decimal]) -> bool | None:
    """Whether a date, time or date-time value is in the conversation, each part in a form people write it.

    Args:
        wanted: the value, normalised as the value check compares text (casefolded, so a ``T`` is ``t``).
        words: the conversation's text, normalised the same way.
        numbers: the numbers written in the conversation (for the year).

    Returns:
        None when ``wanted`` is no ISO 8601 date (``YYYY-MM-DD``), time (``HH:MM[:SS[.f]]``) or date-time (a date,
        ``T`` or a space, a time, an optional offset); else whether every part it has is found (see the module).
    """
    match = _ISO_DATE_TIME.fullmatch(wanted)
    if match is not None:
        year, month, day, hour, minute, second = match.groups()
        if not _date_found(int(year), int(month), int(day), words, numbers):
            return False
        return hour is None or _time_found(int(hour), int(minute), int(second or 0), words)
    match = _ISO_TIME.fullmatch(wanted)
    if match is not None:
        hour, minute, second = match.groups()
        return _time_found(int(hour), int(minute), int(second or 0), words)
    return None


def _date_found(year: int, month: int, day: int, words: str, numbers: set[Decimal]) -> bool:
    if not 1 <= month <= 12:
        return False
    if re.search(rf"(?<!\d){year:04d}-{month:02d}-{day:02d}(?!\d)", words):
        return True
    if Decimal(year) not in numbers:
        return False
    names = "|".join(re.escape(name) for name in _MONTHS[month - 1])
    day_text = rf"0?{day}{_ORDINAL}"
    month_number, day_number = rf"0?{month}", rf"0?{day}"
    forms = (rf"(?<!\w)(?:{names})\.?,?\s+(?:the\s+)?{day_text}(?!\d)",  # May 2nd, May the 2nd
             rf"(?<!\d){day_text}\s+(?:de\s+|of\s+)?(?:{names})(?!\w)",  # 2 May, 2 de maio, 2nd of May
             rf"(?<![\d/.]){month_number}[/.]{day_number}[/.]",  # 5/2/, 05.02. (either order)
             rf"(?<![\d/.]){day_number}[/.]{month_number}[/.]")
    return any(re.search(form, words) for form in forms)


def _time_found(hour: int, minute: int, second: int, words: str) -> bool:
    if hour > 23 or minute > 59:
        return False
    seconds = rf":{second:02d}" if second else r"(?::00)?"
    if re.search(rf"(?<![\d:])0?{hour}:{minute:02d}{seconds}(?![\d:])", words):
        return True
    if second:
        return False
    twelve, half = hour % 12 or 12, ("a" if hour < 12 else "p")
    minutes = rf"(?::{minute:02d})?" if minute == 0 else rf":{minute:02d}"
    if re.search(rf"(?<![\d:]){twelve}{minutes}\s*{half}\.?\s?m\b\.?", words):
        return True
    after = r"(?:00)?" if minute == 0 else f"{minute:02d}"
    return re.search(rf"(?<![\d:])0?{hour}h{after}(?!\d)", words) is not None
