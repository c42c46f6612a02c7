"""Refusing a misspelled keyword option in one sentence, with its close match.

Python refuses an unknown keyword with a ``TypeError`` that names the function that took it, often an internal
one (``SDKChatModel.__init__() got an unexpected keyword argument 'temprature'``, review 37 and review 52); the
public entry points that forward ``**options`` check them here first.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

from toolwire.errors import UserError

__all__ = ["RENAMED", "check_keywords", "keyword_names", "refuses_unknown_keywords"]

RENAMED: dict[str, str] = {
    "openai_api_key": "api_key", "anthropic_api_key": "api_key", "google_api_key": "api_key",
    "openai_api_base": "base_url", "anthropic_api_url": "base_url", "openai_organization": "organization",
    "request_timeout": "timeout", "default_request_timeout": "timeout", "max_completion_tokens": "max_tokens",
    "max_output_tokens": "max_tokens", "stop_sequences": "stop",
}
"""LangChain's names of options toolwire names otherwise (``ChatAnthropic(anthropic_api_key=...)``, ``ChatOpenAI
(openai_api_base=...)``, ``ChatGoogleGenerativeAI(max_output_tokens=...)``): an unknown option of this name is
refused with "did you mean" the toolwire name, when the owner takes it, although the two are not spelled alike."""

F = TypeVar("F", bound=Callable[..., Any])


def keyword_names(*functions: Callable[..., Any]) -> list[str]:
    """The parameter names ``functions`` take by keyword (``self`` and ``*args``/``**kwargs`` left out), in order."""
    names: list[str] = []
    for function in functions:
        params = inspect.signature(function).parameters
        names += [n for n, p in params.items()
                  if n != "self" and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and n not in names]
    return names


def check_keywords(owner: str, given: Iterable[str], known: Iterable[str]) -> None:
    """Refuse the first of ``given`` that is not in ``known``.

    Args:
        owner: what takes the options, as the message names it (``"ChatOpenAI"``, ``"load_tools"``).
        given: the keyword names passed.
        known: the names ``owner`` takes.

    Raises:
        UserError: ``"Unknown ChatOpenAI option 'temprature': did you mean 'temperature'?"`` (the close match, or
            the toolwire name of a LangChain option, :data:`RENAMED`), or the list of the options when none is close.
    """
    names = list(dict.fromkeys(known))
    for key in given:
        if key not in names:
            renamed = RENAMED.get(str(key))
            close = [renamed] if renamed in names else difflib.get_close_matches(str(key), names, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"use one of {', '.join(sorted(names))}."
            raise UserError(f"Unknown {owner} option {key!r}: {hint}")


def refuses_unknown_keywords(owner: str) -> Callable[[F], F]:
    """Decorate a function (or ``__init__``) that names all its keyword parameters, so that an unknown keyword is
    refused by :func:`check_keywords` (``"Unknown Agent option 'max_step': did you mean 'max_steps'?"``) rather than
    by Python's ``TypeError``. The signature is kept (``inspect.signature`` and editors read the function's own).

    Args:
        owner: what the message names (``"Agent"``, ``"bind_tools"``).

    Returns:
        The decorator; the decorated function raises :class:`UserError` for an unknown keyword, before it runs.
    """

    def decorate(function: F) -> F:
        names = keyword_names(function)
        known = frozenset(names)

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            if not known.issuperset(kwargs):
                check_keywords(owner, kwargs, names)
            return function(*args, **kwargs)

        return cast(F, checked)

    return decorate
