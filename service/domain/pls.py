"""W3C Pronunciation Lexicon Specification 1.0 documents (https://www.w3.org/TR/pronunciation-lexicon/)
read into a dictionary's rules and written back from them.

``<lexicon version="1.0" alphabet="ipa|x-pinyin" xml:lang="zh-CN">`` holds ``<lexeme>``s, each
one or more ``<grapheme>`` and one or more ``<phoneme>`` (in the lexicon's alphabet, or its own
``alphabet``) or ``<alias>``. Each grapheme gets the lexeme's first pronunciation of each kind
(PLS: the first is the preferred one).

Read with expat alone, and safely: a document with a DOCTYPE (and so any entity declaration,
internal or external) is refused, so nothing outside the file is fetched and no entity expands."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat
from xml.sax.saxutils import escape, quoteattr

from pydantic import ValidationError

from service.domain.lexicons import (
    MAX_PLS_BYTES,
    Kind,
    LexiconFileError,
    Rule,
    check_rules,
)

NS = "http://www.w3.org/2005/01/pronunciation-lexicon"
PINYIN = frozenset({"x-pinyin", "pinyin", "x-hanyu-pinyin"})
ALPHABETS = "ipa, x-pinyin"
IGNORED = frozenset({"example", "meta", "metadata"})  # read past, with what they hold


@dataclass
class _Lexeme:
    line: int
    graphemes: list[tuple[str, int]] = field(default_factory=list)  # with their lines
    said: list[tuple[Kind, str, int]] = field(default_factory=list)


@dataclass
class Document:
    """A PLS document as read: its language and its rules, checked."""

    language: str | None
    rules: list[Rule]


class _Reader:
    """expat's handlers: the element stack, the text of the element open, the lexemes."""

    def __init__(self) -> None:
        self.p = expat.ParserCreate()
        self.p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        self.p.StartDoctypeDeclHandler = self._doctype
        self.p.EntityDeclHandler = self._doctype
        self.p.ExternalEntityRefHandler = self._external
        self.p.StartElementHandler = self._start
        self.p.EndElementHandler = self._end
        self.p.CharacterDataHandler = self._text
        self.stack: list[str] = []
        self.text: list[str] = []
        self.line = 0  # of the element open
        self.alphabet = ""
        self.phoneme_alphabet = ""
        self.language: str | None = None
        self.lexemes: list[_Lexeme] = []

    def fail(self, message: str) -> LexiconFileError:
        return LexiconFileError(f"the PLS file, line {self.p.CurrentLineNumber}: {message}")

    def _doctype(self, *args: Any) -> None:
        raise self.fail("a DOCTYPE or entity declaration is not accepted (nothing is fetched)")

    def _external(self, *args: Any) -> int:
        raise self.fail("an external entity is not accepted (nothing is fetched)")

    def _start(self, tag: str, attrs: dict[str, str]) -> None:
        name = tag.rpartition(":")[2]
        self.stack.append(name)
        self.text, self.line = [], self.p.CurrentLineNumber
        if len(self.stack) == 1:
            self._root(name, attrs)
        elif self.stack[-2:] == ["lexicon", "lexeme"]:
            self.lexemes.append(_Lexeme(self.p.CurrentLineNumber))
        elif name == "phoneme":
            self.phoneme_alphabet = attrs.get("alphabet", self.alphabet)

    def _root(self, name: str, attrs: dict[str, str]) -> None:
        if name != "lexicon":
            raise self.fail(f"the root element is <{name}>, not <lexicon>")
        if attrs.get("version", "1.0") != "1.0":
            raise self.fail(f"version {attrs['version']!r}: only PLS 1.0 is read")
        self.alphabet = attrs.get("alphabet", "")
        self.language = attrs.get("xml:lang")

    def _text(self, data: str) -> None:
        self.text.append(data)

    def _end(self, tag: str) -> None:
        name = self.stack.pop()
        if self.stack != ["lexicon", "lexeme"] or name in IGNORED:
            return
        lexeme, text = self.lexemes[-1], "".join(self.text).strip()
        if name == "grapheme":
            lexeme.graphemes.append((text, self.line))
        elif name == "alias":
            lexeme.said.append(("alias", text, self.line))
        elif name == "phoneme":
            lexeme.said.append((self._kind(self.phoneme_alphabet), text, self.line))

    def _kind(self, alphabet: str) -> Kind:
        if alphabet == "ipa":
            return "ipa"
        if alphabet.lower() in PINYIN:
            return "pinyin"
        shown = repr(alphabet) if alphabet else "none given"
        raise self.fail(f"phoneme alphabet {shown} is not one narrate reads ({ALPHABETS})")


def read_pls(data: bytes) -> Document:
    """The rules of a PLS document; LexiconFileError names the line of what is wrong."""
    if len(data) > MAX_PLS_BYTES:
        raise LexiconFileError(f"the PLS file is over the limit of {MAX_PLS_BYTES} bytes")
    reader = _Reader()
    try:
        reader.p.Parse(data, True)
    except expat.ExpatError as exc:
        what = expat.ErrorString(exc.code)
        raise LexiconFileError(
            f"the PLS file, line {exc.lineno}: not well-formed XML ({what})"
        ) from None
    rules, lines = _rules(reader.lexemes)
    where = [f"the PLS file, line {n}" for n in lines]
    return Document(reader.language, check_rules(rules, where))


def _rules(lexemes: list[_Lexeme]) -> tuple[list[Rule], list[int]]:
    rules: list[Rule] = []
    lines: list[int] = []
    for lx in lexemes:
        if not lx.graphemes or not lx.said:
            missing = "grapheme" if not lx.graphemes else "phoneme or alias"
            raise LexiconFileError(f"the PLS file, line {lx.line}: the lexeme has no {missing}")
        first: dict[Kind, tuple[str, int]] = {}
        for kind, value, line in lx.said:
            first.setdefault(kind, (value, line))  # the first of each kind is the preferred one
        for grapheme, at in lx.graphemes:
            for kind, (value, line) in first.items():
                rules.append(_rule(grapheme, kind, value, (at, line)))
                lines.append(line)
    return rules, lines


def _rule(grapheme: str, kind: Kind, value: str, lines: tuple[int, int]) -> Rule:
    """One rule; a field over its limit is named with its own line."""
    try:
        return Rule(grapheme=grapheme, kind=kind, value=value)
    except ValidationError as exc:
        first = exc.errors()[0]
        is_word = first["loc"][0] == "grapheme"
        where = f"the PLS file, line {lines[0] if is_word else lines[1]}"
        part = "grapheme" if is_word else kind
        raise LexiconFileError(f"{where}: {grapheme[:20]!r}: the {part} {first['msg']}") from None


def write_pls(rules: list[Rule], language: str | None) -> str:
    """The rules as a PLS 1.0 document: one lexeme per grapheme, in the rules' order; the
    lexicon's alphabet is x-pinyin when any rule is pinyin (IPA phonemes then say theirs)."""
    alphabet = "x-pinyin" if any(r.kind == "pinyin" for r in rules) else "ipa"
    by_word: dict[str, list[Rule]] = {}
    for rule in rules:
        by_word.setdefault(rule.grapheme, []).append(rule)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<lexicon version="1.0" xmlns="{NS}" alphabet="{alphabet}" '
        f"xml:lang={quoteattr(language or 'zh-CN')}>",
    ]
    for word, said in by_word.items():
        lines += ["  <lexeme>", f"    <grapheme>{escape(word)}</grapheme>"]
        for rule in said:
            lines.append("    " + _said(rule, alphabet))
        lines.append("  </lexeme>")
    lines.append("</lexicon>")
    return "\n".join(lines) + "\n"


def _said(rule: Rule, alphabet: str) -> str:
    if rule.kind == "alias":
        return f"<alias>{escape(rule.value)}</alias>"
    own = "ipa" if rule.kind == "ipa" else "x-pinyin"
    attr = "" if own == alphabet else f' alphabet="{own}"'
    return f"<phoneme{attr}>{escape(rule.value)}</phoneme>"
