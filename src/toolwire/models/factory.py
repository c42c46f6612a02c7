"""``init_chat_model("provider:model")``: one string names any model toolwire can drive.

Forms:

* ``"local"`` or ``""`` - the default embedded model (:class:`~toolwire.models.ChatLlamaCpp`);
  ``"local:<registry name>"`` or a registry name such as ``"qwen2.5-coder-0.5b"``; a path to a ``.gguf``.
* ``"openai:<model>"`` (``gpt-5-mini``...), ``"anthropic:<model>"``, ``"google:<model>"``.
* ``"azure_openai:<deployment>"`` (LangChain's provider name): Azure OpenAI's v1 API at ``base_url=`` or
  ``AZURE_OPENAI_ENDPOINT`` (the resource URL, or a gateway's or custom domain's: Azure's rules hold whatever
  the host), key ``AZURE_OPENAI_API_KEY``; see ``ChatOpenAI``.
* ``"openai-compatible:<model>@<base_url>"`` for vLLM, SGLang, llama.cpp server, Ollama, LM Studio; the name
  ends at the ``@`` before the URL's ``http://`` or ``https://``, so the URL may carry ``user:token@``. The URL may
  be given as ``base_url=`` instead (``"openai-compatible:<model>"``), not both, or, with neither, read from
  ``OPENAI_BASE_URL``.
* LangChain's provider names: ``"google_genai:<model>"`` is ``"google:<model>"``; ``"ollama:<model>"`` is an
  OpenAI-compatible server at Ollama's ``http://localhost:11434/v1`` (its OpenAI-compatible API, Ollama docs
  "OpenAI compatibility"), or at the host ``OLLAMA_HOST`` names (read as the ollama client and LangChain's
  ``ChatOllama`` read it: ``host``, ``host:port``, ``http(s)://host:port``; ``/v1`` added), or at ``base_url=``
  (which wins; ``/v1`` added to one without a path), or ``"ollama:<model>@<base_url>"`` as ``openai-compatible:``
  takes it (review 310 #2).
* A bare model name of a well-known family names its provider, as LangChain's ``init_chat_model`` infers it
  (:func:`infer_provider`): ``gpt-...``, ``chatgpt-...``, ``o1``/``o3``/``o4`` (``o4-mini``) are ``openai``,
  ``claude...`` is ``anthropic``, ``gemini...`` is ``google`` (LangChain's ``google_genai``; also Gemini's full
  name ``models/gemini-...``); any other bare name
  that is no registry name or path needs the ``"provider:model"`` form.
* ``"scripted"`` is not offered: tests build :class:`~toolwire.testing.ScriptedChatModel` directly.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
from typing import Any

from toolwire._extras import install_hint
from toolwire._keywords import check_keywords, keyword_names
from toolwire.errors import UserError
from toolwire.models.base import BaseChatModel

__all__ = ["ALIASES", "PROVIDERS", "infer_provider", "init_chat_model"]

# provider prefix -> (module, class, pip extra)
PROVIDERS: dict[str, tuple[str, str, str]] = {
    "local": ("toolwire.models.llamacpp", "ChatLlamaCpp", "local"),
    "openai": ("toolwire.models.openai", "ChatOpenAI", "openai"),
    "openai-compatible": ("toolwire.models.openai", "ChatOpenAI", "openai"),
    "azure_openai": ("toolwire.models.openai", "ChatOpenAI", "openai"),
    "anthropic": ("toolwire.models.anthropic", "ChatAnthropic", "anthropic"),
    "google": ("toolwire.models.google", "ChatGoogleGenAI", "google"),
}

ALIASES: dict[str, str] = {"google_genai": "google", "ollama": "openai-compatible"}
"""LangChain's provider names (``init_chat_model(model_provider=...)``) for the providers above."""


def _provider_names(*, local: bool = True) -> str:
    """Every provider prefix a model name may start with (:data:`PROVIDERS`, then :data:`ALIASES`), joined by
    commas: the one list that every "unknown model/provider" message shows (``local=False`` leaves ``local`` out)."""
    return ", ".join(p for p in (*PROVIDERS, *ALIASES) if local or p != "local")


OLLAMA_URL = "http://localhost:11434/v1"
"""Ollama's OpenAI-compatible API on its default port (Ollama docs, "OpenAI compatibility")."""

_AT_URL = re.compile(r"@(?=https?://)", re.IGNORECASE)  # the "@" that starts the base_url


def _load(provider: str) -> type[BaseChatModel]:
    module_name, class_name, extra = PROVIDERS[provider]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("toolwire"):
            raise UserError(f"The {provider!r} provider is not available in this version of toolwire.") from None
        raise UserError(
            f"The {provider!r} provider needs {exc.name!r}, {install_hint(extra)}."
        ) from None
    return getattr(module, class_name)  # type: ignore[no-any-return]


def init_chat_model(name: str | None = "local", **kwargs: Any) -> BaseChatModel:
    """Build a chat model from a ``"provider:model"`` string.

    Args:
        name: see the module docstring; None or "local" gives the default embedded model; a bare name of a
            well-known family (``"gpt-4o"``, ``"o3-mini"``, ``"claude-sonnet-4-5"``, ``"gemini-2.5-flash"``) gets
            its provider (:func:`infer_provider`), and so does Gemini's full name (``"models/gemini-2.5-flash"``).
        **kwargs: passed to the model class (temperature, dialect, n_ctx, api_key, base_url...).
            Options a class does not take are an error, except ``dialect``, which only local models use
            and others ignore. LangChain's keyword forms are read too: ``model="openai:gpt-4o"`` for
            ``name``, and ``model_provider="openai"`` with a bare model name.

    Returns:
        A :class:`~toolwire.models.BaseChatModel`.

    Raises:
        UserError: unknown provider, missing extra, a malformed name, a base URL given both in an
            ``openai-compatible`` name and as ``base_url=``, ``model_provider`` with a name that already names a
            provider, an option the model class does not take (the close match is named), an unknown bare name or
            a name with a ``/`` that is no file here and does not end in ``.gguf`` (a registry name like it is
            named),
            a folder given as a local model, an ``azure_openai:`` model with neither ``base_url=`` nor
            ``AZURE_OPENAI_ENDPOINT`` (the clause naming ``base_url=`` is the error's ``api_advice``, which the
            command line leaves out), or what the model class raises (a missing API key...).
    """
    if "model" in kwargs and name in (None, "local"):  # LangChain's keyword form: init_chat_model(model="openai:...")
        name = kwargs.pop("model")
    provider_kw = kwargs.pop("model_provider", None)  # ... and init_chat_model("gpt-4o", model_provider="openai")
    if name is not None and not isinstance(name, str):
        raise UserError(f"The model name must be text such as 'openai:gpt-4o' or 'local', not {type(name).__name__}.")
    if provider_kw is not None:
        if not isinstance(provider_kw, str) or not name or ":" in name:
            raise UserError("model_provider= goes with a bare model name (init_chat_model('gpt-4o', "
                            "model_provider='openai')); or write the name as 'provider:model'.")
        name = f"{provider_kw}:{name}"
    name = (name or "local").strip()
    provider, sep, rest = name.partition(":")
    provider, rest = provider.strip(), rest.strip()  # ("openai: gpt-4o" names 'gpt-4o': review 204 #4)
    if not sep:
        if name in ("local", ""):
            provider, rest = "local", ""
        elif name.startswith("models/") and infer_provider(name[7:]) == "google":  # Gemini's full model name
            provider, rest = "google", name[7:]
        elif name.endswith(".gguf") or name in _registry_names() or ("/" in name and _local_file(name)):
            provider, rest = "local", name
        elif "/" in name:  # a hub-style name (Qwen/Qwen2.5-7B-Instruct), no file here: a server's model
            raise UserError(f"{name!r} is no local file: for a model a server runs, write "
                            f"'openai-compatible:{name}@<base_url>' (or 'provider:{name}'), and for a local one "
                            f"give the path of its .gguf file{_registry_hint(name)}")
        elif (inferred := infer_provider(name)) is not None:  # init_chat_model("gpt-4o"), as LangChain's
            provider, rest = inferred, name
        else:  # (the close registry name, as ChatLlamaCpp names it: review 234 #3)
            raise UserError(
                f"Unknown model {name!r}: use 'local', a registry name ({', '.join(_registry_names())}), "
                f"a .gguf path, or 'provider:model' with provider one of {_provider_names(local=False)}"
                f"{_registry_hint(name)}"
            )
    ollama = provider == "ollama"
    provider = ALIASES.get(provider, provider)
    if provider not in PROVIDERS:
        raise UserError(f"Unknown provider {provider!r}: use one of {_provider_names()}.")
    cls = _load(provider)
    _check_keywords(cls, kwargs)
    if provider == "local":
        if rest:
            _check_folder(rest)
            kwargs["model"] = rest
        return cls(**kwargs)
    kwargs.pop("dialect", None)
    if ollama:
        return _ollama(cls, rest, kwargs)
    if provider == "openai-compatible":
        from_env = (os.environ.get("OPENAI_BASE_URL") or "").strip()
        if rest and "@" not in rest and not kwargs.get("base_url") and from_env:  # ChatOpenAI reads (and checks) it
            return cls(model=rest, **kwargs)
        model, at, base_url = _split_model_url(rest) if _AT_URL.search(rest) or not kwargs.get("base_url") \
            else (rest, "@", kwargs.pop("base_url"))
        model, base_url = model.strip(), base_url.strip() if isinstance(base_url, str) else base_url
        if at and kwargs.get("base_url"):
            raise UserError("Give the server's URL once: in the name ('openai-compatible:<model>@<base_url>') or as "
                            "base_url=, not both.")
        if not at or not model or not base_url:
            raise UserError("Write an OpenAI-compatible model as 'openai-compatible:<model>@<base_url>', or as "
                            "'openai-compatible:<model>' with base_url= or OPENAI_BASE_URL set.")
        return cls(model=model, base_url=base_url, **kwargs)
    if not rest:
        raise UserError(f"Name the model after the provider, e.g. '{provider}:<model name>'.")
    if provider == "azure_openai":  # Azure's rules whatever the endpoint's host (a gateway, a custom domain)
        setting = "base_url" if kwargs.get("base_url") else "AZURE_OPENAI_ENDPOINT"
        base_url = kwargs.get("base_url") or os.environ.get("AZURE_OPENAI_ENDPOINT", "").strip()
        if not base_url:
            advice = ", or pass it as base_url="  # (api_advice: the CLI has no such option)
            raise UserError("Set AZURE_OPENAI_ENDPOINT to your Azure OpenAI resource URL "
                            f"(https://RESOURCE.openai.azure.com){advice}.", api_advice=advice)
        from toolwire.models.openai import azure_v1_url

        kwargs["base_url"] = azure_v1_url(base_url, any_host=True, setting=setting)
        kwargs.setdefault("azure", True)
    return cls(model=rest, **kwargs)


_FAMILIES = (("openai", re.compile(r"(gpt-|chatgpt-|o[134](-|$))")), ("anthropic", re.compile("claude")),
             ("google", re.compile("gemini")))
"""Model-name prefixes and their provider, as LangChain's ``init_chat_model`` infers one (its
``_attempt_infer_model_provider``: ``gpt-``, ``chatgpt``, ``o1``, ``o3`` for OpenAI; ``claude``; ``gemini``), with
OpenAI's ``o4`` family added."""


def infer_provider(model: str) -> str | None:
    """The provider of a bare model name of a well-known family, as LangChain's ``init_chat_model`` infers it.

    Args:
        model: a model name without a ``provider:`` prefix (letter case is ignored).

    Returns:
        ``"openai"`` for ``gpt-...``, ``chatgpt-...``, ``o1``, ``o3``, ``o4`` and their ``-mini``... forms;
        ``"anthropic"`` for ``claude...``; ``"google"`` for ``gemini...``; None for any other name.
    """
    lowered = model.lower()
    return next((provider for provider, prefix in _FAMILIES if prefix.match(lowered)), None)


def _check_keywords(cls: type, kwargs: dict[str, Any], let_through: tuple[str, ...] = ("dialect",),
                    untaken: tuple[str, ...] = ()) -> None:
    """Refuse, in one sentence with the close match, an option ``cls`` does not take (``temprature=0``), which its
    constructor would refuse as a ``TypeError`` naming an internal class (review 37); ``let_through`` is not checked
    (``dialect``: only local models use it, and :func:`init_chat_model` drops it for the others), and ``untaken``
    (options the model's API has not: Anthropic's ``seed``) is never offered as the close match (review 78).

    Raises:
        UserError: the first unknown option.
    """
    known: list[str] = []
    for klass in cls.__mro__:  # a subclass's **kwargs go on to its base's __init__
        if "__init__" not in vars(klass) or klass is object:
            continue
        try:
            params = inspect.signature(vars(klass)["__init__"]).parameters
        except (TypeError, ValueError):
            return
        known += keyword_names(vars(klass)["__init__"])
        forwards = [n for n, p in params.items() if p.kind is inspect.Parameter.VAR_KEYWORD]
        if forwards in ([], ["unknown"]):  # no **kwargs, or one that only refuses what is left (SDKChatModel)
            break
    else:
        return
    check_keywords(cls.__name__, (key for key in kwargs if key not in let_through),
                   [name for name in known if name not in untaken])


def _local_file(name: str) -> bool:
    """Whether ``name`` is an existing file or folder here (a folder is refused later, by :func:`_check_folder`)."""
    from pathlib import Path

    try:
        return Path(name).expanduser().exists()
    except (OSError, ValueError):
        return False


def _ollama(cls: type[BaseChatModel], rest: str, kwargs: dict[str, Any]) -> BaseChatModel:
    """The model of ``"ollama:<rest>"``: ``rest`` is ``<model>`` or ``<model>@<base_url>`` (as
    ``openai-compatible:`` takes it; review 310 #2), the server ``base_url=`` if given, else ``OLLAMA_HOST`` read as
    the ollama client reads it (:func:`_ollama_host_url`), else :data:`OLLAMA_URL`. A ``base_url`` without a path
    (Ollama's own address, as LangChain's ``ChatOllama`` takes it) gets ``/v1``. A refused connection's hint names
    ``OLLAMA_HOST`` and the ``@<url>`` form. Raises UserError for no model name, or a URL given twice."""
    model, at, url = _split_model_url(rest) if _AT_URL.search(rest) else (rest, "", "")
    model = model.strip()
    if not model:
        raise UserError("Name the Ollama model, e.g. 'ollama:llama3.1' or 'ollama:llama3.1@http://HOST:11434/v1'.")
    if at and kwargs.get("base_url"):
        raise UserError("Give the Ollama server's URL once: in the name ('ollama:<model>@<base_url>') or as "
                        "base_url=, not both.")
    host = (os.environ.get("OLLAMA_HOST") or "").strip()
    given = url.strip() or kwargs.get("base_url")
    if isinstance(given, str) and given:
        base_url = _with_v1(given)
    else:
        base_url = _ollama_host_url(host) if host and not given else given or OLLAMA_URL
    kwargs["base_url"] = base_url
    built = cls(model=model, **kwargs)
    if isinstance(base_url, str):  # (ChatOpenAI's connection errors take it: review 310 #2)
        built.__dict__["_unreachable_hint"] = _ollama_unreachable(
            base_url, source="OLLAMA_HOST" if host and not given else "the model name" if at else
            "base_url" if given else None)
    return built


def _ollama_host_url(host: str) -> str:
    """The OpenAI-compatible base URL of the Ollama server ``host`` names, as ollama-python's ``_parse_host`` reads
    ``OLLAMA_HOST`` (``host``, ``host:port``, ``:port``, ``http(s)://host[:port]``, a trailing path; IPv6 in
    brackets), with ``/v1`` added: ``"127.0.0.1:5555"`` -> ``"http://127.0.0.1:5555/v1"``, ``"example.com"`` ->
    ``"http://example.com:11434/v1"``, ``"https://example.com"`` -> ``"https://example.com:443/v1"``, ``""`` ->
    ``"http://127.0.0.1:11434/v1"``."""
    from urllib.parse import urlsplit

    scheme, _, hostport = host.strip().partition("://")
    port = 11434
    if not hostport:
        scheme, hostport = "http", host.strip()
    elif scheme == "http":
        port = 80
    elif scheme == "https":
        port = 443
    try:
        split = urlsplit(f"{scheme}://{hostport}")  # (an unbalanced IPv6 bracket: ValueError, review 318 #2)
        name = split.hostname or "127.0.0.1"
        port = split.port or port
    except ValueError:
        raise UserError(f"OLLAMA_HOST={host!r} has no valid port: write it as host:port, such as "
                        "127.0.0.1:11434.") from None
    if ":" in name:  # an IPv6 address (urlsplit drops its brackets)
        name = f"[{name}]"
    path = split.path.strip("/")
    return f"{scheme}://{name}:{port}{'/' + path if path else ''}/v1"


def _with_v1(url: str) -> str:
    """An Ollama ``base_url`` as given, or with ``/v1`` when it has no path (``http://box:11434``, as ``ChatOllama``
    takes it: Ollama serves its OpenAI-compatible API under ``/v1`` only)."""
    from urllib.parse import urlsplit

    try:
        bare = urlsplit(url.strip()).path.strip("/") == "" and "://" in url
    except ValueError:
        return url
    return url.strip().rstrip("/") + "/v1" if bare else url


def _ollama_unreachable(base_url: str, *, source: str | None) -> str:
    """The hint of a connection to the Ollama server at ``base_url`` that could not be opened: where it looked, and
    how to point at another server. ``source``: where the URL came from (``"OLLAMA_HOST"``, ``"the model name"``,
    ``"base_url"``; None: the default), so the advice names what this model reads (review 318 #3: it named
    ``OLLAMA_HOST``, which a model given its URL does not read)."""
    from toolwire._secrets import redact_url

    where = redact_url(base_url)
    if source in ("the model name", "base_url"):
        return f"Check that Ollama is running at {where} (the URL {source} gives), and that the URL is right."
    origin = " (from OLLAMA_HOST)" if source == "OLLAMA_HOST" else ""
    return (f"Check that Ollama is running at {where}{origin}; for an Ollama on another machine or port, set "
            "OLLAMA_HOST (such as OLLAMA_HOST=192.168.1.5:11434) or write the model as "
            "'ollama:<model>@http://HOST:11434/v1'.")


def _split_model_url(text: str) -> tuple[str, str, str]:
    """``"<model>@<base_url>"`` as ``(model, "@", base_url)``: split before the URL's scheme (the URL may hold
    ``user:token@``), else at the last ``@`` (a URL without a scheme, refused later with its own message). A text
    that is a URL alone is ``("", "@", text)``: no model named, rather than a model named after the URL's user info
    (review 192 #1)."""
    if re.match(r"https?://", text, re.IGNORECASE):
        return "", "@", text
    at = _AT_URL.search(text)
    if at is None:
        return text.rpartition("@")
    return text[:at.start()], "@", text[at.end():]


def _check_folder(model: str) -> None:
    """Refuse a folder given as the local model at once, saying what to pass instead (a missing file is
    reported when the model is first used, as before)."""
    from pathlib import Path

    try:
        folder = model not in _registry_names() and Path(model).expanduser().is_dir()
    except OSError:  # a name too long for a path: ChatLlamaCpp refuses it in one sentence (review 78)
        folder = False
    if folder:
        from toolwire.models.registry import model_file

        model_file(model)


def _registry_names() -> list[str]:
    try:
        from toolwire.models.registry import MODELS
    except ImportError:
        return []
    return list(MODELS)


def _registry_hint(name: str) -> str:
    """``"; did you mean the registry name '...'?"`` for a name like a registry model's, else ``"."``
    (:func:`~toolwire.models.registry.registry_hint`)."""
    try:
        from toolwire.models.registry import registry_hint
    except ImportError:
        return "."
    return registry_hint(name)
