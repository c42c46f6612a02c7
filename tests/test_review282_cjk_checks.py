"""Review 282 #1: the embedded model's made-up-value check and scripts written without spaces (Chinese, Japanese,
Thai...). A composed e-mail body counts as written text by its characters, and a value the user wrote in the middle
of such a sentence (北京 in 明天北京的天气) counts as found; English and Portuguese are judged as before."""

from __future__ import annotations

from toolwire.models._call_checks import (
    _unsure_where_said,
    context_numbers,
    context_words,
    in_context,
    made_up_value,
    written_text,
)


def _found(value: str, *texts: str) -> bool:
    return in_context(value, context_words(texts), context_numbers(texts))


def _email(question: str, body: str, subject: str) -> str | None:
    """The review's judge: a body the model composed, one token per 3 characters at p=0.8 (sure of each token,
    unsure of the whole)."""
    text = f'[send_email(to="li@example.com", subject="{subject}", body="{body}")]'
    a = text.index(body)
    b = a + len(body)
    return made_up_value(text, [(i, min(i + 3, b), 0.8) for i in range(a, b, 3)], [question], 0.3)


def _city(question: str, value: str, p: float = 0.2) -> str | None:
    text = f'[get_weather(city="{value}")]'
    a = text.index(value)
    return made_up_value(text, [(a, a + len(value), p)], [question], 0.3)


def test_a_composed_body_without_spaces_is_written_text():
    assert written_text("李先生，明天的会议改到下午三点，请准时参加。")
    assert written_text("李さん、明日の会議は午後3時に変更になりました。よろしくお願いします。")
    assert written_text("明日の会議は午後三時に変更になりました。よろしくお願いします。")
    assert written_text("การประชุมพรุ่งนี้เลื่อนเป็นบ่ายสามโมงครับขอบคุณครับ")
    assert written_text("会议改到下午三点，请准时参加。")  # 15 characters, as "The meeting moved to 3 pm, be on time."


def test_names_without_spaces_are_still_picked_values():
    for name in ("北京", "北京市朝阳区", "東京", "大阪府", "กรุงเทพมหานคร", "กรุงเทพ", "ヤンゴン"):
        assert not written_text(name), name


def test_english_and_portuguese_written_text_unchanged():
    assert written_text("The meeting tomorrow moved to 3pm, see you there.")
    assert written_text("A reunião de amanhã mudou para as 15h, até lá.")
    assert not written_text("New York City, NY") and not written_text("two words here")
    assert not written_text("São Paulo") and not written_text("Rio de Janeiro")


def test_a_value_inside_a_sentence_without_spaces_is_found():
    assert _found("北京", "明天北京的天气怎么样？")
    assert _found("大阪", "東京の天気と大阪の天気を比べて")
    assert _found("กรุงเทพ", "อากาศที่กรุงเทพวันนี้เป็นอย่างไร")
    assert _found("ＡＢＣ株式会社", "私はABC株式会社に勤めています")  # NFKC, as before
    assert not _found("上海", "明天北京的天气怎么样？")
    assert not _found("東京タワー", "東京の天気を教えて")
    assert not _found("เชียงใหม่", "อากาศที่กรุงเทพวันนี้เป็นอย่างไร")


def test_a_latin_word_right_after_such_a_script_starts_a_word():
    assert _found("iPhone", "我想买iPhone手机")
    assert _found("Osaka", "大阪はOsakaと書きます")
    assert not _found("Rome", "Jerome说你好")  # still from the start of a word


def test_words_put_together_anew_without_spaces():
    assert _found("東京 大阪 天気", "東京の天気と大阪の天気を比べて")
    assert _found("東京大阪天気", "東京の天気と大阪の天気を比べて")
    assert _found("北京天气", "明天北京的天气怎么样？")
    assert not _found("北京大学", "明天北京的天气怎么样？")
    assert not _found("東京都", "東京の天気を教えて")  # one character is not a word found


def test_english_in_context_unchanged():
    assert _found("Osaka", "What is the weather in Osaka?")
    assert not _found("Rome", "Jerome said hello")
    assert _found("in", "5 feet 10 inches") and _found("EUR", "in euros")
    assert _found("Copa do Mundo 2022", "a Copa do Mundo de 2022")
    assert not _found("pet_friendly", "a pet hotel, friendly staff")
    assert _found("São Paulo", "Qual é o clima em SÃO PAULO?")


def test_the_reviews_judge():
    assert _email("Send an email to li@example.com with subject 'Meeting' telling him that tomorrow's meeting moved "
                  "to 3 pm.", "Hi Li, tomorrow's meeting has moved to 3 pm. Please be on time.", "Meeting") is None
    assert _email("给 li@example.com 发一封邮件，主题是“会议”，告诉他明天的会议改到下午三点。",
                  "李先生，明天的会议改到下午三点，请准时参加。", "会议") is None
    assert _email("li@example.com に「会議」という件名でメールを送って、明日の会議が午後3時に変更になったと伝えて。",
                  "李さん、明日の会議は午後3時に変更になりました。よろしくお願いします。", "会議") is None
    assert _city("明天北京的天气怎么样？", "北京") is None
    assert _city("What is the weather in Beijing tomorrow?", "Beijing") is None
    # a value made up still is: the check keeps its point for these scripts
    assert _city("明天北京的天气怎么样？", "上海") == 'city="上海"'
    assert _city("What is the weather in Beijing tomorrow?", "Shanghai") == 'city="Shanghai"'


def test_prose_before_the_call_is_read_the_same_way():
    said = "好的，我查一下北京的天气。"
    a = said.index("北京")
    spans = [(0, a, 0.9), (a, a + 2, 0.1), (a + 2, len(said), 0.9)]
    assert _unsure_where_said("北京", said, spans, 0.3)
    assert not _unsure_where_said("北京", said, [(0, len(said), 0.9)], 0.3)
    english = "Let me check Beijing."
    b = english.index("Beijing")
    assert _unsure_where_said("Beijing", english, [(0, b, 0.9), (b, b + 7, 0.1)], 0.3)
    assert not _unsure_where_said("jing", english, [(0, b, 0.9), (b, len(english), 0.1)], 0.3)
    # as in made_up_value: the model wrote the city unsurely in its prose, then copied it surely
    call = '[get_weather(city="北京")]'
    c = call.index("北京")
    assert made_up_value(call, [(c, c + 2, 0.99)], ["明天首都的天气怎么样？"], 0.3, head=(said, spans)) == 'city="北京"'


def test_text_with_spaces_is_measured_as_before():
    from toolwire.models._unspaced import text_measure

    for text in ("", "  ", "New York City, NY", "A reunião de amanhã mudou", "a - b", "Ünïcödé wörds hère ok",
                 "서울의 날씨는 어때요", "Привет, как дела?"):
        assert text_measure(text) == (len(text), len(text.split())), text
    assert text_measure("李先生，明天的会议") == (5 * 2 + 1 + 5 * 3, 5)  # 李先生 and 明天的会议; "，" is no word
    assert text_measure("午後3時に") == (5 + 1 + 5, 3)


def test_korean_is_written_with_spaces_and_keeps_the_word_rule():
    assert _found("서울", "서울의 날씨는 어때요?")
    assert not _found("울", "서울의 날씨는 어때요?")
    assert not written_text("서울특별시 강남구")
