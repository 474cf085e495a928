"""Arabic numerals read the Chinese way: integers by place (三千一百), decimals digit by digit
after 点, years and identifiers digit by digit. Pure string logic."""

from __future__ import annotations

from decimal import Decimal

DIGITS = "零一二三四五六七八九"
_SMALL = ("", "十", "百", "千")
_BIG = ("", "万", "亿", "万亿")
MAX_PLACE_DIGITS = 16  # longer runs of digits are identifiers, read digit by digit


def digit_by_digit(digits: str) -> str:
    return "".join(DIGITS[int(d)] for d in digits if d.isdigit())


def _four(n: int) -> str:
    """0 < n < 10000 in place notation, with inner zeros read once: 3010 三千零一十."""
    out = ""
    zero = False
    for place in range(3, -1, -1):
        d = n // 10**place % 10
        if d == 0:
            zero = bool(out)
            continue
        if zero:
            out += "零"
            zero = False
        out += DIGITS[d] + _SMALL[place]
    return out


def integer(digits: str) -> str:
    """'310' -> 三百一十, '10' -> 十, '100000' -> 十万, '0' -> 零. Leading zeros and very long
    runs are read digit by digit ('007' 零零七)."""
    digits = digits.replace(",", "")
    if (len(digits) > 1 and digits.startswith("0")) or len(digits) > MAX_PLACE_DIGITS:
        return digit_by_digit(digits)
    n = int(digits)
    if n == 0:
        return "零"
    groups: list[int] = []
    while n:
        groups.append(n % 10000)
        n //= 10000
    out = ""
    gap = False
    for i in range(len(groups) - 1, -1, -1):
        g = groups[i]
        if g == 0:
            gap = bool(out)
            continue
        if out and (gap or g < 1000):
            out += "零"
        out += _four(g) + _BIG[i]
        gap = False
    # 一十 -> 十 only at the very start (十五, 十万), as it is said.
    if out.startswith("一十"):
        out = out[1:]
    return out


def decimal(text: str) -> str:
    """'1.02' -> 一点零二; '3' -> 三; '.5' -> 零点五."""
    whole, _, frac = text.replace(",", "").partition(".")
    head = integer(whole or "0")
    return head + ("点" + digit_by_digit(frac) if frac else "")


def magnitude(number: str, suffix: str) -> str | None:
    """A number with an English magnitude suffix, said in Chinese units:
    310B 三千一百亿, 1.02T 一点零二万亿, 7B 七十亿, 1.5M 一百五十万. None if unknown."""
    value = Decimal(number.replace(",", ""))
    scaled: Decimal
    unit = {"B": "亿", "T": "万亿", "M": "万"}.get(suffix.upper())
    if unit is None:
        return None
    if suffix.upper() == "B":
        scaled = value * 10
    elif suffix.upper() == "M":
        scaled = value * 100
    else:
        scaled = value
    text = format(scaled.normalize(), "f")
    return decimal(text) + unit


def date(year: str, month: str, day: str | None) -> str:
    """2026-09-30 -> 二零二六年九月三十日 (the year digit by digit, as it is said)."""
    out = digit_by_digit(year) + "年" + integer(str(int(month))) + "月"
    if day is not None:
        out += integer(str(int(day))) + "日"
    return out
