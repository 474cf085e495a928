"""A compact index of jieba's bundled dictionary (``jieba/dict.txt``), so that a cold process
looks up only the words its text can contain instead of unmarshalling jieba's 500k-entry
prefix dictionary (about a second of CPU).

The index is built once from the installed package's file (never downloaded) into a cache
file, keyed by jieba's version and the dictionary file's size and mtime, and memory-mapped.
Entries are grouped by their first two characters (a single character on its own) into
190k buckets, each a small block of UTF-8 text decoded only when a text contains that pair
(the biggest, 中国, holds 1,629 words; by first character alone 一 would hold 5,022, and a
script's first pass would cost 20 ms/KB). A CRC-32 of the whole file (3 ms) is checked on
opening, so a damaged or truncated file is rebuilt, never trusted. The file holds what jieba
derives from the dictionary: every word and every prefix of one (freq 0 when only a prefix),
the freq of the last line of a word (jieba's ``gen_pfdict``), its tag (``load_word_tag``),
and the total of all lines' freqs.

Layout (little-endian): a 64-byte header (magic, SHA-256 of the key, total, number of
buckets, blob length, CRC-32 of the rest), then the sorted bucket keys (``_code``), the
buckets' blob offsets (one more at the end), then the blob. Bucket text: words, freqs and tags,
each tab-joined, on three lines. The layout, its checks and the cache (``Table``, ``pack``,
``cached``) serve other tables keyed by word too (service/adapters/text/pinyinindex.py)."""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import importlib.util
import mmap
import os
import struct
import tempfile
import zlib
from collections.abc import Callable
from functools import lru_cache
from itertools import repeat
from pathlib import Path
from typing import TypeVar

MAGIC = b"NRWIDX02"  # bump the digit when the layout changes
_HEAD = struct.Struct("<8s32sQIQI")  # magic, key digest, total, buckets, blob length, CRC
_HEAD_SIZE = 64


class CorruptIndex(Exception):
    """The cache file is truncated, damaged or built from another dictionary."""


def package_dir(name: str) -> Path:
    """An installed package's directory, found without importing it (jieba's import alone
    costs 0.2 s of pkg_resources, pypinyin's tables 0.3 s)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"{name} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def dict_path() -> Path:
    """jieba's bundled dictionary (the word list)."""
    return package_dir("jieba") / "dict.txt"


def package_version(package: Path) -> str:
    """``__version__`` from a package's ``__init__.py`` (importlib.metadata costs 20 ms)."""
    with (package / "__init__.py").open("rb") as f:
        head = f.read(4096).decode("utf-8", "replace")
    for line in head.splitlines():
        if line.startswith("__version__"):
            return line.split("=", 1)[1].strip().strip("'\"")
    return "unknown"


def cache_key(path: Path) -> str:
    """The dictionary's identity by its content, not its file time: every new .venv (uv copies
    jieba's files from its cache, a clean clone makes one) gives the same dictionary a new
    mtime, and each rebuilt its index (~12 s) and left another 22 MB in the cache."""
    st = path.stat()
    digest = _content_digest(path, st.st_size, st.st_mtime_ns)
    return f"{MAGIC.decode()}|jieba {package_version(path.parent)}|{st.st_size}|{digest}"


@lru_cache(maxsize=8)
def _content_digest(path: Path, size: int, mtime_ns: int) -> str:
    """sha256 of the file (~10 ms for jieba's 5 MB), once per process while the file's size
    and time stay as they were."""
    del size, mtime_ns  # the memo's key only
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def cache_file(cache_dir: Path, key: str, name: str = "jieba-dict") -> Path:
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_dir / f"{name}-{digest}.idx"


def default_cache() -> Path:
    """``NARRATE_SEGMENTER_CACHE``, else ``~/.cache/narrate/segmenter`` (outside the repo:
    shared by clones, like the voice packs)."""
    env = os.environ.get("NARRATE_SEGMENTER_CACHE")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "narrate" / "segmenter"


def _parse(path: Path) -> tuple[dict[str, int], dict[str, str], int]:
    """freq (words and prefixes), tags and total, as jieba's gen_pfdict and load_word_tag
    derive them: the last line of a word wins, every line's freq counts in the total."""
    freq: dict[str, int] = {}
    tags: dict[str, str] = {}
    total = 0
    lines = path.read_bytes().split(b"\n")
    if not lines[-1]:
        lines.pop()  # the end of the last line, not a line (jieba reads the file by lines)
    for lineno, raw in enumerate(lines, 1):
        parts = raw.strip().decode("utf-8").split(" ")
        if len(parts) != 3:
            raise ValueError(f"invalid dictionary entry in {path} at line {lineno}: {raw!r}")
        word, count, tag = parts[0], int(parts[1]), parts[2]
        freq[word] = count
        total += count
        tags[word] = tag
        for end in range(1, len(word)):
            freq.setdefault(word[:end], 0)
    if any("\t" in w for w in freq) or any("\t" in t for t in tags.values()):
        raise ValueError(f"{path}: a tab inside a word or tag, which the index cannot hold")
    return freq, tags, total


def words(path: Path) -> list[str]:
    """The dictionary's words in file order (a word on two lines twice), without parsing the
    rest of each line (0.2 s, against 0.7 s for ``_parse``)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [w for w in (line.strip().split(" ", 1)[0] for line in lines) if w]


def _code(prefix: str) -> int:
    """A bucket's sort key: its first character, then its second (0 for none)."""
    return ord(prefix[0]) << 22 | (ord(prefix[1]) + 1 if len(prefix) > 1 else 0)


def pack(magic: bytes, key: str, total: int, buckets: dict[str, str]) -> bytes:
    """A table file's bytes: each bucket's text under its prefix (a word's first two
    characters, or a single character)."""
    prefixes = sorted(buckets, key=_code)
    codes = [_code(p) for p in prefixes]
    blobs = [buckets[p].encode("utf-8") for p in prefixes]
    offsets = [0]
    for blob in blobs:
        offsets.append(offsets[-1] + len(blob))
    n = len(codes)
    tables = struct.pack(f"<{n}Q", *codes) + struct.pack(f"<{n + 1}Q", *offsets)
    body = tables + b"".join(blobs)
    digest = hashlib.sha256(key.encode()).digest()
    head = _HEAD.pack(magic, digest, total, n, offsets[-1], zlib.crc32(body))
    return head.ljust(_HEAD_SIZE, b"\0") + body


def build_bytes(path: Path, key: str) -> bytes:
    """The index file's bytes for the dictionary at ``path``."""
    freq, tags, total = _parse(path)
    groups: dict[str, list[str]] = {}
    for word in freq:
        groups.setdefault(word[:2], []).append(word)
    buckets = {
        prefix: "\n".join(
            (
                "\t".join(entries),
                "\t".join(map(str, map(freq.__getitem__, entries))),
                "\t".join(map(tags.get, entries, repeat(""))),
            )
        )
        for prefix, entries in groups.items()
    }
    return pack(MAGIC, key, total, buckets)


class Table:
    """A read-only view of a table file's bytes (a memory map, or bytes built in memory),
    checked whole on opening."""

    MAGIC = MAGIC  # what the header must start with: one per kind of table and layout

    def __init__(self, buf: bytes | mmap.mmap, key: str) -> None:
        if len(buf) < _HEAD_SIZE:
            raise CorruptIndex("shorter than its header")
        magic, digest, total, n, blob_len, crc = _HEAD.unpack_from(buf, 0)
        if magic != self.MAGIC or digest != hashlib.sha256(key.encode()).digest():
            raise CorruptIndex("another format or dictionary")
        tables_end = _HEAD_SIZE + n * 16 + 8
        if len(buf) != tables_end + blob_len:
            raise CorruptIndex(f"{len(buf)} bytes, the header says {tables_end + blob_len}")
        view = memoryview(buf)
        if zlib.crc32(view[_HEAD_SIZE:]) != crc:
            raise CorruptIndex("damaged (CRC mismatch)")
        self._codes = view[_HEAD_SIZE : _HEAD_SIZE + 8 * n].cast("Q")
        self._offsets = view[_HEAD_SIZE + 8 * n : tables_end].cast("Q")
        self._blob = view[tables_end:]
        self._buf = buf  # keeps the map open as long as the views live
        self.total: int = total

    def text(self, prefix: str) -> str | None:
        """The text of the bucket ``prefix`` (None when there is none)."""
        code = _code(prefix)
        i = bisect.bisect_left(self._codes, code)
        if i == len(self._codes) or self._codes[i] != code:
            return None
        return str(self._blob[self._offsets[i] : self._offsets[i + 1]], "utf-8")


class Index(Table):
    """jieba's dictionary: freqs and tags by bucket."""

    def bucket(self, prefix: str) -> tuple[dict[str, int], dict[str, str]]:
        """Freqs of the words and prefixes that are ``prefix`` (one character) or start with
        it (two), and tags of the words (fresh dicts: the caller may add its own words)."""
        text = self.text(prefix)
        if text is None:
            return {}, {}
        words, freqs, tags = text.split("\n")
        keys = words.split("\t")
        counts = map(int, freqs.split("\t"))
        return dict(zip(keys, counts, strict=True)), dict(zip(keys, tags.split("\t"), strict=True))


def _write_atomic(target: Path, data: bytes) -> None:
    """Temp file in the same directory, then rename: a reader sees no file or a whole one,
    and concurrent builders each replace it with the same bytes."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide it from other users (Docker)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


T = TypeVar("T", bound=Table)


def _open(kind: type[T], target: Path, key: str) -> T:
    with target.open("rb") as f:
        try:
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError as e:  # an empty file cannot be mapped
            raise CorruptIndex("empty") from e
    return kind(mm, key)


def cached(kind: type[T], target: Path, key: str, build: Callable[[], bytes]) -> T:
    """The table in ``target``, built there first if it is missing, damaged or stale; built
    in memory only when the cache directory is not writable."""
    with contextlib.suppress(OSError, CorruptIndex):
        return _open(kind, target, key)
    data = build()
    with contextlib.suppress(OSError):
        _write_atomic(target, data)
    return kind(data, key)


def load(cache_dir: Path | None = None, source: Path | None = None) -> Index:
    """The index of ``source`` (jieba's bundled dictionary) from the cache (``cached``)."""
    source = source or dict_path()
    key = cache_key(source)
    target = cache_file(cache_dir or default_cache(), key)
    return cached(Index, target, key, lambda: build_bytes(source, key))
