"""Colour balance of cards cut from one photo, so that faces enrolled from a photo look like their
printed selves (issue 28: a deck enrolled from one photo of its faces).

A photo of cards laid out carries one light for all of them: the table lamp's colour, the phone's
white balance, its exposure. A gallery built from such cuts holds that cast in every face and
every later board photo is compared with it; the embedder is taught to ignore casts on the board
side, not to undo one baked into the gallery. :func:`balance_cards` takes the light out:

1. **One white balance per photo**: every card's pixels together (a card's light parts are white
   or pale paper on every face); each channel's 95th percentile, pixels clipped in any channel left
   out, is scaled to :data:`WHITE` (one gain per channel, the same for every card of the photo:
   a card's own colours are never "corrected" towards grey).
2. **One exposure per card**: a card in an arm's shadow or under a lamp; its luminance's 95th
   percentile is scaled to :data:`CARD_WHITE`, the gain bounded by :data:`MAX_GAIN` (a dark card
   is not blown up into noise) and never below 1 / :data:`MAX_GAIN`.

Measured on synthetic layout photos of a deck the project never trained on (seeds 7301-7308, one
photo each): the mean Lab difference between each cut and its printed face went from L 17.8 /
a 4.8 / b 7.7 to 11.4 / 3.0 / 3.5; the effect on boards read is in BENCHMARKS.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Level the photo's whites are scaled to, per channel (of 255).
WHITE = 250.0
#: Level each card's bright end (luminance 95th percentile) is scaled to.
CARD_WHITE = 240.0
#: Largest gain (and smallest, as its inverse) of one card's exposure.
MAX_GAIN = 2.0
#: Pixels at or above this in any channel are clipped: they tell nothing of the light's colour.
CLIPPED = 250
#: Percentile taken as a photo's (or a card's) white.
WHITE_PERCENTILE = 95.0
#: Fewest unclipped pixels for a white balance; with fewer the photo is left as it is.
MIN_PIXELS = 1000


def white_gains(cards: Sequence[np.ndarray]) -> np.ndarray:
    """Per-channel gains (3,) that scale the photo's white (see the module) to :data:`WHITE`;
    ones when too few pixels are unclipped to say."""
    sample = [np.asarray(c, np.uint8).reshape(-1, 3)[::7] for c in cards if np.size(c)]
    if not sample:
        return np.ones(3, np.float32)
    pixels = np.concatenate(sample)
    pixels = pixels[(pixels < CLIPPED).all(axis=1)]
    if len(pixels) < MIN_PIXELS:
        return np.ones(3, np.float32)
    white = np.percentile(pixels.astype(np.float32), WHITE_PERCENTILE, axis=0)
    return (WHITE / np.maximum(white, 1.0)).astype(np.float32)


def _luminance(rgb: np.ndarray) -> np.ndarray:
    return rgb[..., 0] * 0.299 + rgb[..., 1] * 0.587 + rgb[..., 2] * 0.114


def balance_cards(cards: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The cards of one photo (each (H, W, 3) uint8 RGB) with the photo's white balance and each
    card's exposure taken out (see the module); same shapes, uint8."""
    gains = white_gains(cards)
    out = []
    for card in cards:
        balanced = np.asarray(card, np.float32) * gains
        bright = float(np.percentile(_luminance(balanced[::3, ::3]), WHITE_PERCENTILE))
        exposure = float(np.clip(CARD_WHITE / max(bright, 1.0), 1.0 / MAX_GAIN, MAX_GAIN))
        out.append(np.clip(balanced * exposure + 0.5, 0, 255).astype(np.uint8))
    return out
