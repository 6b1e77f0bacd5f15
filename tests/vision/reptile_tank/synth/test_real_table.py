"""The generator's real-table mode (issue 28 item 3)."""

from __future__ import annotations

import numpy as np

from vision.reptile_tank.synth import real_table as rt
from vision.reptile_tank.synth.deck import stand_in_deck
from vision.reptile_tank.synth.scene import render_scene

SIZE = (640, 480)


def test_real_table_scenes_are_deterministic_and_differ_from_bench_scenes() -> None:
    deck = stand_in_deck()
    a, truth_a = render_scene(11, deck, size=SIZE, real_table=True)
    b, truth_b = render_scene(11, deck, size=SIZE, real_table=True)
    plain, truth_plain = render_scene(11, deck, size=SIZE)
    assert np.array_equal(a, b) and truth_a == truth_b
    assert not np.array_equal(a, plain)
    assert truth_a["params"]["real_table"] is True
    assert "real_table" not in truth_plain["params"] and "covered_cells" not in truth_plain
    # a wide lens and hand placement, recorded
    assert 0.03 <= truth_a["params"]["lens_k1"] <= 0.14
    assert truth_a["params"]["card_rotation_sd_deg"] >= 1.5


def test_real_table_draws_every_effect_over_a_few_seeds() -> None:
    deck = stand_in_deck()
    seen = {"covered": 0, "glared": 0, "curled": 0, "pushed": 0, "neighbours": 0, "sleeved": 0}
    for seed in range(40, 52):
        _, truth = render_scene(seed, deck, size=SIZE, real_table=True, fill=(0.6, 0.8))
        p = truth["params"]
        seen["covered"] += bool(truth["covered_cells"])
        seen["glared"] += bool(truth["glared_cells"])
        seen["curled"] += bool(p["curled_cells"])
        seen["pushed"] += bool(p["pushed_cells"])
        seen["neighbours"] += p["neighbour_cards"] > 0
        seen["sleeved"] += p["sleeved"]
        for r, c, share in truth["covered_cells"] + truth["glared_cells"]:
            assert truth["board"]["rows"][r][c] != "empty"
            assert rt.RECORD_SHARE <= share <= 1.0
        for r, c, _ in truth["covered_cells"]:  # a thumb covers an edge card
            assert r in (0, 3) or c in (0, 4)
    assert all(count >= 2 for count in seen.values()), seen


def test_a_thumb_covers_the_share_it_records() -> None:
    """The recorded share is the card's area under the skin-coloured thumb."""
    rng = np.random.default_rng(3)
    image = np.full((400, 600, 3), 40, np.uint8)
    cells = [
        [[[50 + 100 * c, 50 + 80 * r], [140 + 100 * c, 50 + 80 * r],
          [140 + 100 * c, 120 + 80 * r], [50 + 100 * c, 120 + 80 * r]] for c in range(5)]
        for r in range(4)
    ]  # fmt: skip
    occupied = [[True] * 5 for _ in range(4)]
    out, covered = rt.thumb(rng, image, cells, occupied)
    assert len(covered) >= 1
    r, c, share = max(covered, key=lambda item: item[2])
    assert r in (0, 3) or c in (0, 4)
    (x0, y0), (x1, y1) = cells[r][c][0], cells[r][c][2]
    # pixels at least half skin (skin is >= 130 above this background in red)
    changed = (out[y0:y1, x0:x1, 0].astype(int) - 40 > 65).mean()
    assert abs(changed - share) < 0.08, (changed, share)
