"""Pronunciation dictionaries: a tenant's own, versioned sets of rules that jobs name.

A rule says how one written word (the grapheme) is read, in one of three kinds:

- ``alias``: a respelling, spoken instead of the word (``GRPO`` -> ``G R P O``, ``单`` -> ``善``);
- ``pinyin``: Mandarin syllables, tone marks or numbers (``单`` -> ``shàn`` or ``shan4``);
- ``ipa``: IPA phonemes, kept and exported but spoken by no engine narrate has today: a job
  that names a dictionary with IPA rules gets a ``lexicon.ipa_skipped`` warning for each word
  it had no alias or pinyin for (the word is then read as the engine reads it).

Alias and pinyin rules become entries of the lexicon a job already has (the shipped one under
them, the job's own ``pronunciations`` over them: service/domain/speech/lexicon.py), so they
match whole words and read exactly as a job's own pronunciation would."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from service.domain.errors import InputError
from service.domain.notices import Notice, warning
from service.domain.speech.lexicon import MAX_WORD, LexiconError, parse_entry
from service.domain.speech.pinyin import looks_like_pinyin

Kind = Literal["alias", "pinyin", "ipa"]
KINDS: tuple[Kind, ...] = ("alias", "pinyin", "ipa")
MAX_RULES = 5000  # per dictionary
MAX_DICTIONARIES = 100  # per tenant
MAX_VERSIONS = 100  # per dictionary: older versions stay readable, so they are bounded too
MAX_VALUE = 100  # characters of a rule's alias or phonemes
MAX_NAME = 100
MAX_PER_JOB = 10  # dictionaries one job names
MAX_PLS_BYTES = 2 << 20  # a PLS upload


class LexiconFileError(InputError):
    """A PLS document or a rule that cannot be used; the message names the line (PLS) or
    the rule (JSON)."""

    code = "lexicon.invalid"


class Rule(BaseModel):
    """One rule: how ``grapheme`` is read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    grapheme: str = Field(min_length=1, max_length=MAX_WORD, description="the word as written")
    kind: Kind = Field(description="alias (a respelling), pinyin (zh) or ipa (phonemes)")
    value: str = Field(min_length=1, max_length=MAX_VALUE, description="what it is read as")

    @field_validator("grapheme", "value")
    @classmethod
    def _nfc(cls, v: str) -> str:
        return unicodedata.normalize("NFC", v).strip()


class Rules(BaseModel):
    """A dictionary's name and rules, as a JSON body gives them."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=MAX_NAME)
    language: str | None = Field(None, max_length=35, description="its xml:lang, e.g. zh-CN")
    rules: list[Rule] = Field(max_length=MAX_RULES)


def check_rule(rule: Rule, where: str) -> Rule:
    """A rule the job's lexicon can take (LexiconFileError naming ``where`` otherwise): an
    alias or pinyin rule as a job's own pronunciation is checked; pinyin must be pinyin."""
    if rule.kind == "pinyin" and not looks_like_pinyin(rule.value):
        raise LexiconFileError(
            f"{where}: {rule.grapheme!r}: {rule.value!r} is not pinyin with tones "
            "(tone marks or numbers, e.g. 'shàn' or 'shan4')"
        )
    ipa = rule.kind == "ipa"
    if ipa and any(unicodedata.category(ch)[0] in "CZ" and ch != " " for ch in rule.value):
        raise LexiconFileError(f"{where}: {rule.grapheme!r}: the phonemes hold a control")
    try:  # an IPA rule's word as any other's (its phonemes are not a lexicon value)
        parse_entry(rule.grapheme, "x" if ipa else rule.value)
    except LexiconError as exc:
        raise LexiconFileError(f"{where}: {exc}") from None
    return rule


def check_rules(rules: list[Rule], where: list[str]) -> list[Rule]:
    """Every rule checked (``where[i]`` names rule i: a PLS line, ``rules[3]``), within the
    limit, one per (grapheme, kind): a later one of the same replaces the earlier."""
    if len(rules) > MAX_RULES:
        raise LexiconFileError(
            f"the dictionary has {len(rules)} rules, over the limit of {MAX_RULES}"
        )
    out: dict[tuple[str, str], Rule] = {}
    for rule, at in zip(rules, where, strict=True):
        checked = check_rule(rule, at)
        out[(checked.grapheme, checked.kind)] = checked
    return list(out.values())


class Said(Protocol):
    """A rule as read: a Rule, or a stored one read back without validating it again."""

    @property
    def grapheme(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def value(self) -> str: ...


def entries(rules: Sequence[Said]) -> dict[str, str]:
    """The rules as lexicon entries (word -> pinyin or respelling): pinyin over alias for a
    word with both; IPA rules are not among them (see ``skipped``)."""
    out: dict[str, str] = {}
    for kind in ("alias", "pinyin"):
        out.update({r.grapheme: r.value for r in rules if r.kind == kind})
    return out


def skipped(rules: Sequence[Said]) -> list[str]:
    """The words with IPA rules only: no engine is given their phonemes."""
    spoken = {r.grapheme for r in rules if r.kind != "ipa"}
    return sorted({r.grapheme for r in rules if r.kind == "ipa"} - spoken)


ID_PATTERN = r"^[a-z0-9]{1,64}$"
LexiconId = Annotated[str, StringConstraints(pattern=ID_PATTERN)]


class LexiconRef(BaseModel):
    """A dictionary a job names: its id, and a version (None: the latest, pinned at the door)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: LexiconId
    version: int | None = Field(None, ge=1)


def refs(items: list[LexiconId | LexiconRef]) -> list[LexiconRef]:
    """The dictionaries named, each as a reference (an id alone is the latest version)."""
    return [LexiconRef(id=i) if isinstance(i, str) else i for i in items]


class UsedLexicon(BaseModel):
    """A dictionary as a job uses it, resolved at the door and kept in its plan: the version
    and its entries, so every segment (and a retry, a re-render) reads the same."""

    model_config = ConfigDict(frozen=True)

    id: str
    version: int
    name: str
    entries: dict[str, str]  # word -> pinyin or respelling (alias and pinyin rules)
    skipped: list[str] = []  # words with IPA rules only

    def for_texts(self, texts: list[str]) -> UsedLexicon:
        """Only the entries (and skipped words) ``texts`` hold: a plan keeps what its job can
        use, not 5,000 rules a dictionary (rules match whole words, so a word not in the text
        never applies). Compared as the front-end reads (NFKC, any case)."""
        said = [_folded(t) for t in texts]

        def used(word: str) -> bool:
            w = _folded(word)
            return any(w in t for t in said)

        entries = {w: v for w, v in self.entries.items() if used(w)}
        return self.model_copy(
            update={"entries": entries, "skipped": [w for w in self.skipped if used(w)]}
        )

    def notices(self) -> list[Notice]:
        if not self.skipped:
            return []
        shown = ", ".join(self.skipped[:5]) + (" …" if len(self.skipped) > 5 else "")
        return [
            warning(
                "lexicon.ipa_skipped",
                f"lexicon {self.name!r} v{self.version}: {len(self.skipped)} word(s) with IPA "
                f"rules only ({shown}) are read as the engine reads them: no engine here is "
                "given IPA phonemes; add an alias or pinyin rule for them",
            )
        ]


def _folded(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def used(lexicon_id: str, version: int, name: str, rules: Sequence[Said]) -> UsedLexicon:
    return UsedLexicon(
        id=lexicon_id, version=version, name=name, entries=entries(rules), skipped=skipped(rules)
    )
