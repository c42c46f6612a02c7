"""How likely a call was where the embedded model wrote a list of values instead (``decline_value_lists``).

With one tool bound, the ``pythonic`` prompt asks for a call list and qwen2.5-coder sometimes writes a list of values
in its place: ``['clima em Lisboa']`` for "Como está o clima em Lisboa?" with ``get_weather`` bound (review 87),
``['BRCA1']``, ``[1494]``. Declining every such reply (the thirty-first session's rule) made the model call the tool
where no tool fits as well (``['cello']`` for "What type of instrument is a cello?" became a call with made-up
arguments). :func:`value_list_call_probability` estimates, at the list's first value, the probability the model gave
to opening a call of a bound tool there instead, so that the list is declined only when a call was about as likely
as the call bar (``min_call_probability``) asks of any call: the same bar, read at the same place.
"""

from __future__ import annotations

from collections.abc import Callable

from toolwire.models._call_checks import FOLLOWED
from toolwire.models._loaded import LoadedModel
from toolwire.models.openers import OpenerScanner

__all__ = ["value_list_call_probability"]


def _call_mass(loaded: LoadedModel, scanner: OpenerScanner, before: str, candidates: dict[int, float]
               ) -> list[tuple[int, float]]:
    """The ``candidates`` (``{token: probability}``) that keep ``before`` + their text the opening of a call of a
    bound tool and open no list of values (a ``'`` after ``[`` may begin either: it is not counted)."""
    found = []
    for token, p in candidates.items():
        text = before + loaded.piece(token).decode("utf-8", "replace")
        if text.strip() and scanner.opens(text, 0) and not scanner.opens_unknown(text):
            found.append((token, p))
    return found


def value_list_call_probability(loaded: LoadedModel, scanner: OpenerScanner, kept: str,
                                candidates: dict[int, float],
                                follow: Callable[[int], dict[int, float] | None]) -> float:
    """The probability that the model opened a call of a bound tool where it opened the list of values.

    Args:
        loaded: the model (for each token's text).
        scanner: the reply's opener scanner, which has just found the list of values (``found == "values"``).
        kept: the reply's text before the token that opened the list's first value (``""``, ``"["`` or a fence).
        candidates: that token's candidates, ``{token id: probability}`` (the model's likeliest tokens there; see
            :func:`~toolwire.models._decoding.greedy_tokens`).
        follow: the candidates after ``kept`` + a given token (one model evaluation each, see
            :func:`~toolwire.models._call_checks.follower`), or None when they cannot be had.

    Each token there that opens a call (``[``, ``[get``, ``get_weather``) with probability at least
    :data:`~toolwire.models._call_checks.FOLLOWED` is followed one token further and weighs its probability times
    that of the next tokens that go on opening the call; a token that opens a value is no call, nor is one that might
    begin either (a quote), so the estimate errs low; likelier tokens than those followed are not missed, since the
    candidates hold the model's top ones.

    Returns:
        The probability, 0..1.
    """
    total = 0.0
    for token, p in _call_mass(loaded, scanner, kept, candidates):
        if p < FOLLOWED:
            continue
        after = follow(token)
        if after is None:
            continue
        piece = loaded.piece(token).decode("utf-8", "replace")
        total += p * sum(q for _, q in _call_mass(loaded, scanner, kept + piece, after))
    return min(1.0, total)
