"""toolwire's version: the one its installed package's metadata holds, which ``pyproject.toml`` declares, so that the
version is written in one place (review 278 #3: ``__init__.py`` had a second copy written by hand)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__", "installed_version"]


def installed_version(distribution: str = "toolwire") -> str:
    """Return the version of the installed ``distribution`` (a package's name as pip knows it).

    Returns:
        Its version (``"0.1.0"``), or ``"0+unknown"`` when it is not installed (its source folder put on the import
        path by hand). Raises nothing.
    """
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "0+unknown"


__version__ = installed_version()
