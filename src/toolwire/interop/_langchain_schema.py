"""The JSON Schema of a LangChain tool's arguments as :func:`toolwire.interop.langchain.from_langchain_tool` publishes
it: LangChain's own (``convert_to_openai_tool``), less any default JSON cannot carry (review 242 #4), as for a
function tool: a float ``inf``/``nan`` default (LangChain writes a bare ``Infinity``, which makes every request that
binds the tool fail before it is sent) and a non-finite ``Decimal`` one (written ``"NaN"``/``"Infinity"``, which the
tool's own check refuses) are left out, in a nested model's field too; the tool still gets the default when the
model leaves the argument out.

A field read by an alias (``alias=``, ``validation_alias=AliasPath("vee")``, an ``AliasChoices`` with a plain key) is
published under that key, the one LangChain's own check and toolwire's read (review 296 #2: LangChain writes the
field's name, which both refuse): toolwire's own schema of ``tool_call_schema`` is walked beside LangChain's and gives
the keys. :func:`lc_parameters` does so in nested objects; :func:`lc_schema` at the top level too (from the tool's
``args_schema``: LangChain's ``tool_call_schema`` copy drops a top-level alias), with the names of the fields shown.
A field read only through a multi-step path, which toolwire's schema refuses, leaves LangChain's schema as it is (a
LangChain tool may not be the user's to change, so it is not refused).

Private to :mod:`toolwire.interop.langchain`.
"""

from __future__ import annotations

from typing import Any

from toolwire._schema_params import has_non_finite_text
from toolwire.errors import SchemaError

__all__ = ["lc_parameters", "lc_schema"]


def lc_schema(lc_tool: Any) -> tuple[dict[str, Any], set[str]]:
    """The JSON Schema of ``lc_tool``'s arguments, as the model is shown it, and the names of its fields shown.

    Args:
        lc_tool: a LangChain ``BaseTool``.

    Returns:
        ``(parameters, visible)``: :func:`lc_parameters`' schema with the top-level keys of aliased fields the keys
        the tool's ``args_schema`` reads too (``town`` for ``city: str = Field(alias="town")``; LangChain's
        ``tool_call_schema`` copy drops a top-level alias); the names of the ``args_schema`` fields it shows
        (``city``), which the injected arguments are told apart from, and each key of ``parameters`` no field has
        (the ``__arg1`` of LangChain's single-input ``Tool``).

    Raises:
        SchemaError: as :func:`lc_parameters`.
    """
    parameters = lc_parameters(lc_tool)
    keys = field_keys(getattr(lc_tool, "args_schema", None))
    props = parameters.get("properties")
    if isinstance(props, dict) and any(props.get(key) is None and name in props for name, key in keys.items()):
        renamed = {name: key for name, key in keys.items() if name in props and key not in props}
        parameters["properties"] = props = {renamed.get(key, key): value for key, value in props.items()}
        if isinstance(parameters.get("required"), list):
            parameters["required"] = [renamed.get(key, key) for key in parameters["required"]]
    shown = set(props or {})
    return parameters, {name for name, key in keys.items() if key in shown} | (shown - set(keys.values()))


def field_keys(model: Any) -> dict[str, str]:
    """``{field name: the key validation reads it by}`` of the pydantic v2 model ``model`` (its alias, a one-step
    path's key, an ``AliasChoices``' first plain key, else its name); ``{}`` for any other schema."""
    from pydantic import BaseModel

    from toolwire._schema_shapes import _validation_key

    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return {}
    config = getattr(model, "model_config", None) or {}
    by_alias = config.get("validate_by_alias") is not False
    return {name: _validation_key(info, name) if by_alias else name
            for name, info in (getattr(model, "model_fields", None) or {}).items()}


def lc_parameters(lc_tool: Any) -> dict[str, Any]:
    """The JSON Schema of ``lc_tool``'s arguments, as the model is shown it.

    Args:
        lc_tool: a LangChain ``BaseTool``.

    Returns:
        LangChain's ``parameters`` (a new dict), less the defaults that hold a non-finite number, a nested aliased
        field under the key validation reads (see the module docs).

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
    model = getattr(lc_tool, "tool_call_schema", None)
    own = _own_schema(model) if _aliased(model) or _has_text_default(parameters) else None
    if own is not None and _aliased(model):  # (the keys validation reads: review 296 #2)
        _aliased_keys(parameters, own, False)
    if own is not None and _has_text_default(parameters):  # a Decimal NaN/Infinity default is written as this text
        _drop_text_defaults(parameters, own)
    _drop_non_finite(parameters, str(lc_tool.name))  # (a float one: JSON cannot carry it)
    return parameters


def _aliased(model: Any) -> bool:
    """Whether the pydantic model ``model`` (its core schema: nested models too) holds a field read by an alias."""
    from pydantic import BaseModel

    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return False
    try:
        return "alias" in repr(model.__pydantic_core_schema__)  # (once per tool, when it is converted)
    except Exception:
        return False


def _aliased_keys(node: Any, own: Any, top: bool) -> None:
    """Rename, in place, the ``properties`` (and ``required`` entries) of LangChain's schema ``node`` to the keys of
    toolwire's own schema of the same model (``own``, walked alongside, listing the same fields in the same order),
    below the top level unless ``top``."""
    if isinstance(node, list) and isinstance(own, list) and len(node) == len(own):
        for item, mine in zip(node, own, strict=True):
            _aliased_keys(item, mine, True)
        return
    if not (isinstance(node, dict) and isinstance(own, dict)):
        return
    props, mine = node.get("properties"), own.get("properties")
    if isinstance(props, dict) and isinstance(mine, dict) and len(props) == len(mine):
        if top and list(props) != list(mine):
            renamed = dict(zip(props, mine, strict=True))
            node["properties"] = props = {renamed[key]: value for key, value in props.items()}
            if isinstance(node.get("required"), list):
                node["required"] = [renamed.get(key, key) for key in node["required"]]
        for (_, value), theirs in zip(props.items(), mine.values(), strict=True):
            _aliased_keys(value, theirs, True)
    for key, value in node.items():
        if key not in ("properties", "default", "examples", "enum", "const", "required"):
            _aliased_keys(value, own.get(key), True)


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
