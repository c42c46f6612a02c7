"""Faults a fresh user's review found in the hosted-provider classes (review 74), each kept fixed by a test here; no
model is loaded and no request leaves 127.0.0.1.

4. Error text: ``toolwire ask --model nosuch`` listed fewer providers than ``--model foo:bar`` (``google_genai``
   and ``ollama`` missing); both lists now come from one place.
"""

from __future__ import annotations

import pytest

from toolwire.errors import UserError
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
