"""When :func:`~toolwire.evals.bfcl_runner.run_bfcl` stops before its end: the model failed on items in a row with
server trouble (review 85), or on the run's first items with one refused request (review 197 #1).

Split out of :mod:`toolwire.evals.bfcl_runner`, which imports these names."""

from __future__ import annotations

from collections.abc import Iterable

from toolwire.evals.report import ItemResult

_FAILED_IN_A_ROW = 5
"""Items in a row on which the model may fail (it raised: reason ``"error"``) before a run stops, so that a server
that is down does not fill a whole run with errors (review 85: every item of a run took its retries and the run
ended as an ordinary 0%)."""


def _server_trouble(exc: BaseException) -> bool:
    """Whether a model call's exception says the server, not the item, is at fault: no connection or a timeout,
    an error a retry might fix (429, 5xx), or a refused key or unknown model (401, 403, 404)."""
    from toolwire.errors import ProviderError

    if isinstance(exc, ProviderError):
        return exc.retryable or exc.status in (None, 401, 403, 404)
    return isinstance(exc, ConnectionError | TimeoutError)


def _failure(exc: BaseException) -> dict[str, str]:
    """How a failed model call is recorded in its item's ``decoding``: ``{"failure": "server"}`` for server trouble
    (:func:`_server_trouble`), ``{"failure": "request"}`` for another 4xx the provider answered (the request refused,
    such as a temperature a reasoning model does not take), else nothing."""
    from toolwire.errors import ProviderError

    if _server_trouble(exc):
        return {"failure": "server"}
    if isinstance(exc, ProviderError) and exc.status is not None and 400 <= exc.status < 500:
        return {"failure": "request"}
    return {}


class _Failures:
    """Counts the items in a row on which the model failed, and says when the run stops (:data:`_FAILED_IN_A_ROW`).

    ``resumable``: the run saves to a report file, so the stop's message tells to rerun with the same ``--out``.
    ``retried``: the ids of items the report holds as failed (``"error"``), which the opening check leaves out."""

    def __init__(self, resumable: bool = False, retried: Iterable[str] = ()) -> None:
        self.count = 0
        self.resumable = resumable
        self.retried = frozenset(retried)
        self.opening: list[str] | None = []  # the messages of this run's first items while each is one refused request

    def check(self, result: ItemResult) -> str | None:
        """Take an item's result; return the message that stops the run once the model failed on
        :data:`_FAILED_IN_A_ROW` items in a row with server trouble (:func:`_server_trouble`), or on this run's first
        :data:`_FAILED_IN_A_ROW` items (those the report held as failed left out) with one and the same 4xx error
        (the request, not the items, at fault: review 197 #1 sent all 1,240 items to a model refusing temperature
        0), else None (the run goes on). Another error of the item itself (a context overflow, a schema the provider
        refuses, a content filter) does not count: a rerun would run it again first and stop again (review 86)."""
        rerun = (" (with the same --out, the items scored are kept and those that failed are run again)"
                 if self.resumable else "")
        refused = self._opening(result)
        if refused is not None:
            return (f"The model failed on this run's first {len(refused)} items with the same error: "
                    f"{_shortened(refused[-1])}; the request, not the items, is at fault: check the model and its "
                    f"options, then run again{rerun}.")
        if result.reason != "error" or result.decoding.get("failure") != "server":
            self.count = 0
            return None
        self.count += 1
        if self.count < _FAILED_IN_A_ROW:
            return None
        return (f"The model failed on {self.count} items in a row, the last with: {_shortened(result.message)}. "
                f"Check the model and its server, then run again{rerun}.")

    def _opening(self, result: ItemResult) -> list[str] | None:
        """The messages of this run's first items once :data:`_FAILED_IN_A_ROW` of them failed with one refused
        request (``{"failure": "request"}``, the same message), else None; an item the report held as failed is
        passed over, and any other result ends the opening."""
        if self.opening is None or result.id in self.retried:
            return None
        if (result.reason == "error" and result.decoding.get("failure") == "request"
                and (not self.opening or result.message == self.opening[0])):
            self.opening.append(result.message)
            return list(self.opening) if len(self.opening) >= _FAILED_IN_A_ROW else None
        self.opening = None
        return None


def _shortened(message: str) -> str:
    """An item's error ``message`` as a stop quotes it: at most 300 characters, without its final period."""
    return (message if len(message) <= 300 else message[:300] + "...").rstrip(".")
