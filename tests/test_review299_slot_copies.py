"""Review 299 #4: the per-call copy of one error object raised for two calls (``_error_state.exclusive``) keeps the
error's ``__slots__`` attributes, as its other attributes; no crash for slots left unset or unusual classes."""

from __future__ import annotations

import pytest

from toolwire import ToolExecutor, tool
from toolwire._error_state import exclusive, mark
from toolwire.errors import ToolExecutionError


class QuotaError(ToolExecutionError):
    __slots__ = ("retry_after",)


class RetryLater(QuotaError):
    __slots__ = ("scope", "unset")

    def __init__(self, message: str, *, scope: str) -> None:
        super().__init__(message)
        self.scope = scope


QUOTA = QuotaError("quota exceeded")
QUOTA.retry_after = 30


@tool
def search(q: str) -> str:
    """Search."""
    raise QUOTA


def test_second_call_keeps_the_slot_attribute() -> None:
    executor = ToolExecutor([search], handle_errors=False)
    seen = []
    for call_id in ("call_A", "call_B"):
        with pytest.raises(QuotaError) as caught:
            executor.execute([{"id": call_id, "name": "search", "args": {"q": "x"}, "type": "tool_call"}])
        seen.append((caught.value.tool_call_id, caught.value.retry_after))
    assert seen == [("call_A", 30), ("call_B", 30)]


def test_exclusive_copies_slots_over_the_mro_and_leaves_unset_ones_unset() -> None:
    exc = RetryLater("later", scope="org")
    exc.retry_after = 5
    exc.extra = "kept"
    mark(exc)
    twin = exclusive(exc)
    assert twin is not exc and type(twin) is RetryLater
    assert (twin.retry_after, twin.scope, twin.extra, str(twin)) == (5, "org", "kept", "later")
    assert not hasattr(twin, "unset")


def test_exclusive_of_a_plain_exception_with_slots() -> None:
    class Slotted(Exception):
        __slots__ = ("__weakref__", "code")

    exc = Slotted("x")
    exc.code = 7
    mark(exc)
    twin = exclusive(exc)
    assert twin is not exc and twin.code == 7


def test_exclusive_copies_a_private_slot() -> None:
    class _Hidden(ToolExecutionError):
        __slots__ = ("__token",)

        def __init__(self, message: str, token: str) -> None:
            super().__init__(message)
            self.__token = token

        def token(self) -> str:
            return self.__token

    exc = _Hidden("x", "t0")
    mark(exc)
    twin = exclusive(exc)
    assert twin is not exc and twin.token() == "t0"
