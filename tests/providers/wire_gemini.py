"""Gemini wire format: ``POST /v1beta/models/{model}:generateContent`` and ``:streamGenerateContent?alt=sse``.

Request shapes and reply examples follow the Gemini API reference ("Generating content", ``Content``,
``Part``, ``Tool``/``FunctionDeclaration``, ``Schema``, ``ToolConfig``) and the function-calling guide
(as many function responses as calls, in one user turn; thought signatures sent back on their parts).

Thought signatures are random bytes, sent in standard base64 and always holding ``+`` and ``/`` (``-`` and
``_`` in the URL-safe alphabet the google-genai SDK writes): as the API does (proto3 JSON), either alphabet
is accepted back, and the bytes must be identical. A call whose ``raw_arguments`` are not JSON is answered
as Gemini answers a call it could not parse: no ``functionCall``, ``finishReason``
``MALFORMED_FUNCTION_CALL`` and a ``finishMessage`` holding what the model wrote.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from typing import Any

from .wire_servers import Checker, Reply, WireServer, fragments, sse, usage_counts

_ROUTE = re.compile(r"^/v1(?:beta|alpha)?/models/([^/:]+):(generateContent|streamGenerateContent)$")
KEYS = {"contents", "tools", "toolConfig", "systemInstruction", "generationConfig", "safetySettings",
        "cachedContent", "labels"}
GENERATION_KEYS = {"temperature", "topP", "topK", "candidateCount", "maxOutputTokens", "stopSequences", "seed",
                   "presencePenalty", "frequencyPenalty", "responseMimeType", "responseSchema", "thinkingConfig",
                   "responseModalities", "responseLogprobs", "logprobs", "mediaResolution", "speechConfig",
                   "responseJsonSchema"}
DATA = {"text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"}
PART_EXTRA = {"thought", "thoughtSignature", "partMetadata", "videoMetadata", "mediaResolution"}
SCHEMA_KEYS = {"type", "format", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
               "anyOf", "items", "minimum", "maximum", "minLength", "maxLength", "pattern", "example",
               "propertyOrdering", "minProperties", "maxProperties"}
TYPES = {"STRING", "INTEGER", "NUMBER", "BOOLEAN", "ARRAY", "OBJECT"}
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$")
SIGNATURE_HEAD = b"\xfb\xef\xbe\xff\xff\xff"  # "++++////" in standard base64, "----____" URL-safe


def new_signature() -> str:
    """A thought signature: random bytes in standard base64, with ``+``, ``/`` and ``=`` padding in it."""
    return base64.b64encode(SIGNATURE_HEAD + os.urandom(40)).decode()


def signature_bytes(text: Any) -> bytes | None:
    """The bytes of base64 text in either alphabet (``+/`` or ``-_``), or ``None`` when it is not base64."""
    if not isinstance(text, str) or (("+" in text or "/" in text) and ("-" in text or "_" in text)):
        return None
    try:
        return base64.b64decode(text.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None


def malformed(reply: Reply) -> str | None:
    """The finishMessage of a reply whose first call's raw arguments are not JSON (else ``None``)."""
    for i, (name, _) in enumerate(reply.calls):
        try:
            json.loads(reply.arguments(i))
        except ValueError:
            return f"Malformed function call: print(default_api.{name}({reply.arguments(i)}))"
    return None


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(w.title() for w in rest)


def check_schema(c: Checker, schema: Any, path: str) -> None:
    """The OpenAPI-subset Schema of function declarations (what S3 requires of the Gemini form).

    Field names in either form: proto3 JSON parsers accept the lowerCamelCase name and the proto field name
    (``anyOf``/``any_of``, ``minItems``/``min_items``), and the SDK sends nested fields as given."""
    if not c.obj(schema, path):
        return
    schema = {_camel(k): v for k, v in schema.items()}
    for key in schema:
        c.expect(key in SCHEMA_KEYS, path, f"unsupported schema field {key!r}")
    kind = schema.get("type")
    if "anyOf" in schema:
        for i, sub in enumerate(schema["anyOf"]):
            check_schema(c, sub, f"{path}.anyOf[{i}]")
    else:
        c.expect(kind in TYPES, f"{path}.type", f"must be one of {sorted(TYPES)}, got {kind!r}")
    if kind == "OBJECT":
        props = schema.get("properties")
        if c.expect(props, f"{path}.properties", "should be non-empty for OBJECT type"):
            for name, sub in props.items():
                check_schema(c, sub, f"{path}.properties.{name}")
            for name in schema.get("required") or ():
                c.expect(name in props, f"{path}.required", f"{name!r} is not a property")
    if kind == "ARRAY" and c.expect("items" in schema, f"{path}.items", "ARRAY needs items"):
        check_schema(c, schema["items"], f"{path}.items")
    if "enum" in schema:
        c.expect(kind == "STRING" and all(isinstance(e, str) for e in schema["enum"]), f"{path}.enum",
                 "enum is for STRING values only")


class Gemini:
    """``/v1beta/models/{model}:generateContent`` and ``:streamGenerateContent``."""

    name = "gemini"

    def route(self, path: str, query: dict[str, list[str]]) -> tuple[str, str, bool] | None:
        match = _ROUTE.match(path)
        return (match.group(2), match.group(1), query.get("alt") == ["sse"]) if match else None

    def is_stream(self, route: tuple[str, str, bool], body: Any, query: dict[str, list[str]]) -> bool:
        return route[0] == "streamGenerateContent"

    def model_of(self, route: tuple[str, str, bool], body: Any) -> str:
        return route[1]

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        state = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": state}}

    # -- requests --------------------------------------------------------------------------------------

    def validate(self, body: Any, headers: dict[str, str], route: Any, server: WireServer) -> list[str]:
        c = Checker()
        if not c.obj(body, "body", KEYS, ("contents",)):
            return c.problems
        c.expect(headers.get("x-goog-api-key"), "headers", "missing x-goog-api-key")
        if route[0] == "streamGenerateContent":
            c.expect(route[2], "query", "streamGenerateContent needs alt=sse for server-sent events")
        names = self._tools(c, body)
        if "toolConfig" in body and c.obj(body["toolConfig"], "toolConfig", {"functionCallingConfig"}):
            config = body["toolConfig"].get("functionCallingConfig")
            if c.obj(config, "toolConfig.functionCallingConfig", {"mode", "allowedFunctionNames"}, ("mode",)):
                c.expect(config["mode"] in ("AUTO", "ANY", "NONE", "VALIDATED"), "mode", "bad mode")
                if "allowedFunctionNames" in config:
                    c.expect(config["mode"] in ("ANY", "VALIDATED"), "allowedFunctionNames", "only with mode ANY")
                    c.expect(set(config["allowedFunctionNames"]) <= names, "allowedFunctionNames", "unknown name")
        if "systemInstruction" in body and c.obj(body["systemInstruction"], "systemInstruction", {"parts", "role"},
                                                 ("parts",)):
            for i, part in enumerate(body["systemInstruction"]["parts"]):
                if c.obj(part, f"systemInstruction.parts[{i}]", {"text"}, ("text",)):
                    c.text(part["text"], f"systemInstruction.parts[{i}].text", non_empty=True)
        if "generationConfig" in body:
            c.obj(body["generationConfig"], "generationConfig", GENERATION_KEYS)
        if c.kind(body["contents"], list, "contents") and c.expect(body["contents"], "contents", "empty"):
            self._contents(c, body["contents"], server)
        return c.problems

    def _tools(self, c: Checker, body: dict[str, Any]) -> set[str]:
        names: set[str] = set()
        for i, tool in enumerate(body.get("tools") or ()):
            if not c.obj(tool, f"tools[{i}]", {"functionDeclarations", "googleSearch", "codeExecution"}):
                continue
            for j, decl in enumerate(tool.get("functionDeclarations") or ()):
                path = f"tools[{i}].functionDeclarations[{j}]"
                if c.obj(decl, path, {"name", "description", "parameters", "behavior", "response"}, ("name",)):
                    c.expect(NAME.match(str(decl["name"])), f"{path}.name", "invalid function name")
                    names.add(decl["name"])
                    if "parameters" in decl:
                        check_schema(c, decl["parameters"], f"{path}.parameters")
        return names

    def _contents(self, c: Checker, contents: list[Any], server: WireServer) -> None:
        pending: list[str] = []
        for i, content in enumerate(contents):
            path = f"contents[{i}]"
            if not c.obj(content, path, {"role", "parts"}, ("role", "parts")):
                continue
            role = content["role"]
            c.expect(role in ("user", "model"), f"{path}.role", "must be user or model")
            parts = content["parts"]
            if not (c.kind(parts, list, f"{path}.parts") and c.expect(parts, f"{path}.parts", "must not be empty")):
                continue
            responses = [p["functionResponse"]["name"] for p in parts
                         if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)]
            if pending:
                c.expect(role == "user" and responses == pending, path,
                         "Please ensure that the number of function response parts is equal to the number of "
                         f"function call parts of the function call turn (expected {pending}, got {responses})")
            elif responses:
                c.fail(path, "function responses answer no function call turn")
            pending = []
            for j, part in enumerate(parts):
                ppath = f"{path}.parts[{j}]"
                if not c.obj(part, ppath, DATA | PART_EXTRA):
                    continue
                data = [k for k in part if k in DATA]
                if not c.expect(len(data) == 1, ppath, f"a part holds exactly one data field, got {data}"):
                    continue
                if "text" in part:
                    c.text(part["text"], f"{ppath}.text", non_empty=not part.get("thoughtSignature"))
                if "thoughtSignature" in part:
                    c.expect(signature_bytes(part["thoughtSignature"]) is not None, f"{ppath}.thoughtSignature",
                             "Invalid value at 'thought_signature' (TYPE_BYTES), Base64 decoding failed")
                if "functionCall" in part:
                    call = part["functionCall"]
                    c.expect(role == "model", ppath, "functionCall only in model turns")
                    if c.obj(call, f"{ppath}.functionCall", {"name", "args", "id"}, ("name",)):
                        c.obj(call.get("args", {}), f"{ppath}.functionCall.args")
                        pending.append(call["name"])
                        self._signature(c, part, ppath, server)
                if "functionResponse" in part:
                    c.expect(role == "user", ppath, "functionResponse only in user turns")
                    if c.obj(part["functionResponse"], f"{ppath}.functionResponse", {"name", "response", "id"},
                             ("name", "response")):
                        c.obj(part["functionResponse"]["response"], f"{ppath}.functionResponse.response")
        c.expect(not pending, "contents", "the last function call turn has no function responses")

    def _signature(self, c: Checker, part: dict[str, Any], path: str, server: WireServer) -> None:
        call = part["functionCall"]
        key = json.dumps([call["name"], call.get("args", {})], sort_keys=True, ensure_ascii=False)
        issued = server.issued.get(key)
        if issued is None:
            return
        signature, label = issued
        if signature_bytes(part.get("thoughtSignature")) == base64.b64decode(signature):
            server.returned.append(label)  # (the token's label: the signature itself is random)
        else:
            c.fail(path, "Function call is missing a thought_signature (it must be sent back unchanged)")

    def conversation(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        turns: list[dict[str, Any]] = []
        for content in body["contents"]:
            parts = content["parts"]
            text = "".join(p.get("text", "") for p in parts if not p.get("thought"))
            for p in parts:
                if "functionResponse" in p:
                    response = p["functionResponse"]["response"]
                    turns.append({"role": "tool", "text": str(response.get("result", response.get("error", ""))),
                                  "call_id": p["functionResponse"].get("id")})
            if content["role"] == "model":
                calls = [{"id": p["functionCall"].get("id"), "name": p["functionCall"]["name"],
                          "args": p["functionCall"].get("args", {})} for p in parts if "functionCall" in p]
                turns.append({"role": "assistant", "text": text, "calls": calls})
            elif text:
                turns.append({"role": "user", "text": text})
        return turns

    # -- replies -----------------------------------------------------------------------------------------

    def _parts(self, reply: Reply, server: WireServer) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        signature = new_signature() if reply.opaque else None
        label = base64.b64encode(f"sig-{reply.opaque}".encode()).decode()
        if reply.text:
            parts.append({"text": reply.text})
        for i, (name, _) in enumerate(reply.calls):
            args = json.loads(reply.arguments(i))
            parts.append({"functionCall": {"name": name, "args": args}})
            if signature and i == 0:
                parts[-1]["thoughtSignature"] = signature
                server.issued[json.dumps([name, args], sort_keys=True, ensure_ascii=False)] = (signature, label)
        if signature and not reply.calls and parts:
            parts[-1]["thoughtSignature"] = signature
        return parts

    def _usage(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        prompt, completion = usage_counts(len(body["contents"]), reply)
        return {"promptTokenCount": prompt, "candidatesTokenCount": completion,
                "totalTokenCount": prompt + completion, "promptTokensDetails": [{"modality": "TEXT",
                                                                                "tokenCount": prompt}]}

    def render(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> dict[str, Any]:
        message = malformed(reply)
        if message is not None:
            return {"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL", "finishMessage": message, "index": 0}],
                    "usageMetadata": self._usage(body, reply), "modelVersion": model,
                    "responseId": f"resp-{server.new_id()}"}
        return {"candidates": [{"content": {"parts": self._parts(reply, server), "role": "model"},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": self._usage(body, reply), "modelVersion": model,
                "responseId": f"resp-{server.new_id()}"}

    def render_stream(self, reply: Reply, body: dict[str, Any], model: str, server: WireServer) -> list[bytes]:
        rid = f"resp-{server.new_id()}"
        message = malformed(reply)
        if message is not None:
            event = {"candidates": [{"content": {"parts": [{"text": ""}], "role": "model"}, "index": 0,
                                     "finishReason": "MALFORMED_FUNCTION_CALL", "finishMessage": message}],
                     "usageMetadata": self._usage(body, reply), "modelVersion": model, "responseId": rid}
            return [sse(event).replace(b"\n\n", b"\r\n\r\n")]
        parts = self._parts(reply, server)
        chunks: list[list[dict[str, Any]]] = []
        for part in parts:
            if "text" in part:
                pieces = fragments(part["text"], reply.piece)
                chunks += [[{"text": piece}] for piece in pieces]
                if "thoughtSignature" in part:
                    chunks[-1][0]["thoughtSignature"] = part["thoughtSignature"]
        calls = [p for p in parts if "functionCall" in p]
        if calls:
            chunks.append(calls)  # Gemini sends parallel calls whole, together
        frames = []
        for k, chunk in enumerate(chunks or [[{"text": ""}]]):
            last = k == len(chunks) - 1 or not chunks
            candidate: dict[str, Any] = {"content": {"parts": chunk, "role": "model"}, "index": 0}
            event: dict[str, Any] = {"candidates": [candidate], "modelVersion": model, "responseId": rid}
            if last:
                candidate["finishReason"] = "STOP"
                event["usageMetadata"] = self._usage(body, reply)
            frames.append(sse(event).replace(b"\n\n", b"\r\n\r\n"))
        return frames
