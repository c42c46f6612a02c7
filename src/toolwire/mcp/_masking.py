"""Keeping secrets out of what toolwire shows of an MCP server: the values of a server's headers and environment,
and the secrets of a command line (``--token X``, ``--api-key=X``, ``API_KEY=X``, ``Authorization: Bearer X``, a
JSON config's ``apiKey``), in reprs, labels and error messages; and a command line's leading ``NAME=value`` words,
which a shell would set in the command's environment.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from toolwire._secrets import redact_url
from toolwire.errors import UserError

__all__ = ["leading_env", "masked_args", "masked_mapping", "scrubbed"]


def masked_mapping(values: Mapping[str, Any] | None) -> str:
    """A mapping of secrets (HTTP headers, environment variables) for a repr: the keys, each value hidden."""
    if values is None:
        return "None"
    if not isinstance(values, Mapping):  # a string's "keys" would be its characters: the secret itself
        return "'***'"
    try:
        return "{" + ", ".join(f"{key!r}: '***'" for key in values) + "}"
    except Exception:  # not iterable: still nothing of it shown
        return "'***'"


# words of a command line that say the next word, or the value after "=" or ":", is a secret
_SECRET_WORD = re.compile(r"key|token|secret|passw|pwd|auth|credential|cookie|bearer|(?<![a-z])pat(?![a-z])",
                          re.IGNORECASE)  # (pat: GitHub's personal access token, --github-pat, GITHUB_PAT)
_SECRET_VALUE = re.compile(r"^\s*(?:bearer|basic|token)\s+\S", re.IGNORECASE)  # "X-Api: Bearer ...", any header name
_OPTION = re.compile(r"^-{1,2}[\w.-]+$")  # --token, -k: a flag whose value may be the next word
_ASSIGNED = re.compile(r"^(-{0,2}[\w.-]+=)(.+)$", re.DOTALL)  # --api-key=..., API_KEY=...
_HEADER = re.compile(r"^(\s*[\w-]+\s*:)(.+)$", re.DOTALL)  # "Authorization: Bearer ..." (mcp-remote --header)


def masked_args(words: Sequence[str]) -> list[str]:
    """Command-line words for a label or repr with what looks like a secret hidden: URL credentials
    (:func:`redact_url`), the value of ``--token X`` / ``--api-key=X`` / ``API_KEY=X`` and of a header such as
    ``Authorization: Bearer X`` (how ``mcp-remote`` is given a token; also ``--header=Authorization: ...``), each
    option named with key, token, secret, password, auth, credential, cookie or bearer, and such keys' values in a
    word that is a JSON object (``--config '{"apiKey": "..."}'``, as Smithery's CLI takes it; review 114). The word
    after such an option is hidden even when it starts with one ``-`` (``--token -Xy9``); only a long option
    (``--verbose``) after it is shown."""
    shown: list[str] = []
    secret_next = False
    for word in words:
        text = redact_url(str(word))
        if secret_next and _SCHEME_WORD.match(text):  # "Authorization:" "Bearer" "X" (unquoted): the scheme stays
            shown.append(text)
            continue
        raw = text
        # after a secret option, a word is its value unless it is a long option: a token may start with one "-"
        text = "****" if secret_next and not text.startswith("--") else _masked_word(text)
        secret_next = bool((_OPTION.match(text) or _HEADER_NAME.search(text) or _SCHEME_END.search(raw))
                           and _SECRET_WORD.search(text))
        shown.append(text)
    return shown


# a word that ends with a secret-like header's name and its colon, the value in the next words (review 116: an
# unquoted "--header=Authorization: Bearer X" is three words)
_HEADER_NAME = re.compile(r"(?:^|=)[\w-]+:$")
_SCHEME_WORD = re.compile(r"^(?:bearer|basic|token)$", re.IGNORECASE)
_SCHEME_END = re.compile(r":\s*(?:bearer|basic|token)$", re.IGNORECASE)  # "Authorization:Bearer" "X"


def _masked_word(text: str) -> str:
    """One word with a secret value in it hidden: ``NAME=value`` or ``Name: value`` with a secret-like name, a JSON
    object's secret-named values, and the same forms after an option's ``=`` (``--header=Authorization: ...``)."""
    found = _ASSIGNED.match(text) or _HEADER.match(text)
    if found and (_SECRET_WORD.search(found.group(1)) or _SECRET_VALUE.match(found.group(2))):
        return found.group(1) + ("****" if found.group(1).endswith("=") else " ****")
    if found and found.group(1).endswith("="):  # --header=Authorization: ..., --config={...}
        return found.group(1) + _masked_word(found.group(2))
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            return text
        masked = _masked_json(data)
        return json.dumps(masked, ensure_ascii=False) if masked != data else text
    return text


def _masked_json(value: Any) -> Any:
    """``value`` (JSON data) with the values of secret-named keys, at any depth, as ``"****"``."""
    if isinstance(value, dict):
        return {key: "****" if isinstance(key, str) and _SECRET_WORD.search(key) and not isinstance(item, dict)
                else _masked_json(item) for key, item in value.items()}  # (a list of keys: masked whole)
    if isinstance(value, list):
        return [_masked_json(item) for item in value]
    return value


def scrubbed(text: str, words: Sequence[str]) -> str:
    """``text`` (an error's detail) with each command-line word that :func:`masked_args` hides written as it shows
    it (review 114: ``FileNotFoundError: ... 'API_KEY=...'`` quoted the word whole)."""
    for raw, shown in zip(words, masked_args(words), strict=True):
        if raw != shown and len(raw) >= 4:
            text = text.replace(raw, shown)
    return text


_ENV_WORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)  # NAME=value before a command (a shell's)


def leading_env(words: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """``(variables, the rest)``: the ``NAME=value`` words a command line starts with, which a shell sets in the
    command's environment (``GITHUB_TOKEN=... npx server``), and the words from the command on. ``$NAME`` and
    ``${NAME}`` in a value are read from this process's environment, as a shell reads them (review 115:
    ``GITHUB_TOKEN=$GITHUB_TOKEN`` sent the text ``$GITHUB_TOKEN``), in single quotes too (the quotes are gone by
    then).

    Raises:
        UserError: a value names a variable that is not set (a shell would pass an empty value, silently).
    """
    env: dict[str, str] = {}
    rest = list(words)
    while len(rest) > 1 and (found := _ENV_WORD.match(rest[0])):
        value = os.path.expandvars(found.group(2))
        if (unset := _VARIABLE.search(value)) is not None:  # (review 116: the server got the text "$NOT_SET")
            name = unset.group(1) or unset.group(2)
            raise UserError(f"The MCP server command sets {found.group(1)} from ${name}, which is not set here: set "
                            f"{name} in this program's environment, or write the value itself.")
        env[found.group(1)] = value
        rest.pop(0)
    return env, rest


_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")  # what expandvars leaves: a variable that is not set
