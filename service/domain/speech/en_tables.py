"""The English reader's tables: its tokens, units, currencies, abbreviations, and which
acronyms are spelled and which are said as words (shared with the Mandarin reader, so both
offline engines say an acronym the same way)."""

from __future__ import annotations

import re

NUM = r"\d+(?:,\d{3})+(?:\.\d+)?|\d*\.\d+|\d+"
MAG = r"(?:bn|[KkMBT])"
CUR = "$€£¥"
# Units after a number: (singular, plural). Case matters (ms, Ms; mb, MB).
UNITS: dict[str, tuple[str, str]] = {
    "ns": ("nanosecond", "nanoseconds"), "µs": ("microsecond", "microseconds"),
    "ms": ("millisecond", "milliseconds"), "s": ("second", "seconds"),
    "sec": ("second", "seconds"), "secs": ("second", "seconds"), "min": ("minute", "minutes"),
    "mins": ("minute", "minutes"), "h": ("hour", "hours"), "hr": ("hour", "hours"),
    "hrs": ("hour", "hours"), "KB": ("kilobyte", "kilobytes"), "MB": ("megabyte", "megabytes"),
    "GB": ("gigabyte", "gigabytes"), "TB": ("terabyte", "terabytes"),
    "PB": ("petabyte", "petabytes"), "KiB": ("kibibyte", "kibibytes"),
    "MiB": ("mebibyte", "mebibytes"), "GiB": ("gibibyte", "gibibytes"),
    "TiB": ("tebibyte", "tebibytes"), "Gb": ("gigabit", "gigabits"),
    "Mbps": ("megabit per second", "megabits per second"),
    "Gbps": ("gigabit per second", "gigabits per second"), "Hz": ("hertz", "hertz"),
    "kHz": ("kilohertz", "kilohertz"), "MHz": ("megahertz", "megahertz"),
    "GHz": ("gigahertz", "gigahertz"), "W": ("watt", "watts"), "kW": ("kilowatt", "kilowatts"),
    "MW": ("megawatt", "megawatts"), "GW": ("gigawatt", "gigawatts"),
    "kWh": ("kilowatt hour", "kilowatt hours"), "fps": ("frame per second", "frames per second"),
    "km": ("kilometer", "kilometers"), "cm": ("centimeter", "centimeters"),
    "mm": ("millimeter", "millimeters"), "kg": ("kilogram", "kilograms"),
    "px": ("pixel", "pixels"), "dB": ("decibel", "decibels"), "nm": ("nanometer", "nanometers"),
    "TFLOPS": ("teraflop", "teraflops"), "PFLOPS": ("petaflop", "petaflops"),
    "tok": ("token", "tokens"), "req": ("request", "requests"),
    "rps": ("request per second", "requests per second"),
    "qps": ("query per second", "queries per second"), "°C": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"), "°": ("degree", "degrees"),
}  # fmt: skip
# What follows "/" or "per" said singular: requests/min, $3/hr, tokens/s, GB/s.
PER = {
    "s": "second", "sec": "second", "second": "second", "min": "minute", "minute": "minute",
    "h": "hour", "hr": "hour", "hour": "hour", "day": "day", "d": "day", "wk": "week",
    "week": "week", "mo": "month", "month": "month", "yr": "year", "year": "year",
    "ms": "millisecond", "GPU": "G P U", "gpu": "G P U", "token": "token", "tok": "token",
    "request": "request", "req": "request", "user": "user", "query": "query", "node": "node",
    "core": "core", "chip": "chip", "step": "step", "epoch": "epoch", "sample": "sample",
    "image": "image", "call": "call", "run": "run", "seat": "seat", "GB": "gigabyte",
    "TB": "terabyte", "MB": "megabyte", "kWh": "kilowatt hour", "page": "page",
}  # fmt: skip
CURRENCY = {"$": ("dollar", "dollars", "cent", "cents"), "€": ("euro", "euros", "cent", "cents"),
            "£": ("pound", "pounds", "penny", "pence"), "¥": ("yen", "yen", "", "")}  # fmt: skip
MAGNITUDE = {"K": "thousand", "k": "thousand", "M": "million", "B": "billion", "bn": "billion",
             "T": "trillion"}  # fmt: skip
# A magnitude letter said as the letter: model sizes and context lengths (a 70B model,
# Llama-3-70B, 128K context), as ML narrators say them; otherwise the word.
LETTER_AFTER = {"model", "models", "context", "checkpoint", "checkpoints", "variant",
                "variants", "dense", "MoE", "base", "instruct", "chat"}  # fmt: skip
# Capitalised words that start a sentence rather than name a model (The 70B parameters).
NOT_NAMES = {"The", "A", "An", "In", "On", "At", "For", "With", "Of", "By", "To", "From",
             "About", "Over", "Under", "And", "But", "Or", "Its", "Their", "Our", "This",
             "That", "These", "Those", "Each", "Every", "Some", "Only", "Just", "Roughly",
             "Nearly", "Almost", "All", "Both", "Is", "Was", "Are", "Were", "Has", "Had",
             "Then", "Now", "So", "Yet", "Up"}  # fmt: skip
# Abbreviations with their periods, and what is said (U.S.-style initials are spelled).
ABBREVIATIONS = {
    "e.g.": "for example", "i.e.": "that is", "vs.": "versus", "vs": "versus", "etc.": "et cetera",
    "Dr.": "Doctor", "Mr.": "Mister", "Mrs.": "Missus", "Ms.": "Miz", "Prof.": "Professor",
    "St.": "Saint", "Jr.": "Junior", "Sr.": "Senior", "Inc.": "Inc", "Ltd.": "Limited",
    "Co.": "Company", "approx.": "approximately", "Fig.": "figure", "fig.": "figure",
    "Eq.": "equation", "Sec.": "section", "Vol.": "volume", "cf.": "compare", "No.": "number",
    "a.m.": "A M", "p.m.": "P M", "et al.": "et al", "Jan.": "January", "Feb.": "February",
    "Aug.": "August", "Sept.": "September", "Oct.": "October", "Nov.": "November",
    "Dec.": "December", "Corp.": "Corporation",
}  # fmt: skip
# Titles and initials bind to the word after them: no break (line or cue) after one.
BINDING_ABBREVIATIONS = {"Dr.", "Mr.", "Mrs.", "Ms.", "Prof.", "St.", "Fig.", "Eq.",
                         "Sec.", "Vol.", "e.g.", "i.e.", "vs.", "cf.", "approx."}  # fmt: skip
ABBREVIATION = re.compile(
    r"(?<![A-Za-z.])(?:(?:[A-Za-z]\.){2,}|et al\.|(?:"
    + "|".join(re.escape(a[:-1]) for a in ABBREVIATIONS if a.endswith(".") and a.count(".") == 1)
    + r")\.)"
)
# Acronyms said as words, not spelled (with how espeak-ng should be given them).
SAID = {
    "NASA": "NASA", "RAM": "RAM", "DRAM": "D RAM", "SRAM": "S RAM", "ROM": "ROM",
    "NATO": "NATO", "LoRA": "LoRA", "QLoRA": "Q LoRA", "JSON": "JSON", "ASCII": "askey",
    "CUDA": "CUDA", "NVIDIA": "NVIDIA", "FLOPS": "FLOPS", "FLOP": "flop", "SaaS": "sass",
    "GIF": "GIF", "LAN": "LAN", "WAN": "WAN", "SIMD": "SIMD", "YAML": "YAML", "RAID": "raid",
    "UNIX": "unix", "POSIX": "posix", "BERT": "bert", "GAN": "GAN", "GANs": "GANs",
    "LLaMA": "llama", "ONNX": "onyx", "SOTA": "SOTA", "TOML": "tommel", "WASM": "wasm",
    "AWOL": "AWOL", "SCSI": "scuzzy", "OPEC": "OPEC", "FIFA": "FIFA", "UNESCO": "UNESCO",
    "COVID": "covid", "RAG": "rag", "ReLU": "relu", "GeLU": "gelu", "MIDI": "middy",
    "NaN": "nan", "WiFi": "why fi", "PyPI": "pie P I",
}  # fmt: skip
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip
# Words after which a four-digit number is a year (In 2026, since 1998, Q3 2026, June 2023).
YEAR_AFTER = {"in", "since", "by", "until", "till", "from", "to", "through", "of", "during",
              "before", "after", "early", "late", "mid", "year", "circa", "around", "fy",
              "q1", "q2", "q3", "q4", "h1", "h2", "spring", "summer", "fall", "autumn",
              "winter", "and", *(m.lower() for m in MONTHS)}  # fmt: skip
SYMBOLS = {
    "~": "about", "≈": "about", "<": "less than", ">": "more than", "≤": "at most",
    "≥": "at least", "<=": "at most", ">=": "at least", "=": "equals", "≠": "is not",
    "+": "plus", "±": "plus or minus", "→": "to", "->": "to", "&": "and", "@": "at",
    "×": "times", "÷": "divided by", "%": "percent", "‰": "per mille", "°": "degrees",
    "#": "number", "§": "section", "✓": "yes", "✗": "no", "*": "", "^": "to the power of",
    "|": ",", "\\": " ", "_": " ", "/": "or", "…": "...", "...": "...", "—": ",", "–": ",",
    "--": ",",
}  # fmt: skip
_LETTER = "[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]"  # Latin letters, not × ÷
_UNIT_ALTS = "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True))
# A web address, a file path or name is read out, not as sentences: example.org/docs is
# "example dot org slash docs", README.md "README dot M D". Addresses end in a common top-level
# domain, file names in a common extension (e.g. and i.e. are neither); a path has two parts
# at least (and/or, km/h are not paths).
_TLD = "com|org|net|io|ai|dev|edu|gov|co|app|info|me|sh|so|xyz|uk|de|cn|jp|tv|us|ly|gg"
_EXT = "md|js|ts|py|json|txt|yaml|yml|toml|sh|html|css|csv|pdf|png|jpg|mp4|wav|onnx|ipynb"
_SEG = r"[\w\-~%]+(?:\.[\w\-~%]+)*"
URL = (
    rf"(?:https?://)?(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+(?:{_TLD})(?![A-Za-z0-9-])(?:/{_SEG})*/?"
    rf"|(?<![\w/.])(?:~|\.{{1,2}})?(?:/{_SEG}){{2,}}/?|(?<![\w/])~(?:/{_SEG})+/?"
    rf"|(?<![\w.])[\w-]+(?:\.[\w-]+)*\.(?:{_EXT})(?!\w|\.\w)"
)
TOKENS = re.compile(
    rf"(?P<space>\s+)"
    rf"|(?P<url>{URL})"
    rf"|(?P<date>(?<![\d.])\d{{4}}-\d{{1,2}}-\d{{1,2}}(?!\d|\.\d))"  # a full stop may end it
    rf"|(?P<sci>(?<![\w.])\d+(?:\.\d+)?[eE][-+−]?\d+(?![\w]))"
    rf"|(?P<money>[{CUR}]\s?(?:{NUM})(?:\s?[-–~]\s?[{CUR}]?(?:{NUM}))?{MAG}?(?![A-Za-z\d]))"
    rf"|(?P<clock>(?<![\d:.])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s?(?:[ap]\.m\.|[AaPp][Mm]\b))?(?![\d:]))"
    rf"|(?P<ratio>(?<![\d:.])\d+(?::\d+)+(?![\d:]))"
    rf"|(?P<fraction>(?<![\d./])\d+/\d+(?![\d./]))"
    rf"|(?P<dims>(?<![\w.])\d+[x×]\d+(?![\w.]))"
    rf"|(?P<range>(?<![\w.,-])(?:{NUM}){MAG}?\s?[-–~]\s?(?:{NUM}){MAG}?(?:%|[x×](?![A-Za-z\d]))?(?![\w.]))"
    rf"|(?P<percent>(?:{NUM})%)"
    rf"|(?P<times>(?:{NUM})[x×](?![A-Za-z\d]))"
    rf"|(?P<ordinal>\d+(?:st|nd|rd|th)\b)"
    rf"|(?P<decade>(?<![\w.])(?:\d{{2}}|['’])\d0s\b)"
    rf"|(?P<version>(?<![A-Za-z0-9])v\d+(?:\.(?:\d+|[xX*](?![\w])))*(?![\w]))"
    rf"|(?P<pct>(?<![A-Za-z0-9])[pP]\d{{2,3}}(?:\.\d+)?(?![\w]))"
    rf"|(?P<mag>(?:{NUM}){MAG}(?![A-Za-z\d]))"
    rf"|(?P<numunit>(?:{NUM})(?:{_UNIT_ALTS})(?![A-Za-z\d]))"
    rf"|(?P<num>{NUM})"
    rf"|(?P<abbr>{ABBREVIATION.pattern})"
    rf"|(?P<mixed>[A-Za-z]+(?:[-.]?[A-Za-z]*\d+(?:\.\d+)*[A-Za-z]*)+(?![\w]))"
    rf"|(?P<per>(?<=[\w%])/(?=[A-Za-z]+\b))"
    rf"|(?P<word>{_LETTER}+(?:['’][A-Za-z]+)*(?:-{_LETTER}+)*)"
    rf"|(?P<minus>(?<![\w.])[-−](?=\d))"
    rf"|(?P<sym><=|>=|->|--|\.\.\.|[~≈<>≤≥=≠+±→&@×÷%‰°#§✓✗*^|\\_/…—–])"
    rf"|(?P<other>.)",
    re.S,
)


def spell(word: str) -> bool:
    """Acronyms are spelled as letters (GRPO, SFT, KV, vLLM); not words (MiMo, rollout) nor
    the acronyms said as words (NASA, LoRA, CUDA: ``SAID``)."""
    letters = word.replace("-", "")
    if letters in SAID or letters.rstrip("s") in SAID:
        return False
    return (letters.isupper() and 2 <= len(letters) <= 5) or (
        len(letters) > 1 and letters.isascii() and not re.search(r"[aeiouyAEIOUY]", letters)
    )
