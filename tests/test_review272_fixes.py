"""Review 272: pandas and NumPy values in tool results, and the answer of a sync tool after a second Ctrl-C.

* #1: a pandas ``NaT`` (a missing date) anywhere in a result is written ``null``; it made the whole result an error,
  and saving the conversation (``to_dict``, ``messages_to_dict``) raised a bare ``TypeError``.
* #2: a pandas Series whose index is not the plain ``0..n-1`` is written as an object of its labels and values (its
  index was dropped: ``groupby().mean()`` reached the model as bare numbers).
* #3: NumPy ``datetime64`` / ``timedelta64`` values finer than a microsecond (pandas < 3's default) are written as ISO
  8601 text, as a ``datetime`` or ``timedelta`` is (they were integers of nanoseconds).
* #4: a sync tool still running at a second Ctrl-C is answered as at one Ctrl-C: its thread cannot be stopped, so it
  "may still finish and take effect" (it was answered "was stopped while it ran").
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import json
import threading
from typing import Any

import pytest

from toolwire import Agent, AIMessage, ToolMessage, messages_to_dict, tool
from toolwire.results import bounded_content, json_fallback, json_ready, result_to_content
from toolwire.testing import ScriptedChatModel


def _answer(value: Any) -> ToolMessage:
    @tool
    def give() -> object:
        """Give the value."""
        return value

    return give.invoke({"name": "give", "args": {}, "id": "c1", "type": "tool_call"})


def _content(value: Any) -> Any:
    message = _answer(value)
    assert message.status == "success", message.content
    return json.loads(message.content)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- #1: pandas NaT


def test_nat_in_records_is_null_and_the_conversation_saves() -> None:
    pd = pytest.importorskip("pandas")
    orders = pd.DataFrame({"id": [1, 2], "shipped": pd.to_datetime(["2024-01-05", None])})
    rows = orders.to_dict("records")
    assert _content(rows) == [{"id": 1, "shipped": "2024-01-05T00:00:00"}, {"id": 2, "shipped": None}]

    @tool(response_format="content_and_artifact")
    def orders_with_artifact() -> tuple[str, object]:
        """Orders, the rows as artifact."""
        return "2 orders", orders.to_dict("records")

    reply = AIMessage("", tool_calls=[{"name": "orders_with_artifact", "args": {}, "id": "a"}])
    result = Agent(ScriptedChatModel([reply, "Two orders."]), [orders_with_artifact]).invoke("orders?")
    saved = json.loads(json.dumps(messages_to_dict(result.messages)))
    artifact = next(m for m in saved if m.get("type") == "tool")["data"]["artifact"]
    assert artifact == [{"id": 1, "shipped": "2024-01-05T00:00:00"}, {"id": 2, "shipped": None}]
    tool_message = next(m for m in result.messages if isinstance(m, ToolMessage))
    assert json.loads(json.dumps(tool_message.to_dict()))["artifact"] == artifact


@pytest.mark.parametrize("shape", ["alone", "list", "dict", "tuple", "nested"])
def test_nat_anywhere_is_null(shape: str) -> None:
    pd = pytest.importorskip("pandas")
    value = {"alone": pd.NaT, "list": [pd.NaT], "dict": {"x": pd.NaT}, "tuple": (1, pd.NaT),
             "nested": {"a": [{"b": pd.NaT, "c": pd.Timestamp("2024-01-01")}]}}[shape]
    expected = {"alone": None, "list": [None], "dict": {"x": None}, "tuple": [1, None],
                "nested": {"a": [{"b": None, "c": "2024-01-01T00:00:00"}]}}[shape]
    assert _content(value) == expected
    assert json_ready(value) == expected
    assert json.loads(result_to_content(value)) == expected  # type: ignore[arg-type]


def test_nat_in_a_big_result_cut_by_the_executor() -> None:
    pd = pytest.importorskip("pandas")
    rows = [{"i": i, "day": pd.NaT if i % 2 else pd.Timestamp("2024-01-01")} for i in range(3000)]
    text = bounded_content(rows, 200)
    assert isinstance(text, str) and text.startswith('[{"i": 0, "day": "2024-01-01T00:00:00"}, {"i": 1, "day": null}')


def test_nat_inside_a_dataclass_or_a_series_or_a_nat_key() -> None:
    pd = pytest.importorskip("pandas")

    @dataclasses.dataclass
    class Order:
        id: int
        shipped: Any

    assert _content(Order(2, pd.NaT)) == {"id": 2, "shipped": None}
    assert _content([Order(2, pd.NaT)]) == [{"id": 2, "shipped": None}]
    assert json_ready(Order(2, pd.NaT)) == {"id": 2, "shipped": None}
    assert _content(pd.Series(pd.to_datetime(["2024-01-01", None]))) == ["2024-01-01T00:00:00", None]
    assert _content(pd.Series([pd.NaT, 1], dtype=object)) == [None, 1]
    assert _content(pd.Series(pd.to_timedelta(["1h", None]))) == ["PT1H", None]
    tz = pd.Series(pd.to_datetime(["2024-01-01", None]).tz_localize("UTC"))
    assert _content(tz) == ["2024-01-01T00:00:00Z", None]
    assert json_ready({"s": tz}) == {"s": ["2024-01-01T00:00:00Z", None]}


def test_an_ordinary_datetime_is_unchanged() -> None:
    value = {"at": datetime.datetime(2024, 1, 1, 10), "day": datetime.date(2024, 1, 2),
             "d": datetime.timedelta(hours=1)}
    assert _content(value) == {"at": "2024-01-01T10:00:00", "day": "2024-01-02", "d": "PT1H"}
    assert json_ready(value) == {"at": "2024-01-01T10:00:00", "day": "2024-01-02", "d": "PT1H"}


# --------------------------------------------------------------------------- #2: a Series keeps its index


def test_a_series_with_labels_is_an_object() -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"city": ["Paris", "Tokyo", "Lima", "Paris"], "temp": [21.5, None, 18.0, 23.0]})
    assert _content(df.groupby("city")["temp"].mean()) == {"Lima": 18.0, "Paris": 22.25, "Tokyo": "NaN"}
    assert _content({"missing": df.isna().sum()}) == {"missing": {"city": 0, "temp": 1}}
    assert _content(df["city"].value_counts()) == {"Paris": 2, "Tokyo": 1, "Lima": 1}
    assert json_ready(df["city"].value_counts()) == {"Paris": 2, "Tokyo": 1, "Lima": 1}
    assert json_fallback(df["city"].value_counts()) == {"Paris": 2, "Tokyo": 1, "Lima": 1}


def test_a_series_with_a_plain_range_index_is_a_list() -> None:
    pd = pytest.importorskip("pandas")
    assert _content(pd.Series([1.5, 2.5])) == [1.5, 2.5]
    assert _content(pd.Series([1, 2], index=pd.RangeIndex(1, 3))) == {"1": 1, "2": 2}
    assert _content(pd.Series([1, 2, 3]).iloc[[0, 2]]) == {"0": 1, "2": 3}  # (rows picked: their labels kept)


def test_a_series_with_dates_duplicates_missing_and_tuple_labels() -> None:
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    by_day = pd.Series([3, 4], index=pd.to_datetime(["2024-01-01", "2024-01-02"]))
    assert _content(by_day) == {"2024-01-01T00:00:00": 3, "2024-01-02T00:00:00": 4}
    assert _content(pd.Series([1, 2], index=["a", "a"])) == [["a", 1], ["a", 2]]  # (no entry lost)
    counts = pd.Series(["x", None, "x"]).value_counts(dropna=False)
    assert _content(counts) == {"x": 2, "NaN": 1}  # (pandas makes the None a NaN)
    assert _content(pd.Series([1], index=pd.Index([None], dtype=object))) == {"null": 1}
    assert _content(pd.Series([1.0], index=[np.nan])) == {"NaN": 1.0}
    two = pd.Series([1, 2], index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2)]))
    assert _content(two) == {"a,1": 1, "b,2": 2}
    assert _content(pd.Series(np.array([1.5, 2.25], dtype=np.float32), index=["a", "b"])) == {"a": 1.5, "b": 2.25}
    assert _content(pd.Series([0.1], index=["a"], dtype=np.float32)) == {"a": 0.1}  # (float32 shortest text kept)


# --------------------------------------------------------------------------- #3: datetime64 and timedelta64


def test_datetime64_and_timedelta64_are_iso_text() -> None:
    np = pytest.importorskip("numpy")
    starts = np.array(["2024-01-01T10:00", "2024-03-05T12:30"], dtype="datetime64[ns]")
    ends = np.array(["2024-01-01T11:30", "2024-03-05T13:00"], dtype="datetime64[ns]")
    assert _content(starts) == ["2024-01-01T10:00:00", "2024-03-05T12:30:00"]
    assert _content(starts[-1]) == "2024-03-05T12:30:00"
    assert _content(ends - starts) == ["PT1H30M", "PT30M"]
    assert _content((ends - starts)[0]) == "PT1H30M"
    assert _content(np.array(["2024-01-01", "NaT"], dtype="datetime64[ns]")) == ["2024-01-01T00:00:00", None]
    assert _content(np.array([[1, 2]], dtype="timedelta64[ps]")) == [["PT0S", "PT0S"]]
    assert _content(np.array(["2024-01-01T10:00:00.000001"], dtype="datetime64[ns]")) == ["2024-01-01T10:00:00.000001"]
    assert _content(np.timedelta64(3, "M")) == "P3M"
    assert _content(np.array([2, -1], dtype="timedelta64[Y]")) == ["P2Y", "-P1Y"]
    assert _content(np.datetime64("2024-01-02", "D")) == "2024-01-02"  # (as before)
    assert json_ready({"t": starts}) == {"t": ["2024-01-01T10:00:00", "2024-03-05T12:30:00"]}


def test_a_pandas_datetime64_ns_series() -> None:
    pd = pytest.importorskip("pandas")
    s = pd.Series(pd.to_datetime(["2024-01-01 10:00", None]).astype("datetime64[ns]"))
    assert _content(s) == ["2024-01-01T10:00:00", None]
    assert _content(s.to_numpy()) == ["2024-01-01T10:00:00", None]


# --------------------------------------------------------------------------- #4: a second Ctrl-C, a sync tool


def test_a_sync_tool_still_running_at_a_second_ctrl_c_may_still_take_effect(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import toolwire._grace as grace
    import toolwire._tool_run as tool_run

    started, release, stopping = threading.Event(), threading.Event(), threading.Event()
    log: list[str] = []

    @tool
    def transfer(amount: int) -> str:
        """Transfer money."""
        log.append("started")
        started.set()
        release.wait(10)
        log.append("finished")
        return "ok"

    real_wait, real_mark = tool_run.wait_through, grace.mark_call
    loops: list[asyncio.AbstractEventLoop] = []

    def mark_call() -> None:  # (on the run's event loop, as the call starts)
        loops.append(asyncio.get_running_loop())
        real_mark()

    async def wait_through(*args: Any) -> Any:  # the sync call's grace after the first Ctrl-C: the run waits too
        stopping.set()
        await real_wait(*args)
        await asyncio.Event().wait()  # (the run's wait ends first at the second Ctrl-C, as in the review's runs: the
        # call is then given up by the run, not answered by its own task)

    monkeypatch.setattr(grace, "mark_call", mark_call)
    monkeypatch.setattr(tool_run, "wait_through", wait_through)

    def interrupt() -> None:
        raise KeyboardInterrupt

    def ctrl_c() -> None:  # (raised on the run's event loop, in the main thread, as Python raises a Ctrl-C there)
        loops[0].call_soon_threadsafe(interrupt)

    def ctrl_c_twice() -> None:
        if started.wait(10):
            ctrl_c()
            if stopping.wait(10):
                ctrl_c()

    reply = AIMessage("", tool_calls=[{"name": "transfer", "args": {"amount": 5}, "id": "t1"}])
    helper = threading.Thread(target=ctrl_c_twice, daemon=True)
    helper.start()
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            Agent(ScriptedChatModel([reply, "done"]), [transfer]).invoke("move 5")
    finally:
        release.set()
        helper.join(10)
    answer = caught.value.messages[-1]  # type: ignore[attr-defined]
    assert isinstance(answer, ToolMessage) and answer.status == "error"
    assert "may still finish and take effect" in answer.content, answer.content
    assert "was stopped while it ran" not in answer.content
    assert "their threads cannot be stopped and may still finish and take effect: 'transfer'" in caplog.text
    assert "coroutines closed" not in caplog.text
