"""Masking secrets in text shown to people (reprs, logs, error messages): the credentials of URLs.

Used by the cloud models (:mod:`toolwire.models._retry`, :mod:`toolwire.models._sdk`) and the MCP client,
whose server URLs may carry a token.
"""

from __future__ import annotations

import re

__all__ = ["redact_url"]

# the user name and password of a URL: "scheme://" then anything up to the last "@" before the path
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#\s]*@")
# a query parameter (a name of at most 64 characters, so the search stays linear in the text's length) and the
# words that say its value is a secret
_QUERY_PARAM = re.compile(r"([?&;][^=&#;?\s]{1,64}=)([^&#;\s'\"]+)")
_SECRET_NAME = re.compile(r"key|token|secret|passw|pwd|sig|auth|credential", re.IGNORECASE)


def redact_url(text: str) -> str:
    """``text`` with the credentials of every URL in it masked (for reprs, logs and error messages): the user
    info (``http://user:token@host`` gives ``http://****@host``) and the values of query parameters whose name
    says they hold a secret (``?api_key=sk-1`` gives ``?api_key=****``: names with key, token, secret,
    password, signature, auth or credential in them, any letter case)."""
    return _QUERY_PARAM.sub(_mask_value, _USERINFO.sub(r"\1****@", text))


def _mask_value(match: re.Match[str]) -> str:
    name = match.group(1)
    return name + "****" if _SECRET_NAME.search(name) else match.group(0)
