"""The ASS writer (pure): each layer's style in the frame's pixels, and each cue's event
(word by word, emphasis, the box layer: looks.py)."""

from __future__ import annotations

import re
from dataclasses import replace

import pysubs2

from service.domain.emphasis import alnum_spots
from service.domain.style import rgba
from service.domain.subtitles.canvas import Canvas, Place, _in_order, _lines, _no_timing, placements
from service.domain.subtitles.cues import HOOK, NARRATION, OVERLAY, SCREEN, TITLE, Cue
from service.domain.subtitles.karaoke import Ink
from service.domain.subtitles.looks import event_text


def _ass_text(line: str) -> str:
    # "{" opens an override block and "\N" "\n" "\h" are commands in ASS; keep them literal.
    line = line.replace("{", "｛").replace("}", "｝")
    return re.sub(r"\\(?=[Nnh])", "\\\u2060", line)


def _color(color: str) -> pysubs2.Color:
    r, g, b, opacity = rgba(color)
    return pysubs2.Color(r, g, b, 255 - opacity)  # ASS alpha: 0 is opaque


_ALIGN = {
    "top": pysubs2.Alignment.TOP_CENTER,
    "bottom": pysubs2.Alignment.BOTTOM_CENTER,
    "middle": pysubs2.Alignment.MIDDLE_CENTER,
}


def ass_style(canvas: Canvas, place: Place) -> pysubs2.SSAStyle:
    """A layer's look in the frame's pixels (PlayRes is the frame size)."""
    h, w = canvas.height, canvas.width
    look = place.look
    return pysubs2.SSAStyle(
        fontname=look.font,
        fontsize=round(look.size * h),
        primarycolor=_color(look.color),
        outlinecolor=_color(look.outline_color),
        backcolor=_color(look.shadow_color),
        bold=look.bold,
        outline=round(look.outline * h, 1),
        shadow=round(look.shadow * h, 1),
        alignment=_ALIGN[place.anchor],
        marginv=round(place.margin * h) if place.anchor != "middle" else 0,
        marginl=round(look.margin_left * w),
        marginr=round(look.margin_right * w),
    )


ASS_STYLES = {
    NARRATION: "Narration",
    OVERLAY: "Overlay",
    SCREEN: "Screen",
    TITLE: "Title",
    HOOK: "Hook",
}


ASS_TRANSLATION = "Translation"


def _ass_event_text(c: Cue, canvas: Canvas, mode: str | None = None) -> str:
    """The cue's lines; a bilingual narration cue's English in the Translation style
    (``\\r`` switches style inside the event, so both groups stack as one block). ``mode``:
    the look drawn (the style's captions unless given: ``boxes`` for the box layer)."""
    lines = [_ass_text(_no_timing(line)) for line in _lines(c.lines)]
    own = _word_by_word(c, lines, canvas, mode or canvas.style.captions) or "\\N".join(lines)
    if not c.translation:
        return own
    english = "\\N".join(_ass_text(_no_timing(line)) for line in _lines(c.translation))
    if mode == "popped":  # laid out with the cue, never shown
        english = "{\\alpha&HFF&}" + english
    if c.layer != NARRATION:
        return "\\N".join(_in_order(c, canvas, (own,), (english,)))
    if canvas.style.translation_above:
        return f"{{\\r{ASS_TRANSLATION}}}{english}\\N{{\\r}}{own}"
    return f"{own}\\N{{\\r{ASS_TRANSLATION}}}{english}"


ASS_BOX = "Box"
BOX_LAYER = -1  # under every other layer: the narration's text draws over its box
BOX_PAD = 0.12  # the box's margin around the word, in font sizes
POP_LAYER = 5  # the popping word, over its line; a layer of its own, so never moved apart
WORD_LAYERS = (BOX_LAYER, NARRATION, POP_LAYER)  # a narration cue's events, word by word


def box_style(canvas: Canvas, place: Place) -> pysubs2.SSAStyle:
    """The narration's look as an opaque box (BorderStyle 3) in the box colour, the text
    and the box itself hidden: the box layer's events show it under one word at a time.
    libass draws the box square-cornered (a rounded \\p drawing would need the glyphs'
    positions, which only libass knows)."""
    look = place.look
    style = ass_style(canvas, place)
    style.borderstyle = 3
    style.primarycolor = pysubs2.Color(0, 0, 0, 255)
    r, g, b, _ = rgba(look.box_color)
    style.outlinecolor = pysubs2.Color(r, g, b, 255)
    style.backcolor = pysubs2.Color(0, 0, 0, 255)
    style.outline = round(look.size * canvas.height * BOX_PAD, 1)
    # The shadow is kept (drawn hidden, in a transparent back colour): libass lays out a
    # shadowed line otherwise than one without, and the box must sit where the text does.
    return style


def _events(c: Cue, canvas: Canvas) -> list[pysubs2.SSAEvent]:
    """A cue's event, and under a narration cue with words its box event (captions box) or
    over it the event that draws the popping word (captions pop)."""
    out = [
        pysubs2.SSAEvent(
            start=c.start_ms,
            end=c.end_ms,
            text=_ass_event_text(c, canvas),
            style=ASS_STYLES[c.layer],
            layer=c.layer,
        )
    ]
    if canvas.style.captions == "box" and c.layer == NARRATION and c.words:
        boxes = _ass_event_text(replace(c, translation=()), canvas, "boxes")
        box = pysubs2.SSAEvent(c.start_ms, c.end_ms, boxes, style=ASS_BOX, layer=BOX_LAYER)
        out.insert(0, box)
    if canvas.style.captions == "pop" and c.layer == NARRATION and c.words:
        popped = _ass_event_text(c, canvas, "popped")
        style = ASS_STYLES[c.layer]
        out.append(pysubs2.SSAEvent(c.start_ms, c.end_ms, popped, style=style, layer=POP_LAYER))
    return out


def write_ass(cues: list[Cue], canvas: Canvas) -> str:
    subs = pysubs2.SSAFile()
    subs.info.update({"PlayResX": str(canvas.width), "PlayResY": str(canvas.height)})
    # Overlays (qualifiers): smaller, in warning red, at the top: they never hide narration.
    # Shot text: captions under the top layer, title cards mid-frame (only when shown).
    places = placements(canvas, cues)
    subs.styles.pop("Default", None)
    for layer, name in ASS_STYLES.items():
        if layer in (NARRATION, OVERLAY) or any(c.layer == layer for c in cues):
            subs.styles[name] = ass_style(canvas, places[layer])
    if any(c.translation and c.layer == NARRATION for c in cues):
        look = canvas.style.translation_look
        subs.styles[ASS_TRANSLATION] = ass_style(canvas, Place(look, "bottom", look.margin))
    if canvas.style.captions == "box":
        subs.styles[ASS_BOX] = box_style(canvas, places[NARRATION])
    for c in cues:
        for event in _events(c, canvas):
            subs.append(event)
    return str(subs.to_string("ass"))


WORD_LOOKS = ("highlight", "reveal", "pop", "boxes", "popped")


def _word_by_word(cue: Cue, lines: list[str], canvas: Canvas, mode: str) -> str | None:
    """A narration cue's text with its words switched as spoken (the style's captions) and
    its emphasis drawn; None when it has neither (or its words are not found)."""
    words = cue.words if mode in WORD_LOOKS else ()
    if not words and not cue.emphasis:
        return None
    look = canvas.style.narration
    ink = Ink(
        look.color,
        look.highlight_color,
        look.outline_color,
        look.shadow_color,
        look.emphasis_color,
        look.emphasis_scale,
        look.box_color,
    )
    marks = alnum_spots(lines, cue.emphasis)
    got = event_text(lines, words, cue.start_ms, mode if words else "static", ink, marks)
    if got is None and words:  # words not found: the emphasis alone
        return event_text(lines, (), cue.start_ms, "static", ink, marks)
    return got
