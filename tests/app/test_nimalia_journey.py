"""A 2-player, 5-round Nimalia night in a real browser at phone size (390 x 844, touch), every
card laid on the default "Lay cards" grid (number typed, turn tapped when turned, place tapped:
:mod:`nimalia_journey`). Counts the taps of every card (issue 31: <= 3 a card), the taps
around them and the seconds spent waiting for the app; what the app stored must be the same
night played beside the browser, scored the same way."""

from __future__ import annotations

import pytest
from browser_helpers import PHONE, app_page, env_for, require_browser, settled
from nimalia_journey import PLAYERS, play_night, seed_night, stored_game

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

MAX_TAPS_A_CARD = 3


def test_a_two_player_five_round_night_at_three_taps_a_card(tmp_path):
    require_browser(model=False)
    from service.nimalia import game as N

    env = env_for(tmp_path)
    # the night and the game's setup (once a night, not what is measured) are stored first
    uid, game = seed_night(env["REPTILE_TANK_DB_URL"])
    with app_page(tmp_path, device=PHONE, env=env) as page:
        page.goto(f"{page.url.split('?')[0].rstrip('/')}/nimalia?night={uid}")
        settled(page)
        page.locator(".st-key-nim_card input").wait_for()  # the lay grid: the default
        night = play_night(page, mode="lay", rounds=5, started=game)
    print(f"\nNIMALIA JOURNEY: {night.line()}")
    assert len(night.card_taps) == 30 and max(night.card_taps) <= MAX_TAPS_A_CARD, night.line()
    stored = stored_game(env["REPTILE_TANK_DB_URL"])
    for player in PLAYERS:
        for number in range(1, 6):
            assert N.reserve_of(stored, player, number) == N.reserve_of(
                night.expected, player, number
            ), (player, number)
    assert N.score(stored) == N.score(night.expected)
