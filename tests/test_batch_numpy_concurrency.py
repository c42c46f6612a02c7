"""``batch``/``abatch`` take a NumPy integer for ``max_concurrency``, as ``ToolExecutor`` and ``Agent`` do (review
176 #4, its batch part); bools, floats and numbers below 1 stay refused."""

from __future__ import annotations

import asyncio

import pytest

from toolwire import tool
from toolwire.errors import UserError

np = pytest.importorskip("numpy")


@tool
def double(x: int) -> int:
    """Double a number."""
    return 2 * x


def test_batch_takes_a_numpy_integer() -> None:
    assert double.batch([{"x": 1}, {"x": 2}, {"x": 3}], max_concurrency=np.int64(2)) == [2, 4, 6]
    assert asyncio.run(double.abatch([{"x": 4}], max_concurrency=np.int32(1))) == [8]


@pytest.mark.parametrize("bad", [True, 2.0, 0, np.int64(0), "2"])
def test_batch_still_refuses_other_values(bad: object) -> None:
    with pytest.raises(UserError, match="max_concurrency must be a whole number"):
        double.batch([{"x": 1}], max_concurrency=bad)
