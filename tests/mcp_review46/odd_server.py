"""A hand-written MCP stdio server (JSON-RPC lines, no SDK) for review 46: full control of the wire.

Tools with odd input schemas and names, and tools whose results or behaviour are odd (``isError``, images,
embedded resources, ``structuredContent`` only, huge text, a hang, a crash, garbage on stdout).

Run: ``python odd_server.py [MODE...]``. Modes: ``conforming`` offers only the tools whose schema has
``"type": "object"`` (what the mcp 2.x SDK accepts), ``garbage`` writes a non-JSON line to stdout before every
answer, ``exit`` exits at once, ``dup`` offers only ``add`` and ``echo`` (for two-server tests), ``cursor_loop``
gives the page cursor ``again`` on every page of every tool list after the first (on the first too with
``loop_first``), ``broken`` adds a tool whose schema toolwire cannot use.
"""

import json
import os
import sys
import threading
import time

MODES = set(sys.argv[1:])
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
OBJ = {"type": "object", "properties": {}}

TOOLS = [
    {"name": "add", "description": "Add a and b.", "inputSchema": {
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}},
    {"name": "empty_schema", "description": "No schema at all.", "inputSchema": {}},
    {"name": "no_type", "description": "Properties, no type.", "inputSchema": {
        "properties": {"x": {"type": "string"}}, "required": ["x"]}},
    {"name": "refs", "description": "A $ref into $defs.", "inputSchema": {
        "type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}, "required": ["p"],
        "$defs": {"P": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}},
    {"name": "draft7", "description": "A draft-07 schema.", "inputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
                       "q": {"$ref": "#/definitions/Q"}},
        "definitions": {"Q": {"type": "string", "enum": ["a", "b"]}}, "additionalProperties": False}},
    {"name": "not_object", "description": "A string schema.", "inputSchema": {"type": "string"}},
    {"name": "dot.name", "description": "Dotted.", "inputSchema": OBJ},
    {"name": "with space", "description": "Spaced.", "inputSchema": OBJ},
    {"name": "ünïcode", "description": "Unicode.", "inputSchema": OBJ},
    {"name": "no_description", "inputSchema": OBJ},
    {"name": "fails", "description": "Answers isError.", "inputSchema": OBJ},
    {"name": "fails_silently", "description": "Answers isError with no text.", "inputSchema": OBJ},
    {"name": "image", "description": "An image.", "inputSchema": OBJ},
    {"name": "resource", "description": "Embedded resources.", "inputSchema": OBJ},
    {"name": "structured", "description": "structuredContent only.", "inputSchema": OBJ},
    {"name": "huge", "description": "Huge text.", "inputSchema": {
        "type": "object", "properties": {"mb": {"type": "number"}}}},
    {"name": "sleep", "description": "Sleep some seconds.", "inputSchema": {
        "type": "object", "properties": {"seconds": {"type": "number"}}}},
    {"name": "crash", "description": "Exit mid-call.", "inputSchema": OBJ},
    {"name": "echo", "description": "Echo the arguments.", "inputSchema": {
        "type": "object", "additionalProperties": True}},
    {"name": "unknown_block", "description": "A block of an unknown type.", "inputSchema": OBJ},
    {"name": "rpc_error", "description": "Answers a JSON-RPC error.", "inputSchema": OBJ},
    {"name": "busy", "description": "Answers JSON-RPC error -32000 (a generic server error) and stays up.",
     "inputSchema": OBJ},
    {"name": "upstream_closed", "description": "Answers -32000 'Connection closed' (a gateway whose upstream went "
     "away) and stays up.", "inputSchema": OBJ},
]
if "conforming" in MODES:  # only schemas the mcp 2.x SDK accepts (an object schema)
    TOOLS = [t for t in TOOLS if t["inputSchema"].get("type") == "object"]
if "dup" in MODES:
    TOOLS = [t for t in TOOLS if t["name"] in ("add", "echo")]
if "broken" in MODES:  # add a tool whose schema toolwire cannot use (it is skipped, with a warning)
    TOOLS = [*TOOLS, {"name": "broken", "description": "A schema with a type that is a number.",
                      "inputSchema": {"type": "object", "properties": {"a": {"type": 5}}}}]

lock = threading.Lock()
LISTINGS = []  # the params of each tools/list request


def send(message):
    with lock:
        if "garbage" in MODES:
            sys.stdout.write("this is not JSON\n")
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def text(value):
    return {"content": [{"type": "text", "text": value}]}


def call(name, args):
    if name == "add":
        return text(str(args["a"] + args["b"]))
    if name == "fails":
        return {"content": [{"type": "text", "text": "the thing failed"}], "isError": True}
    if name == "fails_silently":
        return {"content": [], "isError": True}
    if name == "image":
        return {"content": [{"type": "text", "text": "look"}, {"type": "image", "data": PNG, "mimeType": "image/png"}]}
    if name == "resource":
        return {"content": [
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"}},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAEC"}},
            {"type": "resource_link", "uri": "file:///c.txt", "name": "c"}]}
    if name == "structured":
        return {"content": [], "structuredContent": {"k": 1}}
    if name == "huge":
        return text("x" * int(float(args.get("mb", 1)) * 1_000_000))
    if name == "sleep":
        time.sleep(float(args.get("seconds", 1)))
        return text("slept")
    if name == "crash":
        os._exit(3)
    if name == "unknown_block":
        return {"content": [{"type": "weird", "x": 1}]}
    return text(json.dumps({"name": name, "args": args}, ensure_ascii=False))


def handle(message):
    method, mid = message.get("method"), message.get("id")
    if mid is None:
        return
    if method == "initialize":
        result = {"protocolVersion": message["params"].get("protocolVersion", "2025-06-18"),
                  "capabilities": {"tools": {"listChanged": True}},
                  "serverInfo": {"name": "odd", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
        LISTINGS.append(message.get("params"))
        if "cursor_loop" in MODES and (len(LISTINGS) > 1 or "loop_first" in MODES):
            result["nextCursor"] = "again"  # the pages of the tool list loop (review 51)
    elif method == "tools/call":
        params = message["params"]
        if params["name"] == "rpc_error":
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32603, "message": "the server broke"}})
            return
        if params["name"] in ("busy", "upstream_closed"):  # review 65: an answer, not a server gone
            text = "the server is busy, try again" if params["name"] == "busy" else "Connection closed"
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32000, "message": text}})
            return
        if params["name"] not in {t["name"] for t in TOOLS}:
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32602, "message": "unknown tool"}})
            return
        result = call(params["name"], params.get("arguments") or {})
    elif method == "ping":
        result = {}
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "method not found"}})
        return
    send({"jsonrpc": "2.0", "id": mid, "result": result})


def main():
    if "exit" in MODES:
        sys.exit(2)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        message = json.loads(line)
        # each request on its own thread: calls may overlap (parallel tool calls)
        threading.Thread(target=handle, args=(message,), daemon=True).start()


if __name__ == "__main__":
    main()
