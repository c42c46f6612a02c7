"""What to install for an optional part of toolwire, said so that the command works however toolwire was installed.

toolwire is installed from its repository (``pip install -e '.[local]'``), not from PyPI, so an error that says
``pip install 'toolwire[openai]'`` would send the user to a package that is not there. :func:`install_hint` names
the packages of the extra instead (the same pins as ``[project.optional-dependencies]`` in ``pyproject.toml``; a test
keeps the two equal) and the extra's name, for those who install from a clone.
"""

from __future__ import annotations

import importlib
import importlib.util

from toolwire.errors import MissingExtraError

__all__ = ["EXTRAS", "install_hint", "local_missing", "require_local"]

EXTRAS: dict[str, tuple[str, ...]] = {
    "local": ("llama-cpp-python==0.3.36", "huggingface_hub>=0.20", "rstr>=3.2"),
    "openai": ("openai>=1.40",),
    "anthropic": ("anthropic>=0.34",),
    "google": ("google-genai>=1.0",),
    "mcp": ("mcp>=1.12",),
    "langchain": ("langchain-core>=0.3.36",),
}
"""The packages of each extra toolwire's messages name, as ``pyproject.toml`` lists them."""


def install_hint(extra: str, *, upgrade: bool = False) -> str:
    """The end of an error sentence that says how to install the optional extra ``extra``, the command last so that it
    can be copied as it is.

    Args:
        extra: a key of :data:`EXTRAS` (``"local"``, ``"openai"``, ...).
        upgrade: the packages are there but too old: the command upgrades them (``pip install -U``).

    Returns:
        ``"toolwire's [openai] extra: run pip install 'openai>=1.40'"``; for an unknown extra,
        ``"toolwire's [NAME] extra: run pip install -e '.[NAME]' in toolwire's repository"``.
    """
    packages = EXTRAS.get(extra)
    if not packages:
        return f"toolwire's [{extra}] extra: run pip install -e '.[{extra}]' in toolwire's repository"
    flag = "-U " if upgrade else ""
    return f"toolwire's [{extra}] extra: run pip install {flag}{' '.join(repr(p) for p in packages)}"


def local_missing() -> str | None:
    """The package of the ``[local]`` extra that the embedded model needs and this install lacks, found without
    importing llama-cpp-python (numpy is imported: the local pipeline imports it anyway).

    Returns:
        ``"llama-cpp-python"`` when ``llama_cpp`` cannot be found, else ``"numpy"`` when numpy cannot be imported,
        else None. Raises nothing.
    """
    try:
        found = importlib.util.find_spec("llama_cpp") is not None
    except (ImportError, ValueError):  # (a finder that refuses it, or a module left without a spec)
        found = False
    if not found:
        return "llama-cpp-python"
    try:
        importlib.import_module("numpy")
    except ImportError:
        return "numpy"
    return None


def require_local(at_import: bool = False) -> None:
    """Refuse to go on with the embedded local model when the ``[local]`` extra is missing, before any module that
    needs it is imported (review 161 #1).

    Args:
        at_import: checked as ``toolwire.models.llamacpp`` is imported: only numpy, which that import needs; a missing
            llama-cpp-python is said when a model is made, so that an install for hosted providers (with numpy) still
            imports, lists and star-imports ``toolwire.models`` (review 165 #3).

    Raises:
        MissingExtraError: a package of the extra is missing (:func:`local_missing`); the one sentence names it and
            the ``pip install`` line to run (the same sentence ``toolwire.models._loaded`` gives when ``llama_cpp``
            fails to import). It is a :class:`~toolwire.errors.UserError` and an :class:`ImportError`.
    """
    if at_import:
        try:
            importlib.import_module("numpy")
            return
        except ImportError:
            pass
    missing = local_missing()
    if missing is not None:
        raise MissingExtraError(f"Local models need {missing}, {install_hint('local')}.")
