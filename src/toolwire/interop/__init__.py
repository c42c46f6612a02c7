"""Interoperability with other tool ecosystems.

* :mod:`toolwire.interop.openai_tools`: a tool from an OpenAI tool dict or a JSON Schema plus the
  callable that implements it (core; needs only ``jsonschema``).
* :mod:`toolwire.interop.langchain`: LangChain tools and messages, both ways (extra ``langchain``).
* MCP lives in :mod:`toolwire.mcp` (extra ``mcp``).

Nothing here imports an optional SDK until it is used.
"""

from __future__ import annotations

from toolwire.interop.openai_tools import tool_from_schema

__all__ = ["tool_from_schema"]
