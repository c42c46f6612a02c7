"""Review 161 #3: ``toolwire models pull --source local`` said "tried nothing" after looking in the models folder;
the error now names the file it looked for there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.errors import UserError
from toolwire.models.pull import pull_model
from toolwire.models.registry import DEFAULT_MODEL, get_entry


def test_a_pull_from_local_only_names_the_models_folder_copy_it_looked_for(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path))
    monkeypatch.delenv("TOOLWIRE_MODEL_PATH", raising=False)
    target = get_entry(DEFAULT_MODEL).path
    with pytest.raises(UserError) as caught:
        pull_model(DEFAULT_MODEL, sources=("local",), progress=False, echo=None)
    message = str(caught.value)
    assert "tried nothing" not in message
    assert f"no source worked (tried {target});" in message
