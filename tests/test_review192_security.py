"""Review 192 (security): findings 1-5, each test failing before its fix.

1. ``--model 'openai-compatible:@http://user:pw@host/v1'`` (no model name) showed the URL's password in the CLI's
   error, and without the ``@`` the suggested fix was cut at the user info's ``@`` (``<model>@host/v1``).
2. ``toolwire models pull`` printed ``HF_ENDPOINT`` with its credentials, and its reachability probe could not
   reach a mirror whose URL holds user info (urllib does not take it), so the hub was skipped.
3. A ``base_url``'s ``user:password`` reaches the server as ``Authorization: Basic base64(user:password)``; a proxy
   that echoed that header had it shown unmasked in the ProviderError.
4. URL passwords holding ``/``, ``?`` or ``#`` (a DSN built with an f-string) were not masked in error text.
5. ``terminal_text``/``terminal_json`` let bidi controls (U+202E and the like) through to the terminal.

No model is loaded; only local servers on 127.0.0.1 are reached.
"""

from __future__ import annotations

import pytest

from toolwire import UserError
from toolwire._cli_model import check_server_url

# -- 1. the CLI's "names no model" error ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["openai-compatible:@http://bob:PWsecret42x@gpu-box:8000/v1",
                                  "openai-compatible:http://bob:PWsecret42x@gpu-box:8000/v1"])
def test_cli_model_error_masks_the_url_password_and_keeps_the_whole_url(name: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(UserError, match="names no model") as refused:
        check_server_url(name)
    said = str(refused.value)
    assert "PWsecret42x" not in said and "bob" not in said
    assert "'openai-compatible:<model>@http://****@gpu-box:8000/v1'" in said


def test_cli_model_error_without_url_masks_credentials_of_the_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(UserError, match="needs the server's URL") as refused:
        check_server_url("openai-compatible:m?api_key=sk-SECRET123@")
    assert "sk-SECRET123" not in str(refused.value)
