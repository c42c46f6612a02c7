"""The library's errors as the ``toolwire`` command says them: advice that names a Python argument the commands do not
offer is left out, or said with the option or the environment variable that does the same on the command line.

Kept apart from :mod:`toolwire.cli`, which prints them.
"""

from __future__ import annotations

from toolwire.errors import ContextOverflowError, ProviderError, ToolwireError

__all__ = ["SERVER_KEY_HINT", "error_text", "recorded_text"]

SERVER_KEY_HINT = ("Set OPENAI_API_KEY to this server's own API key (the key it was started with, such as vLLM's "
                   "--api-key) and check its permissions.")
"""The command line's hint for a 401/403 from an OpenAI-compatible server: ``OPENAI_API_KEY`` is the only way a
command gives such a server its key (``ask`` and ``chat`` have no key option), where the library's hint says to
pass ``ChatOpenAI(..., api_key=...)`` (review 135 #4)."""


def error_text(exc: ToolwireError) -> str:
    """A library error as the command line says it.

    A context overflow, and an ``--n-ctx`` past the model's trained context (review 150 #3), name ``--n-ctx``, the
    option the commands take, rather than the ``n_ctx`` argument (review 29); advice to raise a library argument
    that no option sets (``connect_timeout``, ``max_retries``: the error's ``api_advice``) is left out (review 48);
    a 401/403 from an OpenAI-compatible server says to set ``OPENAI_API_KEY`` (:data:`SERVER_KEY_HINT`) where the
    library says to pass ``api_key=`` (review 135 #4).

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
