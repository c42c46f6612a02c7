"""The frozen description of a tool that providers receive (:class:`ToolSpec`); ``toolwire.tools`` exports it.

Also the type variables of :class:`~toolwire.tools.Tool`'s generic form, ``Tool[P, R]``: ``P`` the wrapped function's
parameters and ``R`` its return type, so ``tool(add)(1, 2)`` is checked as ``add(1, 2)`` (review 166 #7). A bare
``Tool`` is ``Tool[..., Any]`` (their defaults, PEP 696, which type checkers read from ``typing_extensions``; at run
time they are plain ``typing`` variables, and ``typing_extensions`` is not imported).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

__all__ = ["P", "R", "ToolSpec"]

if TYPE_CHECKING:
    from typing_extensions import ParamSpec, TypeVar

    P = ParamSpec("P", default=...)
    R = TypeVar("R", default=Any)
else:
    from typing import ParamSpec, TypeVar

    P = ParamSpec("P")
    R = TypeVar("R")


@dataclasses.dataclass(frozen=True, slots=True)
class ToolSpec:
    """The data a model is told about a tool (what providers lower into their own format).

    Attributes:
        name: matches ``^[a-zA-Z0-9_-]{1,64}$`` (the OpenAI and Anthropic rule); not checked when the spec is made,
            but ``bind_tools`` (and every other place that takes a tool) refuses a spec whose name breaks it with
            a ``SchemaError``, as it refuses such a tool dict.
        description: what the tool does and when to use it.
        parameters: JSON Schema of the arguments, an object schema with no ``$ref``.
    """

    name: str
    description: str
    parameters: dict[str, Any]
