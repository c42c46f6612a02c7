"""Review 170: the texts of errors and warnings people (and models) read."""

from __future__ import annotations

import pytest

from toolwire import tool
from toolwire.errors import SchemaError


@pytest.mark.parametrize("bad", [5, ["Adds."], {"text": "Adds."}])
def test_description_not_text_is_refused_when_the_tool_is_made(bad: object) -> None:
    """#2: @tool(description=5) was taken and sent to the provider as a JSON number."""

    def add(x: int) -> int:
        """Add."""
        return x

    with pytest.raises(SchemaError) as info:
        tool(description=bad)(add)
    name = type(bad).__name__
    assert str(info.value) == (f"The description of tool 'add' must be text, not {name}: pass description='...', "
                               "a sentence saying what the tool does.")
