"""The generation options of the embedded model (ChatLlamaCpp), and their one check.

The same check reads the options given to the constructor and those given to one call
(``invoke(..., max_tokens=...)``, ``stream``, ``ainvoke``, ``astream``): an unknown name (with the close
match when it looks like a typo) or a value of the wrong kind is a :class:`~toolwire.errors.UserError`
that names the option, before the model is loaded or anything is generated.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Collection, Mapping
from numbers import Integral, Real
from typing import Any

from toolwire.errors import UserError

__all__ = ["OPTIONS", "check_draft_tokens", "check_options", "check_switch"]


def _number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value))


def _whole(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _stop(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, (list, tuple)) and all(isinstance(s, str) for s in value))


_RANDOM_SEED = 0xFFFFFFFF
"""llama.cpp's ``LLAMA_DEFAULT_SEED`` (llama.h): a sampler given it draws a random seed."""

# option -> (is the value right, what it must be)
_RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "temperature": (lambda v: _number(v) and v >= 0, "a number of 0 or more (0: greedy decoding)"),
    "max_tokens": (lambda v: _whole(v) and v >= 1, "a whole number of tokens, at least 1"),
    "stop": (_stop, "a string or a list of strings"),
    # (llama.cpp keeps a seed's low 32 bits, and 0xFFFFFFFF is its LLAMA_DEFAULT_SEED, "a random seed": -1 or
    # 2**32 - 1 gave another reply each time and 2**32 the reply of 0, review 311 #1)
    "seed": (lambda v: _whole(v) and 0 <= v < _RANDOM_SEED, "a whole number from 0 to 4294967294"),
    "top_p": (lambda v: _number(v) and 0 <= v <= 1, "a number from 0 to 1"),
    "top_k": (_whole, "a whole number (0 or less: off)"),
    "min_p": (lambda v: _number(v) and 0 <= v <= 1, "a number from 0 to 1"),
    "repeat_penalty": (lambda v: _number(v) and v > 0, "a number above 0 (1: off)"),
}
OPTIONS: tuple[str, ...] = tuple(_RULES)


_ADVICE = {  # what LangChain's ChatLlamaCpp (langchain_community) takes, and what to do instead
    "model_path": "pass the .gguf file's path (or a registry name) as model=",
    "n_gpu_layers": "leave it out, as toolwire runs the embedded model on the CPU (n_threads sets how many threads)",
    **dict.fromkeys(("tool_choice", "parallel_tool_calls", "tools", "strict"),  # (per call: review 311 #2)
                    "bind the tools with model.bind_tools(tools, tool_choice=..., parallel_tool_calls=...) and call "
                    "the model it returns"),
}


def check_options(options: Mapping[str, Any], *, required: Collection[str] = (),
                  at_construction: bool = False) -> dict[str, Any]:
    """Check generation options by name and value.

    Args:
        options: option name -> value; a value of None means "not given" (the model's own is used).
        required: the options that must have a value (None is refused).
        at_construction: ``options`` are the constructor's ``**options``: an unknown name is matched against the
            constructor's own parameters too (``n_ctx``, ``dialect``...), which per call are refused as set when the
            model is made.

    Returns:
        The options that are given (None values left out).

    Raises:
        UserError: an unknown option (with the close match for a typo, else the names to use; LangChain's
            ``model_path`` is told to pass the path as ``model``), or a value of the wrong kind.
    """
    given: dict[str, Any] = {}
    for name, value in options.items():
        if name not in _RULES:
            raise _unknown(str(name), at_construction)
        if value is None and name not in required:
            continue
        ok, kind = _RULES[name]
        if value is None or not ok(value):
            raise UserError(f"The ChatLlamaCpp option {name} must be {kind}, not {value!r}.")
        given[name] = value
    return given


def check_switch(name: str, value: Any) -> bool:
    """An on/off parameter of ChatLlamaCpp (``grammar``, ``pull``, ``prompt_cache``, ``reuse_kv``, ``verbose``, the
    ``decline_*`` switches) checked: True or False, a NumPy bool too, as its number parameters take NumPy numbers.

    Args:
        name: the parameter's name, for the message.
        value: the value given.

    Returns:
        ``value`` as a Python bool.

    Raises:
        UserError: anything else, a string such as ``"false"`` or ``"no"`` (which ``bool()`` would read as True, the
            opposite of what it says: review 184 #1), a number such as 0 or 1, or None.
    """
    kind = type(value)
    if isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")):
        return bool(value)
    raise UserError(f"{name} must be True or False, not {value!r}.")


def check_draft_tokens(value: Any) -> int:
    """``draft_tokens`` checked: the most prompt-lookup draft tokens per decoding step, a whole number of 0 or more
    (a NumPy integer too).

    Returns:
        ``value`` as an int.

    Raises:
        UserError: a bool, a string, None, a number with a fractional part or written as a float (``2.9``, ``2.0``),
            or a negative number (review 184 #3: ``2.9`` was taken as 2 and ``-1`` as 0).
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
        raise UserError(f"draft_tokens must be a whole number of 0 or more (such as 2; 0 turns drafts off), not "
                        f"{value!r}.")
    return int(value)


def _unknown(name: str, at_construction: bool) -> UserError:
    """The error for an option ``name`` that is no generation option (see :func:`check_options`).

    Returns:
        The error, one sentence saying what to pass instead; never raises itself.
    """
    from toolwire._keywords import keyword_names
    from toolwire.models.llamacpp import ChatLlamaCpp

    own = [n for n in keyword_names(ChatLlamaCpp.__init__) if n not in _RULES]
    if name in own:  # (at construction it is a parameter: only a call gets here with it)
        return UserError(f"The ChatLlamaCpp option {name!r} is set when the model is made, ChatLlamaCpp({name}=...), "
                         "not per call.")
    if name in _ADVICE:
        hint = f"{_ADVICE[name]}."
    else:
        names = [*keyword_names(ChatLlamaCpp.__init__), *(n for n in OPTIONS if n not in own)] if at_construction \
            else list(OPTIONS)
        names = list(dict.fromkeys(names))
        close = difflib.get_close_matches(name, names, n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"use one of {', '.join(names)}."
    return UserError(f"Unknown ChatLlamaCpp option {name!r}: {hint}")
