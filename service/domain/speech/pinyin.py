"""Pinyin syllables: the inventory (toneless, ``v`` for ``ü``), tone marks to tone numbers, and
validation of what a lexicon entry says. Pure data and string logic."""

from __future__ import annotations

import re
import unicodedata

from service.domain.errors import InputError

_INVENTORY = (
    "a ai an ang ao ba bai ban bang bao bei ben beng bi bian biang biao bie bin bing bo bong "
    "bu ca cai can cang cao ce cei cen ceng cha chai chan chang chao che chen cheng chi chong "
    "chou chu chua chuai chuan chuang chui chun chuo ci cong cou cu cuan cui cun cuo da dai "
    "dan dang dao de dei den deng di dia dian diao die din ding diu dong dou du duan dui dun "
    "duo e ei en eng er fa fan fang fei fen feng fiao fo fou fu ga gai gan gang gao ge gei "
    "gen geng gong gou gu gua guai guan guang gui gun guo ha hai han hang hao he hei hen heng "
    "hm hng hong hou hu hua huai huan huang hui hun huo ji jia jian jiang jiao jie jin jing "
    "jiong jiu ju juan jue jun ka kai kan kang kao ke kei ken keng kong kou ku kua kuai kuan "
    "kuang kui kun kuo la lai lan lang lao le lei len leng li lia lian liang liao lie lin "
    "ling liu lo long lou lu luan lun luo lv lve m ma mai man mang mao me mei men meng mi "
    "mian miao mie min ming miu mo mou mu n na nai nan nang nao ne nei nen neng ng ni nia "
    "nian niang niao nie nin ning niu nong nou nu nuan nun nuo nv nve o ou pa pai pan pang "
    "pao pei pen peng pi pian piao pie pin ping po pou pu qi qia qian qiang qiao qie qin qing "
    "qiong qiu qu quan que qun ran rang rao re ren reng ri rong rou ru rua ruan rui run ruo "
    "sa sai san sang sao se sen seng sha shai shan shang shao she shei shen sheng shi shou "
    "shu shua shuai shuan shuang shui shun shuo si song sou su suan sui sun suo ta tai tan "
    "tang tao te tei teng ti tian tiao tie ting tong tou tu tuan tui tun tuo wa wai wan wang "
    "wei wen weng wo wong wu xi xia xian xiang xiao xie xin xing xiong xiu xu xuan xue xun ya "
    "yan yang yao ye yi yin ying yo yong you yu yuan yue yun za zai zan zang zao ze zei zen "
    "zeng zha zhai zhan zhang zhao zhe zhei zhen zheng zhi zhong zhou zhu zhua zhuai zhuan "
    "zhuang zhui zhun zhuo zi zong zou zu zuan zui zun zuo"
)
_SYLLABLES = frozenset(_INVENTORY.split())

# Combining marks of the four tones (after NFD decomposition of "á", "ǎ", ...).
_MARKS = {"\u0304": "1", "\u0301": "2", "\u030c": "3", "\u0300": "4"}
_SYLLABLE = re.compile(r"^([a-zv]+)([1-5]?)$")


class PinyinError(InputError):
    """Text that is not Mandarin pinyin (in a lexicon entry)."""


def to_tone3(syllable: str) -> str:
    """``háng`` / ``hang2`` / ``lǜ`` / ``lu:4`` -> ``hang2`` / ``lv4``; a syllable with no tone
    gets 5 (neutral). Raises PinyinError for anything that is not a Mandarin syllable."""
    raw = syllable.strip()
    text = unicodedata.normalize("NFD", raw.lower())
    tone = ""
    letters: list[str] = []
    for ch in text:
        if ch in _MARKS:
            if tone:
                raise PinyinError(f"{raw!r} has two tone marks")
            tone = _MARKS[ch]
        elif ch == "\u0308":  # the diaeresis of ü
            if not letters or letters[-1] != "u":
                raise PinyinError(f"{raw!r} is not pinyin")
            letters[-1] = "v"
        else:
            letters.append(ch)
    plain = "".join(letters).replace("u:", "v")
    m = _SYLLABLE.match(plain)
    if not m or (tone and m.group(2)):
        raise PinyinError(f"{raw!r} is not pinyin")
    base, digit = m.group(1), m.group(2)
    if base not in _SYLLABLES:
        raise PinyinError(f"{raw!r} is not a Mandarin syllable")
    return base + (tone or digit or "5")


def looks_like_pinyin(value: str) -> bool:
    """A lexicon value is read as pinyin when it is lowercase Latin with a tone mark or tone
    number somewhere (``háng``, ``dang4``); anything else (``G R P O``, ``航``) is a respelling."""
    text = unicodedata.normalize("NFD", value)
    has_tone = any(ch in _MARKS for ch in text) or bool(re.search(r"[a-zü:]\d\b", value))
    letters_only = all(
        ch.isspace() or ch in _MARKS or ch in "\u0308:" or ("a" <= ch <= "z") or ch.isdigit()
        for ch in text
    )
    return has_tone and letters_only


def parse_pinyin(value: str) -> tuple[str, ...]:
    """Split a pinyin value into tone-number syllables; raise PinyinError naming the bad one."""
    parts = [p for p in re.split(r"[\s'’\-]+", value.strip()) if p]
    if not parts:
        raise PinyinError("is empty")
    return tuple(to_tone3(p) for p in parts)


def is_syllable(token: str) -> bool:
    """A tone-number syllable as the front-end writes it for pinyin engines (``dai4``)."""
    m = _SYLLABLE.match(token)
    return bool(m and m.group(2) and m.group(1) in _SYLLABLES)
