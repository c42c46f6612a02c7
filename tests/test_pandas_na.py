"""pandas' missing value ``pd.NA`` in a tool result is written as JSON null, as pandas' own ``to_json`` writes it
(it was the text ``"<NA>"``): alone, in a list, in a dict and in a nullable-integer Series."""

from __future__ import annotations

import pytest

from toolwire import ToolExecutor, tool

pd = pytest.importorskip("pandas")


def test_pd_na_is_null_wherever_it_is() -> None:
    def rows() -> dict:
        """Rows."""
        return {"a": pd.NA, "l": [pd.NA, 1], "s": pd.Series([1, pd.NA], dtype="Int64")}

    message = ToolExecutor([tool(rows)]).execute([{"name": "rows", "args": {}, "id": "c1"}])[0]
    assert message.content == '{"a": null, "l": [null, 1], "s": [1, null]}'


def test_pd_na_alone_is_null() -> None:
    def missing() -> object:
        """Nothing known."""
        return pd.NA

    message = ToolExecutor([tool(missing)]).execute([{"name": "missing", "args": {}, "id": "c1"}])[0]
    assert (message.status, message.content) == ("success", "null")
