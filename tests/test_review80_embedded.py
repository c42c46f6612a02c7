"""Review 80: a new user's offline assistant on the embedded model (tools, Agent, structured output, CLI)."""

from __future__ import annotations

import pytest

from toolwire import Tool, tool
from toolwire.errors import SchemaError


@pytest.mark.parametrize("name", ["météo", "天气"])
def test_a_non_ascii_tool_name_is_refused_saying_ascii(name: str) -> None:
    # 'é' and '天' are letters, so "use 1 to 64 letters" told the user to do what they had done
    def f() -> str:
        """F."""
        return ""

    with pytest.raises(SchemaError, match="ASCII letters"):
        Tool.from_function(f, name=name)
    with pytest.raises(SchemaError, match="ASCII letters"):
        tool(name)(f)
