"""Two phones on one Nimalia game (issue 29 item 3): A taps Ann's square while B taps Ben's:
both are kept; both tapping the same square: the first stays, the second is offered again;
the same resolution as Reptile Tank's drafts (service.shared.write_merged)."""

from __future__ import annotations

from app_helpers import APP, no_errors
from streamlit.testing.v1 import AppTest
from test_nimalia_app import PAGE, start, tap_mode, tap_square

from leaderboard.played import PlayedGames
from leaderboard.store import Store
from service.nimalia import game as N
from service.store import schema_history


def second_phone(at: AppTest) -> AppTest:
    other = AppTest.from_file(APP, default_timeout=60)
    other.query_params["night"] = at.session_state["rt_night_uid"]
    other.run()
    other.switch_page(PAGE).run()
    no_errors(other)
    return other


def stored(at: AppTest, app_env: str) -> dict:
    document, _revision = PlayedGames(Store(app_env, history=schema_history()), "nimalia").draft(
        at.session_state["rt_session_id"]
    )
    return document


def test_taps_on_two_phones_on_different_squares_are_both_kept(app, app_env):
    a = tap_mode(start(app))
    b = second_phone(a)
    a.button(key="nim_sq_0_0").click().run()  # A picks Ann's square...
    b.radio(key="nim_player").set_value("Ben").run()
    tap_square(b, 1, 1, "W:cro")  # ...B taps Ben's meanwhile...
    a.button(key=f"nim_pick_{N.TOKENS.index('I:bea')}").click().run()  # ...then A taps
    no_errors(a)
    game = stored(a, app_env)
    assert game["reserves"]["Ann"][0][0][0] == "I:bea"
    assert game["reserves"]["Ben"][0][1][1] == "W:cro"
    assert a.session_state["nim_game"]["reserves"]["Ben"][0][1][1] == "W:cro"
    said = " ".join(str(s.value) for s in a.success)
    assert "your change is kept too" in said, said
    assert "your change is kept." not in said  # the old last-writer-wins message is gone


def test_the_same_square_tapped_on_two_phones_is_offered_again(app, app_env):
    a = tap_mode(start(app))
    b = second_phone(a)
    a.button(key="nim_sq_0_0").click().run()
    tap_square(b, 0, 0, "W:cro")
    a.button(key=f"nim_pick_{N.TOKENS.index('I:bea')}").click().run()
    no_errors(a)
    assert stored(a, app_env)["reserves"]["Ann"][0][0][0] == "W:cro"  # first write stays
    assert a.session_state["nim_game"]["reserves"]["Ann"][0][0][0] == "W:cro"
    a.button(key="nim_offer_put_back").click().run()
    no_errors(a)
    assert stored(a, app_env)["reserves"]["Ann"][0][0][0] == "I:bea"


def test_a_save_after_another_phone_changed_the_game_saves_only_what_was_seen(app, app_env):
    a = start(app)
    for _ in range(4):
        a.button(key="nim_next").click().run()
    assert a.button(key="nim_save")
    b = second_phone(a)
    tap_square(b, 0, 0, "W:cro")  # B fixes a square of the last round while A sits on Save
    a.button(key="nim_save").click().run()
    no_errors(a)
    store = PlayedGames(Store(app_env, history=schema_history()), "nimalia")
    assert store.list_games() == []  # nothing saved from the version A had not seen
    assert any("changed on another device" in w.value for w in a.warning)
    assert a.session_state["nim_game"]["reserves"]["Ann"][4][0][0] == "W:cro"  # now shown
    a.button(key="nim_save").click().run()
    no_errors(a)
    (game,) = store.list_games()
    assert game.document["reserves"]["Ann"][4][0][0] == "W:cro"
