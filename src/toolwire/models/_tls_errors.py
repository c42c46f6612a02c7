"""A server certificate the HTTP client could not verify, said as such (review 314 #7).

A company's OpenAI-compatible server (vLLM, a gateway) behind a private CA, or one with a self-signed certificate,
fails every request with ``[SSL: CERTIFICATE_VERIFY_FAILED]``. That is the same on every try, so it is not retried,
and the hint points at the certificate rather than at a server that is not running. The providers' HTTP clients
(httpx, and aiohttp for Gemini's async calls) read ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` (httpx's
``create_ssl_context`` with ``trust_env``, OpenSSL's default paths for aiohttp); ``REQUESTS_CA_BUNDLE`` is the
``requests`` library's own, which they do not read.
"""

from __future__ import annotations

import re
import ssl

from toolwire._secrets import redact_url
from toolwire.errors import ProviderError

__all__ = ["certificate_failure"]

_CONNECT = frozenset({"ConnectError", "ClientConnectorError", "ClientSSLError", "TransportError",
                      "ClientConnectionError"})
_VERIFY = re.compile(r"CERTIFICATE_VERIFY_FAILED|certificate verify failed", re.IGNORECASE)


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it chains (cause, then context), each once, at most 8."""
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(found) < 8 and all(current is not seen for seen in found):
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def certificate_failure(provider: str, exc: BaseException, names: set[str],
                        base_url: str | None) -> ProviderError | None:
    """The ProviderError for a connection that failed because the server's TLS certificate could not be verified
    (an ``ssl.SSLCertVerificationError`` in ``exc``'s chain, aiohttp's ``ClientConnectorCertificateError``, or an
    HTTP library's error whose text says ``CERTIFICATE_VERIFY_FAILED``), else None. Not retryable.

    Args:
        provider: the provider's name, for the error.
        exc: the HTTP client's exception.
        names: the names of ``exc``'s classes that are the HTTP libraries' (:func:`~toolwire.models._retry.
            transport_error`); only a failed connection is read.
        base_url: the model's base URL (credentials masked where it is shown), or None for the provider's own.

    Returns:
        The error: its message quotes the TLS library's reason, its hint names ``SSL_CERT_FILE`` and ``SSL_CERT_DIR``.
    """
    if not names & _CONNECT:
        return None
    chain = _chain(exc)
    verify = next((e for e in chain if isinstance(e, ssl.SSLCertVerificationError)), None)
    aiohttp = getattr(exc, "certificate_error", None) if "ClientConnectorCertificateError" in names else None
    if verify is None and aiohttp is None and not any(_VERIFY.search(str(e)) for e in chain):
        return None
    reason = " ".join(str(verify or aiohttp or getattr(exc, "os_error", None) or exc).split())[:300]
    where = f" at {redact_url(base_url)}" if base_url else ""
    return ProviderError(
        f"The TLS certificate of the server{where} could not be verified: {redact_url(reason)}.", provider=provider,
        status=None, retryable=False,
        hint="If the server's certificate is self-signed or signed by a private CA, set SSL_CERT_FILE to a PEM file "
             "holding that CA certificate (with the public CAs too, if the same program calls public APIs), or "
             "SSL_CERT_DIR to a folder of them (REQUESTS_CA_BUNDLE is not read here); else check that the URL names "
             "the host its certificate is for.")
