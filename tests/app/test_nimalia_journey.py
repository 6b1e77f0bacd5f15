"""A 2-player, 5-round Nimalia night in a real browser at phone size (390 x 844, touch), every
card laid on the default "Lay cards" grid: tap the number field and type the number (no Enter:
the next tap sends it), tap its turn (only when turned), tap where its top-left square goes.
Counts the taps of every card (issue 31: <= 3 a card), the taps around them and the seconds
spent waiting for the app.

The cards, turns and places are drawn at random (seed 31) among the places the rules allow;
the same night is played on a game document beside the browser, and what the app stored must
be that game, scored the same way."""

from __future__ import annotations

import random
import time

import pytest
from browser_helpers import PHONE, app_page, button, env_for, require_browser, settled
from test_nimalia_browser import set_up_game

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

PLAYERS = ["Ann", "Ben"]
GOALS = [3, 8, 1, 13]  # as test_nimalia_browser.GOALS: blue, green, yellow, red
CARDS_A_ROUND = 3
MAX_TAPS_A_CARD = 3


def test_a_two_player_five_round_night_at_three_taps_a_card(tmp_path):
    require_browser(model=False)
    from leaderboard.played import PlayedGames
    from leaderboard.store import Store
    from service.nimalia import game as N
    from ui.nimalia.widgets import lay_window

    rng = random.Random(31)
    deck = rng.sample(range(1, 61), 2 * 5 * CARDS_A_ROUND)
    expected = N.new_game(PLAYERS, GOALS)
    env = env_for(tmp_path)
    card_taps: list[int] = []
    keys = 0
    other_taps = 0
    waited = 0.0

    with app_page(tmp_path, device=PHONE, env=env) as page:
        set_up_game(page)  # the night and the game's setup (not counted: once a night)

        def act(action) -> None:
            nonlocal waited
            start = time.monotonic()
            action()
            settled(page)
            waited += time.monotonic() - start

        act(lambda: button(page, "nim_start").tap())
        page.get_by_text("Nimalia started with 2 players").first.wait_for()
        other_taps += 1
        field = page.locator(".st-key-nim_card input")
        for number in range(1, 6):
            for player in PLAYERS:
                label = page.locator(".st-key-nim_player label").filter(has_text=player).first
                if not label.locator("input").is_checked():
                    act(label.tap)
                    other_taps += 1
                for _ in range(CARDS_A_ROUND):
                    card = deck.pop()
                    row, col = rng.choice(N.grown_positions(expected, player))
                    degrees = rng.choice((0, 90, 180, 270))
                    top, left, _h, _w = lay_window(expected, player)
                    taps = 1
                    field.tap()  # the keyboard opens; the number is typed, and the next
                    page.keyboard.type(str(card))  # tap (turn or place) sends it with itself
                    keys += len(str(card))
                    if degrees:
                        act(button(page, f"nim_turn_{degrees}").tap)
                        taps += 1
                    act(button(page, f"nim_lay_{row - top}_{col - left}").tap)
                    taps += 1
                    N.lay_card(expected, player, card, row, col, degrees)
                    card_taps.append(taps)
                    assert field.input_value() == "", (number, player, card)  # laid
            if number < 5:
                act(button(page, "nim_next").tap)
                other_taps += 1
                N.next_round(expected)
        page.get_by_text("Round 5").first.wait_for()

    print(
        f"\nNIMALIA JOURNEY: {len(card_taps)} cards, {sum(card_taps)} taps "
        f"({sum(card_taps) / len(card_taps):.2f} a card, most {max(card_taps)}), {keys} keys, "
        f"{other_taps} other taps, {waited:.1f} s waiting"
    )
    assert len(card_taps) == 30 and max(card_taps) <= MAX_TAPS_A_CARD, card_taps
    store = Store(env["REPTILE_TANK_DB_URL"])
    (night,) = store.list_sessions()
    stored, _revision = PlayedGames(store, "nimalia").draft(night.id)
    for player in PLAYERS:
        for number in range(5):
            assert N.reserve_of(stored, player, number + 1) == N.reserve_of(
                expected, player, number + 1
            ), (player, number + 1)
    assert N.score(stored) == N.score(expected)
