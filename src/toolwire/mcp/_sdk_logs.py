"""Keep the mcp SDK's HTTP transports from logging, as a traceback or a stray line, an answer toolwire reports itself.

mcp 2.x's streamable HTTP client logs a server answer it cannot read (JSON that is not JSON-RPC: ``logger.exception
("Error parsing JSON response")``, thirty lines of pydantic's dump; a ``text/html`` page: ``"Unexpected content type:
text/html"``) and then hands the same failure to the session as a JSON-RPC error, which toolwire turns into its own
one-line message (:func:`toolwire.mcp.common._connect_error`, ``_call_error``). With no logging set up, Python's
last-resort handler printed the record before that line (review 199 #1). The records are dropped only while a
toolwire MCP session is the one waiting for the answer (:func:`toolwire_reports`); the SDK's other records, and these
for any other code in the process that uses the SDK itself, pass unchanged. So is the SDK's "Session termination
failed: <error>" when a toolwire session closes after its HTTP server stopped: the DELETE that would end the session
finds no server, and there is nothing left to end (review 250 #2); a refusal with an HTTP status still shows.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Iterator

__all__ = ["toolwire_reports"]

_REPORTING: contextvars.ContextVar[bool] = contextvars.ContextVar("toolwire_mcp_reports", default=False)
"""Whether the code running (and the tasks it starts, which copy its context) is a toolwire MCP session's."""

_REPORTED = ("Error parsing JSON response", "Error parsing SSE message", "Unexpected content type: ",
             "Error parsing server message")
"""The start of each SDK record whose failure reaches the session as an error answer, which toolwire reports."""

_UNENDED = "Session termination failed: "
"""The start of the SDK's record of a session's DELETE that failed: dropped unless an HTTP status follows."""


@contextlib.contextmanager
def toolwire_reports() -> Iterator[None]:
    """Within the block (and the tasks started in it, such as the SDK transport's), the SDK's records of answers it
    cannot read are dropped, since toolwire reports that failure in its own words. Yields nothing; raises nothing."""
    token = _REPORTING.set(True)
    try:
        yield
    finally:
        _REPORTING.reset(token)


class _ReportedAnswer(logging.Filter):
    """Drop a record of :data:`_REPORTED`, or a :data:`_UNENDED` one whose server could not be reached (no HTTP
    status), made within :func:`toolwire_reports`; pass every other record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not _REPORTING.get():
            return True
        try:
            message = record.getMessage()
        except Exception:  # (a record whose arguments do not fit its format: not one of ours)
            return True
        if message.startswith(_UNENDED):
            return message[len(_UNENDED):].isdigit()
        return not message.startswith(_REPORTED)


_filter = _ReportedAnswer()
for _name in ("mcp.client.streamable_http", "mcp.client.sse"):
    if not any(isinstance(f, _ReportedAnswer) for f in logging.getLogger(_name).filters):
        logging.getLogger(_name).addFilter(_filter)
