"""Two phones on one night (issue 29 items 1-3, 5), as two browser sessions of the real app
(Streamlit's AppTest): no change lost, no false "saved", the stale phone told what changed."""

from __future__ import annotations

from app_helpers import APP, FULL_BOARD, SECOND_BOARD, enter_by_hand, no_errors, start_game
from streamlit.testing.v1 import AppTest

from leaderboard.drafts import DraftStore
from leaderboard.store import Store
from service.store import schema_history


def second_phone(at: AppTest) -> AppTest:
    """Another browser opening the night's link."""
    other = AppTest.from_file(APP, default_timeout=60)
    other.query_params["night"] = at.session_state["rt_night_uid"]
    other.run()
    no_errors(other)
    return other


def pick(at: AppTest, player: str, row: int, col: int, label: str) -> AppTest:
    at.switch_page("ui/reptile_tank/pages/check.py").run()
    at.radio(key="check_player").set_value(player).run()
    at.selectbox(key=f"check_grid_{row}_{col}").select(label).run()
    no_errors(at)
    return at


def flashes(at: AppTest) -> str:
    return " ".join(str(e.value) for e in (*at.info, *at.success, *at.warning, *at.toast))


def test_a_stale_save_saves_nothing_shows_the_fix_and_the_next_save_is_of_it(app, app_env):
    a = start_game(app)
    enter_by_hand(a, "Ann", FULL_BOARD)
    enter_by_hand(a, "Ben", SECOND_BOARD)
    a.switch_page("ui/reptile_tank/pages/confirm.py").run()
    b = second_phone(a)
    pick(b, "Ben", 0, 0, "rock")  # B fixes Ben's first cell while A sits on Confirm
    a.button(key="confirm_save").click().run()
    no_errors(a)
    store = Store(app_env, history=schema_history())
    assert store.list_games() == []  # nothing saved from the stale page
    said = flashes(a)
    assert "Not saved" in said and "Ben's board, row 1 column 1" in said, said
    assert a.session_state["rt_entries"]["Ben"].rows[0][0] == "rock"  # A now shows B's fix
    a.button(key="confirm_save").click().run()
    no_errors(a)
    (game,) = store.list_games()
    assert game.players[1].board["rows"][0][0] == "rock"
    draft = DraftStore(store).current(game.session_id)
    assert draft is not None and not draft.changed_since_save


def test_fixes_of_different_cells_on_two_phones_are_both_kept(app, app_env):
    a = start_game(app)
    enter_by_hand(a, "Ann", FULL_BOARD)
    enter_by_hand(a, "Ben", SECOND_BOARD)
    a.radio(key="check_player").set_value("Ann").run()
    b = second_phone(a)
    pick(b, "Ben", 0, 0, "rock")
    a.selectbox(key="check_grid_3_4").select("rock").run()  # A had not seen B's fix: merged
    no_errors(a)
    stored = (
        DraftStore(Store(app_env, history=schema_history()))
        .current(a.session_state["rt_session_id"])
        .document
    )
    assert stored["entries"]["Ben"]["rows"][0][0] == "rock"
    assert stored["entries"]["Ann"]["rows"][3][4] == "rock"
    assert a.session_state["rt_entries"]["Ben"].rows[0][0] == "rock"
    assert "your change is kept too" in flashes(a)


def test_the_same_cell_fixed_on_two_phones_is_offered_again_and_put_back(app, app_env):
    a = start_game(app)
    enter_by_hand(a, "Ann", FULL_BOARD)
    b = second_phone(a)
    pick(b, "Ann", 0, 0, "rock")
    a.selectbox(key="check_grid_0_0").select("water").run()  # A had not seen B's fix
    night = a.session_state["rt_session_id"]
    drafts = DraftStore(Store(app_env, history=schema_history()))
    assert drafts.current(night).document["entries"]["Ann"]["rows"][0][0] == "rock"
    assert a.button(key="offer_put_back").label == "Put mine back"
    a.button(key="offer_put_back").click().run()
    no_errors(a)
    assert drafts.current(night).document["entries"]["Ann"]["rows"][0][0] == "water"


def test_two_phones_starting_a_game_at_once_end_up_on_one_game(app, app_env):
    a = start_game(app, "Ann\nBen")
    b = AppTest.from_file(APP, default_timeout=60)
    b.query_params["night"] = a.session_state["rt_night_uid"]
    # B opened the night before A's game existed: simulate by clearing its game after load
    b.run()
    b.session_state["rt_draft_uid"] = None
    b.session_state["rt_players"] = []
    b.text_area(key="setup_players").input("Cara\nDan")
    b.button(key="setup_start").click().run()
    no_errors(b)
    night = a.session_state["rt_session_id"]
    store = Store(app_env, history=schema_history())
    opened = store._transaction(
        lambda c, _a: c.exec_driver_sql(
            f"SELECT COUNT(*) FROM drafts WHERE session_id = {night} AND status = 'open'"
        ).scalar(),
        write=False,
    )
    assert opened == 1
    assert b.session_state["rt_players"] == ["Ann", "Ben"]


def test_the_next_game_started_on_one_phone_is_followed_by_the_other(app, app_env):
    a = start_game(app, "Ann\nBen")
    b = second_phone(a)
    first = b.session_state["rt_draft_uid"]
    a.switch_page("ui/reptile_tank/pages/setup.py").run()
    a.text_area(key="setup_players").input("Cara\nDan")
    a.button(key="setup_start").click().run()
    no_errors(a)
    b.run()
    no_errors(b)
    assert b.session_state["rt_draft_uid"] != first
    assert b.session_state["rt_players"] == ["Cara", "Dan"]
    assert "started the next game" in flashes(b)


def test_an_edit_of_a_game_another_phone_deleted_is_not_saved_until_asked(app, app_env):
    """Item 4: A saved, then fixes a cell; B deletes the game from the leaderboard; A's Save
    saves nothing and says the game was deleted (it never re-creates it); A's next Save stores
    it as a new game, with the fix."""
    a = start_game(app)
    enter_by_hand(a, "Ann", FULL_BOARD)
    enter_by_hand(a, "Ben", SECOND_BOARD)
    a.switch_page("ui/reptile_tank/pages/confirm.py").run()
    a.button(key="confirm_save").click().run()
    no_errors(a)
    store = Store(app_env, history=schema_history())
    (saved,) = store.list_games()
    pick(a, "Ben", 0, 0, "rock")  # an edit of the saved game
    store.delete_game(saved.id)  # meanwhile, on another phone's leaderboard
    a.switch_page("ui/reptile_tank/pages/confirm.py").run()
    a.button(key="confirm_save").click().run()
    no_errors(a)
    said = flashes(a)
    assert "Not saved" in said and f"game {saved.id} was deleted on another device" in said, said
    assert store.list_games() == []  # not re-created behind the player's back
    assert a.session_state["rt_entries"]["Ben"].rows[0][0] == "rock"  # the fix is still here
    a.button(key="confirm_save").click().run()
    no_errors(a)
    (again,) = store.list_games()
    assert again.uid != saved.uid and again.players[1].board["rows"][0][0] == "rock"
    store.close()
