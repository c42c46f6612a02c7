"""A tool returning langchain-core's {"type": "image", "source_type": "base64", ...} block, alone or in a list, sends
an image, as the same block in a ToolMessage's list does (review 233 #3)."""

from __future__ import annotations

import pytest

from toolwire.results import result_to_content

BLOCK = {"type": "image", "source_type": "base64", "data": "iVBORw0KGgo=", "mime_type": "image/png"}


@pytest.mark.parametrize("result", [BLOCK, [BLOCK]], ids=["alone", "in a list"])
def test_a_source_type_block_is_a_block(result: object) -> None:
    assert result_to_content(result) == [BLOCK]
