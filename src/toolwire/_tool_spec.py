"""The frozen description of a tool that providers receive (:class:`ToolSpec`); ``toolwire.tools`` exports it."""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["ToolSpec"]


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
