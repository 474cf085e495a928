"""PLS documents read into a dictionary's rules and written back (service/domain/pls.py): the
round trip gives the same rules, a bad document is refused naming its line, and nothing in one
reaches outside the file."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.domain.lexicons import LexiconFileError, Rule, entries, skipped
from service.domain.pls import read_pls, write_pls

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
NS = 'xmlns="http://www.w3.org/2005/01/pronunciation-lexicon"'


def _doc(body: str, alphabet: str = "x-pinyin") -> bytes:
    return f'{HEAD}<lexicon version="1.0" {NS} alphabet="{alphabet}" xml:lang="zh-CN">\n{body}</lexicon>\n'.encode()


_SYLLABLES = st.sampled_from(["shan4", "dān", "hang2", "chóng", "le5", "zhong4"])
_RULES = st.lists(
    st.one_of(
        st.builds(
            lambda c, s: Rule(grapheme=c, kind="pinyin", value=s),
            st.sampled_from("单行长重了中"),
            _SYLLABLES,
        ),
        st.builds(
            lambda w, a: Rule(grapheme=w, kind="alias", value=a),
            st.sampled_from(["GRPO", "K8s", "单", "RnD"]),
            st.sampled_from(["G R P O", "kubernetes", "善", "R and D"]),
        ),
        st.builds(
            lambda w, p: Rule(grapheme=w, kind="ipa", value=p),
            st.sampled_from(["GRPO", "tomato", "单", "K8s"]),
            st.sampled_from(["təˈmeɪtoʊ", "ʂan˥˩", "dʒiː"]),
        ),
    ),
    max_size=12,
)


@given(_RULES)
def test_what_is_exported_reads_back_as_the_same_rules(rules: list[Rule]) -> None:
    first = read_pls(write_pls(rules, "zh-CN").encode()).rules  # checked, one per word and kind
    again = read_pls(write_pls(first, "zh-CN").encode())
    assert again.rules == first and again.language == "zh-CN"
    assert {(r.grapheme, r.kind) for r in first} == {(r.grapheme, r.kind) for r in rules}


def test_each_grapheme_of_a_lexeme_takes_its_first_reading_of_each_kind() -> None:
    doc = read_pls(
        _doc(
            "<lexeme><grapheme>单</grapheme><grapheme>單</grapheme>"
            "<phoneme>shan4</phoneme><phoneme>dan1</phoneme><alias>善</alias>"
            '<phoneme alphabet="ipa">ʂan˥˩</phoneme><example>单先生</example></lexeme>\n'
        )
    )
    assert [(r.grapheme, r.kind, r.value) for r in doc.rules] == [
        ("单", "pinyin", "shan4"),
        ("单", "alias", "善"),
        ("单", "ipa", "ʂan˥˩"),
        ("單", "pinyin", "shan4"),
        ("單", "alias", "善"),
        ("單", "ipa", "ʂan˥˩"),
    ]
    assert entries(doc.rules) == {"单": "shan4", "單": "shan4"}  # pinyin over the alias
    assert skipped(doc.rules) == []
    ipa_only = [Rule(grapheme="tomato", kind="ipa", value="təˈmeɪtoʊ")]
    assert entries(ipa_only) == {} and skipped(ipa_only) == ["tomato"]


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (
            _doc("<lexeme>\n<grapheme>单</grapheme>\n<phoneme>shan</phoneme>\n</lexeme>\n"),
            "line 5: '单': 'shan' is not pinyin",
        ),
        (
            _doc("<lexeme>\n<grapheme>单单</grapheme>\n<phoneme>shan4</phoneme>\n</lexeme>\n"),
            "line 5: '单单' has 2 characters but 'shan4' has 1 syllables",
        ),
        (
            _doc("<lexeme>\n<grapheme>" + "长" * 33 + "</grapheme>\n<alias>x</alias>\n</lexeme>\n"),
            "line 4: '长长长",
        ),
        (
            _doc("<lexeme>\n<grapheme>a</grapheme>\n<alias>" + "x" * 101 + "</alias>\n</lexeme>\n"),
            "line 5: 'a': the alias String should have at most 100",
        ),
        (
            _doc("<lexeme>\n<grapheme>a</grapheme>\n</lexeme>\n"),
            "line 3: the lexeme has no phoneme or alias",
        ),
        (
            _doc("<lexeme><grapheme>a</grapheme><phoneme>x</phoneme></lexeme>\n", "x-sampa"),
            "line 3: phoneme alphabet 'x-sampa' is not one",
        ),
        (
            _doc("<lexeme><grapheme>a</grapheme><phoneme>x</phoneme></lexeme>\n", ""),
            "line 3: phoneme alphabet none given",
        ),
        (
            HEAD.encode() + b"<lexicon>\n<lexeme>\n</lexicon>",
            "line 4: not well-formed XML (mismatched tag)",
        ),
        (HEAD.encode() + b"<lexeme/>", "line 2: the root element is <lexeme>, not <lexicon>"),
        (HEAD.encode() + b'<lexicon version="2.0"/>', "line 2: version '2.0': only PLS 1.0"),
        (b"\xff\xfe<", "line 1: not well-formed XML"),
    ],
)
def test_a_bad_document_is_refused_naming_the_line(data: bytes, said: str) -> None:
    with pytest.raises(LexiconFileError) as caught:
        read_pls(data)
    assert said in caught.value.message and caught.value.code == "lexicon.invalid"


@pytest.mark.parametrize(
    "data",
    [
        # Billion laughs: entities that expand into each other.
        HEAD + '<!DOCTYPE lexicon [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>\n'
        '<lexicon alphabet="ipa"><lexeme><grapheme>&b;</grapheme><alias>x</alias></lexeme></lexicon>',
        # An external entity: a file of this machine.
        HEAD + '<!DOCTYPE lexicon [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
        '<lexicon alphabet="ipa"><lexeme><grapheme>&x;</grapheme><alias>x</alias></lexeme></lexicon>',
        # An external DTD.
        HEAD + '<!DOCTYPE lexicon SYSTEM "http://127.0.0.1:9/pls.dtd">\n<lexicon alphabet="ipa"/>',
    ],
)
def test_nothing_outside_the_file_is_read_and_no_entity_expands(data: str) -> None:
    with pytest.raises(LexiconFileError) as caught:
        read_pls(data.encode())
    assert "line 2: a DOCTYPE or entity declaration is not accepted" in caught.value.message


def test_an_undeclared_entity_is_not_well_formed_and_a_huge_file_is_refused_unread() -> None:
    with pytest.raises(LexiconFileError, match="line 3: not well-formed XML"):
        read_pls(_doc("<lexeme><grapheme>&x;</grapheme><alias>y</alias></lexeme>\n"))
    with pytest.raises(LexiconFileError, match="over the limit of 2097152 bytes"):
        read_pls(b" " * (2 * 1024 * 1024 + 1))


def test_a_word_is_checked_as_a_jobs_own_pronunciation_is_whatever_its_kind() -> None:
    for said in ("<alias>x</alias>", "<phoneme>ʃ</phoneme>"):
        body = f"<lexeme><grapheme>R&amp;D</grapheme>{said}</lexeme>\n"
        with pytest.raises(LexiconFileError, match="line 3: 'R&D': contains '&'"):
            read_pls(_doc(body, "ipa"))


def test_too_many_rules_is_refused() -> None:
    body = "".join(
        f"<lexeme><grapheme>w{i}</grapheme><alias>x</alias></lexeme>\n" for i in range(5001)
    )
    with pytest.raises(LexiconFileError, match="5001 rules, over the limit of 5000"):
        read_pls(_doc(body))
