"""Gemini codec: tools, messages, requests and replies for the Gemini API (``generateContent``).

Pure functions, no I/O; :class:`toolwire.models.google.ChatGoogleGenAI` does the calls through the
google-genai SDK, whose Python field names (snake_case) the lowered dicts use; replies are read in either
that form or the REST form (camelCase). Formats, from the Gemini API reference ("Generating content",
"Caching"/"Function calling" guides, ``Schema``, ``FunctionDeclaration``, ``ToolConfig``):

* tools: ``[{"function_declarations": [{"name", "description", "parameters"}]}]`` where ``parameters`` is
  the OpenAPI subset ``Schema``: ``type`` (``STRING``, ``INTEGER``, ``NUMBER``, ``BOOLEAN``, ``ARRAY``,
  ``OBJECT``), ``description``, ``nullable``, ``enum`` (strings), ``format``, ``items``, ``properties``,
  ``required``, ``any_of``, ``min_items``, ``max_items``. No ``$defs``/``$ref`` (inlined here), no
  ``default``, ``title``, ``additionalProperties`` or ``$schema``; ``anyOf [X, null]`` becomes nullable X;
  a tool without parameters sends no ``parameters`` (an ``OBJECT`` needs non-empty ``properties``: the API
  answers 400 "should be non-empty for OBJECT type"), and a nested object without properties (``dict[str,
  X]``, ``dict``) is sent as a ``STRING`` holding its JSON text, which toolwire decodes before validating.
  Other keywords (``minimum``, ``pattern``, ``minLength``...) are dropped with a debug log; toolwire still
  validates them before running the tool.
* ``tool_config.function_calling_config``: ``{"mode": "AUTO" | "ANY" | "NONE", "allowed_function_names"}``.
  Gemini has no switch for parallel calls: with ``parallel_tool_calls=False`` toolwire keeps the first
  call of a reply and logs the others it dropped.
* ``contents``: ``{"role": "user" | "model", "parts": [...]}``; parts ``text``, ``inline_data``,
  ``function_call`` ``{"name", "args", "id"?}``, ``function_response`` ``{"name", "response", "id"?}``;
  ``thought`` / ``thought_signature`` parts are kept on the AIMessage
  (``provider_data["gemini"]["parts"]``) and sent back unchanged. The results of one model turn go in one
  user turn of ``function_response`` parts, in the order of the calls.
"""

from __future__ import annotations

import base64
import copy
import re
from collections.abc import Collection
from typing import Any

from toolwire.errors import SchemaError
from toolwire.messages import AIMessage, AIMessageChunk, BaseMessage, SystemMessage
from toolwire.models.base import ChatRequest, to_tool_spec
from toolwire.models.lowering._common import (
    COMBINATORS,
    arguments_object,
    assistant_calls,
    call_names,
    content_parts,
    group_messages,
    log,
    merge_object_union,
    merge_options,
    native_call,
    object_branches,
    split_calls,
    tool_result_text,
    usage,
)
from toolwire.models.lowering._stream import ToolCallMerger

__all__ = [
    "StreamState",
    "convert_to_gemini_tool",
    "gemini_schema",
    "lower_messages",
    "lower_request",
    "parse_response",
]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$")
_TYPES = {"string": "STRING", "integer": "INTEGER", "number": "NUMBER", "boolean": "BOOLEAN",
          "array": "ARRAY", "object": "OBJECT"}
_FORMATS = {"STRING": {"enum", "date-time"}, "INTEGER": {"int32", "int64"}, "NUMBER": {"float", "double"}}
_KEEP = {"type", "description", "enum", "format", "items", "properties", "required", "anyOf", "oneOf",
         "minItems", "maxItems", "nullable"}
_SILENT = {"title", "$schema", "$defs", "definitions", "$ref"}  # structure, not constraints


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and (node.get("type") == "null" or node.get("const", 0) is None)


class _Lowering:
    def __init__(self, name: str, root: dict[str, Any]) -> None:
        self.name = name
        self.root = root
        self.dropped: list[str] = []
        self.json_hints: dict[str, str] = {}  # path -> what an object sent as JSON text says (see json_text)

    def drop(self, path: str, key: str) -> None:
        self.dropped.append(f"{key} at {path or 'the top'}")

    def resolve(self, node: Any, refs: tuple[str, ...]) -> tuple[Any, tuple[str, ...]]:
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in refs:
                raise SchemaError(f"Tool {self.name!r} has a recursive schema ({ref}), which Gemini cannot express: "
                                  "bound the nesting with explicit models.")
            target: Any = self.root
            for part in ref.lstrip("#/").split("/") if ref.startswith("#/") else ():
                target = target.get(part) if isinstance(target, dict) else None
            if not isinstance(target, dict):
                raise SchemaError(f"Tool {self.name!r}: the schema reference {ref!r} cannot be resolved.")
            extra = {k: v for k, v in node.items() if k != "$ref"}
            node, refs = {**target, **extra}, (*refs, ref)
        return node, refs

    def schema(self, node: Any, path: str, refs: tuple[str, ...] = ()) -> dict[str, Any]:
        node, refs = self.resolve(node, refs)
        if not isinstance(node, dict):
            return {}
        for key in node:
            if key not in _KEEP and key not in _SILENT and key not in ("allOf", "const"):
                self.drop(path, key)
        if self.folds(node, refs):
            return self.fold(node, path, refs)
        union = node.get("anyOf") or node.get("oneOf")
        if isinstance(union, list):
            return self.union(node, union, path, refs)
        all_of = node.get("allOf")
        if isinstance(all_of, list) and all_of:
            merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
            for sub in all_of:
                sub, _ = self.resolve(sub, refs)
                for k, v in (sub or {}).items():
                    if k == "properties":
                        merged["properties"] = {**merged.get("properties", {}), **v}
                    elif k == "required":
                        merged["required"] = [*merged.get("required", []), *v]
                    else:
                        merged.setdefault(k, v)
            return self.schema(merged, path, refs)
        return self.typed(node, path, refs)

    def folds(self, node: dict[str, Any], refs: tuple[str, ...]) -> bool:
        """Whether ``node`` is an object whose ``anyOf``/``oneOf`` constrains its own properties (``properties``
        next to the union, or an object of branches that only say what is ``required``): Gemini's ``Schema``
        cannot say that, and an ``any_of`` of them would lose the properties."""
        if not any(isinstance(node.get(k), list) for k in ("anyOf", "oneOf")):
            return False
        if isinstance(node.get("properties"), dict) and node["properties"]:
            return True
        if node.get("type") != "object":
            return False
        branches = [self.resolve(b, refs)[0] for k in ("anyOf", "oneOf") for b in node.get(k) or ()]
        return all(isinstance(b, dict) and "type" not in b and "properties" not in b for b in branches)

    def fold(self, node: dict[str, Any], path: str, refs: tuple[str, ...]) -> dict[str, Any]:
        """The object with its union folded in (see :func:`~toolwire.models.lowering._common.merge_object_union`):
        its properties kept, the alternatives in its description, the ``anyOf``/``oneOf`` named in ``dropped``."""
        combos = []
        for key in COMBINATORS:
            if key in node:
                if key != "allOf":  # (allOf merges exactly)
                    self.drop(path, key)
                raw = node[key] if isinstance(node[key], list) else []
                combos.append((key, object_branches([self.resolve(b, refs)[0] for b in raw], True) or []))
        return self.typed(merge_object_union(node, combos), path, refs)

    def union(self, node: dict[str, Any], branches: list[Any], path: str, refs: tuple[str, ...]) -> dict[str, Any]:
        resolved = [self.resolve(b, refs)[0] for b in branches]
        kept = [b for b in resolved if not _is_null(b)]
        if len(kept) == 1:
            out = self.schema(kept[0], path, refs)
        else:
            out = {"any_of": [self.schema(b, f"{path}|{i}", refs) for i, b in enumerate(kept)]}
        if len(kept) < len(resolved):
            out["nullable"] = True
        if node.get("description"):
            hint = self.json_hints.get(path)
            out["description"] = f"{node['description']} ({hint})" if hint else node["description"]
        return out

    def typed(self, node: dict[str, Any], path: str, refs: tuple[str, ...]) -> dict[str, Any]:
        kind = node.get("type")
        nullable = bool(node.get("nullable"))
        if isinstance(kind, list):
            nullable = nullable or "null" in kind
            kinds = [k for k in kind if k != "null"]
            if len(kinds) > 1:
                out = {"any_of": [self.typed({**node, "type": k}, path, refs) for k in kinds]}
                return {**out, "nullable": True} if nullable else out
            kind = kinds[0] if kinds else None
        out: dict[str, Any] = {}
        enum = node.get("enum")
        if "const" in node:
            enum = [node["const"]]
        if kind is None and isinstance(enum, list) and enum and all(isinstance(e, str) for e in enum):
            kind = "string"
        if kind == "null":
            return {"nullable": True}
        gtype = _TYPES.get(kind) if isinstance(kind, str) else None
        if gtype:
            out["type"] = gtype
        if node.get("description"):
            out["description"] = node["description"]
        if nullable:
            out["nullable"] = True
        if isinstance(enum, list):
            if gtype == "STRING" and all(isinstance(e, str) for e in enum):
                out["enum"] = list(enum)
            else:
                self.drop(path, "enum" if "enum" in node else "const")
        fmt = node.get("format")
        if isinstance(fmt, str):
            if fmt in _FORMATS.get(gtype or "", ()):
                out["format"] = fmt
            else:
                self.drop(path, f"format {fmt!r}")
        if gtype == "ARRAY":
            out["items"] = self.schema(node.get("items", {}), f"{path}[]", refs)
            for key, field in (("minItems", "min_items"), ("maxItems", "max_items")):
                if isinstance(node.get(key), int):
                    out[field] = node[key]
        if gtype == "OBJECT":
            props = node.get("properties") or {}
            if props:
                out["properties"] = {k: self.schema(v, f"{path}.{k}".lstrip("."), refs) for k, v in props.items()}
                required = [r for r in node.get("required") or () if r in props]
                if required:
                    out["required"] = required
            elif path:  # (the top level: gemini_schema sends no parameters)
                return self.json_text(node, out, path)
        return out

    def json_text(self, node: dict[str, Any], out: dict[str, Any], path: str) -> dict[str, Any]:
        """A nested object with no declared properties (``dict[str, X]``, ``dict``, a free-form object) as a
        ``STRING`` holding its JSON text: Gemini refuses an ``OBJECT`` without ``properties`` ("should be
        non-empty for OBJECT type") and its ``Schema`` has no ``additionalProperties``. Before validation,
        toolwire decodes a JSON string sent where the schema wants an object
        (:func:`toolwire.parsing.arguments.decode_json_strings`). Named in ``dropped`` as ``type object``."""
        self.drop(path, "type object")
        values = node.get("additionalProperties")
        kind = values.get("type") if isinstance(values, dict) else None
        hint = "A JSON object written as a string, e.g. '{\"key\": ...}'"
        hint += f", each value of type {kind}." if isinstance(kind, str) else "."
        self.json_hints[path] = hint
        text = {"type": "STRING", "description": f"{out['description']} ({hint})" if out.get("description") else hint}
        return {**text, "nullable": True} if out.get("nullable") else text


def gemini_schema(parameters: dict[str, Any], name: str = "tool") -> tuple[dict[str, Any] | None, list[str]]:
    """Lower a JSON Schema to Gemini's ``Schema`` subset.

    Args:
        parameters: the tool's argument schema (JSON Schema, possibly with ``$defs``/``$ref``).
        name: the tool name, for messages.

    Returns:
        ``(schema or None, dropped)``: ``None`` when the tool takes no parameters (or its object declares
        no properties); ``dropped`` lists what could not be expressed, as ``"<keyword> at <path>"``
        (``"type object at <path>"``: a nested object without properties, sent as JSON text in a
        ``STRING``).

    Raises:
        SchemaError: the schema is recursive or has a reference that cannot be resolved.
    """
    lowering = _Lowering(name, parameters)
    out = lowering.schema(parameters, "")
    if out.get("type") == "OBJECT" and not out.get("properties"):
        return None, lowering.dropped
    return out, lowering.dropped


def convert_to_gemini_tool(tool: Any) -> dict[str, Any]:
    """Return the Gemini ``FunctionDeclaration`` of a tool, function, pydantic model or tool dict.

    Returns:
        ``{"name", "description", "parameters"?}`` (no ``parameters`` for a tool without arguments).
        What the subset cannot say is dropped and named in a debug log of ``toolwire.lowering``.

    Raises:
        SchemaError: the name is not valid for Gemini (a letter or ``_`` first, then letters, digits,
            ``_ . : -``, 64 at most), or the schema is recursive.
    """
    spec = to_tool_spec(tool)
    if not _NAME.match(spec.name):
        raise SchemaError(f"Tool name {spec.name!r} is not valid for Gemini: start with a letter or '_' "
                          "and use at most 64 letters, digits, '_', '.', ':' or '-'.")
    schema, dropped = gemini_schema(spec.parameters, spec.name)
    if dropped:
        log.debug("gemini: tool %s: dropped %s (toolwire still validates them before running the tool)",
                  spec.name, ", ".join(dropped))
    out: dict[str, Any] = {"name": spec.name, "description": spec.description}
    if schema is not None:
        out["parameters"] = schema
    return out


# --------------------------------------------------------------------------- messages

_PART_KEYS = {"functionCall": "function_call", "functionResponse": "function_response", "inlineData": "inline_data",
              "fileData": "file_data", "thoughtSignature": "thought_signature", "mimeType": "mime_type",
              "fileUri": "file_uri", "executableCode": "executable_code",
              "codeExecutionResult": "code_execution_result"}


def _snake(part: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in part.items():
        key = _PART_KEYS.get(key, key)
        if key in ("inline_data", "file_data") and isinstance(value, dict):
            value = {_PART_KEYS.get(k, k): v for k, v in value.items()}
        out[key] = value
    return out


def _sdk_part(part: dict[str, Any]) -> dict[str, Any]:
    part = copy.deepcopy(part)
    if isinstance(part.get("thought_signature"), str):
        part["thought_signature"] = base64.b64decode(part["thought_signature"])
    return part


def _user_parts(content: str | list[Any]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in content_parts(content):
        if block.get("type") == "text":
            parts.append({"text": block["text"]})
        elif block.get("type") == "image" and "data" in block:
            parts.append({"inline_data": {"mime_type": block["mime_type"], "data": base64.b64decode(block["data"])}})
        elif block.get("type") == "image" and "url" in block:
            parts.append({"file_data": {"file_uri": block["url"], "mime_type": block.get("mime_type", "image/png")}})
        else:
            parts.append(_snake(block))
    return parts


def _same_call(call: Any, kept: dict[str, Any]) -> bool:
    if call.get("name") != kept.get("name"):
        return False
    return call.get("type") == "invalid_tool_call" or call.get("args") == (kept.get("args") or {})


def _model_parts(message: AIMessage) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The parts of a model turn, and the Gemini ids of its calls (by toolwire call id)."""
    calls = assistant_calls(message)
    kept = ((message.provider_data or {}).get("gemini") or {}).get("parts") or []
    kept_calls = [p["function_call"] for p in kept if "function_call" in p]
    if kept and len(kept_calls) == len(calls) and all(map(_same_call, calls, kept_calls)):
        ids = {str(c["id"]): str(k["id"]) for c, k in zip(calls, kept_calls, strict=True) if k.get("id")}
        return [_sdk_part(p) for p in kept], ids
    parts: list[dict[str, Any]] = [{"text": message.text}] if message.text.strip() else []
    parts.extend({"function_call": {"name": c.get("name") or "unknown_tool", "args": arguments_object(c)}}
                 for c in calls)
    return parts, {}


def lower_messages(messages: list[BaseMessage]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Lower a conversation to Gemini's ``(system_instruction, contents)``.

    System messages become the ``system_instruction``; the results of one model turn become one ``user``
    content of ``function_response`` parts (``{"result": text}``, or ``{"error": text}`` for a failed call),
    in the order of the calls (text of list content joined, case E4); a kept model turn is sent back with
    its parts (thought signatures) unchanged; empty text is dropped.

    Returns:
        ``(system_instruction or None, [{"role": "user" | "model", "parts": [...]}])``.
    """
    system: list[str] = []
    contents: list[dict[str, Any]] = []
    names = call_names(messages)
    gemini_ids: dict[str, str] = {}
    for item in group_messages(messages):
        if isinstance(item, list):
            parts = []
            for m in item:
                key = "error" if m.status == "error" else "result"
                response: dict[str, Any] = {"name": m.name or names.get(m.tool_call_id) or "unknown_tool",
                                            "response": {key: tool_result_text(m)}}
                if m.tool_call_id in gemini_ids:
                    response["id"] = gemini_ids[m.tool_call_id]
                parts.append({"function_response": response})
            contents.append({"role": "user", "parts": parts})
        elif isinstance(item, SystemMessage):
            if item.text.strip():
                system.append(item.text)
        elif isinstance(item, AIMessage):
            parts, ids = _model_parts(item)
            gemini_ids.update(ids)
            if parts:
                contents.append({"role": "model", "parts": parts})
        else:
            parts = _user_parts(item.content)
            if not parts:
                continue
            last = contents[-1] if contents else None
            if last and last["role"] == "user" and not any("function_response" in p for p in last["parts"]):
                last["parts"].extend(parts)
            else:
                contents.append({"role": "user", "parts": parts})
    instruction = {"parts": [{"text": "\n\n".join(system)}]} if system else None
    return instruction, contents


def lower_request(request: ChatRequest, model: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build the keyword arguments of ``client.models.generate_content`` (``model``, ``contents``, ``config``).

    ``config`` holds ``system_instruction``, ``tools``, ``tool_config``, ``automatic_function_calling``
    (disabled: toolwire runs the tools) and the options: ``max_tokens`` becomes ``max_output_tokens``,
    ``stop`` ``stop_sequences``; ``temperature``, ``top_p``, ``seed`` and other keys pass as is.
    """
    system, contents = lower_messages(request.messages)
    config: dict[str, Any] = {}
    if system:
        config["system_instruction"] = system
    if request.tools:
        config["tools"] = [{"function_declarations": [convert_to_gemini_tool(t) for t in request.tools]}]
        choice = request.tool_choice
        if choice:
            mode = {"auto": "AUTO", "none": "NONE", "required": "ANY"}.get(choice, "ANY")
            calling: dict[str, Any] = {"mode": mode}
            if choice not in ("auto", "none", "required"):
                calling["allowed_function_names"] = [choice]
            config["tool_config"] = {"function_calling_config": calling}
        if request.parallel_tool_calls is False:
            log.debug("gemini: no setting disables parallel calls; toolwire keeps the first call of each reply")
    config["automatic_function_calling"] = {"disable": True}
    for key, value in merge_options(options, request.options).items():
        if key == "max_tokens":
            config["max_output_tokens"] = value
        elif key == "stop":
            config["stop_sequences"] = [value] if isinstance(value, str) else list(value)
        else:
            config[key] = value
    return {"model": model, "contents": contents, "config": config}


# --------------------------------------------------------------------------- replies


def _get(data: dict[str, Any], snake: str) -> Any:
    if snake in data:
        return data[snake]
    head, *rest = snake.split("_")
    return data.get(head + "".join(w.title() for w in rest))


def _as_dict(obj: Any) -> dict[str, Any]:
    if isinstance(obj, dict):
        return obj
    return obj.model_dump(mode="json", exclude_none=True)  # type: ignore[no-any-return]


def _usage(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return None
    out = (_get(raw, "candidates_token_count") or 0) + (_get(raw, "thoughts_token_count") or 0)
    return usage(_get(raw, "prompt_token_count"), out, _get(raw, "total_token_count"),
                 _get(raw, "cached_content_token_count"))


def _reply_parts(data: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    candidates = data.get("candidates") or []
    candidate = candidates[0] if candidates else {}
    parts = [_snake(p) for p in (candidate.get("content") or {}).get("parts") or ()]
    return parts, candidate


def _metadata(model: Any, finish: Any, dropped: int) -> dict[str, Any]:
    data = {"model": model, "finish_reason": finish, "dropped_tool_calls": dropped or None}
    return {k: v for k, v in data.items() if v is not None}


def _opaque(parts: list[dict[str, Any]]) -> dict[str, Any] | None:
    if any("thought_signature" in p or p.get("thought") for p in parts):
        return {"gemini": {"parts": parts}}
    return None


def parse_response(obj: Any, *, single_call: bool = False, tool_names: Collection[str] | None = None) -> AIMessage:
    """Read a ``GenerateContentResponse`` (REST JSON, snake_case dict, or the SDK object).

    Args:
        obj: the reply.
        single_call: keep only the first function call (``parallel_tool_calls=False``); the number
            dropped is in ``response_metadata["dropped_tool_calls"]``.
        tool_names: the bound tools' names, listed in the error of a call that has no name (``None``: not
            known, the error names no tools).

    Returns:
        An AIMessage: text of the first candidate's non-thought parts, one call per ``function_call``
        part (id = Gemini's when sent, else a new one), ``provider_data["gemini"]["parts"]`` when parts
        carry thought signatures or thoughts, usage in tokens (output includes thinking tokens),
        ``response_metadata`` ``{"model", "finish_reason"}``.
    """
    data = _as_dict(obj)
    parts, candidate = _reply_parts(data)
    seen = 0
    kept_parts = []
    for part in parts:
        if "function_call" in part:
            seen += 1
            if single_call and seen > 1:
                continue
        kept_parts.append(part)
    dropped = max(0, seen - 1) if single_call else 0
    if dropped:
        log.warning("gemini: parallel_tool_calls=False: kept the first call of the reply, dropped %d", dropped)
    text = "".join(p.get("text") or "" for p in kept_parts if "text" in p and not p.get("thought"))
    calls = [native_call(p["function_call"].get("name"), p["function_call"].get("args"), p["function_call"].get("id"),
                         tool_names) for p in kept_parts if "function_call" in p]
    valid, invalid = split_calls(calls)
    metadata = _metadata(_get(data, "model_version"), _get(candidate, "finish_reason"), dropped)
    return AIMessage(text, tool_calls=valid, invalid_tool_calls=invalid, usage=_usage(_get(data, "usage_metadata")),
                     response_metadata=metadata, provider_data=_opaque(kept_parts), id=_get(data, "response_id"))


class StreamState:
    """Folds ``streamGenerateContent`` chunks (each a ``GenerateContentResponse``) into AIMessageChunks.

    Text parts are yielded as they come; each ``function_call`` part is one whole call. Consecutive text
    parts are joined (a thought signature stays on the part it came with), so the kept parts equal those
    of the same reply read by :func:`parse_response`.
    """

    def __init__(self, *, single_call: bool = False) -> None:
        self.merger = ToolCallMerger()
        self.single_call = single_call
        self.parts: list[dict[str, Any]] = []
        self.calls = 0
        self.id: str | None = None
        self.model: str | None = None
        self.finish_reason: str | None = None
        self.raw_usage: Any = None

    def _keep_text(self, part: dict[str, Any]) -> None:
        last = self.parts[-1] if self.parts else None
        if (last is not None and "text" in last and "thought_signature" not in last
                and bool(last.get("thought")) == bool(part.get("thought"))):
            last["text"] += part.get("text") or ""
            if "thought_signature" in part:
                last["thought_signature"] = part["thought_signature"]
        else:
            self.parts.append(dict(part))

    def feed(self, event: Any) -> AIMessageChunk | None:
        """Read one chunk; return its text and calls as an AIMessageChunk, or ``None``."""
        data = _as_dict(event)
        parts, candidate = _reply_parts(data)
        self.id = self.id or _get(data, "response_id")
        self.model = _get(data, "model_version") or self.model
        self.finish_reason = _get(candidate, "finish_reason") or self.finish_reason
        if _get(data, "usage_metadata"):
            self.raw_usage = _get(data, "usage_metadata")
        text: list[str] = []
        pieces = []
        for part in parts:
            if "function_call" in part:
                self.calls += 1
                if self.single_call and self.calls > 1:
                    continue
                call = part["function_call"]
                pieces.append(self.merger.add(index=self.calls, id=call.get("id"), name=call.get("name"),
                                              args=call.get("args") or {}))
                self.parts.append(part)
            elif "text" in part:
                if not part.get("thought"):
                    text.append(part.get("text") or "")
                self._keep_text(part)
            else:
                self.parts.append(part)
        if not any(text) and not pieces:
            return None
        return AIMessageChunk("".join(text), tool_call_chunks=pieces, id=self.id)

    def finish(self) -> AIMessageChunk:
        """The closing chunk: usage, ``{"model", "finish_reason"}``, kept parts when opaque."""
        dropped = max(0, self.calls - 1) if self.single_call else 0
        if dropped:
            log.warning("gemini: parallel_tool_calls=False: kept the first call of the reply, dropped %d", dropped)
        return AIMessageChunk(usage=_usage(self.raw_usage),
                              response_metadata=_metadata(self.model, self.finish_reason, dropped),
                              provider_data=_opaque(self.parts), id=self.id)
