"""Where a failed tool call's error was raised: by toolwire about the call, or inside the tool's own code.

Toolwire raises its own errors about a call: its arguments are invalid (:class:`~toolwire.errors.ToolValidationError`),
it timed out, its result cannot be sent, it names another tool. The text the model gets for them is a verdict on the
call it made (:func:`toolwire.results.error_text`). The same classes can also come out of the tool's own function: a
tool that calls another tool (``lookup_user.invoke({"user_id": row["user_id"]})``) with a value of its own gets that
tool's ``ToolValidationError``, and a tool may raise ``ToolExecutionError`` itself. That is the tool's failure like any
other exception. Worded as a verdict, it told the model that its call had invalid arguments it never sent, and
``hide_error_details`` let its message through, internal values and all (review 213 #1).

:func:`raised_in_tool_code` tells them apart by the error's traceback, read only when a call failed.
"""

from __future__ import annotations

__all__ = ["raised_in_tool_code"]

# the frames that call a tool's function: Tool._call (a sync tool's function, or an async one's coroutine made) and
# toolwire._tool_run.guarded (an async tool's coroutine awaited); a frame after one of them ran inside the function
_RUNNERS = frozenset({("toolwire.tools", "Tool._call"), ("toolwire._tool_run", "guarded")})

# toolwire's own tool functions, which forward a call elsewhere and raise their errors as written for the model: an
# MCP server's (toolwire.mcp.client), a LangChain tool's (toolwire.interop.langchain)
_ADAPTERS = ("toolwire.mcp.", "toolwire.interop.")


def raised_in_tool_code(exc: BaseException) -> bool:
    """Whether ``exc`` was raised inside a tool's own code (its function, or code that function called) rather than
    by toolwire about the call.

    Its traceback is read from the outermost frame in: after the frame that called the tool's function, the first
    frame outside toolwire's own modules is the tool's code. Toolwire's frames in between (draining a generator
    tool, another tool's ``invoke`` that the tool called) are passed over; a tool function toolwire made to forward
    the call (an MCP or LangChain tool) counts as toolwire's, so the errors it raises keep their wording.

    Args:
        exc: the exception a call ended with.

    Returns:
        True when a frame of the tool's own code is on the way to where ``exc`` was raised; False for an error
        toolwire raised about the call (invalid arguments, a timeout, an unsendable result), one raised by the
        frame that ran the function (a ``sys.exit()`` stopped), or one without a traceback.
    """
    tb = exc.__traceback__
    inside = False
    while tb is not None:
        frame = tb.tb_frame
        module = frame.f_globals.get("__name__")
        module = module if isinstance(module, str) else ""
        if inside:
            if module.startswith(_ADAPTERS):
                return False
            if module != "toolwire" and not module.startswith("toolwire."):
                return True
        elif (module, frame.f_code.co_qualname) in _RUNNERS:
            inside = True
        tb = tb.tb_next
    return False
