"""Review 110: how ``models/_fit.py`` cuts long tool results so that a local model's prompt fits its context.

1. (high) Results far longer than the window were cut to the 200-character floor although most of the room stayed
   unused (n_ctx=4096: five 20,000-character results shown as 285 characters each, 968 of 3584 tokens used): the
   cut must be (close to) the largest that fits, with few calls of ``measure``.
2. (low) A result the executor had already cut, cut again, told the model "17249 of 20089 characters cut": the
   marker must count against the result's original size, and not stack a second marker.
3. (low) A huge result (5,000,000 characters) was tokenized whole again before being cut: ``measure`` now sees
   only cut results.

Every test uses a fake ``measure`` (the prompt's length in tokens), as the real model's render and tokenizer would.
"""

from __future__ import annotations

import re

import pytest

from toolwire import AIMessage, HumanMessage, ToolMessage
from toolwire.messages import tool_call
from toolwire.models._fit import fit_tool_results, floor_size
from toolwire.results import bounded_content, truncate_content

_ROW = "Row %d: order shipped to warehouse B, status OK, amount 12.50 EUR. "
_PIECE = re.compile(r" ?[A-Za-z]+| ?\d|[^\w\s]|\s")  # a BPE-like tokenizer: words with their space, digits alone


class Measure:
    """A model's prompt length: 150 tokens of system prompt and tools, 6 a message, its text cut into word pieces
    (about 3 characters a token for the rows above). Counts its calls and the longest text it was given."""

    def __init__(self, per_char: float | None = None) -> None:
        self.per_char = per_char  # tokens a character, instead of the word pieces (for huge texts)
        self.calls = 0
        self.longest = 0

    def tokens(self, text: str) -> int:
        if self.per_char is not None:
            return int(len(text) * self.per_char + 0.999)
        return len(_PIECE.findall(text))

    def __call__(self, messages: list) -> int:
        self.calls += 1
        self.longest = max([self.longest, *(len(m.text) for m in messages)])
        return 150 + sum(6 + self.tokens(m.text) for m in messages)


def _conversation(results: int, size: int) -> list:
    text = "".join(_ROW % i for i in range(2000))
    messages: list = [HumanMessage("Summarise the pages")]
    for k in range(results):
        messages.append(AIMessage("", tool_calls=[tool_call("fetch", {"page": k}, f"c{k}")]))
        messages.append(ToolMessage(text[:size], tool_call_id=f"c{k}"))
    return messages


def _kept(message: ToolMessage) -> int:
    """The characters of the result a cut message still shows (its text before the marker)."""
    return len(message.text.split("\n[... ")[0])


# -- 1: the results are cut as little as the room allows ------------------------------------------------------


@pytest.mark.parametrize(("n_ctx", "results", "size"), [
    (2048, 1, 20_000), (2048, 1, 60_000), (2048, 3, 20_000), (4096, 1, 60_000), (4096, 3, 20_000),
    (4096, 5, 20_000), (4096, 10, 20_000), (8192, 5, 20_000),
])
def test_the_results_are_cut_to_the_largest_length_that_fits(n_ctx: int, results: int, size: int) -> None:
    # review 110: at n_ctx=4096 five 20,000-character results were shown as 285 characters each, 968 of the 3584
    # tokens used; one 60,000-character result at n_ctx=2048 was cut to 285 characters with 1677 tokens free
    messages = _conversation(results, size)
    limit = n_ctx - min(512, n_ctx // 4)
    measure = Measure()
    fitted = fit_tool_results(messages, measure, limit)
    assert fitted is not None
    shown, cut = fitted
    used = Measure()(shown)
    floor = floor_size(messages, Measure())
    assert floor is not None
    assert used <= limit
    assert limit - used <= 0.03 * (limit - floor) + 6 * results, (used, limit, floor)  # the room is used
    assert measure.calls <= 8  # (each call renders and tokenizes the whole prompt: _fit._MEASURES)
    kept = {_kept(m) for m in shown if isinstance(m, ToolMessage)}
    assert len(kept) == 1 and cut == results  # every result cut to the same length
    assert kept.pop() > 900


def test_the_longest_results_are_cut_to_a_common_length_and_short_ones_stay_whole() -> None:
    measure = Measure()
    messages = _conversation(2, 20_000)
    messages[2] = ToolMessage(messages[2].text[:900], tool_call_id="c0")  # a short result
    messages.append(AIMessage("", tool_calls=[tool_call("fetch", {"page": 9}, "c9")]))
    messages.append(ToolMessage(messages[4].text[:3_000], tool_call_id="c9"))
    fitted = fit_tool_results(messages, measure, 2048 - 512)
    assert fitted is not None
    shown, cut = fitted
    assert shown[2] is messages[2]  # whole
    assert cut == 2 and _kept(shown[4]) == _kept(shown[6]) > 1_500
    assert shown[6].text.endswith(f"{3_000 - _kept(shown[6])} of 3000 characters cut; ask for a narrower result ...]")
    assert 2048 - 512 - Measure()(shown) < 60


@pytest.mark.parametrize("per_char", [0.3, 0.9, 1.6])  # English prose, hex text, CJK text
def test_the_room_is_used_whatever_the_characters_a_token(per_char: float) -> None:
    messages = _conversation(3, 20_000)
    measure = Measure(per_char)
    limit = 3584
    fitted = fit_tool_results(messages, measure, limit)
    assert fitted is not None
    used = Measure(per_char)(fitted[0])
    floor = floor_size(messages, Measure(per_char))
    assert floor is not None and used <= limit
    assert limit - used <= 0.03 * (limit - floor) + 20, (used, floor)
    assert measure.calls <= 8


def test_the_same_messages_and_budget_give_the_same_cut() -> None:
    # (a prompt that stays the same keeps the model's cache of it)
    messages = _conversation(4, 20_000)
    first = fit_tool_results(messages, Measure(), 3000)
    again = fit_tool_results(messages, Measure(), 3000)
    assert first is not None and again is not None
    assert [m.text for m in first[0]] == [m.text for m in again[0]]


def test_a_conversation_that_fits_whole_is_returned_whole() -> None:
    messages = _conversation(2, 2_000)
    fitted = fit_tool_results(messages, Measure(), 10_000)
    assert fitted is not None
    shown, cut = fitted
    assert cut == 0 and [m.text for m in shown] == [m.text for m in messages]


def test_none_when_even_the_floor_does_not_fit() -> None:
    messages = _conversation(5, 20_000)
    floor = floor_size(messages, Measure())
    assert floor is not None
    assert fit_tool_results(messages, Measure(), floor - 1) is None
    fitted = fit_tool_results(messages, Measure(), floor)
    assert fitted is not None and Measure()(fitted[0]) <= floor
    assert fit_tool_results([HumanMessage("Hi.")], Measure(), 1) is None  # no result to cut


# -- 2: a result cut twice keeps its original size in the marker ------------------------------------------------


def _fit_one(content: object, limit: int = 1_500) -> str:
    messages = [HumanMessage("q"), AIMessage("", tool_calls=[tool_call("t", {}, "c1")]),
                ToolMessage(content, tool_call_id="c1")]
    fitted = fit_tool_results(messages, Measure(1 / 3), limit)
    assert fitted is not None and fitted[1] == 1
    return fitted[0][2].text


def test_a_result_cut_again_counts_its_cut_against_the_original_size() -> None:
    # review 110: "17249 of 20089 characters cut" for a result of 5,000,000 characters cut twice
    text = _fit_one(truncate_content("x" * 5_000_000, 20_000))
    assert text.count("[... result truncated") == 1
    kept = _kept(ToolMessage(text, tool_call_id="c1"))
    assert text.endswith(f"\n[... result truncated: {5_000_000 - kept} of 5000000 characters cut; ask for a "
                         "narrower result ...]")
    assert text.startswith("x" * kept + "\n[")


def test_a_bounded_result_cut_again_says_of_more_than_how_many() -> None:
    content = bounded_content(list(range(100_000)), 20_000)
    assert "of more than" in content
    text = _fit_one(content)
    kept = _kept(ToolMessage(text, tool_call_id="c1"))
    total = re.search(r"of more than (\d+);", content).group(1)  # type: ignore[union-attr]
    assert text.count("[... result truncated") == 1
    assert text.endswith(f"\n[... result truncated: its first {kept} characters kept, of more than {total}; ask for "
                         "a narrower result ...]")
    assert text[:kept] == content[:kept]


def test_an_error_result_cut_again_counts_against_its_original_size() -> None:
    messages = [HumanMessage("q"), AIMessage("", tool_calls=[tool_call("t", {}, "c1")]),
                ToolMessage(truncate_content("Error: " + "e" * 99_993, 20_000, error=True), tool_call_id="c1",
                            status="error")]
    fitted = fit_tool_results(messages, Measure(1 / 3), 1_500)
    assert fitted is not None
    text = fitted[0][2].text
    assert text.count("truncated") == 1 and text.startswith("Error: ")
    assert re.search(r"\n\[\.\.\. error text truncated: \d+ of 100000 characters cut \.\.\.\]\Z", text)


def test_a_block_result_cut_again_counts_against_its_original_size() -> None:
    blocks = truncate_content([{"type": "text", "text": "a" * 30_000}, {"type": "image", "url": "u"},
                               {"type": "text", "text": "b" * 30_000}], 40_000)
    messages = [HumanMessage("q"), AIMessage("", tool_calls=[tool_call("t", {}, "c1")]),
                ToolMessage(blocks, tool_call_id="c1")]
    fitted = fit_tool_results(messages, Measure(1 / 3), 1_500)
    assert fitted is not None
    text = fitted[0][2].text
    assert text.count("truncated") == 1 and text.endswith(" of 60000 characters cut; ask for a narrower result ...]")
    assert {"type": "image", "url": "u"} in fitted[0][2].content


def test_floor_size_cuts_a_result_cut_before_as_fit_tool_results_does() -> None:
    messages = [HumanMessage("q"), AIMessage("", tool_calls=[tool_call("t", {}, "c1")]),
                ToolMessage(truncate_content("x" * 5_000_000, 20_000), tool_call_id="c1")]
    seen: list = []

    def measure(shown: list) -> int:
        seen.append(shown[2].text)
        return len(shown[2].text)

    assert floor_size(messages, measure) == len(seen[0])
    assert seen[0].count("truncated") == 1 and "of 5000000 characters cut" in seen[0]


# -- 3: a huge result is measured cut, never whole -------------------------------------------------------------


def test_a_huge_result_is_never_measured_whole() -> None:
    # review 110: a 5,000,000-character ToolMessage was tokenized whole again (7 tokenizer calls over 10 MB)
    messages = _conversation(1, 0)
    messages[2] = ToolMessage("ERROR disk full at sector 12345; " * 150_000, tool_call_id="c0")
    measure = Measure(1 / 3)
    fitted = fit_tool_results(messages, measure, 2048 - 512)
    assert fitted is not None and fitted[1] == 1
    assert measure.longest < 10_000  # only cut text was measured
    assert measure.calls <= 8
    assert 2048 - 512 - Measure(1 / 3)(fitted[0]) < 40
