"""A dictionary as a job uses it (service/domain/lexicons.py): what a plan keeps of it is what
the job's text can use, compared as the front-end reads; a word with IPA only is named."""

from __future__ import annotations

from service.domain.lexicons import Rule, used


def test_a_plan_keeps_only_the_words_its_text_holds() -> None:
    rules = [
        Rule(grapheme="单", kind="pinyin", value="shan4"),
        Rule(grapheme="GRPO", kind="alias", value="G R P O"),
        Rule(grapheme="行", kind="pinyin", value="hang2"),
        Rule(grapheme="tomato", kind="ipa", value="təˈmeɪtoʊ"),
        Rule(grapheme="potato", kind="ipa", value="pəˈteɪtoʊ"),
    ]
    whole = used("d1", 3, "ours", rules)
    assert whole.entries == {"单": "shan4", "GRPO": "G R P O", "行": "hang2"}
    assert whole.skipped == ["potato", "tomato"]
    kept = whole.for_texts(["单先生说 ＧＲＰＯ 好。", "A Tomato."])  # full-width, any case
    assert kept.entries == {"单": "shan4", "GRPO": "G R P O"}
    assert kept.skipped == ["tomato"] and (kept.id, kept.version) == ("d1", 3)
    [note] = kept.notices()
    assert note.code == "lexicon.ipa_skipped" and "tomato" in note.message
    assert whole.for_texts(["没有"]).entries == {} and whole.for_texts(["没有"]).notices() == []
