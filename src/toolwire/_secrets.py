"""Masking secrets in text shown to people (reprs, logs, error messages): the credentials of URLs.

Used by the cloud models (:mod:`toolwire.models._retry`, :mod:`toolwire.models._sdk`) and the MCP client,
whose server URLs may carry a token.
"""

from __future__ import annotations

import re

__all__ = ["redact_url"]

# the user name and password of a URL: "scheme://" then anything up to the last "@" before the path
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\s]*@")
# a query parameter whose name says it holds a secret, up to its value (which is masked)
_SECRET_QUERY = re.compile(r"([?&;][^=&#;\s]*(?:key|token|secret|passw|pwd|sig|auth|credential)[^=&#;\s]*=)"
                           r"[^&#;\s'\"]+", re.IGNORECASE)


def redact_url(text: str) -> str:
    """``text`` with the credentials of every URL in it masked (for reprs, logs and error messages): the user
    info (``http://user:token@host`` gives ``http://****@host``) and the values of query parameters whose name
    says they hold a secret (``?api_key=sk-1`` gives ``?api_key=****``: names with key, token, secret,
    password, signature, auth or credential in them, any letter case)."""
    return _SECRET_QUERY.sub(r"\1****", _USERINFO.sub(r"\1****@", text))
