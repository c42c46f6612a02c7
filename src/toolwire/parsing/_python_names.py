"""Python-safe spellings of tool and parameter names for the pythonic call format.

A tool or parameter name that Python cannot read where it wants a name (``get-weather``, a parameter
``from`` or ``first-name``) is written in a Python-safe spelling (``get_weather``, ``from_``,
``first_name``); :class:`PythonNames` keeps the way back. The prompt's signatures, the call grammar, the
calls written into the history and the parser (:mod:`toolwire.parsing.pythonic`, which re-exports these
names) all use it.
"""

from __future__ import annotations

import functools
import keyword
import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from toolwire.parsing._calls import tool_name_set

__all__ = ["PythonNames", "names_of", "python_name", "signature_order"]

_ASCII_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _readable(name: str, *, ascii_only: bool) -> bool:
    """Whether Python reads ``name`` back unchanged where it wants a name (not a keyword, NFKC-stable)."""
    if ascii_only:
        ok = _ASCII_NAME.match(name) is not None
    else:
        ok = name.isidentifier() and unicodedata.normalize("NFKC", name) == name
    return ok and not keyword.iskeyword(name)


def _respell(name: str, *, ascii_only: bool) -> str:
    out = "".join(ch if (ch.isascii() and (ch.isalnum() or ch == "_"))
                  or (not ascii_only and not ch.isascii() and ("a" + ch).isidentifier()) else "_" for ch in name)
    out = out or "_"
    if not out[0].isidentifier():  # a leading digit
        out = "_" + out
    return out + "_" if keyword.iskeyword(out) else out


def python_name(name: str, *, tool: bool = False) -> str:
    """Return the Python-safe spelling of one tool name (``tool=True``) or parameter name, regardless of others.

    A name Python reads back unchanged is kept (a tool name may be dotted, ``brave_search.call``; a
    parameter name may be any NFKC-normal identifier). Otherwise each character that cannot be part of a
    name becomes ``_``, a leading digit gets ``_`` before it and a keyword ``_`` after it:
    ``get-weather`` -> ``get_weather``, ``first-name`` -> ``first_name``, ``from`` -> ``from_``,
    ``3d`` -> ``_3d``. Tool names keep ASCII characters only.

    Args:
        name: the tool or parameter name as the schema gives it.
        tool: True for a tool name, False for a parameter name.
    """
    if tool:
        if all(_readable(part, ascii_only=True) for part in name.split(".")):
            return name
        return _respell(name, ascii_only=True)
    if _readable(name, ascii_only=False):
        return name
    spelled = _respell(name, ascii_only=False)
    return spelled if _readable(spelled, ascii_only=False) else _respell(name, ascii_only=True)


def _spell_all(names: Iterable[str], *, tool: bool) -> dict[str, str]:
    """Spell every name of one namespace, uniquely: names Python reads keep their spelling; the others
    (in sorted order) get :func:`python_name`'s, with ``_`` appended while another name has it."""
    names = list(dict.fromkeys(names))
    out = {n: n for n in names if python_name(n, tool=tool) == n}
    used = set(out.values())
    for name in sorted(n for n in names if n not in out):
        spelled = python_name(name, tool=tool)
        while spelled in used:
            spelled += "_"
        used.add(spelled)
        out[name] = spelled
    return {n: out[n] for n in names}


def signature_order(schema: Any) -> list[str]:
    """The parameter names of an object schema in the order a Python signature lists them: the required
    ones first, then the optional ones, each in the schema's property order."""
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(props, Mapping):
        return []
    required = schema.get("required")
    wanted = {r for r in required if isinstance(r, str)} if isinstance(required, list | tuple) else set()
    names = [n for n in props if isinstance(n, str)]
    return sorted(names, key=lambda n: n not in wanted)


class PythonNames:
    """How the pythonic format spells a set of tools: Python-safe names, and the way back to the real ones.

    The prompt's signatures, the call grammar, the calls written into the history and the parser all use
    it, so that whatever the model is shown or allowed to write is read back as the real names. A name
    Python reads as written keeps its spelling; any other gets :func:`python_name`'s, with ``_`` added
    while another tool (or another parameter of the same tool) has that spelling: with tools
    ``get-weather`` and ``get_weather`` bound, ``get-weather`` is written ``get_weather_``. The spelling
    depends only on the set of names, not on their order.

    Args:
        tools: the bound tool names, or a mapping from each name to its parameters' JSON Schema (or to an
            object with such a ``parameters`` attribute, such as a ToolSpec or a Tool); parameter names
            are spelled only for the tools whose schema is known.
    """

    def __init__(self, tools: Collection[str] | Mapping[str, Any]) -> None:
        schemas: dict[str, Any] = ({name: getattr(value, "parameters", value) for name, value in tools.items()
                                    if isinstance(name, str)} if isinstance(tools, Mapping)
                                   else dict.fromkeys(sorted(tool_name_set(tools))))
        self._schemas = {name: schema for name, schema in schemas.items() if isinstance(schema, dict)}
        self._tools = _spell_all(schemas, tool=True)
        self._tools_back = {spelled: name for name, spelled in self._tools.items()}
        self._params: dict[str, dict[str, str]] = {}
        self._params_back: dict[str, dict[str, str]] = {}
        for name, schema in schemas.items():
            spelled = _spell_all(signature_order(schema), tool=False)
            self._params[name] = spelled
            self._params_back[name] = {s: p for p, s in spelled.items()}

    def tool(self, name: str) -> str:
        """Return the spelling of tool ``name`` (:func:`python_name`'s for a tool not in the set)."""
        return self._tools.get(name) or python_name(name, tool=True)

    def param(self, tool: str, name: str) -> str:
        """Return the spelling of parameter ``name`` of ``tool`` (:func:`python_name`'s for one not in its schema)."""
        return self._params.get(tool, {}).get(name) or python_name(name)

    def params(self, tool: str) -> dict[str, str]:
        """Return the parameters of ``tool`` (real name -> spelling) in signature order (:func:`signature_order`)."""
        return dict(self._params.get(tool, {}))

    def schema(self, tool: str) -> dict[str, Any] | None:
        """Return the parameters' JSON Schema of ``tool`` as given (None when only its name is known)."""
        return self._schemas.get(tool)

    def real_tool(self, written: str) -> str:
        """Return the real name of the tool written ``written`` (``written`` itself when no tool is spelled so)."""
        return self._tools_back.get(written, written)

    def real_param(self, tool: str, written: str) -> str:
        """Return the real name of the parameter of ``tool`` written ``written`` (else ``written`` itself)."""
        return self._params_back.get(tool, {}).get(written, written)

    @property
    def spelled(self) -> frozenset[str]:
        """The spellings of all the tools."""
        return frozenset(self._tools.values())

    @functools.cached_property
    def respelled(self) -> dict[str, str]:
        """The tools whose names Python cannot read as written, each with its spelling (``{"get-weather":
        "get_weather"}``)."""
        return {name: spelled for name, spelled in self._tools.items() if spelled != name}


@functools.lru_cache(maxsize=64)
def names_of(tool_names: frozenset[str]) -> PythonNames:
    """The :class:`PythonNames` of a set of tool names (no schemas: only tool names are spelled); cached."""
    return PythonNames(tool_names)
