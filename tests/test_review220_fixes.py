"""Review 220 fixes: pip runs isolated from the current folder (#1), the Hub probe never forwards
``HF_ENDPOINT``'s credentials on a redirect (#2), and a bad proxy variable is one clear error (#3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolwire.models.pull import SourceError, pip_download

# ---------------------------------------------------------------------------------------------- #1


@pytest.mark.parametrize("layout", ["pip.py", "pip/__main__.py"])
def test_pip_download_never_runs_a_pip_from_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               layout: str) -> None:
    repo = tmp_path / "repo"
    marker = tmp_path / "PWNED"
    fake = repo / layout
    fake.parent.mkdir(parents=True)
    if layout.startswith("pip/"):
        (repo / "pip" / "__init__.py").write_text("")
    fake.write_text(f"open({str(marker)!r}, 'w').write('ran')\nprint('ERROR: fake pip ran')\nraise SystemExit(1)\n")
    dest = tmp_path / "wheels"
    dest.mkdir()
    monkeypatch.chdir(repo)
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # the real pip fails at once, offline
    with pytest.raises(SourceError) as info:
        pip_download(["toolwire-no-such-wheel==0.0.1"], Path("..") / "wheels", lambda done, total: None)
    assert not marker.exists()
    assert "fake pip ran" not in str(info.value)
    assert "toolwire-no-such-wheel" in str(info.value) or "No matching distribution" in str(info.value)
