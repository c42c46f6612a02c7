"""The ``--model`` checks the ``toolwire`` commands make before a model is built, in the command line's own words:
options of local models given with a hosted model's name, and an ``openai-compatible:`` name with no server URL.

Kept apart from :mod:`toolwire.cli`, which calls them.
"""

from __future__ import annotations

import os
import re

from toolwire._extras import require_local
from toolwire.errors import UserError

__all__ = ["check_dialect", "check_server_url", "hosted_provider"]


def hosted_provider(name: str | None) -> str | None:
    """The provider of a ``--model`` name that names a hosted or server model, read as
    :func:`~toolwire.models.init_chat_model` reads it: a ``provider:`` prefix other than ``local`` (LangChain's
    aliases too), a bare name of a well-known family (``gpt-4o``, ``claude-...``, ``gemini-...``:
    :func:`~toolwire.models.factory.infer_provider`), or Gemini's ``models/gemini-...``.

    Args:
        name: the ``--model`` value (None: the default model, a local one).

    Returns:
        The provider's name, or None for a local model (``local``, a registry name, a ``.gguf`` path, a file here)
        and for a name the library refuses anyway. Raises nothing.
    """
    from toolwire.models.factory import ALIASES, PROVIDERS, _registry_names, infer_provider

    text = (name or "local").strip()
    provider, sep, _ = text.partition(":")
    if sep:
        provider = ALIASES.get(provider.strip(), provider.strip())  # ("openai :gpt-4o", as the library reads it)
        return provider if provider in PROVIDERS and provider != "local" else None
    if text.startswith("models/") and infer_provider(text[7:]) == "google":
        return "google"
    if text in ("local", "") or text.lower().endswith(".gguf") or "/" in text or text in _registry_names():
        return None
    return infer_provider(text)


def check_dialect(name: str | None, dialect: str | None, n_ctx: int | None = None,
                  n_threads: int | None = None) -> None:
    """Refuse a ``--dialect``, ``--n-ctx`` or ``--n-threads`` that would be ignored or cannot work, before any model
    is built.

    Args:
        name: the ``--model`` value (None: the default model).
        dialect, n_ctx, n_threads: the options' values (None: not given).

    Raises:
        UserError: ``dialect``, ``n_ctx`` or ``n_threads`` is given with a hosted or server model's name
            (``openai:gpt-4o``, or a bare ``gpt-4o`` whose provider is inferred, as :func:`hosted_provider` reads
            it: they apply to local models only), ``dialect`` is given for a local model on an install without the
            ``[local]`` extra (:func:`~toolwire._extras.require_local`), or ``dialect`` is not one of
            :data:`~toolwire.models.dialects.DIALECTS`.
    """
    if dialect is None and n_ctx is None and n_threads is None:
        return
    if hosted_provider(name) is not None:  # (before the dialects' import, which needs the [local] extra: review 161)
        option = "--dialect" if dialect is not None else "--n-ctx" if n_ctx is not None else "--n-threads"
        raise UserError(f"{option} applies to local models only, not to {name!r}: leave it out.")
    if dialect is None:
        return
    require_local()
    from toolwire.models.dialects import DIALECTS

    if dialect not in DIALECTS:
        raise UserError(f"Unknown dialect {dialect!r}: use one of {', '.join(DIALECTS)}, or leave out --dialect "
                        "to use the model's own.")


def check_server_url(name: str | None) -> None:
    """Refuse ``--model openai-compatible:<model>`` that gives the library no server URL, in the command line's own
    words: the library's error says to pass ``base_url=``, which no option of the commands sets. A name that does
    give a URL, or no URL with ``OPENAI_BASE_URL`` set, is let through as :func:`~toolwire.models.init_chat_model`
    takes it: the library reads the URL and refuses one that is not http(s) with its own message, naming the
    name's URL or the variable (review 77).

    Args:
        name: the ``--model`` value (None: the default model).

    Raises:
        UserError: the name is ``openai-compatible:`` with no model name before the URL, or with no URL in the name
            (nothing after ``@``, or no ``@`` and ``OPENAI_BASE_URL`` unset or blank); the message says to write
            the model's name, or to write the URL in the name or set ``OPENAI_BASE_URL`` to it. A URL's
            credentials are masked in it (:func:`~toolwire._secrets.redact_url`).
    """
    from toolwire._secrets import redact_given_url, redact_url
    from toolwire.models.factory import _split_model_url

    provider, sep, rest = (name or "").strip().partition(":")
    if not sep or provider.strip() != "openai-compatible":
        return
    if re.match(r"https?://", rest.strip(), re.IGNORECASE):  # a URL and no model: an "@" in it is its user info
        model, at, url = "", "@", rest.strip()  # (review 192 #1: not cut at that "@")
    else:
        model, at, url = _split_model_url(rest)
    if not at:  # no "@": the whole rest is the model's name, as the library reads it
        model, url = rest, ""
    shown_name = redact_url(name or "")  # (the URL's credentials masked, as everywhere else: review 192 #1)
    if not model.strip() or re.match(r"https?://", model, re.IGNORECASE):
        shown = redact_given_url(url.strip() or model.strip() or "http://localhost:8000/v1")
        raise UserError(f"--model {shown_name!r} names no model: write the model's name before the server's URL, "
                        f"as 'openai-compatible:<model>@{shown}'.")
    from_env = (os.environ.get("OPENAI_BASE_URL") or "").strip()
    if url.strip() or (not at and from_env):  # (the library checks the URL: "... is not an http(s) URL")
        return
    model = redact_url(model)
    other = f"or write --model 'openai-compatible:{model}' to use OPENAI_BASE_URL" if from_env \
        else "or set OPENAI_BASE_URL to it"
    raise UserError(f"--model {shown_name!r} needs the server's URL: write it in the name, as "
                    f"'openai-compatible:{model}@http://localhost:8000/v1', {other}.")
