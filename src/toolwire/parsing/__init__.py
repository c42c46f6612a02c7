"""Reading tool calls: argument normalisation, text dialects, and streamed partial JSON.

* :func:`normalize_arguments` / :func:`tool_call_from_native` / :func:`unwrap_call`: arguments and calls
  as providers send them natively (``arguments.py``).
* :func:`parse_tool_calls` and one parser per dialect (:func:`parse_hermes`, :func:`parse_json`,
  :func:`parse_mistral`, :func:`parse_pythonic`, :func:`parse_function_tags`): calls written into a text
  reply (``dialects.py``).
* :class:`PartialJSONParser`: argument JSON that arrives in fragments (``partial_json.py``).
"""

from toolwire.parsing._calls import ParsedReply
from toolwire.parsing.arguments import normalize_arguments, tool_call_from_native, unwrap_call
from toolwire.parsing.dialects import DIALECTS, parse_tool_calls
from toolwire.parsing.function_tags import parse_function_tags
from toolwire.parsing.hermes import parse_hermes
from toolwire.parsing.llama import parse_json
from toolwire.parsing.mistral import parse_mistral
from toolwire.parsing.partial_json import PartialJSONParser
from toolwire.parsing.pythonic import parse_pythonic

__all__ = [
    "DIALECTS",
    "ParsedReply",
    "PartialJSONParser",
    "normalize_arguments",
    "parse_function_tags",
    "parse_hermes",
    "parse_json",
    "parse_mistral",
    "parse_pythonic",
    "parse_tool_calls",
    "tool_call_from_native",
    "unwrap_call",
]
