"""AppTest drives of the journey: setup, manual entry, one-tap fixes, live pad, confirm, save,
leaderboard (with a temporary SQLite database from the environment)."""

from __future__ import annotations

from app_helpers import (
    APP,
    FULL_BOARD,
    SECOND_BOARD,
    create_night,
    enter_by_hand,
    frame,
    no_errors,
    start_game,
)
from streamlit.testing.v1 import AppTest

from leaderboard.store import Store
from scoring.reptile_tank.board import Board
from scoring.reptile_tank.engine import Variant, score_board
from scoring.reptile_tank.game import score_game
from scoring.reptile_tank.rules import load_rules
from service.store import schema_history
from ui.reptile_tank.labels import humanize


def engine_total(rows, players=2, objectives=()):
    pad = score_board(
        Board.from_rows(rows),
        load_rules(),
        objectives=objectives,
        variant=Variant(players=players, star_cards_removed=False),
    )
    return pad.total


def test_setup_refuses_bad_player_lists(app):
    at = app
    from app_helpers import create_night

    create_night(at)
    for text, message in [
        ("Ann\nann", "two players"),
        ("Ann", "at least 2 players"),
        ("A\nB\nC\nD\nE", "at most 4"),
        ("Ann\n" + "x" * 41, "at most 40"),
    ]:
        at.text_area(key="setup_players").input(text)
        at.button(key="setup_start").click().run()
        assert any(message in e.value for e in at.error), (text, [e.value for e in at.error])
        assert at.session_state["rt_players"] == []


def test_setup_with_objectives_and_variant(app):
    at = app
    from app_helpers import create_night

    create_night(at)
    at.text_area(key="setup_players").input("Ann\nBen\nCara")
    at.toggle(key="setup_star_out").set_value(True)
    at.toggle(key="setup_use_objectives").set_value(True).run()
    at.button(key="setup_objective_3").click().run()
    at.button(key="setup_objective_11").click().run()
    at.button(key="setup_start").click().run()
    no_errors(at)
    assert at.session_state["rt_players"] == ["Ann", "Ben", "Cara"]
    assert at.session_state["rt_objectives"] == [3, 11]
    assert at.session_state["rt_star_cards_out"] is True
    assert at.session_state["rt_session_id"] is not None


def test_manual_entry_scores_live_and_partial_board(app):
    at = start_game(app)
    half = [row[:] for row in FULL_BOARD]
    half[3] = ["empty"] * 5
    enter_by_hand(at, "Ann", half)
    metric = at.metric[0]
    assert metric.label == "Score so far"
    assert metric.value == f"{engine_total(half)} VP"
    enter_by_hand(at, "Ann", FULL_BOARD)
    assert at.metric[0].label == "Total"
    assert at.metric[0].value == f"{engine_total(FULL_BOARD)} VP"


def test_one_tap_fix_updates_the_score(app):
    at = start_game(app)
    enter_by_hand(at, "Ann", FULL_BOARD)
    before = at.metric[0].value
    at.button(key="check_cell_0_0").click().run()
    assert at.session_state["rt_selected_cell"] == (0, 0)
    at.button(key="check_pick_neon_day_gecko").click().run()
    no_errors(at)
    fixed = [row[:] for row in FULL_BOARD]
    fixed[0][0] = "neon_day_gecko"
    assert at.session_state["rt_entries"]["Ann"].rows == fixed
    assert at.session_state["rt_selected_cell"] is None
    assert at.metric[0].value == f"{engine_total(fixed)} VP" != before
    # the grid of selectboxes follows the tap fix
    assert at.selectbox(key="check_grid_0_0").value == "neon_day_gecko"


def test_pad_page_explains_every_column(app):
    at = start_game(app)
    enter_by_hand(at, "Ann", FULL_BOARD)
    at.switch_page("ui/reptile_tank/pages/pad.py").run()
    no_errors(at)
    pad = score_board(Board.from_rows(FULL_BOARD), load_rules(), variant=Variant(players=2))
    labels = [e.label for e in at.expander]
    assert f"Lizards: {pad.lizards} VP" in labels
    assert f"Water: {pad.water} VP" in labels
    assert f"Dry-land: {pad.dry_land} VP" in labels
    texts = [t.value for t in at.text]
    for group in pad.groups:
        assert any(humanize(group.reason) in t for t in texts), group.reason
    assert any("Pending" in i.value for i in at.info)  # roach majority waits for the table
    assert "Still to enter: 1 player(s)." in [c.value for c in at.caption]


def test_confirm_scores_the_table_and_saves(app, app_env):
    at = start_game(app)
    enter_by_hand(at, "Ann", FULL_BOARD)
    enter_by_hand(at, "Ben", SECOND_BOARD)
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()
    no_errors(at)
    expected = score_game(
        [("Ann", Board.from_rows(FULL_BOARD)), ("Ben", Board.from_rows(SECOND_BOARD))],
        load_rules(),
        variant=Variant(players=2, star_cards_removed=False),
    )
    table = frame(at, "Rank", "Total")
    by_name = {row["Player"]: row for _, row in table.iterrows()}
    for player in expected.players:
        assert by_name[player.name]["Total"] == player.pad.total
        assert by_name[player.name]["Rank"] == player.rank
    at.button(key="confirm_save").click().run()
    no_errors(at)
    game_id = at.session_state["rt_last_saved_game"]
    assert game_id is not None
    game = Store(app_env, history=schema_history()).get_game(game_id)
    assert [p.name for p in game.players] == ["Ann", "Ben"]
    assert game.players[0].board == {"rows": FULL_BOARD}
    assert game.players[1].pad["total"] == expected.players[1].pad.total
    assert game.players[1].pad["cockroach"] >= 12  # two roaches: the majority
    assert game.rules_version.startswith("reptile-tank")
    assert len(game.rules_hash) == 64
    # the leaderboard shows the game night's standings
    at.switch_page("ui/pages/leaderboard.py").run()
    no_errors(at)
    standings = frame(at, "Wins", "Average VP")
    assert sorted(standings["Player"]) == ["Ann", "Ben"]
    assert standings["Games"].tolist() == [1, 1]
    assert standings["Wins"].sum() >= 1


def test_confirm_waits_for_every_board(app):
    at = start_game(app)
    enter_by_hand(at, "Ann", FULL_BOARD)
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()
    no_errors(at)
    assert all(b.key != "confirm_save" for b in at.button)
    half = [row[:] for row in SECOND_BOARD]
    half[0][0] = "empty"
    enter_by_hand(at, "Ben", half)
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()
    assert any("empty cells" in w.value for w in at.warning)
    assert all(b.key != "confirm_save" for b in at.button)


def save_one_game(at):
    start_game(at)
    enter_by_hand(at, "Ann", FULL_BOARD)
    enter_by_hand(at, "Ben", SECOND_BOARD)
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()
    at.button(key="confirm_save").click().run()
    no_errors(at)
    at.switch_page("ui/pages/leaderboard.py").run()
    no_errors(at)
    return at


def test_leaderboard_rename_delete_export(app, app_env):
    at = save_one_game(app)
    # export buttons carry the store's own exports
    csv = at.get("download_button")
    assert len(csv) == 2
    # rename
    at.selectbox(key="lb_rename_old").select("Ben")
    at.text_input(key="lb_rename_new").input("Benedict")
    at.button(key="lb_rename").click().run()
    no_errors(at)
    assert "Benedict" in frame(at, "Wins", "Average VP")["Player"].tolist()
    # delete needs the confirmation box
    assert at.button(key="lb_delete").disabled
    at.checkbox(key="lb_delete_sure").check().run()
    assert not at.button(key="lb_delete").disabled
    at.button(key="lb_delete").click().run()
    no_errors(at)
    assert Store(app_env, history=schema_history()).list_games() == []
    assert any("deleted" in s.value for s in at.success)


def test_all_time_scope(app):
    at = save_one_game(app)
    at.selectbox(key="lb_scope").select("all").run()
    no_errors(at)
    assert len(frame(at, "Wins", "Average VP")) == 2


def test_hostile_names_are_shown_as_text(app, app_env):
    evil = "<script>x()</script> **Bo** :red[x] 🦎"
    at = start_game(app, players=f"Ann\n{evil}")
    enter_by_hand(at, "Ann", FULL_BOARD)
    enter_by_hand(at, evil, SECOND_BOARD)
    for page in ("check", "pad", "confirm"):
        at.switch_page(f"ui/reptile_tank/pages/{page}.py").run()
        no_errors(at)
        for element in list(at.markdown) + list(at.caption) + list(at.info) + list(at.warning):
            assert "<script>" not in element.value
            assert "**Bo**" not in element.value
        for expander in at.expander:  # labels are markdown: the name must arrive escaped
            assert "<script>" not in expander.label and "**Bo**" not in expander.label
    at.button(key="confirm_save").click().run()
    no_errors(at)
    names = [p.name for p in Store(app_env, history=schema_history()).list_games()[0].players]
    assert evil in names  # stored exactly as typed


def night_rules(url: str, session_id: int):
    from leaderboard.drafts import DraftStore
    from service.reptile_tank.house_rules import rules_for
    from service.settings import NightSettings

    document, _revision = DraftStore(Store(url, history=schema_history())).settings(session_id)
    return rules_for(NightSettings.from_json(document))


def test_rules_page_edits_and_resets_values_of_this_night_only(app, app_env):
    at = start_game(app)
    night = at.session_state["rt_session_id"]
    enter_by_hand(at, "Ann", FULL_BOARD)
    before = at.metric[0].value
    at.switch_page("ui/reptile_tank/pages/rules.py").run()
    no_errors(at)
    key = "rules_vp_blue_tongued_skink_advanced"
    default = at.number_input(key=key).value
    assert any("assumed — check your cards" in c.value for c in at.caption)
    at.number_input(key=key).set_value(default + 10)
    at.button(key="rules_save").click().run()
    no_errors(at)
    assert night_rules(app_env, night).cards["blue_tongued_skink"].tier("advanced").vp == (
        default + 10
    )
    at.switch_page("ui/reptile_tank/pages/check.py").run()
    assert at.metric[0].value != before  # this night's game is scored with its house value
    # another game night (another table, another browser) keeps the default rules
    other = AppTest.from_file(APP, default_timeout=60).run()
    create_night(other, "Saturday")
    assert other.session_state["rt_session_id"] != night
    other.switch_page("ui/reptile_tank/pages/rules.py").run()
    assert other.number_input(key=key).value == default
    # resetting asks first
    at.switch_page("ui/reptile_tank/pages/rules.py").run()
    at.button(key="rules_reset").click().run()
    assert night_rules(app_env, night).cards["blue_tongued_skink"].tier("advanced").vp != default
    at.button(key="rules_reset_yes").click().run()
    no_errors(at)
    assert night_rules(app_env, night).cards["blue_tongued_skink"].tier("advanced").vp == default
    assert at.number_input(key=key).value == default


def test_broken_house_values_warn_and_score_with_the_defaults(app, app_env):
    from leaderboard.drafts import DraftStore

    at = start_game(app)
    night = at.session_state["rt_session_id"]
    bad = {"house": {"tiers": [["rock", "no_such_tier", 3]], "objectives": []}}
    DraftStore(Store(app_env, history=schema_history())).put_settings(night, bad)
    enter_by_hand(at, "Ann", FULL_BOARD)
    assert any("house rules are ignored" in w.value for w in at.warning)
    assert at.metric[0].value == f"{engine_total(FULL_BOARD)} VP"


def test_solo_page_against_the_master(app):
    from scoring.reptile_tank.solo import score_solo

    at = app
    at.switch_page("ui/reptile_tank/pages/solo.py").run()
    no_errors(at)
    at.text_input(key="solo_name").input("Ann")
    for r, row in enumerate(FULL_BOARD):
        for c, label in enumerate(row):
            at.selectbox(key=f"solo_grid_{r}_{c}").select(label)
    counts = {"three_toed_box_turtle": 3, "golden_pothos": 2, "rock": 1, "hollow_log": 1}
    for card, n in counts.items():
        at.number_input(key=f"solo_count_{card}").set_value(n)
    at.segmented_control(key="solo_level").set_value("hard")
    at.run()
    no_errors(at)
    expected = score_solo(
        Board.from_rows(FULL_BOARD),
        counts,
        load_rules(),
        level="hard",
        variant=Variant(players=1, star_cards_removed=False),
    )
    assert at.metric[0].value == f"{expected.player.total} : {expected.master.total} VP"
    # saved as a solo game of the current game night, the Master in `extra`
    from app_helpers import create_night

    at.switch_page("ui/reptile_tank/pages/setup.py").run()
    create_night(at)
    at.switch_page("ui/reptile_tank/pages/solo.py").run()
    at.button(key="solo_save").click().run()
    no_errors(at)
    at.button(key="solo_save").click().run()  # a second press (or a double tap) saves nothing
    no_errors(at)
    assert any("already saved" in s.value for s in at.success)
    from ui.backend import get_store

    (game,) = get_store().list_games()
    assert game.mode == "solo" and game.players[0].name == "Ann"
    assert game.extra["master"]["cards"] == counts
    assert game.extra["winner"] == expected.winner
    # the leaderboard keeps solo games apart from table games
    at.switch_page("ui/pages/leaderboard.py").run()
    no_errors(at)
    assert any("No confirmed games of this kind" in i.value for i in at.info)
    at.segmented_control(key="lb_kind").set_value("solo").run()
    solo = frame(at, "Beat the Master")
    assert solo["Player"].tolist() == ["Ann"]
    assert solo["Beat the Master"].tolist() == [int(expected.winner == "player")]


def test_cells_to_check_are_listed_first_and_the_picker_offers_the_readers_guesses(app):
    import io

    from PIL import Image

    from service.reptile_tank.reading import PhotoRead
    from ui.reptile_tank import state as S

    buffer = io.BytesIO()
    Image.new("RGB", (80, 60), "gray").save(buffer, format="JPEG")
    jpeg = buffer.getvalue()
    at = start_game(app)
    check = [[False] * 5 for _ in range(4)]
    check[3][1] = check[3][4] = True
    candidates = [[["rock", "hollow_log"] for _ in range(5)] for _ in range(4)]
    candidates[3][1] = ["scarlet_star", "golden_pothos", "silver_inch_plant"]
    read = PhotoRead(
        grid_found=True,
        rows=[row[:] for row in FULL_BOARD],
        confidence=[[0.5] * 5 for _ in range(4)],
        overlay_jpeg=jpeg,
        image_size=(800, 600),
        photo_sha256="b" * 64,
        thumbnail_jpeg=jpeg,
        read_ms=5.0,
        check=check,
        needs_check=True,
        candidates=candidates,
    )
    S.store_read(at.session_state, "Ann", b"photo", read)
    at.switch_page("ui/reptile_tank/pages/check.py").run()
    no_errors(at)
    assert any("Check these 2 cells first" in c.value for c in at.caption)
    assert "⚠" in at.button(key="check_cell_3_1").label
    assert "row 4, column 2" in at.button(key="check_first_3_1").label
    at.button(key="check_first_3_1").click().run()
    labels = [b.label for b in at.button if str(b.key).startswith("check_pick_")]
    # the reader's guesses come first (the current card is not offered again)
    assert labels[:2] == ["Golden pothos", "Silver inch plant"], labels[:4]
    at.button(key="check_pick_golden_pothos").click().run()
    no_errors(at)
    entry = at.session_state["rt_entries"]["Ann"]
    assert entry.rows[3][1] == "golden_pothos" and (3, 1) in entry.corrected
    assert entry.cells_to_check() == [(3, 4)]
    assert any("row 4, column 2" in c.value for c in at.caption)  # the fix line in the bar
