"""Reading a GGUF file's header without llama.cpp: its metadata (:func:`gguf_metadata`) and the context length the
model was trained on (:func:`trained_context`), read before llama.cpp allocates anything (re-exported by
:mod:`toolwire.models._loaded`)."""

from __future__ import annotations

import mmap
import struct
from pathlib import Path
from typing import Any

__all__ = ["gguf_metadata", "trained_context"]

_GGUF_SIZES = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_GGUF_STRING, _GGUF_ARRAY = 8, 9
_U64 = struct.Struct("<Q")


def gguf_metadata(path: Path) -> dict[str, str] | None:
    """Return the scalar and string metadata of the GGUF file at ``path`` (key to value as text, such as
    ``{"general.architecture": "qwen2", "qwen2.context_length": "32768"}``; arrays such as the vocabulary are
    skipped), read from its header without llama.cpp (a fraction of a second, no weights and no context); None
    when the file cannot be read or is not a well-formed GGUF (llama.cpp's own load then says why)."""
    try:
        with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            return _gguf_kv(buf)
    except (OSError, ValueError, struct.error, UnicodeDecodeError, KeyError, OverflowError, MemoryError):
        return None


_GGUF_TEXT_MAX = 16 << 20
"""The longest key or string value (bytes) a GGUF header is read with; a longer one is a damaged length."""


def _gguf_kv(buf: Any) -> dict[str, str] | None:
    """The metadata of the GGUF bytes ``buf`` (see :func:`gguf_metadata`); None when they are not GGUF.

    Raises:
        struct.error, ValueError, UnicodeDecodeError, KeyError: the bytes end early or hold an unknown type."""
    end = len(buf)
    if end < 24 or buf[:4] != b"GGUF" or struct.unpack_from("<I", buf, 4)[0] < 2:
        return None
    n_kv = struct.unpack_from("<Q", buf, 16)[0]
    if n_kv > 1 << 20:
        return None
    off = 24
    out: dict[str, str] = {}
    for _ in range(n_kv):
        (length,) = _U64.unpack_from(buf, off)
        if length > _GGUF_TEXT_MAX:  # a damaged length: no key is that long (review 139 #3: it copied the file)
            return None
        key = bytes(buf[off + 8:off + 8 + length]).decode("utf-8")
        off += 8 + length
        (kind,) = struct.unpack_from("<I", buf, off)
        off += 4
        if kind == _GGUF_STRING:
            (length,) = _U64.unpack_from(buf, off)
            if off + 8 + length > end or length > _GGUF_TEXT_MAX:  # (a chat template: tens of kilobytes)
                return None
            out[key] = bytes(buf[off + 8:off + 8 + length]).decode("utf-8", "replace")
            off += 8 + length
        elif kind == _GGUF_ARRAY:
            item, count = struct.unpack_from("<IQ", buf, off)
            off += 12
            if item == _GGUF_STRING:
                if count * 8 > end - off:  # (each string takes 8 bytes at least: a damaged count ends here)
                    return None
                for _ in range(count):
                    off += 8 + _U64.unpack_from(buf, off)[0]
            else:
                off += struct.calcsize(_GGUF_SIZES[item]) * count
        else:
            fmt = _GGUF_SIZES[kind]
            value = struct.unpack_from(fmt, buf, off)[0]
            out[key] = str(value).lower() if isinstance(value, bool) else str(value)  # (as llama.cpp writes them)
            off += struct.calcsize(fmt)
        if off > end:
            return None
    return out


def trained_context(metadata: dict[str, str]) -> int | None:
    """The most tokens a GGUF model was trained to attend to: its ``<arch>.context_length`` (the GGUF
    specification's key, ``general.architecture`` naming the arch), times ``<arch>.rope.scaling.factor`` when the
    file sets one; None when the file does not say."""
    arch = metadata.get("general.architecture", "")
    try:
        length = int(metadata[f"{arch}.context_length"])
        factor = float(metadata.get(f"{arch}.rope.scaling.factor") or 1.0)
    except (KeyError, ValueError):
        return None
    return int(length * max(factor, 1.0)) if length > 0 else None
