"""The ``tool_choice`` values a user may give :meth:`~toolwire.models.base.BaseChatModel.bind_tools`, read as the
neutral form a :class:`~toolwire.models.base.ChatRequest` carries (moved from :mod:`toolwire.models.base`, which
re-exports :func:`_check_tool_choice`, when it neared 600 lines)."""

from __future__ import annotations

import dataclasses
import difflib
from typing import TYPE_CHECKING, Any

from toolwire.errors import UserError

if TYPE_CHECKING:
    from toolwire.tools import ToolSpec

__all__ = ["_check_tool_choice", "forceable"]


_CHOICE_TYPES = {"auto": "auto", "none": "none", "any": "required", "required": "required"}
"""``tool_choice`` dict ``type`` values meaning a mode: Anthropic's ``{"type": "auto" | "any" | "none"}``
(Messages API reference, ``tool_choice``) and the same words toolwire takes as strings."""


def _check_tool_choice(choice: Any, names: list[str]) -> str | None:
    """The neutral ``tool_choice`` (``"auto"``, ``"none"``, ``"required"`` or a bound tool name) of what a
    user may pass: those strings, ``"any"``, ``True`` / ``False``, Anthropic's dicts ``{"type": "auto" |
    "any" | "none"}`` and ``{"type": "tool", "name"}``, OpenAI's ``{"type": "function", "function":
    {"name"}}`` (Chat Completions) and ``{"type": "function", "name"}`` (Responses).

    Raises:
        UserError: anything else, a name that is not bound, or a dict naming a bound tool spelled as a mode
            (``"auto"``, ``"none"``, ``"required"``, ``"any"``), which the neutral form cannot tell from the
            mode; the message shows the value given.
    """
    if choice is None:
        return None
    if choice is True or choice == "any":
        return "required"
    if choice is False:
        return "none"
    if isinstance(choice, str) and choice in ("auto", "none", "required"):
        return choice
    given = choice
    if isinstance(choice, dict):
        kind = choice.get("type")
        if isinstance(kind, str) and kind in _CHOICE_TYPES and "name" not in choice:
            return _CHOICE_TYPES[kind]
        function = choice.get("function")
        choice = (function.get("name") if isinstance(function, dict) else None) or choice.get("name")
        if isinstance(choice, str) and choice in _CHOICE_TYPES and choice in names:
            raise UserError(f"tool_choice {given!r} forces the tool named {choice!r}, a name that also means the "
                            f"tool_choice mode {choice!r}: rename the tool (name='{choice}_tool', say) to force it.")
    if isinstance(choice, str) and choice in names:
        return choice
    bound = ", ".join(names) or "no tools are bound"
    if isinstance(given, dict) and isinstance(choice, str):  # a well-formed dict naming a tool that is not bound
        raise UserError(f"tool_choice {given!r} names the tool {choice!r}, which is not bound ({bound}): name one "
                        "of those, or bind that tool.")
    options = {option.lower(): option for option in ("auto", "none", "required", "any", *names)}
    if isinstance(choice, str) and (close := difflib.get_close_matches(choice.lower(), options, n=1, cutoff=0.75)):
        raise UserError(f"tool_choice {given!r} is not 'auto', 'none', 'required' or a bound tool name ({bound}): "
                        f"did you mean {options[close[0]]!r}?")
    raise UserError(
        f"tool_choice {given!r} is not 'auto', 'none', 'required', a bound tool name "
        f"({bound}), or a dict such as {{'type': 'any'}} or "
        "{'type': 'tool', 'name': ...}."
    )


_MODE_WORDS = frozenset(("auto", "none", "required", "any"))
"""The ``tool_choice`` strings :func:`_check_tool_choice` reads as a mode, never as a tool's name."""


def forceable(spec: ToolSpec) -> ToolSpec:
    """``spec``, the tool :meth:`~toolwire.models.base.BaseChatModel.with_structured_output` forces, renamed
    ``"<name>_output"`` when its name is also a ``tool_choice`` mode (``"none"``, ``"auto"``, ``"required"``,
    ``"any"``: a schema titled so, a pydantic class ``none``), else unchanged (the same object).

    The neutral ``tool_choice`` every provider and the embedded model lower is a string, a mode or a tool's name, so
    the name ``"none"`` would go out as the mode (tools off) and the call could never come; ``bind_tools`` refuses to
    force such a tool for that reason, and ``with_structured_output``, which takes no tool name, names its tool
    itself (review 268 #3). The value read from the call is the same; the model sees the new name."""
    if spec.name not in _MODE_WORDS:
        return spec
    return dataclasses.replace(spec, name=f"{spec.name}_output")
