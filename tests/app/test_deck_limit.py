"""The deck as a constraint across the table, on the check page (issue 28 item 5): two photo
reads that together show more rocks than the deck holds put the least sure of them on the
table's check list with a line saying why; a board typed by hand is never second-guessed."""

from __future__ import annotations

from app_helpers import no_errors, start_game

from service.reptile_tank.game import TerrariumEntry

ROCKS = ["rock"] * 5


def photo_board(margin: float) -> TerrariumEntry:
    rows = [list(ROCKS), list(ROCKS), ["water"] * 5, ["water"] * 5]  # 10 rocks a board
    confidence = [[0.5] * 5 for _ in rows]
    confidence[1][4] = margin  # the least sure rock of this board
    return TerrariumEntry(rows=rows, confidence=confidence, source="photo")


def test_more_rocks_than_the_deck_holds_puts_the_least_sure_on_the_check_list(app):
    at = start_game(app)
    at.session_state["rt_entries"] = {"Ann": photo_board(0.05), "Ben": photo_board(0.30)}
    at.switch_page("ui/reptile_tank/pages/check.py").run()
    no_errors(at)
    said = " ".join(w.value for w in at.warning)
    assert "20 × Rock on the table, but the deck has 9: check the 11 least sure" in said, said
    flags = {str(b.key) for b in at.button if str(b.key).startswith("check_flag_")}
    assert any(key.startswith("check_flag_0_1_4") for key in flags), flags  # Ann's least sure


def test_boards_typed_by_hand_are_reported_never_flagged(app):
    at = start_game(app)
    typed = [list(ROCKS), list(ROCKS), ["water"] * 5, ["water"] * 5]
    at.session_state["rt_entries"] = {
        "Ann": TerrariumEntry(rows=[list(r) for r in typed]),
        "Ben": TerrariumEntry(rows=[list(r) for r in typed]),
    }
    at.switch_page("ui/reptile_tank/pages/check.py").run()
    no_errors(at)
    assert any("typed or fixed by hand" in w.value for w in at.warning)
    assert not [b for b in at.button if str(b.key).startswith("check_flag_")]
