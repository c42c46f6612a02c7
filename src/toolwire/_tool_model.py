"""A tool's arguments as a pydantic model class: LangChain's ``tool.tool_call_schema`` and ``tool.get_input_schema()``.

LangChain's ``BaseTool.tool_call_schema`` (``langchain_core/tools/base.py``) is the pydantic model class of the
arguments a model sends (injected arguments left out), and ``get_input_schema(config)`` the model of everything the
tool takes (``args_schema`` itself when one was given, else a model made from the function's signature). Ported code
reads
``tool.tool_call_schema.model_json_schema()``, ``.model_fields`` or calls ``.model_validate(args)``.

toolwire validates a function's arguments without a model class (a ``TypedDict`` core schema, built once at
decoration), so the class is made here on first use, never at decoration or on invoke, and kept on the tool:

* a tool given ``args_schema=Model`` (a pydantic v2 class) whose fields are the tool's parameters gives a subclass
  of ``Model`` named after the tool, with the tool's description as its docstring, as LangChain's
  ``tool_call_schema`` is (``_create_subset_model(self.name, ..., fn_description=self.description)``): its
  ``model_json_schema()`` has the tool's ``title`` and ``description``, so ``convert_to_openai_tool`` or
  ``with_structured_output`` of it name the tool, and ``model_validate`` runs ``Model``'s own fields and validators
  (LangChain copies the fields into a new model, which drops the validators; a subclass keeps them).
  ``get_input_schema()`` gives ``Model`` itself, as LangChain's does (:meth:`ToolArguments.get_input_schema`);
* every other tool (a signature, ``Tool.from_schema``, an MCP or LangChain tool) gives a model made from its JSON
  Schema: one field per property (named as the property; a name pydantic cannot take as a field, ``_id`` or
  ``model_config``, is the field's alias), whose ``model_json_schema()`` is the tool's own ``parameters`` with
  LangChain's ``title`` (the tool's name) and ``description`` (the tool's) on top, and whose ``model_validate(args)``
  checks ``args`` exactly as ``tool.invoke(args)`` does (a failure is pydantic's ``ValidationError`` carrying
  toolwire's message). The fields are typed ``Any``: the tool's own check, run first, gives them their values.
"""

from __future__ import annotations

import copy
import keyword
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from toolwire._warn_site import quiet_warnings

if TYPE_CHECKING:
    from toolwire.tools import Tool

__all__ = ["input_model"]

_RESERVED = frozenset(dir(BaseModel))  # BaseModel's own attributes: a field may not shadow them


def input_model(tool: Tool) -> type[BaseModel]:
    """The pydantic model class of ``tool``'s arguments, made on the first call and kept on the tool (made again
    when its name, description or parameters were replaced since).

    Args:
        tool: any toolwire :class:`~toolwire.tools.Tool`.

    Returns:
        A pydantic v2 ``BaseModel`` subclass named after the tool: a subclass of the tool's ``args_schema`` when its
        fields are the tool's parameters, else a model made from ``tool.parameters`` (see the module docstring).

    Raises:
        Nothing of its own: a tool always has a JSON Schema, and a model is made of any JSON object schema.
    """
    key = (id(tool), tool.name, tool.description, id(tool.parameters))  # (a copy, a bound method's tool: its own)
    kept = getattr(tool, "_input_model", None)
    if kept is not None and kept[0] == key:
        return kept[1]  # type: ignore[no-any-return]
    given = tool.args_schema
    props = tool.parameters.get("properties") or {}
    if (isinstance(given, type) and issubclass(given, BaseModel)
            and {f.alias or n for n, f in given.model_fields.items()} == set(props)):
        model = _named_model(tool, given)
    else:
        model = _schema_model(tool)
    tool._input_model = (key, model)  # type: ignore[attr-defined]
    return model


def _named_model(tool: Tool, given: type[BaseModel]) -> type[BaseModel]:
    """A subclass of ``given`` (the tool's ``args_schema``) whose name and JSON Schema ``title`` are the tool's name
    and whose docstring (JSON Schema ``description``) is the tool's description, as LangChain's
    ``BaseTool.tool_call_schema`` (``_create_subset_model_v2``: ``create_model(name, ...)`` then
    ``__doc__ = fn_description``); a ``title`` in ``given``'s ``model_config`` gives way to the tool's name, as there
    (LangChain's new model does not inherit the config)."""
    namespace: dict[str, Any] = {"__doc__": tool.description or given.__doc__ or "", "__module__": given.__module__,
                                 "model_config": ConfigDict(**{**given.model_config, "title": tool.name})}
    with quiet_warnings():  # (a field shadowing a parent attribute: warned when ``given`` was made)
        return type(given)(tool.name, (given,), namespace)  # type: ignore[no-any-return]


def _field_name(name: str, taken: set[str]) -> str:
    """``name`` when pydantic takes it as a field name, else a free ``field_N`` (the property becomes its alias)."""
    if (name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")
            and name not in _RESERVED):
        return name
    index = 0
    while f"field_{index}" in taken:
        index += 1
    return f"field_{index}"


def _schema_model(tool: Tool) -> type[BaseModel]:
    """A model whose JSON Schema is ``tool.parameters`` and whose validation is the tool's own (module docstring)."""
    parameters = tool.parameters
    props: Mapping[str, Any] = parameters.get("properties") or {}
    required = set(parameters.get("required") or ())
    names = set(props)
    fields: dict[str, Any] = {}
    for prop, schema in props.items():
        name = _field_name(prop, names | set(fields))
        options: dict[str, Any] = {}
        if name != prop:
            options["alias"] = prop
        if isinstance(schema, Mapping) and isinstance(schema.get("description"), str):
            options["description"] = schema["description"]
        default = ... if prop in required else copy.deepcopy(schema.get("default")) if isinstance(schema, Mapping) \
            else None
        fields[name] = (Any, Field(default, **options))
    extra = "allow" if _allows_more(parameters) else "ignore"  # (keys the tool's check let through are kept)
    shown = {"title": tool.name, "description": tool.description}

    def rewrite(schema: dict[str, Any]) -> None:  # pydantic's JSON Schema of the Any fields -> the tool's own
        schema.clear()
        schema.update({**shown, **copy.deepcopy(parameters)})

    def check(cls: type[BaseModel], data: Any) -> Any:
        if isinstance(data, BaseModel):  # (an instance of this model: already checked)
            return data
        from toolwire.errors import ToolValidationError

        try:
            return tool.validate_args(data)
        except ToolValidationError as exc:
            raise ValueError(str(exc)) from None  # pydantic's ValidationError, carrying toolwire's message

    config = ConfigDict(extra=extra, populate_by_name=True, protected_namespaces=(),  # type: ignore[typeddict-item]
                        json_schema_extra=rewrite, arbitrary_types_allowed=True)
    with quiet_warnings():  # (a field named like a BaseModel attribute's alias: no warning to show)
        model: type[BaseModel] = create_model(  # type: ignore[call-overload]
            tool.name, __config__=config, __doc__=tool.description, __module__=__name__,
            __validators__={"_toolwire_check": model_validator(mode="before")(classmethod(check))}, **fields)
    return model


def _allows_more(parameters: Mapping[str, Any]) -> bool:
    """Whether the JSON Schema lets a call have keys besides its ``properties`` (JSON Schema's default: it does,
    unless ``additionalProperties`` or ``unevaluatedProperties`` is false)."""
    return parameters.get("additionalProperties", True) is not False and \
        parameters.get("unevaluatedProperties", True) is not False
