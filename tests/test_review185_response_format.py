"""Review 185 #7: ``response_format=<pydantic class>`` on a hosted model's ``invoke``/``bind`` (or in
``model_kwargs``) is refused in one sentence that says to use ``with_structured_output``, not the OpenAI SDK's
TypeError pointing to ``chat.completions.parse()``."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from toolwire.errors import UserError


class Addr(BaseModel):
    street: str


def test_a_class_as_response_format_is_refused_in_one_sentence() -> None:
    from toolwire.models import ChatOpenAI

    model = ChatOpenAI("gpt-4o", api_key="sk-test", base_url="http://127.0.0.1:9/v1", max_retries=0)
    with pytest.raises(UserError, match=r"with_structured_output\(Addr\)"):
        model.invoke("x", response_format=Addr)
    with pytest.raises(UserError, match=r"with_structured_output\(Addr\)"):
        model.bind(response_format=Addr)
    with pytest.raises(UserError, match=r"with_structured_output\(Addr\)"):
        ChatOpenAI("gpt-4o", api_key="sk-test", model_kwargs={"response_format": Addr})
