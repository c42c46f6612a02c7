"""The URLs ``ChatOpenAI`` is given: OpenAI's own API, Azure OpenAI's v1 API, and a query string the client sends apart.

Re-exported by :mod:`toolwire.models.openai`.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit, urlunsplit

from toolwire.errors import UserError
from toolwire.models._retry import redact_url

__all__ = ["AZURE_HOSTS", "AZURE_V1_PATH", "MISTRAL_HOST", "OPENAI_HOST", "OPENAI_URL", "azure_v1_url",
           "is_mistral_url", "is_openai_url", "split_query"]

OPENAI_URL = "https://api.openai.com/v1"
OPENAI_HOST = "api.openai.com"
"""OpenAI's API host; its data-residency hosts are subdomains of it (``eu.api.openai.com``, ``us.``, ``au.``, ``in.``,
``jp.``, ``ae.``...: OpenAI's guide "Data residency", regional endpoints)."""
# Azure OpenAI resource hosts (Azure public cloud, AI Foundry, US Government, China): Microsoft Learn,
# "Azure OpenAI in Azure AI Foundry Models v1 API" and the sovereign-cloud endpoint lists
AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com", ".openai.azure.us",
               ".openai.azure.cn")
AZURE_V1_PATH = "/openai/v1"
MISTRAL_HOST = "mistral.ai"
"""Mistral AI's domain: its API (``api.mistral.ai``) and Codestral's (``codestral.mistral.ai``) are hosts under it."""


def azure_v1_url(base_url: str | None, *, any_host: bool = False, setting: str = "base_url") -> str | None:
    """The v1 API URL of an Azure OpenAI resource, or None for a ``base_url`` that is not Azure's.

    Azure's v1 API (Microsoft Learn, "Azure OpenAI v1 API lifecycle", generally available since August 2025)
    speaks OpenAI's Chat Completions and Responses APIs at ``https://RESOURCE.openai.azure.com/openai/v1/``,
    with the deployment name as the model and the key as a bearer token, so the plain OpenAI client reaches
    it. A resource URL alone (what ``AZURE_OPENAI_ENDPOINT`` holds) or one ending at ``/openai`` gets
    ``/openai/v1`` added.

    Args:
        base_url: the URL the user gave, or None.
        any_host: the URL is Azure OpenAI's whatever its host (``ChatOpenAI(azure=True)``, ``azure_openai:``): a
            gateway or custom domain in front of a resource. Its other paths are then kept as they are (a
            gateway's own), all but the per-deployment one.
        setting: where the URL came from (``base_url``, ``OPENAI_BASE_URL``, ``AZURE_OPENAI_ENDPOINT``), named by
            the refusal.

    Returns:
        The URL ending in ``/openai/v1`` (or, with ``any_host``, the URL itself), or None when ``base_url`` is
        None or, without ``any_host``, its host is not an Azure OpenAI host (:data:`AZURE_HOSTS`).

    Raises:
        UserError: an Azure URL of the older per-deployment API (``/openai/deployments/NAME``, which needs an
            ``api-version`` on every request) or, on an Azure host, of another path: the message gives the v1
            URL to use.
    """
    if not base_url:
        return None
    text = str(base_url).strip()
    try:
        parts = urlsplit(text)
    except ValueError:  # no URL (an unclosed IPv6 bracket): the base_url check refuses it in its own words
        return None
    host = (parts.hostname or "").lower()
    azure_host = host.endswith(AZURE_HOSTS)
    if not azure_host and not any_host:
        return None
    path = parts.path.rstrip("/")
    if path in ("", "/openai", AZURE_V1_PATH):
        return urlunsplit((parts.scheme, parts.netloc, AZURE_V1_PATH, "", ""))
    if not azure_host and "/openai/deployments" not in path.lower():
        return text
    root = urlunsplit((parts.scheme, parts.netloc, "", "", ""))
    raise UserError(f"Azure OpenAI is reached through its v1 API: set {setting} to {redact_url(root)}{AZURE_V1_PATH} "
                    "and pass the deployment name as the model.")


def split_query(base_url: str | None, setting: str = "base_url") -> tuple[str | None, dict[str, str]]:
    """``base_url`` without its query string, and the query's parameters, which the client sends with every request
    (the ``openai`` SDK's ``default_query``): the SDK appends the endpoint's path to the whole URL text, so a query
    left in it (a gateway's ``?key=...``) would end up inside the path, ``/v1?key=...chat/completions`` (review 136
    #2).

    Args:
        base_url: the URL (already checked), or None.
        setting: where it came from (``base_url``, ``OPENAI_BASE_URL``), named in the error.

    Returns:
        ``(url without query, {name: value})``; ``(base_url, {})`` when it has no query.

    Raises:
        UserError: the query gives a parameter twice, which the SDK cannot send as given.
    """
    if not base_url or "?" not in base_url:
        return base_url, {}
    parts = urlsplit(base_url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    names = [name for name, _ in pairs]
    if twice := sorted({name for name in names if names.count(name) > 1}):
        raise UserError(f"{setting} {redact_url(base_url)!r} gives the query parameter {twice[0]!r} more than once, "
                        "which toolwire cannot send as given: give each parameter once.")
    return urlunsplit(parts._replace(query="", fragment="")), dict(pairs)


def is_openai_url(base_url: str | None) -> bool:
    """Return whether ``base_url`` is OpenAI's own API: ``https://api.openai.com/...`` or a data-residency host such as
    ``https://eu.api.openai.com/v1`` (any ``*.api.openai.com``; OpenAI's guide "Data residency").

    Read from the parsed URL's host (lower-cased, credentials and port left out), never as a text prefix, so
    ``https://api.openai.com.example.net`` is not OpenAI. None (the SDK's default endpoint) is OpenAI's.
    """
    if not base_url:
        return True
    try:
        parts = urlsplit(str(base_url).strip())
        host = (parts.hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    return parts.scheme == "https" and (host == OPENAI_HOST or host.endswith("." + OPENAI_HOST))


def is_mistral_url(base_url: str | None) -> bool:
    """Return whether ``base_url`` is Mistral AI's own API: a host ``mistral.ai`` or under it (``https://api.mistral.ai
    /v1``, ``https://codestral.mistral.ai/v1``), read from the parsed URL's host as :func:`is_openai_url` reads it
    (``https://api.mistral.ai.example.net`` is not Mistral's). False for None or a text that is no URL."""
    if not base_url:
        return False
    try:
        host = (urlsplit(str(base_url).strip()).hostname or "").lower().rstrip(".")
    except ValueError:
        return False
    return host == MISTRAL_HOST or host.endswith("." + MISTRAL_HOST)
