"""Look-alike card designs: families of cards sharing frame and layout (another game's art).

A family is one random design (:func:`vision.reptile_tank.synth.deck.random_design`) whose frame, layout,
border, banner, background and pattern every member keeps; members differ in what tells
look-alike cards apart (motif, name, numbers). Used to train the embedder
(``models/train_embedder.py``), to measure it, and to calibrate the confidence
(``models/fit_confidence.py``).
"""

from __future__ import annotations

import numpy as np


def family_variant(base, rng: np.random.Generator, *, fine: bool):
    """A card of ``base``'s family: same frame, layout, border, banner, background and pattern.

    What changes is what tells look-alike cards apart: the name, the values in the panels and
    the motif. ``fine`` keeps the motif's kind and only redraws its colours, shape and detail
    (two animals of one category drawn in one style); otherwise the motif kind may change too.
    """
    from dataclasses import replace

    from vision.reptile_tank.synth.deck import MOTIFS, MotifSpec, _random_color, _random_word

    kind = base.motif.kind if fine else str(rng.choice(MOTIFS))
    colors = list(base.motif.colors)
    for i in range(len(colors)):
        if not fine or rng.random() < 0.6:
            colors[i] = _random_color(rng)
    details = ["", "ring", "dewlap", "tongue", "spots", "red_legs", "toes", "pattern",
               "striped", "stripes", "blotches"]  # fmt: skip
    motif = MotifSpec(kind, tuple(colors), int(rng.integers(0, 2**31)), str(rng.choice(details)))
    vp = lambda: str(int(rng.integers(1, 16))) if rng.random() < 0.9 else ""  # noqa: E731
    return replace(
        base,
        name=" ".join(_random_word(rng) for _ in range(int(rng.integers(1, 4)))),
        motif=motif,
        vp_basic=vp(),
        vp_advanced=vp(),
        star=bool(rng.random() < 0.2),
    )


def family_designs(rng: np.random.Generator, size: int) -> list:
    """``size`` designs sharing one random design's frame and layout (look-alike cards)."""
    from vision.reptile_tank.synth.deck import random_design

    base = random_design(rng)
    fine = bool(rng.random() < 0.5)
    return [family_variant(base, rng, fine=fine) for _ in range(size)]


def family_deck(rng: np.random.Generator, *, px_per_mm: float = 4.0):
    """A deck whose cards of one category share frame and layout, like another game's art.

    One family per category of the rules data (snakes, turtles, lizards, the roach, the dry-land
    environments); the Water back is a back design.
    """
    from dataclasses import replace

    from scoring.reptile_tank.cards import FACE_LABELS
    from vision.reptile_tank.confidence import label_categories
    from vision.reptile_tank.synth.deck import DeckFaces, random_design, render_design

    categories = label_categories()
    by_category: dict[str, list[str]] = {}
    for card in FACE_LABELS:
        by_category.setdefault(categories[card], []).append(card)
    faces = {}
    for category, cards in by_category.items():
        if category == "water":
            faces["water"] = render_design(replace(random_design(rng), back=True),
                                           px_per_mm=px_per_mm)  # fmt: skip
            continue
        for card, design in zip(cards, family_designs(rng, len(cards)), strict=True):
            faces[card] = render_design(replace(design, back=False), px_per_mm=px_per_mm)
    return DeckFaces("families", faces)
