"""The library's errors as the ``toolwire`` command says them: advice that names a Python argument the commands do not
offer is left out, or said with the option or the environment variable that does the same on the command line.

Kept apart from :mod:`toolwire.cli`, which prints them. The parsers of the options' numbers are here too
(:func:`whole_number`, :func:`share`, :func:`seconds`), so that a bad value is refused in the project's words, not
pydantic's (review 170 #11).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from toolwire.errors import ContextOverflowError, ProviderError, ToolwireError, UserError

__all__ = ["MCP_TOKEN_HINT", "SERVER_KEY_HINT", "error_text", "recorded_text", "seconds", "share", "whole_number"]

SERVER_KEY_HINT = ("Set OPENAI_API_KEY to this server's own API key (the key it was started with, such as vLLM's "
                   "--api-key) and check its permissions.")
"""The command line's hint for a 401/403 from an OpenAI-compatible server: ``OPENAI_API_KEY`` is the only way a
command gives such a server its key (``ask`` and ``chat`` have no key option), where the library's hint says to
pass ``ChatOpenAI(..., api_key=...)`` (review 135 #4)."""


MCP_TOKEN_HINT = ("in the URL if the server takes it there (the command line cannot send headers), or load its tools "
                  "from Python with toolwire.mcp.load_tools(HttpServer(url, headers={...})).")
"""The command line's end of a 401/403 MCP server's message, where the library's names ``HttpServer(headers=...)``,
which ``--mcp`` cannot pass (review 227 #6)."""


def error_text(exc: ToolwireError) -> str:
    """A library error as the command line says it.

    A context overflow, and an ``--n-ctx`` past the model's trained context (review 150 #3), name ``--n-ctx``, the
    option the commands take, rather than the ``n_ctx`` argument (review 29); advice to raise a library argument
    that no option sets (``connect_timeout``, ``max_retries``: the error's ``api_advice``) is left out (review 48);
    a 401/403 from an OpenAI-compatible server says to set ``OPENAI_API_KEY`` (:data:`SERVER_KEY_HINT`) where the
    library says to pass ``api_key=`` (review 135 #4); a 401/403 from an HTTP MCP server says where the command line
    can put a token (:data:`MCP_TOKEN_HINT`).

    Args:
        exc: the error a command caught.

    Returns:
        The one line to print after ``error:``. Raises nothing.
    """
    if isinstance(exc, ContextOverflowError):
        return exc.advice(f"a larger --n-ctx (more than {exc.n_ctx})")
    beyond = getattr(exc, "beyond_training", None)  # an --n-ctx past the model's trained context (review 150 #3)
    if beyond is not None:
        n_ctx, trained, name = beyond
        return (f"--n-ctx {n_ctx} is more than the {trained} tokens {name} was trained on, so the model cannot use "
                f"the rest: pass --n-ctx {trained} or less.")
    text = exc.without_api_advice()
    if isinstance(exc, ProviderError) and exc.status in (401, 403) and exc.hint:
        from toolwire.models.openai import _SERVER_KEY_HINT

        if exc.hint == _SERVER_KEY_HINT:  # (the hint itself, as models/openai.py gives it: not a reading of its text)
            text = text.replace(_SERVER_KEY_HINT, SERVER_KEY_HINT, 1)
    if isinstance(exc, UserError) and text.endswith("or in the URL."):  # (an MCP server's 401/403: review 227 #6,
        from toolwire.mcp.common import HEADER_ADVICE  # the command line has no way to send a header)

        if text.endswith(f"{HEADER_ADVICE}."):
            text = text[:-len(HEADER_ADVICE) - 1] + MCP_TOKEN_HINT
    return text


_API_CLAUSES = (", or raise timeout / max_retries", ", or raise max_retries", ", or raise timeout",
                ", or pass it as api_key", ", or pass it as base_url=")
"""The clauses of the library's messages that name a Python argument (the ``api_advice`` of models/_retry.py,
models/_sdk.py and models/factory.py), longest first, for text that no longer has its error object."""


def recorded_text(text: str) -> str:
    """A library error's text kept without its error object (a BFCL item's recorded failure, which ``toolwire eval
    bfcl`` quotes when it stops a run) as :func:`error_text` would say it: the clauses that name a Python argument
    left out, and a 401/403 server's hint saying to set ``OPENAI_API_KEY`` (review 156 #3).

    Args:
        text: the message, or a message that quotes one.

    Returns:
        The text to print after ``error:``. Raises nothing.
    """
    from toolwire.models.openai import _SERVER_KEY_HINT

    text = text.replace(_SERVER_KEY_HINT, SERVER_KEY_HINT)
    for clause in _API_CLAUSES:
        text = text.replace(clause, "")
    return text


def _given(text: object) -> str:
    """The value an option was given, as a sentence opens with it: the text itself (``100``, ``abc``), or "an empty
    value" for ``''`` or blanks (review 173 #3: the sentence began with nothing)."""
    shown = str(text)
    return shown if shown.strip() else "an empty value"


def whole_number(what: str, least: int, example: int, most: int | None = None) -> Callable[[str], int]:
    """The ``parser=`` of an option that takes a whole number from ``least`` (to ``most``), refusing any other value
    in one sentence with an example ("100 is not a number of tokens of at least 256: pass one, such as 8192."; an
    empty value: "an empty value is not ..."), where typer's own check printed pydantic's "Input should be greater
    than or equal to 256" (review 170 #11). Typer's help no longer shows the range of such an option: its ``help=``
    says it (review 173 #3).

    Args:
        what: what the number counts, as the sentence names it ("number of tokens", "port number").
        least: the smallest value taken.
        example: a good value, for the sentence.
        most: the largest value taken; None for no limit.

    Returns:
        A function from the option's text to its number, which raises ``typer.BadParameter`` (a usage error, exit 2)
        for any other text.
    """
    span = f"of at least {least}" if most is None else f"from {least} to {most}"

    def parse(text: str) -> int:
        import typer

        try:
            value = int(str(text).strip())
        except ValueError:
            value = None
        if value is None or value < least or (most is not None and value > most):
            raise typer.BadParameter(f"{_given(text)} is not a {what} {span}: pass one, such as {example}.")
        return value

    return parse


def share(text: str) -> float:
    """The ``parser=`` of an option that takes a share from 0 to 1 (``toolwire eval bfcl --min-call-probability``),
    refusing any other value in one sentence with an example, not pydantic's "Input should be less than or equal to
    1" (review 173 #3).

    Args:
        text: the option's value as given.

    Returns:
        The number, from 0 to 1.

    Raises:
        typer.BadParameter: (a usage error, exit 2) for any other value ("1.5 is not a number from 0 to 1: pass one,
            such as 0.5.").
    """
    import typer

    try:
        value = float(str(text).strip())
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:  # (NaN too)
        raise typer.BadParameter(f"{_given(text)} is not a number from 0 to 1: pass one, such as 0.5.")
    return value


def seconds(text: str) -> float:
    """The ``parser=`` of ``--tool-timeout``: its text as a number of seconds of at least 0.001, not ``inf`` or
    ``nan`` (review 104: ``inf`` exited with 1), nor text that is no number (review 170 #11: pydantic's "Input should
    be a valid number").

    Args:
        text: the option's value as given.

    Returns:
        The number of seconds.

    Raises:
        typer.BadParameter: (a usage error, exit 2) for any other value, in one sentence with an example.
    """
    import typer

    try:
        value = float(str(text).strip())
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0.001):
        raise typer.BadParameter(f"{_given(text)} is not a number of seconds of at least 0.001: pass one, such as 30, "
                                 "or leave the option out for no limit.")
    return value
