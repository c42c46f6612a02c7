"""Faults a fresh user's review found in the hosted-provider classes (review 74), each kept fixed by a test here; no
model is loaded and no request leaves 127.0.0.1.

4. Error text: ``toolwire ask --model nosuch`` listed fewer providers than ``--model foo:bar`` (``google_genai``
   and ``ollama`` missing); both lists now come from one place. A retried request's error read ``...after 1 s.
   (gave up after 3 attempts). Check...``: the count now goes inside the sentence. ``--model
   openai-compatible:m`` told a command-line user to pass ``base_url=``, which no option sets: it now says to
   write the URL in the name, or to set ``OPENAI_BASE_URL`` and use ``openai:<model>``.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from toolwire import cli
from toolwire.errors import ProviderError, UserError
from toolwire.models._retry import _give_up, status_error
from toolwire.models.factory import ALIASES, PROVIDERS, init_chat_model

# -- 4: error text -----------------------------------------------------------------------------------------


def test_unknown_model_and_unknown_provider_list_the_same_providers() -> None:
    with pytest.raises(UserError) as bare:
        init_chat_model("nosuch")
    with pytest.raises(UserError) as prefixed:
        init_chat_model("foo:bar")
    for name in (*PROVIDERS, *ALIASES):
        assert name in str(prefixed.value)
        if name != "local":
            assert f" {name}" in str(bare.value).split("provider one of", 1)[1]


@pytest.mark.parametrize(("message", "shown"), [
    ("The request timed out after 1 s.", "The request timed out after 1 s (gave up after 3 attempts). Check"),
    ("Could not connect: refused", "Could not connect: refused (gave up after 3 attempts). Check"),
])
def test_the_attempt_count_goes_inside_the_errors_sentence(message: str, shown: str) -> None:
    error = _give_up(status_error("openai", None, message, base_url="http://127.0.0.1:9/v1"), 3)
    assert isinstance(error, ProviderError) and shown in str(error)
    assert ". (" not in str(error) and ")." in str(error)
    server = _give_up(status_error("openai", 503, "Service unavailable."), 2)
    assert str(server).startswith("openai (status 503): Service unavailable (gave up after 2 attempts). The provider")


def test_the_command_line_says_how_to_give_a_compatible_servers_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = CliRunner().invoke(cli.app, ["ask", "hi", "--model", "openai-compatible:m"])
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "base_url=" not in said
    assert "openai-compatible:m@" in said and "OPENAI_BASE_URL" in said and "openai:m" in said
    # the library keeps its own wording (base_url= is a keyword there)
    with pytest.raises(UserError, match="base_url="):
        init_chat_model("openai-compatible:m")
