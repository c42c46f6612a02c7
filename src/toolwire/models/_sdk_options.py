"""The checks of a hosted-provider model's constructor arguments: the model's name and its generation options.

:class:`~toolwire.models._sdk.SDKChatModel` runs them when the model is built, so a value no request could carry
(``temperature="hot"``, ``stop=5``, ``max_tokens=0``, ``model_kwargs="x"``) is refused there, in one sentence that
names the option, rather than sent to the provider (which answers 400 on every try) or failing as a bare
``ValueError``. The limits are the ones every provider shares (a temperature of 0 or more, a ``top_p`` from 0 to 1,
at least one token); each provider's own upper bounds (OpenAI's temperature up to 2, Anthropic's up to 1) are left
to its API, which names them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from numbers import Integral, Real
from typing import Any

from toolwire.errors import UserError

__all__ = ["check_generation_options", "check_model_kwargs", "model_argument"]


def _number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value))


def _whole(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _stop(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, list | tuple) and all(isinstance(s, str) for s in value))


# option -> (is the value right, what it must be, an example)
_RULES: dict[str, tuple[Callable[[Any], bool], str, str]] = {
    "temperature": (lambda v: _number(v) and v >= 0, "a number of 0 or more", "0.7"),
    "max_tokens": (lambda v: _whole(v) and v >= 1, "a whole number of tokens, at least 1", "1024"),
    "top_p": (lambda v: _number(v) and 0 <= v <= 1, "a number from 0 to 1", "0.9"),
    "stop": (_stop, "a string or a list of strings", "['\\n\\n']"),
    "seed": (_whole, "a whole number", "42"),
    "streaming": (lambda v: isinstance(v, bool), "True or False", "True"),
}


def check_generation_options(owner: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The generation options given to a model's constructor, checked.

    Args:
        owner: the model class's name, as the messages name it (``"ChatOpenAI"``).
        options: ``{"temperature", "max_tokens", "top_p", "stop", "seed", "streaming"}`` as given; None is "not
            given" (left out of the result).

    Returns:
        The options given (None values left out), unchanged.

    Raises:
        UserError: a value of the wrong kind or out of range (a temperature below 0, NaN or text; ``top_p`` outside
            0..1; ``max_tokens`` below 1 or not whole; ``stop`` not text or a list of text; ``seed`` not whole;
            ``streaming`` not a bool): ``"ChatOpenAI: temperature must be a number of 0 or more, not 'hot'; pass
            e.g. temperature=0.7."``.
    """
    given: dict[str, Any] = {}
    for name, value in options.items():
        if value is None:
            continue
        ok, kind, example = _RULES[name]
        if not ok(value):
            raise UserError(f"{owner}: {name} must be {kind}, not {value!r}; pass e.g. {name}={example}.")
        given[name] = value
    return given


def check_model_kwargs(owner: str, model_kwargs: Any) -> dict[str, Any]:
    """``model_kwargs`` as a dict of its own (``{}`` for None).

    Raises:
        UserError: it is not a mapping (text, a list...): it takes the provider's options by name.
    """
    if model_kwargs is None:
        return {}
    if not isinstance(model_kwargs, Mapping):
        raise UserError(f"{owner}: model_kwargs takes a dict of provider options, e.g. model_kwargs="
                        f"{{'logprobs': True}}, not {type(model_kwargs).__name__}.")
    return dict(model_kwargs)


def model_argument(owner: str, model: Any, model_name: Any) -> str:
    """The model's name from ``model`` or ``model_name`` (LangChain's classes take either: ``ChatOpenAI`` names
    its field ``model_name`` with the alias ``model``, ``ChatAnthropic`` the other way round), given once.

    Raises:
        UserError: neither is a non-empty string, or both are given and differ.
    """
    if model is not None and model_name is not None and model != model_name:
        raise UserError(f"Give the model name once: {owner} got model={model!r} and model_name={model_name!r} "
                        "(model_name is LangChain's other name for model).")
    name = model if model is not None else model_name
    if not isinstance(name, str) or not name.strip():
        raise UserError(f"{owner} needs a model name, e.g. model='...'.")
    return name
