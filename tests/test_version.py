"""Review 278 #3: ``toolwire --version`` did not exist; the version is ``toolwire.__version__``, which must be the one
``pyproject.toml`` declares (the package's metadata), not a second copy written by hand."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import toolwire

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_version_matches_pyproject_and_metadata() -> None:
    declared = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"]
    assert toolwire.__version__ == declared == version("toolwire")


def test_toolwire_version_prints_it_and_exits_0() -> None:
    done = subprocess.run([sys.executable, "-c", "from toolwire.cli import main; main()", "--version"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"toolwire {toolwire.__version__}\n"
    assert done.stderr == ""


def test_version_is_in_the_help() -> None:
    from typer.testing import CliRunner

    from toolwire.cli import app

    shown = CliRunner().invoke(app, ["--help"])
    assert shown.exit_code == 0 and "--version" in shown.output


def test_version_fallback_when_not_installed() -> None:
    from toolwire._version import installed_version

    assert installed_version("toolwire") == toolwire.__version__
    assert installed_version("no-such-distribution-toolwire-test") == "0+unknown"
