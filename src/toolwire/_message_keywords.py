"""Checks of the keywords a message is made with: LangChain's keywords on a system, user or tool message
(:func:`langchain_keys`), and an AIMessage's (or a chunk's) token counts, given as ``usage=`` (:func:`checked_usage`)
or as LangChain's ``usage_metadata`` (:func:`usage_from_langchain`), both read alike: a missing ``total_tokens`` made
the sum, ``input_token_details["cache_read"]`` made ``cached_tokens``, an empty details dict left out."""

from __future__ import annotations

from typing import Any

from toolwire._printing import safe_text

__all__ = ["checked_usage", "langchain_keys", "usage_from_langchain"]

_COUNTS = ("input_tokens", "output_tokens", "total_tokens")
_READ = frozenset({*_COUNTS, "cached_tokens", "input_token_details", "output_token_details"})  # (others: kept)


def langchain_keys(message: Any, kind: Any, additional_kwargs: Any, response_metadata: Any) -> None:
    """Check the LangChain keywords a ``message`` being made was given, which its ``model_dump()`` writes: ``kind``
    (``type``) must be None or the class's own type; ``additional_kwargs`` and (on a system, user or tool message)
    ``response_metadata`` must be empty (review 76: a raw TypeError; review 195 #5: ``cls(**m.model_dump())``).

    Raises:
        UserError: one of them is not, saying what to do instead.
    """
    from toolwire.errors import UserError

    owner = type(message).__name__
    if kind is not None and not (isinstance(kind, str) and kind == message.type):
        raise UserError(f"{owner} was given type={safe_text(kind, repr):.40}, but its type is {message.type!r}: "
                        "leave type out, or make the message class of that type (message_from_dict picks it).")
    where = ("put what the model should read in content and what only your program needs in artifact="
             if owner == "ToolMessage" else "put what the model should read in its content")
    for key, value in (("additional_kwargs", additional_kwargs), ("response_metadata", response_metadata)):
        if value:
            keys = ", ".join(map(repr, value)) if isinstance(value, dict) else type(value).__name__
            raise UserError(f"{owner} has no {key} ({keys}): toolwire keeps only its content, id and name, "
                            f"so {where}.")


def _whole(value: Any) -> bool:
    """Whether ``value`` is a whole number of tokens: an int (not a bool) or a float with no fraction, 0 or more."""
    return ((isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float)
                                                                         and value.is_integer())) and value >= 0


def usage_from_langchain(usage: Any) -> Any:
    """LangChain's ``usage_metadata`` as toolwire's :class:`~toolwire.messages.Usage` (a value that is not a
    dict is left for :func:`~toolwire._message_dicts.message_from_dict` to refuse): a missing or None count is 0,
    a missing ``total_tokens`` the sum, ``input_token_details["cache_read"]`` is ``cached_tokens`` (else a
    toolwire-style ``cached_tokens`` is read as ``usage=`` reads it, a None left out), and the other
    keys of ``input_token_details``/``output_token_details`` (``cache_creation``, ``reasoning``...) are kept there,
    checked as the counts are (a None left out: :func:`checked_details`); any other key (a custom model's
    ``cost_usd``) is kept as it is, as LangChain's ``usage_metadata`` and ``usage=`` keep it (review 304 #4).

    Raises:
        UserError: a token count, or a value of those details, is not a whole number of 0 or more (text, ``3.5``,
            ``-1``: review 78, review 304 #2; a float with no fraction, ``3.0``, is read as its whole number).
    """
    if not isinstance(usage, dict):
        return usage
    details = usage.get("input_token_details")
    counts = {k: usage.get(k) or 0 for k in _COUNTS}
    if isinstance(details, dict) and details.get("cache_read") is not None:
        counts["cached_tokens"] = details["cache_read"]
    elif usage.get("cached_tokens") is not None:  # toolwire's own Usage given so, read as usage= reads it (review
        counts["cached_tokens"] = usage["cached_tokens"]  # 304 #3)
    def refuse(key: str, value: Any) -> None:
        from toolwire.errors import UserError

        raise UserError(f"Cannot read a LangChain message whose usage_metadata {usage!r:.80} holds {key} "
                        f"{value!r}, which is not a whole number of tokens (0 or more); fix or remove "
                        "'usage_metadata'.")

    out: dict[str, int] = {}
    for key, value in counts.items():
        if not _whole(value):
            refuse(key, value)
        out[key] = int(value)
    if usage.get("total_tokens") is None:  # left out: the sum, as every provider's total is (review 76)
        out["total_tokens"] = out["input_tokens"] + out["output_tokens"]
    for key in ("input_token_details", "output_token_details"):  # (kept: cache_creation, reasoning... review 287 #1)
        kept = checked_details(usage, key, refuse)
        if kept:
            out[key] = kept  # type: ignore[assignment]
    for key, value in usage.items():  # any other key (a custom model's cost_usd...) as it is, as usage= keeps it
        if key not in _READ:  # (review 304 #4)
            out[key] = value
    return out


def checked_details(usage: Any, key: str, refuse: Any) -> dict[str, int]:
    """The token counts of ``usage[key]`` (``"input_token_details"`` or ``"output_token_details"``; ``{}`` when it is
    no dict) but ``cache_read`` (read as ``cached_tokens``), checked as the top-level counts are (review 304 #2): a
    whole number of 0 or more as an int, a None left out; ``refuse(name, value)`` raises for any other value (a
    float with a fraction, a negative number, text...), ``name`` being ``"input_token_details['audio']"``."""
    kept: dict[str, int] = {}
    for name, value in details_of(usage, key).items():
        if name == "cache_read" or value is None:
            continue
        if not _whole(value):
            refuse(f"{key}[{name!r}]", value)
        kept[name] = int(value)
    return kept


def details_of(usage: Any, key: str) -> dict[str, Any]:
    """``usage[key]`` (``"input_token_details"`` or ``"output_token_details"``) when it is a dict, else ``{}``."""
    value = usage.get(key)
    return value if isinstance(value, dict) else {}


def checked_usage(usage: Any, owner: str = "AIMessage") -> Any:
    """A copy (a dict) of the ``usage=`` an ``owner`` message is given, read as :func:`usage_from_langchain` reads
    LangChain's ``usage_metadata`` (review 280 #5, review 291 #3), so ``usage=`` and ``usage_metadata=`` make equal
    messages and a message's dumps read back equal: a missing or None ``input_tokens``/``output_tokens`` is 0, a
    missing or None ``total_tokens`` their sum, a float with no fraction its int, a None ``cached_tokens`` left out;
    ``input_token_details["cache_read"]`` is ``cached_tokens`` (that key wins when both are given, as in
    ``usage_metadata``), and the other keys of ``input_token_details``/``output_token_details`` are kept there,
    checked as the counts are (a None left out, :func:`checked_details`), a details value left with no key (``{}``)
    or that is no dict left out; any other key is kept as it is.

    Raises:
        UserError: ``usage`` is not a dict, or one of those counts or details is not a whole number of 0 or more.
    """
    if type(usage) is dict:  # the quick test: what every provider gives (whole ints, the total included)
        i, o, t = usage.get("input_tokens"), usage.get("output_tokens"), usage.get("total_tokens")
        c = usage.get("cached_tokens", 0)
        if (type(i) is int and type(o) is int and type(t) is int and type(c) is int and min(i, o, t, c) >= 0
                and "input_token_details" not in usage and "output_token_details" not in usage):
            return dict(usage)
    from toolwire.errors import UserError

    if not isinstance(usage, dict):
        raise UserError(f"{owner} usage must be a dict of token counts such as {{'input_tokens': 10, "
                        f"'output_tokens': 5, 'total_tokens': 15}}, not {type(usage).__name__}.")
    def refuse(name: str, value: Any) -> None:
        raise UserError(f"{owner} usage {usage!r:.80} holds {name} {value!r}, which is not a whole number of tokens "
                        "(0 or more): give whole numbers, as in usage={'input_tokens': 10, 'output_tokens': 5}.")

    out = dict(usage)
    for key in ("input_token_details", "output_token_details"):  # as usage_from_langchain reads them
        if key in out:
            kept = checked_details(usage, key, refuse)
            if kept:
                out[key] = kept
            else:
                del out[key]
    names: dict[str, str] = {}  # a count's name in the error: the key it was given under
    if (cache_read := details_of(usage, "input_token_details").get("cache_read")) is not None:
        out["cached_tokens"] = cache_read
        names["cached_tokens"] = "input_token_details['cache_read']"
    for key in (*_COUNTS, "cached_tokens"):
        value = out.get(key)
        if value is None:
            if key == "cached_tokens":
                out.pop(key, None)
            else:
                out[key] = out["input_tokens"] + out["output_tokens"] if key == "total_tokens" else 0
        elif not _whole(value):
            refuse(names.get(key, key), value)
        elif type(value) is not int:
            out[key] = int(value)
    return out
