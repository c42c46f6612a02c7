"""Review 286 #6: in a script written without spaces (Chinese, Japanese, Thai...), a value shorter than a word by
``_unspaced.text_measure``'s own measure (one Han or kana character, fewer than four Thai letters) counts as said only
when it is a whole run of such letters in the conversation, not any substring of a longer word (天 is not said in
明天北京的天气, as "Rome" is not said in "Jerome"); a value a word long or more is found anywhere, as before."""

from __future__ import annotations

import pytest

from toolwire.models._call_checks import context_numbers, context_words, in_context


def _found(value: str, *texts: str) -> bool:
    return in_context(value, context_words(texts), context_numbers(texts))


@pytest.mark.parametrize(("text", "value"), [
    ("明天北京的天气怎么样？", "京"),
    ("明天北京的天气怎么样？", "北"),
    ("明天北京的天气怎么样？", "天"),
    ("我想去南京", "京"),
    ("東京の天気と大阪の天気を比べて", "京"),
    ("กรุงเทพมหานครอากาศเป็นอย่างไร", "เทพ"),
])
def test_shorter_than_a_word_inside_a_run_is_not_said(text: str, value: str) -> None:
    assert not _found(value, text)


@pytest.mark.parametrize(("text", "value"), [
    ("明天北京的天气怎么样？", "北京"),
    ("明天北京的天气怎么样？", "明天北京"),
    ("我要订两张去北京的票", "两张北京"),
    ("東京の天気と大阪の天気を比べて", "東京大阪天気"),
    ("กรุงเทพมหานครอากาศเป็นอย่างไร", "กรุงเทพ"),
    ("我想买iPhone手机", "iPhone"),
    ("ＡＢＣ株式会社の住所", "ABC株式会社"),
    ("天気☀️東京", "☀️"),
    # a whole run: one character on its own is said
    ("城市：京", "京"),
    ("选 A 或 天", "天"),
    ("Go to 京 now", "京"),
    ("room 京3", "京3"),
    # two words or more by text_measure (a run and a number): found as before
    ("我想去南京3号", "京3"),
    ("午後3時に会議", "午後3時"),
])
def test_a_word_or_a_whole_run_is_found(text: str, value: str) -> None:
    assert _found(value, text)


@pytest.mark.parametrize(("text", "value", "found"), [
    ("What is the weather in Jerome?", "Rome", False),
    ("Qual o tempo em São Paulo?", "Paulo", True),
    ("Qual o tempo em São Paulo?", "Rio de Janeiro", False),
    ("Convert 5 inches", "in", True),
    ("서울 날씨 알려줘", "서울", True),
    ("서울 날씨 알려줘", "울", False),
])
def test_spaced_scripts_as_before(text: str, value: str, found: bool) -> None:
    assert _found(value, text) is found
