"""Music under the voice: looped to the video, ducked under speech with ramps, the mix at
the loudness target; measured on the files narrate writes."""

from __future__ import annotations

import numpy as np

from service.audio.music import ATTACK_S, RELEASE_S, duck_gain


def test_duck_curve_ramps_smoothly_to_its_depth() -> None:
    rate = 1000
    g = duck_gain(0, 4000, [(1000, 2000)], rate, 12.0)
    db = 20 * np.log10(g)
    assert db[0] == 0 and db[3999] == 0
    assert np.allclose(db[1000:2001], -12.0)  # the whole of the speech is down
    ramp = db[1000 - int(ATTACK_S * rate) : 1000]
    assert np.all(np.diff(ramp) <= 1e-9) and ramp[0] > -0.01  # down, no step
    back = db[2000 : 2000 + int(RELEASE_S * rate)]
    assert np.all(np.diff(back) >= -1e-9)
    assert np.max(np.abs(np.diff(db))) < 0.2  # never a click
