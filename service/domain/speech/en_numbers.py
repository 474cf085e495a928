"""Numbers read the way an American narrator says them: cardinals and ordinals from
num2words (its British "and" and its commas taken out: "one hundred one", "twelve thousand
five hundred"), decimals digit by digit after "point", years in pairs, fractions as
ordinals. Pure string logic."""

from __future__ import annotations

import re

from num2words import num2words

from service.domain.speech.en_tables import MONTHS

_DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
MAX_PLACE_DIGITS = 15  # longer runs of digits are identifiers, read digit by digit


def _clean(words: str) -> str:
    return re.sub(r"\s+", " ", words.replace(",", "").replace(" and ", " ")).strip()


def digit_by_digit(digits: str, zero: str = "zero") -> str:
    return " ".join(zero if d == "0" else _DIGITS[int(d)] for d in digits if d.isdigit())


def cardinal(digits: str) -> str:
    """'12,500' -> twelve thousand five hundred; '007' -> zero zero seven."""
    digits = digits.replace(",", "")
    if (len(digits) > 1 and digits.startswith("0")) or len(digits) > MAX_PLACE_DIGITS:
        return digit_by_digit(digits)
    return _clean(num2words(int(digits)))


def number(text: str) -> str:
    """A cardinal or a decimal: '41.5' -> forty-one point five, '.5' -> point five."""
    whole, _, frac = text.replace(",", "").partition(".")
    head = cardinal(whole) if whole else ""
    if not frac:
        return head
    return (head + " point " if head else "point ") + digit_by_digit(frac)


def ordinal(digits: str) -> str:
    return _clean(num2words(int(digits.replace(",", "")), to="ordinal"))


def year(digits: str) -> str:
    """2026 -> twenty twenty-six, 2005 -> two thousand five, 1905 -> nineteen oh five."""
    return _clean(num2words(int(digits), to="year")).replace("oh-", "oh ")


def decade(text: str) -> str:
    """1990s -> nineteen nineties, '90s -> nineties."""
    digits = re.sub(r"\D", "", text)
    said = year(digits) if len(digits) == 4 else cardinal(digits)
    rest, _, last = said.rpartition(" ")
    tens = last.split("-")[-1]
    plural = tens[:-1] + "ies" if tens.endswith("y") else tens + "s"
    return (rest + " " + plural if rest else plural) if len(digits) == 4 else plural


def fraction(top: str, bottom: str) -> str:
    """1/5 -> one fifth, 2/3 -> two thirds, 1/2 -> one half, 3/4 -> three quarters."""
    n, d = int(top), int(bottom)
    if d == 2:
        name = "half" if n == 1 else "halves"
    elif d == 4:
        name = "quarter" if n == 1 else "quarters"
    else:
        name = ordinal(bottom) + ("" if n == 1 else "s")
    return f"{cardinal(top)} {name}"


def clock(hour: str, minute: str, suffix: str = "") -> str:
    """10:30 -> ten thirty, 9:05 -> nine oh five, 10:00 -> ten o'clock, 14:00 -> fourteen
    hundred; am/pm spelled."""
    h, m = int(hour), int(minute)
    letters = re.sub(r"[^APap]", "", suffix).upper()
    tail = f" {letters} M" if letters else ""
    if m == 0:
        return cardinal(str(h)) + (tail if tail else " o'clock" if h <= 12 else " hundred")
    mins = ("oh " + _DIGITS[m]) if m < 10 else cardinal(str(m))
    return f"{cardinal(str(h))} {mins}{tail}"


def date(y: str, mo: str, d: str) -> str | None:
    """2026-09-30 -> September thirtieth, twenty twenty-six (None: not a date)."""
    month, day = int(mo), int(d)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return f"{MONTHS[month - 1]} {ordinal(str(day))}, {year(y)}"
