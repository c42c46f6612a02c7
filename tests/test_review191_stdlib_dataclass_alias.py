"""A stdlib dataclass default whose field has an alias is published under the key its schema names (review 191 #1)."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from pydantic import Field

from toolwire import tool


@dataclasses.dataclass
class Page:
    page_size: Annotated[int, Field(alias="pageSize")] = 10
    label: str = "all"


@tool
def list_items(page: Page = Page(page_size=3)) -> str:  # noqa: B008
    """List items."""
    return repr(page)


def test_the_default_is_published_under_the_alias_and_validates_when_sent_back() -> None:
    schema = list_items.spec.parameters["properties"]["page"]
    assert set(schema["properties"]) == {"pageSize", "label"}
    assert schema["default"] == {"pageSize": 3, "label": "all"}
    assert list_items.invoke({"page": schema["default"]}) == "Page(page_size=3, label='all')"
    assert list_items.invoke({}) == "Page(page_size=3, label='all')"
