"""Review 90 (a real llama-cpp-python server driven through ChatOpenAI): hints that sent users the wrong way."""

from __future__ import annotations

import socket

import pytest

from toolwire.errors import ProviderError

from .conftest import build_model
from .scripted_http import Answer, ScriptedServer


def _error(status: int, compatible: bool) -> ProviderError:
    with ScriptedServer() as server:
        server.push(*[Answer(status=status, body={"detail": "Not Found" if status == 404 else "boom"})] * 4)
        with pytest.raises(ProviderError) as caught:
            build_model("openai-chat", server.url, compatible=compatible).invoke("hi")
    return caught.value


def test_a_compatible_servers_404_and_500_point_at_the_url_and_the_servers_log() -> None:
    missing = _error(404, compatible=True)
    assert "/v1" in (missing.hint or "") and "base_url (http://127.0.0.1:" in (missing.hint or "")
    failed = _error(500, compatible=True)
    assert "its log says why" in (failed.hint or "") and "try again later" not in str(failed)  # (was: try later)
    assert _error(404, compatible=False).hint == "Check the model name (and base_url)."  # OpenAI's own: unchanged


def test_a_refused_connection_does_not_advise_a_longer_timeout() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the block ends: nothing listens there
    with pytest.raises(ProviderError) as caught:
        build_model("openai-chat", f"http://127.0.0.1:{port}", compatible=True).invoke("hi")
    assert "Could not connect" in str(caught.value)
    assert "timeout" not in (caught.value.hint or "") and "is running, then try again" in (caught.value.hint or "")


def test_tool_choice_errors_name_the_unbound_tool_or_the_close_match() -> None:
    from toolwire import tool
    from toolwire.errors import UserError
    from toolwire.testing import ScriptedChatModel

    @tool
    def Get_Weather(city: str) -> str:  # (a tool name in two cases)
        """Weather."""
        return city

    model = ScriptedChatModel(["ok"])
    with pytest.raises(UserError, match=r"names the tool 'nope', which is not bound \(Get_Weather\)"):
        model.bind_tools([Get_Weather], tool_choice={"type": "function", "function": {"name": "nope"}})
    with pytest.raises(UserError, match=r"did you mean 'required'\?$"):
        model.bind_tools([Get_Weather], tool_choice="Required")
    with pytest.raises(UserError, match=r"did you mean 'Get_Weather'\?$"):
        model.bind_tools([Get_Weather], tool_choice="get_wether")
