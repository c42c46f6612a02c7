"""``@tool`` on a method another decorator wraps binds to the instance or class, as on a plain method
(review 175 #1).

A ``functools.wraps`` retry's ``wrapper(*args, **kwargs)`` has no ``self`` of its own and an ``lru_cache`` object is
no function, so the tool was never bound: the schema (which unwraps) left ``self`` out, and every call failed with
"missing 1 required positional argument: 'self'".
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

import pytest

from toolwire import ToolExecutor, tool
from toolwire.errors import UserError
from toolwire.messages import AIMessage


def retry(f: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for attempt in range(3):
            try:
                return f(*args, **kwargs)
            except ConnectionError:
                if attempt == 2:
                    raise
        return None

    return wrapper


def aretry(f: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(f)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        return await f(*args, **kwargs)

    return wrapper


class Weather:
    def __init__(self, units: str) -> None:
        self.units = units

    def __hash__(self) -> int:
        return hash(self.units)

    @tool
    @retry
    def forecast(self, city: str) -> str:
        """Get the forecast.

        Args:
            city: the city
        """
        return f"Sunny in {city} ({self.units})"

    @tool
    @functools.lru_cache(maxsize=32)  # noqa: B019  (what users write; the test's instances are few)
    def lookup(self, city: str) -> str:
        """Look a city up.

        Args:
            city: the city
        """
        return f"{city}: found ({self.units})"

    @tool
    @aretry
    async def aforecast(self, city: str) -> str:
        """Get the forecast, async.

        Args:
            city: the city
        """
        return f"Rain in {city} ({self.units})"

    @tool
    @classmethod
    @retry
    def make(cls, units: str) -> str:
        """Make a station.

        Args:
            units: the units
        """
        return f"{cls.__name__}({units})"

    @tool
    @staticmethod
    @retry
    def convert(celsius: float) -> float:
        """Celsius to Fahrenheit.

        Args:
            celsius: degrees
        """
        return celsius * 9 / 5 + 32


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": "c1", "type": "tool_call"}


@pytest.mark.parametrize(("name", "answer"), [("forecast", "Sunny in Oslo (metric)"),
                                              ("lookup", "Oslo: found (metric)"),
                                              ("aforecast", "Rain in Oslo (metric)")])
def test_wrapped_method_read_from_an_instance_is_bound(name: str, answer: str) -> None:
    bound = getattr(Weather("metric"), name)
    assert list(bound.parameters["properties"]) == ["city"]
    assert bound.invoke(_call(name, city="Oslo")).content == answer
    assert bound.invoke({"city": "Oslo"}) == answer
    assert asyncio.run(bound.ainvoke({"city": "Oslo"})) == answer
    reply = AIMessage(content="", tool_calls=[_call(name, city="Oslo")])
    assert ToolExecutor([bound]).execute(reply)[0].content == answer
    assert asyncio.run(ToolExecutor([bound]).aexecute(reply))[0].content == answer
    assert ToolExecutor([bound], timeout=5).execute(reply)[0].content == answer


def test_the_wrapper_is_what_runs() -> None:
    calls: list[str] = []

    def counted(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls.append("wrapper")
            return f(*args, **kwargs)

        return wrapper

    class Svc:
        @tool
        @counted
        def ping(self, n: int) -> int:
            """Ping.

            Args:
                n: a number
            """
            return n + 1

    assert Svc().ping.invoke({"n": 1}) == 2 and calls == ["wrapper"]


def test_wrapped_classmethod_is_bound_to_the_class() -> None:
    for owner in (Weather, Weather("metric")):
        assert list(owner.make.parameters["properties"]) == ["units"]
        assert owner.make.invoke({"units": "SI"}) == "Weather(SI)"
        assert owner.make.invoke(_call("make", units="SI")).content == "Weather(SI)"


def test_wrapped_staticmethod_is_not_bound() -> None:
    assert Weather.convert.invoke({"celsius": 100}) == 212
    assert Weather("metric").convert.invoke({"celsius": 0}) == 32


@pytest.mark.parametrize("name", ["forecast", "lookup", "aforecast"])
def test_read_from_the_class_it_is_refused_as_a_plain_method_is(name: str) -> None:
    class Plain:
        @tool
        def forecast(self, city: str) -> str:
            """Get the forecast.

            Args:
                city: the city
            """
            return city

    with pytest.raises(UserError) as plain:
        ToolExecutor([Plain.forecast])
    with pytest.raises(UserError) as wrapped:
        ToolExecutor([getattr(Weather, name)])
    assert str(wrapped.value).replace(name, "forecast").replace("Weather", "Plain") == str(plain.value)
    with pytest.raises(UserError, match="method"):
        getattr(Weather, name).invoke({"city": "Oslo"})


def test_a_wrapped_bound_method_is_not_bound_again() -> None:
    station = Weather("imperial")
    made = tool(retry(station.forecast.func))  # (a bound method under a wraps wrapper)
    assert made.invoke({"city": "Oslo"}) == "Sunny in Oslo (imperial)"
