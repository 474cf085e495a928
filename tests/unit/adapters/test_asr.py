"""The recogniser adapter's own parts, without the model: byte-level token decoding, the
windows long audio is cut into, the loop test, and Whisper's log-mel features."""

from __future__ import annotations

import itertools

import numpy as np

from service.adapters.asr import _byte_of, decode_tokens, looping, token_words, windows
from service.audio import logmel


def _tokens(text: str, cut: int) -> list[str]:
    """``text``'s UTF-8 bytes as byte-level tokens of ``cut`` bytes (splitting characters)."""
    table = {b: c for c, b in _byte_of().items()}
    raw = text.encode("utf-8")
    return ["".join(table[b] for b in raw[i : i + cut]) for i in range(0, len(raw), cut)]


def test_tokens_decode_to_text_across_split_characters_and_special_tokens_vanish() -> None:
    text = " 再叠 GRPO 做组内相对策略优化, then 2 bits."
    for cut in (1, 2, 4, 5):
        tokens = ["<|startoftranscript|>", "<|zh|>", *_tokens(text, cut), "<|endoftext|>"]
        assert decode_tokens(tokens) == text.strip()
    assert decode_tokens(["Ġhello", "Ġworld"]) == "hello world"  # GPT-2's space
    assert len(_byte_of()) == 256


def test_long_audio_is_cut_at_its_quietest_moment_and_every_sample_is_in_one_window() -> None:
    rate = 16000
    rng = np.random.default_rng(1)
    audio = (rng.standard_normal(rate * 40) * 0.2).astype(np.float32)
    audio[rate * 12 : rate * 12 + rate // 5] = 0  # a pause at 12 s
    cuts = windows(len(audio), rate, audio)
    assert cuts[0][0] == 0 and cuts[-1][1] == len(audio)
    assert all(a1 == b0 for (_, a1), (b0, _) in itertools.pairwise(cuts))
    assert 12 * rate <= cuts[0][1] <= 12 * rate + rate // 5
    assert all(b - a <= 15 * rate for a, b in cuts)


def test_a_looping_transcript_is_told_from_a_normal_one() -> None:
    assert looping("贴着" * 40)
    assert not looping(
        "先做 dynamic sampling，只保留同时含通过与失败轨迹的组，再把所有轨迹放进共享工作空间"
    )


def test_log_mel_has_whispers_shape_range_and_filters() -> None:
    filters = logmel.mel_filters()
    assert filters.shape == (80, 201) and (filters >= 0).all()
    assert (filters.sum(axis=1) > 0).all()  # every band sees some bins
    rate = logmel.RATE
    t = np.arange(rate * 2) / rate
    tone = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    mel = logmel.log_mel(tone)
    assert mel.shape == (80, 2 * rate // logmel.HOP + 1)
    assert mel.max() - mel.min() <= 2.0 + 1e-6  # clamped 8 (log10) under the peak, / 4
    # 440 Hz is loudest in the band whose filter peaks nearest it.
    band = int(np.argmax(filters[:, round(440 / (rate / logmel.N_FFT))]))
    assert int(np.argmax(mel[:, 50])) == band
    batch = logmel.chunk(mel, pad_frames=200, least=1500)
    assert batch.shape == (1, 80, 1500) and (batch[0, :, mel.shape[1] :] == 0).all()


def test_timed_tokens_become_pieces_that_decode_whole_with_their_first_tokens_time() -> None:
    table = {b: c for c, b in _byte_of().items()}
    vocab = ["Ġhello", "Ġwor", "ld", *("".join(table[b]) for b in "显".encode())]
    # 显 is three bytes: three tokens, one piece timed from its first token to the end.
    words = token_words(vocab, [0, 1, 2, 3, 4, 5], [0, 300, 500, 800, 820, 840, 1000])
    assert [(w.text, w.start_ms, w.end_ms) for w in words] == [
        (" hello", 0, 300),
        (" wor", 300, 500),
        ("ld", 500, 800),
        ("显", 800, 1000),
    ]
