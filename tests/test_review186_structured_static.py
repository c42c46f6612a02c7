"""Review 186 #3: ``StructuredTool.from_function(func=..., coroutine=...)`` given a class's staticmethods (as the class
body holds them, or read from the class) pickles (the coroutine was kept as the ``staticmethod`` object), and is made
again as a staticmethod's tool: its first parameter named ``cls`` stays an argument (``__reduce_ex__`` dropped the
flag)."""

from __future__ import annotations

import asyncio
import pickle

from toolwire import StructuredTool
from toolwire._structured_tool import _remade
from toolwire.tools import Tool


class K:
    @staticmethod
    def run(cls: str) -> str:
        """Echo a label."""
        return f"sync {cls}"

    @staticmethod
    async def arun(cls: str) -> str:
        """Echo a label."""
        return f"async {cls}"


def _props(made: Tool) -> list[str]:
    return list(made.parameters.get("properties") or {})


def test_sync_and_async_staticmethods_pickle_and_stay_static() -> None:
    for made in (StructuredTool.from_function(func=K.__dict__["run"], coroutine=K.__dict__["arun"], name="label"),
                 StructuredTool.from_function(func=K.run, coroutine=K.arun)):
        assert _props(made) == ["cls"]
        assert asyncio.run(made.ainvoke({"cls": "x"})) == "async x"
        again = pickle.loads(pickle.dumps(made))
        assert _props(again) == ["cls"]
        assert again.invoke({"cls": "x"}) == "sync x" and asyncio.run(again.ainvoke({"cls": "x"})) == "async x"
        rebuild, args = made.__reduce_ex__(4)
        assert rebuild is _remade and args[-1] is True


def test_the_static_flag_alone_rebuilds_a_staticmethod_tool() -> None:
    def run(cls: str) -> str:  # (a function the class lookup and source reading cannot call a staticmethod's)
        """Echo."""
        return f"sync {cls}"

    async def arun(cls: str) -> str:
        """Echo."""
        return f"async {cls}"

    run.__qualname__, arun.__qualname__ = "Nowhere.run", "Nowhere.arun"
    options = {"timeout": None, "handle_errors": True, "hide_error_details": False}
    remade = _remade(run, arun, "label", "Echo.", False, None, "content", False, options, True)
    assert _props(remade) == ["cls"] and asyncio.run(remade.ainvoke({"cls": "x"})) == "async x"
    assert _props(_remade(run, arun, "label", "Echo.", False, None, "content", False, options)) == []
