"""Review 124 (tool argument schemas): an aliased parameter's strict-mode null and default, a plain union of models
after its nulls are dropped, discriminated unions whose tags have defaults, nested models with a before/wrap
validator, and the docstrings of nested models."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from toolwire import tool
from toolwire.errors import ToolValidationError

# -- #2: an aliased parameter with a default: OpenAI strict mode's null is dropped, the default is published -------

class _TripArgs(BaseModel):
    from_: str = Field(alias="from", description="where the trip starts")
    limit_: int = Field(10, alias="limit", description="how many results")


def test_an_aliased_parameter_with_a_default_drops_a_strict_mode_null_and_publishes_its_default() -> None:
    @tool
    def trips(from_: Annotated[str, Field(alias="from")], limit_: Annotated[int, Field(alias="limit")] = 10) -> str:
        """Find trips.

        Args:
            from_: where the trip starts
            limit_: how many results
        """
        return f"{limit_} trips from {from_}"

    assert trips.parameters["properties"]["limit"]["default"] == 10
    assert trips.invoke({"from": "Lisbon", "limit": None}) == "10 trips from Lisbon"
    assert trips.invoke({"from": "Lisbon", "limit": 3}) == "3 trips from Lisbon"
    with pytest.raises(ToolValidationError):
        trips.invoke({"from": None, "limit": 3})  # (a required parameter's null is still an error)


def test_an_args_schema_field_with_an_alias_and_a_default_drops_a_strict_mode_null() -> None:
    @tool(args_schema=_TripArgs)
    def trips(from_: str, limit_: int = 10) -> str:
        """Find trips."""
        return f"{limit_} trips from {from_}"

    assert trips.invoke({"from": "Lisbon", "limit": None}) == "10 trips from Lisbon"
