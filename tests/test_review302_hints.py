"""Review 302 #2: a 400's hint says "the message above says which field" only when the message names one (a quoted
name, a dotted or indexed path, ``(field: x)``, a ``name:`` location); the bare words argument, parameter, id or key
name no field (Gemini's "Request contains an invalid argument.", its most common INVALID_ARGUMENT text)."""

from __future__ import annotations

import pytest

from _queued_http import serving
from toolwire.errors import ProviderError
from toolwire.models._status_hints import names_field, status_hint

NO_FIELD = [
    "Request contains an invalid argument.", "Invalid request id", "Bad request: invalid parameters.",
    "Missing required parameter.", "Invalid argument.", "Invalid key.", "Field required", "Cannot find field.",
    "Invalid value: 'xhigh'. Supported values are: 'low', 'medium', and 'high'.",
    "Model gpt-4.1 is not available on api.example.com for this key.",
]

A_FIELD = [
    "Unknown parameter: 'foo'.", "Unrecognized request argument supplied: foo",
    "Unsupported parameter: 'temperature' is not supported with this model.",
    "Invalid 'input[0].id': 'rs_1'. Expected an ID that begins with 'msg'.",
    "Invalid value: 'xhigh'. (field: reasoning.effort)", "messages.0.content: Field required",
    "* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[x].enum: only allowed",
    "Invalid JSON payload received. Unknown name \"foo\" at 'generation_config': Cannot find field.",
    "`max_tokens` must be greater than `thinking.budget_tokens`.",
    "json: cannot unmarshal string into Go struct field ChatRequest.messages of type []api.Message",
    "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
    "The GenerateContentRequest proto is invalid: * contents: contents is not specified",
    "Tool call id was abc but must be a-z, A-Z, 0-9, with a length of 9.",
    "Invalid value for messages[2].role.",
]


@pytest.mark.parametrize("message", NO_FIELD)
def test_a_message_that_names_no_field_gets_the_request_hint(message: str) -> None:
    assert not names_field(message)
    hint = status_hint(400, "", message) or ""
    assert "says which field" not in hint and "check the options, tools and messages" in hint


@pytest.mark.parametrize("message", A_FIELD)
def test_a_message_that_names_a_field_keeps_the_field_hint(message: str) -> None:
    assert names_field(message)
    assert "says which field" in (status_hint(400, "", message) or "")


def test_geminis_generic_invalid_argument_gets_the_request_hint() -> None:
    from toolwire.models import ChatGoogleGenAI

    body = {"error": {"code": 400, "message": "Request contains an invalid argument.", "status": "INVALID_ARGUMENT"}}
    with serving("") as server:
        server.queue.append((400, body))
        model = ChatGoogleGenAI("gemini-2.5-flash", api_key="AIza-test-0123456789", base_url=server.url,
                                max_retries=0)
        with pytest.raises(ProviderError) as failed:
            model.invoke("hi")
    assert failed.value.status == 400
    assert "says which field" not in str(failed.value)
    assert "check the options, tools and messages sent" in (failed.value.hint or "")


@pytest.mark.parametrize("message", ["Invalid argument provided to the model.", "Field required for this request.",
                                     "The parameter value is out of range."])
def test_a_plain_word_after_argument_or_field_names_no_field(message: str) -> None:
    assert not names_field(message)


@pytest.mark.parametrize("message", ["Unknown field max_tokens in the request.", "Invalid parameter functionCall.",
                                     "parameter: temperature is too high"])
def test_an_identifier_after_parameter_or_field_names_it(message: str) -> None:
    assert names_field(message)
