"""The JSON Schema of a LangChain tool's arguments as :func:`toolwire.interop.langchain.from_langchain_tool` publishes
it: LangChain's own (``convert_to_openai_tool``), less any default JSON cannot carry (review 242 #4), as for a
function tool: a float ``inf``/``nan`` default (LangChain writes a bare ``Infinity``, which makes every request that
binds the tool fail before it is sent) and a non-finite ``Decimal`` one (written ``"NaN"``/``"Infinity"``, which the
tool's own check refuses) are left out, in a nested model's field too; the tool still gets the default when the
model leaves the argument out.

Private to :mod:`toolwire.interop.langchain`.
"""

from __future__ import annotations

from typing import Any

from toolwire._schema_params import has_non_finite_text
from toolwire.errors import SchemaError

__all__ = ["lc_parameters"]


def lc_parameters(lc_tool: Any) -> dict[str, Any]:
    """The JSON Schema of ``lc_tool``'s arguments, as the model is shown it.

    Args:
        lc_tool: a LangChain ``BaseTool``.

    Returns:
        LangChain's ``parameters`` (a new dict), less the defaults that hold a non-finite number (see the module
        docs).

    Raises:
        SchemaError: LangChain cannot give the schema, or it holds ``inf``/``nan`` elsewhere than in a default (a
            ``maximum``), which JSON cannot carry, as for a function tool.
    """
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from toolwire.schema import _drop_non_finite

    try:
        parameters = dict(convert_to_openai_tool(lc_tool)["function"].get("parameters") or {})
    except Exception as exc:
        raise SchemaError(f"Cannot read the schema of LangChain tool {lc_tool.name!r}: {exc}") from None
    if _has_text_default(parameters):  # a Decimal NaN/Infinity default is written as this text
        _drop_text_defaults(parameters, _own_schema(getattr(lc_tool, "tool_call_schema", None)))
    _drop_non_finite(parameters, str(lc_tool.name))  # (a float one: JSON cannot carry it)
    return parameters


def _has_text_default(node: Any) -> bool:
    """Whether a JSON Schema holds a ``default``/``examples`` with a text a non-finite ``Decimal`` is written as."""
    if isinstance(node, dict):
        return any((key in ("default", "examples") and has_non_finite_text(value)) or _has_text_default(value)
                   for key, value in node.items())
    if isinstance(node, list):
        return any(_has_text_default(item) for item in node)
    return False


def _own_schema(model: Any) -> Any:
    """The JSON Schema toolwire makes of LangChain's ``tool_call_schema`` (a pydantic model), its non-finite defaults
    left out, ``$ref`` inlined as LangChain inlines them; None for another schema, or one toolwire cannot make."""
    from pydantic import BaseModel

    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return None
    from langchain_core.utils.json_schema import dereference_refs

    from toolwire.schema import _pydantic_json_schema

    try:
        return dereference_refs(_pydantic_json_schema(model.model_json_schema, model.__name__))
    except Exception:  # (LangChain could write it: its schema is then kept as it is)
        return None


def _drop_text_defaults(node: Any, own: Any) -> None:
    """Remove, in place, each ``default``/``examples`` of LangChain's schema ``node`` that holds a non-finite
    ``Decimal``'s text where toolwire's own schema of the same model (``own``, walked alongside) has none: there it
    is such a ``Decimal``, not a string default that reads ``"NaN"``."""
    if isinstance(node, dict) and isinstance(own, dict):
        for key in [k for k in ("default", "examples") if k in node and has_non_finite_text(node[k]) and k not in own]:
            del node[key]
        for key, value in node.items():
            if key not in ("default", "examples", "enum", "const"):
                _drop_text_defaults(value, own.get(key))
    elif isinstance(node, list) and isinstance(own, list):
        for item, mine in zip(node, own, strict=False):
            _drop_text_defaults(item, mine)
