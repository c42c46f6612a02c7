"""Text of scripts written without spaces between words, for the value checks of
:mod:`toolwire.models._call_checks` (review 282 #1).

Chinese, Japanese, Thai, Lao, Khmer, Myanmar and a few other scripts do not part words with spaces: a sentence is one
run of letters. The checks count words by spaces and find a value "from the start of a word", which in such a run
is any character, so here:

* a run of such letters counts as words by its letters: two make a word in the ideographic and syllabic scripts
  (Han, Hiragana, Katakana, Bopomofo, Yi: a Chinese word is about 1.7 characters), four in the others (Thai, Lao,
  Khmer, Myanmar, Tibetan, Tai scripts, Javanese, Balinese: vowel and tone marks, which are combining characters,
  aside), and each such word as five characters (an English word with its space), so that a value is measured as
  the same value written in English would be (:func:`text_measure`);
* a value that starts with such a letter is found anywhere in the conversation (:func:`word_start`), and a letter of
  such a script before a value in another script starts a word ("iPhone" in 我想买iPhone手机); but a value shorter
  than a word (one Han or kana character, fewer than four Thai letters) only as a whole run (:func:`whole_run`:
  天 is not said in 明天北京的天气, as "Rome" is not in "Jerome"; review 286 #6);
* a value put together anew from the conversation's words (東京大阪天気 from 東京の天気と大阪の天気を比べて) is found
  when its runs are made of pieces the conversation holds, each at least a word long (:func:`pieces_found`).

Text without such letters is measured and matched exactly as before (spaces and ``\\w``).
"""

from __future__ import annotations

import math
import re
import unicodedata

__all__ = ["UNSPACED", "has_unspaced", "pieces_found", "text_measure", "whole_run", "word_start"]

# letters (and the few marks that go inside words) of the ideographic and syllabic scripts: the iteration marks
# 々〆〇, Hangzhou numerals, Hiragana, Katakana (its middle dot ・, which parts foreign names, left out), Bopomofo, CJK
# ideographs and their extensions and compatibility forms, Yi, half-width Katakana, the Kana supplements
_IDEOGRAPHIC = ("\u3005-\u3007\u3021-\u3029\u3038-\u303b\u3041-\u3096\u3099-\u309f\u30a1-\u30fa\u30fc-\u30ff"
                "\u3105-\u312f\u31a0-\u31bf\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua48f\uf900-\ufaff"
                "\uff66-\uff9f\U0001b000-\U0001b16f\U00020000-\U000323af")
# the blocks of the alphabetic scripts written without spaces: Thai, Lao, Tibetan, Myanmar (and its extensions),
# Khmer (and its symbols), Tai Le, New Tai Lue, Tai Tham, Balinese, Javanese, Tai Viet
_ALPHABETIC = ("\u0e00-\u0e7f\u0e80-\u0eff\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\u1950-\u19ff\u1a20-\u1aaf"
               "\u1b00-\u1b7f\ua980-\ua9ff\uaa60-\uaadf")
UNSPACED = _IDEOGRAPHIC + _ALPHABETIC
"""The characters of scripts written without spaces, as the inside of a regular expression's ``[...]``."""

_RUNS = re.compile(f"[{UNSPACED}]+")
_ONE = re.compile(f"[{UNSPACED}]")
_ALPHABETIC_ONE = re.compile(f"[{_ALPHABETIC}]")
_LETTERS_PER_WORD = (2, 4)  # ideographic and syllabic; alphabetic
_WORD_CHARS = 5  # what a word of such a script counts for among characters: an English word and its space
_MAX_PIECE = 4  # words: the longest piece pieces_found looks up at once (a longer one is found as shorter ones)
_WORDLIKE = re.compile(r"\w")


def has_unspaced(text: str) -> bool:
    """Whether ``text`` holds a character of a script written without spaces (:data:`UNSPACED`)."""
    return not text.isascii() and _ONE.search(text) is not None


def _least(run: str) -> int:
    """The letters of a word of the run's script: 4 when it starts with a letter of an alphabetic script, else 2."""
    return _LETTERS_PER_WORD[_ALPHABETIC_ONE.match(run) is not None]


def _words(run: str) -> int:
    """The words a run counts for: its letters (combining marks aside) per word of their script, rounded up."""
    weight = sum(1 / _LETTERS_PER_WORD[_ALPHABETIC_ONE.match(c) is not None] for c in run
                 if not unicodedata.category(c).startswith("M"))
    return max(1, math.ceil(round(weight, 6)))


def text_measure(text: str) -> tuple[int, int]:
    """``(characters, words)`` of ``text`` as the same text written with spaces would count.

    Args:
        text: any string.

    Returns:
        ``(len(text), len(text.split()))`` for text without letters of scripts written without spaces; else each
        run of such letters counts as ``ceil(letters / 2)`` words (Han, Kana...; ``ceil(letters / 4)`` for Thai,
        Lao, Khmer, Myanmar..., combining marks aside) of five characters each, and the rest as before, a
        space-separated piece counting as a word when it holds a letter or digit (``"，"`` between two runs is none).
    """
    runs = list(_RUNS.finditer(text)) if has_unspaced(text) else []
    if not runs:
        return len(text), len(text.split())
    run_words = sum(_words(m.group()) for m in runs)
    rest = _RUNS.sub(" ", text)
    characters = len(text) - sum(len(m.group()) for m in runs) + _WORD_CHARS * run_words
    return characters, run_words + sum(1 for piece in rest.split() if _WORDLIKE.search(piece))


def word_start(first: str, underscore: bool = True) -> str:
    """The look-behind to put before a value that starts with the character ``first`` for it to be found from the
    start of a word: ``""`` when ``first`` is a letter of a script written without spaces (any place is one) or not a
    letter, digit or ``_``; else "not after a letter or digit of a script written with spaces" (``_`` counts as
    one of them when ``underscore`` is true, else as a space).

    Args:
        first: one character.
        underscore: whether ``_`` before the value is part of the word (``in_context``) or a space
            (``_unsure_where_said``).

    Returns:
        A regular expression (no groups): for text without letters of scripts written without spaces it matches
        where ``(?<!\\w)`` (``(?<![^\\W_])`` when ``underscore`` is false) does.
    """
    if _ONE.match(first) or not (first.isalnum() or first == "_"):
        return ""
    return rf"(?<![^\W{UNSPACED}])" if underscore else rf"(?<![^\W_{UNSPACED}])"


def whole_run(value: str) -> tuple[str, str]:
    """The look-behind and look-ahead to put around ``value`` when it is one run of letters of a script written
    without spaces shorter than a word (:func:`text_measure`'s word: two Han or kana characters, four Thai, Lao...
    letters, combining marks aside), so that it is found only as a whole run of such letters (京 in "城市：京", not in
    "南京"); ``("", "")`` for any other value.

    Args:
        value: a value, normalised as the conversation's text is.

    Returns:
        ``(behind, ahead)``: two regular expressions without groups, both empty or both "no such letter there".
    """
    if not has_unspaced(value) or _RUNS.fullmatch(value) is None:
        return "", ""
    letters = sum(1 for c in value if not unicodedata.category(c).startswith("M"))
    if letters >= _least(value):
        return "", ""
    return f"(?<![{UNSPACED}])", f"(?![{UNSPACED}])"


def _covered(run: str, words: str, least: int, most: int) -> bool:
    """Whether ``run`` is a string of pieces of ``least`` to ``most`` characters (all of it when it is shorter than
    ``least``), each found in ``words``."""
    if len(run) < least:
        return run in words
    reach = [True] + [False] * len(run)
    furthest = 0
    for i in range(len(run)):
        if i > furthest:
            return False
        if not reach[i]:
            continue
        for size in range(least, min(most, len(run) - i) + 1):
            if not reach[i + size] and run[i:i + size] in words:
                reach[i + size] = True
                furthest = max(furthest, i + size)
    return reach[-1]


def pieces_found(part: str, words: str) -> bool:
    """Whether a word of a value (a run of letters and digits) is in ``words``, the conversation's normalised text:
    from the start of a word (:func:`word_start`) for a word without letters of scripts written without spaces; else
    each of its runs of such letters as pieces of at least a word (two letters; four in Thai, Lao...) each found
    anywhere in ``words`` (東京大阪天気 as 東京 + 大阪 + 天気), and each other piece of it (``"3"`` in ``"午後3時"``)
    from the start of a word.

    Args:
        part: one word of a value, normalised as ``words`` is.
        words: the conversation's text (``toolwire.models._call_checks.context_words``).

    Returns:
        Whether it is found. Never raises.
    """
    if not part:
        return True
    runs = list(_RUNS.finditer(part)) if has_unspaced(part) else []
    for m in runs:
        least = _least(m.group())
        if not _covered(m.group(), words, least, least * _MAX_PIECE):
            return False
    others = _RUNS.sub(" ", part).split() if runs else [part]
    return all(re.search(word_start(other[0]) + re.escape(other), words) for other in others)
