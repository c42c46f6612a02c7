"""A timed call still running at exit is said to run past its timeout only when it does: one a Ctrl-C stopped
within its timeout is named without that (review 208 #3)."""

from __future__ import annotations

import threading

from toolwire._concurrency import late_calls, start_thread, still_running


def test_a_call_within_its_timeout_is_not_late_and_one_past_it_is() -> None:
    release = threading.Event()
    within = start_thread(lambda kw: release.wait(5), {}, "within_tool", 60.0)
    past = start_thread(lambda kw: release.wait(5), {}, "past_tool", 0.0)
    try:
        late = late_calls()
        assert "past_tool" in late and "within_tool" not in late
        others = still_running(late=False)
        assert "within_tool" in others and "past_tool" not in others
        assert {"within_tool", "past_tool"} <= set(still_running())
    finally:
        release.set()
        within.result(5)
        past.result(5)
