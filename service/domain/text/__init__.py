"""Pure text logic: tokens, widths, break costs, phrases, subtitle lines and zh-Hans display
punctuation, one module each.

A *span* is a half-open ``(start, end)`` range of character offsets into a segment's text.
Phrases partition the text into contiguous spans, so joining cue texts loses nothing.

Where a line or phrase may break is decided by a cost per break position, looked up in
``BREAK_COSTS`` (tables.py: the rules an editor applies, as data; the word lists are
imported from there). Dynamic programming then
picks the cheapest phrases (phrases.py), cues and lines (lines.py).
"""

from service.domain.text.analysis import Analysis, analyse, cost_at
from service.domain.text.classes import break_rule
from service.domain.text.english import ends_sentence, is_abbreviation, is_per_unit
from service.domain.text.lines import (
    BOTTOM_HEAVY,
    MISSED_PUNCT,
    TOP_HEAVY,
    LineSpan,
    comparable,
    forced_lines,
    layout_lines,
    single_word,
    strip_trailing,
    wrap,
)
from service.domain.text.phrases import PIECE_COST, PIECE_SHAPE, split_phrases
from service.domain.text.tokens import (
    AVOID,
    CLAUSE_END,
    CLOSERS,
    COMMAS,
    LOOKALIKE,
    LOOKS_CLOSING,
    NEVER,
    OPENERS,
    SENTENCE_END,
    SINGLE_PAIR,
    ZH_TRAILING,
    Segmenter,
    Token,
    detect_language,
    pause_after,
    syllables,
    tokenize,
)
from service.domain.text.width import display_len, reading_chars, render_line, width, zh_punct

__all__ = [
    "AVOID",
    "BOTTOM_HEAVY",
    "CLAUSE_END",
    "CLOSERS",
    "COMMAS",
    "LOOKALIKE",
    "LOOKS_CLOSING",
    "MISSED_PUNCT",
    "NEVER",
    "OPENERS",
    "PIECE_COST",
    "PIECE_SHAPE",
    "SENTENCE_END",
    "SINGLE_PAIR",
    "TOP_HEAVY",
    "ZH_TRAILING",
    "Analysis",
    "LineSpan",
    "Segmenter",
    "Token",
    "analyse",
    "break_rule",
    "comparable",
    "cost_at",
    "detect_language",
    "display_len",
    "ends_sentence",
    "forced_lines",
    "is_abbreviation",
    "is_per_unit",
    "layout_lines",
    "pause_after",
    "reading_chars",
    "render_line",
    "single_word",
    "split_phrases",
    "strip_trailing",
    "syllables",
    "tokenize",
    "width",
    "wrap",
    "zh_punct",
]
