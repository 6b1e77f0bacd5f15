"""Nimalia entry at card speed (issue 31), AppTest: a card is laid by typing its number,
tapping its turn and tapping where its top-left square goes on a grid that grows with the
reserve (up and left too); the turn does not carry over; a photo changes only the squares
newly covered this round and says which; a 2-player, 5-round night at <= 3 taps a card."""

from __future__ import annotations

import random

from app_helpers import no_errors
from test_nimalia_app import start

from scoring.nimalia.cards import turn
from service.nimalia import game as N


def lay_buttons(at) -> dict[tuple[int, int], object]:
    return {
        tuple(map(int, str(b.key).split("_")[2:])): b
        for b in at.button
        if str(b.key).startswith("nim_lay_")
    }


def window_origin(at, player: str) -> tuple[int, int]:
    from ui.nimalia.widgets import lay_window

    top, left, _h, _w = lay_window(at.session_state["nim_game"], player)
    return top, left


def lay(at, player: str, card: int, row: int, col: int, degrees: int) -> int:
    """Lay ``card`` turned ``degrees`` with its top-left at reserve (row, col) (``-1``: up or
    left of the reserve); returns the taps it took (number field, turn, place)."""
    taps = 1
    at.number_input(key="nim_card").set_value(card)  # sent with the next tap
    if degrees:
        at.button(key=f"nim_turn_{degrees}").click().run()
        taps += 1
    top, left = window_origin(at, player)
    at.button(key=f"nim_lay_{row - top}_{col - left}").click().run()
    no_errors(at)
    return taps + 1


def test_a_reserve_grows_up_and_left(app):
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Lay cards").run()
    lay(at, "Ann", 36, 0, 0, 0)
    assert (-1, -1) in N.grown_positions(at.session_state["nim_game"], "Ann")
    lay(at, "Ann", 12, -1, -1, 90)  # above and left of the first card
    grid = at.session_state["nim_game"]["reserves"]["Ann"][0]
    assert [grid[0][0], grid[0][1], grid[1][0], grid[1][1]] == [s.token for s in turn(12, 90)]
    first = [s.token for s in turn(36, 0)]  # moved one square down and right, one covered
    assert [grid[1][2], grid[2][1], grid[2][2]] == [first[1], first[2], first[3]]
    assert any("moved to make room" in c.value for c in at.caption) or "moved" in str(
        at.session_state.get("nim_last_change")
    )


def test_the_turn_does_not_carry_over_to_the_next_card(app):
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Lay cards").run()
    at.number_input(key="nim_card").set_value(36).run()
    at.button(key="nim_turn_180").click().run()
    at.button(key="nim_lay_2_2").click().run()
    assert at.session_state["nim_turn"] == 0 and at.session_state["nim_card"] is None
    at.number_input(key="nim_card").set_value(12).run()
    assert at.button(key="nim_turn_0").proto.type == "primary"
    assert at.button(key="nim_turn_180").proto.type == "secondary"


def test_a_tap_before_the_number_asks_for_it(app):
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Lay cards").run()
    at.button(key="nim_lay_0_0").click().run()
    assert any("number first" in s.value for s in at.success)
    assert all(
        t == "." for line in at.session_state["nim_game"]["reserves"]["Ann"][0] for t in line
    )


def test_a_photo_changes_only_the_squares_newly_covered_this_round():
    game = N.new_game(["Ann", "Ben"], [3, 8, 1, 13])
    N.lay_card(game, "Ann", 36, 0, 0, 0)
    N.next_round(game)
    before = [line[:] for line in N.reserve_of(game, "Ann")]
    read = [line[:4] for line in before[:2]]
    read[0][0] = "J:pan" if read[0][0] != "J:pan" else "I:bea"  # an old square misread
    read[0][2:4] = ["I:bea", "I:pen"]  # a new card to the right
    read[1][2:4] = ["S:lio", "S:gir"]
    merged = N.merge_read(game, "Ann", read, [(0, 3), (0, 0)])
    assert [(r, c) for r, c, _o, _n in merged["changed"]] == [(0, 2), (0, 3), (1, 2), (1, 3)]
    assert merged["kept"] == [(0, 0)]
    grid = N.reserve_of(game, "Ann")
    assert grid[0][0] == before[0][0]  # kept as laid in round 1
    assert grid[0][2:4] == ["I:bea", "I:pen"] and grid[1][2:4] == ["S:lio", "S:gir"]
    assert N.checks_of(game, "Ann") == [(0, 3)]  # only a changed square stays flagged


def test_nimalia_accepts_the_same_photo_types_as_reptile_tank(app):
    from app_helpers import APP, start_game
    from streamlit.testing.v1 import AppTest

    rt = start_game(AppTest.from_file(APP, default_timeout=60).run())  # Start opens Photograph
    rt_types = {t.lstrip(".") for t in rt.file_uploader(key="photo_upload_Ann").proto.type}
    assert {"jpg", "png", "webp", "heic"} <= rt_types
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Photo").run()
    types = {t.lstrip(".") for t in at.file_uploader(key="nim_photo_0_1").proto.type}
    assert rt_types <= types, (rt_types, types)


def test_a_two_player_five_round_night_at_three_taps_a_card(app):
    rng = random.Random(31)
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Lay cards").run()
    deck = rng.sample(range(1, 61), 30)
    expected = N.new_game(["Ann", "Ben"], [3, 8, 1, 13])
    taps = []
    for number in range(1, 6):
        for player in ("Ann", "Ben"):
            if at.session_state["nim_player"] != player:
                at.radio(key="nim_player").set_value(player).run()
            for _ in range(3):
                card = deck.pop()
                spots = N.grown_positions(expected, player)
                row, col = rng.choice(spots)
                degrees = rng.choice((0, 90, 180, 270))
                N.lay_card(expected, player, card, row, col, degrees)
                taps.append(lay(at, player, card, row, col, degrees))
        game = at.session_state["nim_game"]
        for player in ("Ann", "Ben"):
            assert N.reserve_of(game, player) == N.reserve_of(expected, player), (number, player)
        if number < 5:
            at.button(key="nim_next").click().run()
            N.next_round(expected)
    assert len(taps) == 30 and max(taps) <= 3, taps
    print(
        f"\nNIMALIA NIGHT: {len(taps)} cards, {sum(taps)} taps, {sum(taps) / len(taps):.2f} a card"
    )
    assert N.score(at.session_state["nim_game"]) == N.score(expected)
