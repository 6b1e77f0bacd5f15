"""Nimalia in the app (AppTest): the night chooses the game, goals and players, a reserve
entered by tapping squares or laying cards, each round's goals scored with the squares of their
reasons, running totals, the final ranking, saving to Nimalia's own leaderboard, and the game
in progress found back from the database."""

from __future__ import annotations

import pytest
from app_helpers import APP, create_night, frame, no_errors
from streamlit.testing.v1 import AppTest

from leaderboard.played import PlayedGames
from leaderboard.store import Store
from scoring.nimalia.cards import turn
from service.nimalia import game as N
from service.store import schema_history

PAGE = "ui/nimalia/page.py"
#: blue 3 (jungle zones), green 8 (polar bear groups), yellow 1, red 13 (few giraffes).
GOALS = {"blue": 3, "green": 8, "yellow": 1, "red": 13}
#: Ann's round-1 reserve: two polar bears side by side, a lone bear, one panda (jungle).
ANN = {(0, 0): "I:bea", (0, 1): "I:bea", (1, 2): "J:pan", (2, 0): "I:bea"}


def nimalia_night(at: AppTest) -> AppTest:
    create_night(at)
    at.switch_page(PAGE).run()
    no_errors(at)
    at.segmented_control(key="night_game").set_value("nimalia").run()
    no_errors(at)
    return at


def start(at: AppTest, players: str = "Ann\nBen", goals: dict[str, int] = GOALS) -> AppTest:
    nimalia_night(at)
    at.text_area(key="nim_players").input(players)
    for colour, goal in goals.items():
        at.selectbox(key=f"nim_goal_{colour}").set_value(goal)
    at.button(key="nim_start").click().run()
    return at


def tap_mode(at: AppTest) -> AppTest:
    """Choose the "Tap squares" entry (laying cards is the default)."""
    mode = at.segmented_control(key="nim_mode")
    if mode.value != "Tap squares":
        mode.set_value("Tap squares").run()
    return at


def tap_square(at: AppTest, row: int, col: int, token: str) -> None:
    """Tap the square, then its animal, in the "Tap squares" mode."""
    tap_mode(at)
    at.button(key=f"nim_sq_{row}_{col}").click().run()
    at.button(key=f"nim_pick_{N.TOKENS.index(token)}").click().run()
    no_errors(at)


def points(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_the_night_chooses_the_game(app, app_env):
    at = app
    create_night(at)
    at.switch_page(PAGE).run()
    no_errors(at)
    assert any("plays Reptile Tank" in i.value for i in at.info)
    assert not [b for b in at.button if b.key == "nim_start"]
    at.segmented_control(key="night_game").set_value("nimalia").run()
    no_errors(at)
    assert at.button(key="nim_start")
    # the choice belongs to the night (stored in its settings): the setup page follows it
    from leaderboard.drafts import DraftStore

    document, _rev = DraftStore(Store(app_env, history=schema_history())).settings(
        at.session_state["rt_session_id"]
    )
    assert document["game"] == "nimalia"
    at.segmented_control(key="night_game").set_value("reptile_tank").run()
    no_errors(at)
    assert any("plays Reptile Tank" in i.value for i in at.info)


@pytest.mark.parametrize(
    ("players", "goals", "message"),
    [
        ("Ann", GOALS, "2 to 4 players"),
        ("Ann\nBen", {**GOALS, "red": None}, "one goal of each colour"),
        ("Ann\nBen", {**GOALS, "yellow": 4}, "3"),  # goals 3 and 4 are one card's two sides
        ("Ann\nann", GOALS, "two players"),
    ],
)
def test_setup_refuses_what_the_rules_refuse(app, players, goals, message):
    at = start(app, players, goals)
    assert at.error and message in at.error[0].value, [e.value for e in at.error]
    assert at.session_state["nim_game"] is None


def test_drawn_goals_are_a_legal_set(app):
    at = nimalia_night(app)
    at.segmented_control(key="nim_level").set_value("difficult").run()
    at.button(key="nim_draw").click().run()
    no_errors(at)
    goals = [at.session_state[f"nim_goal_{c}"] for c in N.COLOURS]
    assert N.check_goals(goals) == goals
    catalogue = N.catalogue()
    assert all(catalogue[g]["level"] in (2, 3) for g in goals)


def test_tapping_a_reserve_scores_the_rounds_goals_with_their_squares(app):
    at = start(app)
    no_errors(at)
    assert points(at) == {"Goal 3": "0", "Goal 8": "0", "Total": "0"}
    for (r, c), token in ANN.items():
        tap_square(at, r, c, token)
    # goal 3: one jungle zone (2); goal 8: a pair of bears 4, a lone bear -1
    assert points(at) == {"Goal 3": "2", "Goal 8": "3", "Total": "5"}
    assert at.session_state["nim_game"]["reserves"]["Ann"][0][0][:2] == ["I:bea", "I:bea"]
    # the last tap's change in words, with the goal's delta
    assert any("empty → polar bear on snow" in c.value for c in at.caption)
    assert [m.delta for m in at.metric if m.label == "Goal 8"] == ["-1"]
    # a reason rings its squares on the reserve
    lines = N.reason_lines(N.score(at.session_state["nim_game"]), "Ann", 1)[1]["lines"]
    pair = next(i for i, line in enumerate(lines) if "group of 2 polar bears" in line["reason"])
    assert any("group of 2 polar bears" in o for o in at.radio(key="nim_show").options)
    at.radio(key="nim_show").set_value(f"g8_{pair}").run()
    no_errors(at)
    css = "".join(h.proto.body for h in at.get("html"))
    assert ".st-key-nim_sq_0_0 button { border: 4px solid #0b3d91" in css
    assert ".st-key-nim_sq_0_1 button { border: 4px solid #0b3d91" in css
    assert ".st-key-nim_sq_2_0 button { border: 4px solid #0b3d91" not in css
    # fixing a square moves the goals: the lone bear becomes a panda
    tap_square(at, 2, 0, "J:pan")
    assert points(at) == {"Goal 3": "4", "Goal 8": "4", "Total": "8"}


def test_laying_cards_uses_the_card_its_turn_and_legal_places(app):
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Lay cards").run()
    no_errors(at)
    spots = [b for b in at.button if str(b.key).startswith("nim_lay_") and not b.disabled]
    assert len(spots) == 25  # anywhere on an empty reserve
    at.number_input(key="nim_card").set_value(36).run()
    at.button(key="nim_turn_90").click().run()
    at.button(key="nim_lay_1_1").click().run()
    no_errors(at)
    grid = at.session_state["nim_game"]["reserves"]["Ann"][0]
    assert [grid[1][1], grid[1][2], grid[2][1], grid[2][2]] == [s.token for s in turn(36, 90)]
    # the next card must cover a square already there: 9 places around the first card
    game = at.session_state["nim_game"]
    assert len(N.grown_positions(game, "Ann")) == 9
    assert len([b for b in at.button if str(b.key).startswith("nim_lay_") and not b.disabled]) == 9


def test_five_rounds_totals_ranking_and_save(app, app_env):
    at = start(app)
    for (r, c), token in ANN.items():
        tap_square(at, r, c, token)
    at.radio(key="nim_player").set_value("Ben").run()
    tap_square(at, 0, 0, "S:gir")
    assert points(at)["Total"] == "0"
    for number in range(2, 6):
        at.button(key="nim_next").click().run()
        no_errors(at)
        assert at.session_state["nim_game"]["round"] == number
    # the reserves carried over round to round; round 5 scores blue, red, yellow
    labels = [m.label for m in at.metric]
    assert labels == ["Goal 3", "Goal 13", "Goal 1", "Total"]
    result = N.score(at.session_state["nim_game"])
    ranking = frame(at, "Rank", "Player", "Tie-break")
    assert list(ranking["Player"]) == ["Ann", "Ben"]
    assert list(ranking["Total"]) == [p["total"] for p in result["players"]]
    totals = frame(at, "Player", "R1")
    assert list(totals.columns) == ["Player", "R1", "R2", "R3", "R4", "R5"]
    # an earlier round, as it was scored, read only
    at.radio(key="nim_player").set_value("Ann")
    at.segmented_control(key="nim_view").set_value(1).run()
    no_errors(at)
    assert points(at) == {"Goal 3": "2", "Goal 8": "3", "Total": "5"}
    assert at.button(key="nim_sq_0_0").disabled
    at.segmented_control(key="nim_view").set_value(5).run()
    tap_mode(at)
    assert not at.button(key="nim_sq_0_0").disabled
    at.button(key="nim_save").click().run()
    no_errors(at)
    assert any("is saved to the leaderboard" in s.value for s in at.success)
    store = PlayedGames(Store(app_env, history=schema_history()), "nimalia")
    (game,) = store.list_games()
    # another phone on the night sees it saved (no second save button)
    other = AppTest.from_file(APP, default_timeout=60)
    other.query_params["night"] = at.session_state["rt_night_uid"]
    other.run()
    other.switch_page(PAGE).run()
    no_errors(other)
    assert any(f"game {game.id} is saved" in s.value for s in other.success)
    assert not [b for b in other.button if b.key == "nim_save"]
    assert [(p.name, p.total, p.rank) for p in game.players] == [
        (p["name"], p["total"], p["rank"]) for p in result["players"]
    ]
    assert game.document["goals"] == list(GOALS.values())
    # a fix after saving: the page says so and saves the change into the same game
    at.radio(key="nim_player").set_value("Ben")
    at.run()
    tap_square(at, 5, 5, "I:bea")
    assert any("changed since it was saved" in w.value for w in at.warning)
    at.button(key="nim_save").click().run()
    no_errors(at)
    (game,) = store.list_games()
    assert game.document["reserves"]["Ben"][4][5][5] == "I:bea"
    assert any("is saved to the leaderboard" in s.value for s in at.success)
    # the leaderboard shows Nimalia apart from Reptile Tank
    at.switch_page("ui/pages/leaderboard.py").run()
    no_errors(at)
    at.segmented_control(key="lb_kind").set_value("nimalia").run()
    no_errors(at)
    standings = frame(at, "Player", "Wins", "Best")
    assert not [h for h in at.subheader if h.value.startswith("Games (")]  # Reptile Tank's
    assert list(standings["Player"]) == ["Ann", "Ben"]
    assert list(standings["Wins"]) == [1, 0]
    listed = frame(at, "Game", "Goals", "Result")  # the game's own column (Game.describe_game)
    assert list(listed["Goals"]) == [", ".join(str(g) for g in GOALS.values())]
    at.segmented_control(key="lb_kind").set_value("multi").run()
    assert any("No confirmed games" in i.value for i in at.info)
    # deleting it (with the confirmation ticked) empties Nimalia's standings
    at.segmented_control(key="lb_kind").set_value("nimalia").run()
    at.checkbox(key="lb_nimalia_delete_sure").check().run()
    at.button(key="lb_nimalia_delete").click().run()
    no_errors(at)
    assert store.list_games() == []
    assert any("No saved Nimalia games" in i.value for i in at.info)


def test_the_game_in_progress_survives_a_new_session(app, app_env):
    at = start(app)
    tap_square(at, 0, 0, "W:cro")
    night = at.session_state["rt_night_uid"]
    fresh = AppTest.from_file(APP, default_timeout=60)
    fresh.query_params["night"] = night
    fresh.run()
    fresh.switch_page(PAGE).run()
    no_errors(fresh)
    game = fresh.session_state["nim_game"]
    assert game["players"] == ["Ann", "Ben"]
    assert game["reserves"]["Ann"][0][0][0] == "W:cro"
    assert tap_mode(fresh).button(key="nim_sq_0_0").label == "🐊"


def test_undo_puts_the_reserve_back(app):
    at = start(app)
    tap_square(at, 0, 0, "I:bea")
    tap_square(at, 0, 1, "I:bea")
    assert points(at)["Goal 8"] == "4"
    at.button(key="nim_undo").click().run()
    no_errors(at)
    assert at.session_state["nim_game"]["reserves"]["Ann"][0][0][:2] == ["I:bea", "."]
    assert points(at)["Goal 8"] == "-1"


def test_two_phones_on_one_night_see_each_others_taps(app):
    one = start(app)
    two = AppTest.from_file(APP, default_timeout=60)
    two.query_params["night"] = one.session_state["rt_night_uid"]
    two.run()
    two.switch_page(PAGE).run()
    no_errors(two)
    tap_square(one, 0, 0, "W:cro")
    two.run()
    no_errors(two)
    assert two.session_state["nim_game"]["reserves"]["Ann"][0][0][0] == "W:cro"
    assert any("updated from another device" in t.value for t in two.success)
    # the first phone selects a square, the second changes another, the first picks: both
    # changes are kept (merged, issue 29 item 3: the second phone's is no longer lost)
    one.button(key="nim_sq_0_2").click().run()
    tap_square(two, 0, 1, "W:fla")
    one.button(key=f"nim_pick_{N.TOKENS.index('W:cro')}").click().run()
    no_errors(one)
    assert any("your change is kept" in t.value for t in one.success)
    one.run()
    two.run()
    assert two.session_state["nim_game"]["reserves"]["Ann"][0][0][:3] == [
        "W:cro",
        "W:fla",
        "W:cro",
    ]


def test_service_photo_read_is_fixed_square_by_square():
    game = N.new_game(["Ann", "Ben"], list(GOALS.values()))
    warnings = N.set_read(game, "Ann", [["I:bea", "J:pan"] + ["."] * 4 + ["I:pen"]], [(0, 1)])
    assert warnings == ["1 squares read beyond the 6x6 frame were left out"]
    assert N.checks_of(game, "Ann") == [(0, 1)]
    assert N.set_square(game, "Ann", 0, 1, "I:bea") is True
    assert N.checks_of(game, "Ann") == []
    with pytest.raises(ValueError, match="unknown square"):
        N.set_square(game, "Ann", 0, 0, "W:lio")
    with pytest.raises(ValueError, match="cannot go"):
        N.place_card(game, "Ann", 1, 4, 4)  # touches nothing already there
    N.next_round(game)
    assert N.reserve_of(game, "Ann", 2) == N.reserve_of(game, "Ann", 1)
    assert N.reserve_of(game, "Ann", 2) is not N.reserve_of(game, "Ann", 1)
    assert N.round_goals(game, 4) == [8, 1, 13]  # green, yellow, red


def test_names_in_relative_goal_reasons_are_plain_text(app):
    """Goal 18 compares players, so its reasons name them: never rendered as Markdown."""
    at = start(app, "**Ann**\nBen", {**GOALS, "red": 18})
    no_errors(at)
    tap_square(at, 0, 0, "J:gor")
    at.button(key="nim_next").click().run()
    at.button(key="nim_next").click().run()  # round 3 scores blue and red (goal 18)
    no_errors(at)
    labels = at.radio(key="nim_show").options
    named = [o for o in labels if "most gorillas" in o]
    assert named and all("\\*\\*Ann\\*\\*" in o for o in named), named
    assert at.radio(key="nim_player").options[0] == "\\*\\*Ann\\*\\*"


def test_nimalia_store_is_apart_idempotent_bounded_and_cascades(tmp_path):
    from leaderboard.records import LeaderboardError

    store = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}", history=schema_history())
    nimalia = PlayedGames(store, "nimalia")
    night = store.create_session("Friday")
    game = N.new_game(["Ann", "Ben"], list(GOALS.values()))
    N.set_square(game, "Ann", 0, 0, "J:pan")
    result = N.score(game)
    assert nimalia.save_game(night.id, game, result) == (1, True)
    assert nimalia.save_game(night.id, game, result) == (1, False)  # a second tap: same game
    assert [g.id for g in nimalia.list_games()] == [1]
    assert store.list_games() == []  # Reptile Tank's tables never see it
    forged = {**result, "players": [{**result["players"][0], "total": 10**7}]}
    with pytest.raises(LeaderboardError, match="total"):
        nimalia.save_game(night.id, {**game, "uid": "other"}, forged)
    exported = nimalia.export_json()
    assert (exported["format"], exported["game"]) == ("reptile-tank-played-games", "nimalia")
    (only,) = exported["games"]
    assert only["night"]["name"] == "Friday" and only["uid"] == game["uid"]
    assert only["document"]["reserves"]["Ann"][0][0][0] == "J:pan"
    assert only["result"] == result
    assert nimalia.put_draft(night.id, game) == 1
    store.delete_session(night.id)
    assert nimalia.list_games() == [] and nimalia.draft(night.id) == (None, 0)


def _photo(image) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(image).save(out, format="JPEG", quality=92)
    return out.getvalue()


def test_a_reserve_photo_is_read_onto_the_grid(app):
    pytest.importorskip("cv2")
    from vision.nimalia.reader import DEFAULT_GALLERY
    from vision.nimalia.scene import render_reserve
    from vision.reptile_tank.classifier import DEFAULT_MODEL

    if not DEFAULT_MODEL.exists() or not DEFAULT_GALLERY.exists():
        pytest.skip("the Nimalia reader's model or gallery is missing")
    image, truth = render_reserve(0, n_cards=6, size=(1600, 1200), distractors=False)
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Photo").run()
    at.file_uploader(key="nim_photo_0_1").upload("reserve.jpg", _photo(image), "image/jpeg")
    at.run()
    no_errors(at)
    grid = at.session_state["nim_game"]["reserves"]["Ann"][0]
    assert [row[: len(truth["squares"][0])] for row in grid[:2]] == truth["squares"]
    assert any("Photo read:" in c.value for c in at.caption)


def test_flagged_squares_are_outlined_offer_likely_kinds_and_a_fix_clears_them(app, monkeypatch):
    """The page's side of a read, with a stand-in reader (the real one's flags move with its
    calibration): squares flagged ``check`` are outlined, their picker lists the reader's
    likely kinds first, a fix clears the flag, the photo is not read again."""
    import numpy as np

    import vision.nimalia.reader as reader_module
    from vision.nimalia.reader import ReserveRead, SquareRead

    calls = []

    def fake_read(image, pack=None):
        calls.append(image.shape)
        cells = [
            [
                SquareRead("I:bea", 0.9, False, (("I:bea", 0.9),)),
                SquareRead("J:pan", 0.01, True, (("J:pan", 0.5), ("J:gor", 0.49), ("S:lio", 0.3))),
            ]
        ]
        return ReserveRead([["I:bea", "J:pan"]], cells, True, ["1 square to check"], object())

    monkeypatch.setattr(reader_module, "read_reserve", fake_read)
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Photo").run()
    photo = _photo(np.full((480, 640, 3), 200, np.uint8))
    at.file_uploader(key="nim_photo_0_1").upload("reserve.jpg", photo, "image/jpeg")
    at.run()
    no_errors(at)
    game = at.session_state["nim_game"]
    assert N.checks_of(game, "Ann") == [(0, 1)]
    css = "".join(h.proto.body for h in at.get("html"))
    assert ".st-key-nim_sq_0_1 button { outline: 3px dashed #d55e00" in css
    assert ".st-key-nim_sq_0_0 button { outline: 3px dashed" not in css
    at.button(key="nim_sq_0_1").click().run()
    picks = [b.key for b in at.button if b.key and b.key.startswith("nim_pick_")]
    assert [N.TOKENS[int(k.removeprefix("nim_pick_"))] for k in picks[:2]] == ["J:gor", "S:lio"]
    assert any("Most likely first" in cap.value for cap in at.caption)
    at.button(key=f"nim_pick_{N.TOKENS.index('J:gor')}").click().run()
    assert N.checks_of(at.session_state["nim_game"], "Ann") == []
    assert at.session_state["nim_game"]["reserves"]["Ann"][0][0][:2] == ["I:bea", "J:gor"]
    at.run()  # the photo stays in its widget: not read again, the fix stays
    assert len(calls) == 1
    assert at.session_state["nim_game"]["reserves"]["Ann"][0][0][1] == "J:gor"


def test_a_file_that_is_not_a_photo_says_so(app):
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Photo").run()
    at.segmented_control(key="nim_photo_source").set_value("Camera").run()  # the back camera
    no_errors(at)
    assert any("whole reserve in view" in c.value for c in at.caption)
    at.segmented_control(key="nim_photo_source").set_value("Upload").run()
    at.file_uploader(key="nim_photo_0_1").upload("notes.png", b"not a picture", "image/png")
    at.run()
    assert len(at.error) == 1 and "not a photo" in at.error[0].value


def _plain_table_uploaded(app):
    """The photo page after uploading a plain grey table (no reserve in it)."""
    import io

    import numpy as np
    from PIL import Image

    plain = io.BytesIO()
    Image.fromarray(np.full((600, 800, 3), 120, np.uint8)).save(plain, format="JPEG")
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Photo").run()
    at.file_uploader(key="nim_photo_0_1").upload("table.jpg", plain.getvalue(), "image/jpeg")
    at.run()
    no_errors(at)
    return at


def test_a_photo_without_a_reserve_says_so_once(app):

    at = _plain_table_uploaded(app)
    assert any("No reserve found" in w.value for w in at.warning)
    at.run()  # the photo stays in its widget: the page still says so, the reserve is untouched
    assert any("No reserve found" in w.value for w in at.warning)
    assert at.session_state["nim_game"]["reserves"]["Ann"][0] == N.empty_reserve()


@pytest.mark.parametrize(("adaptation", "expected"), [(False, "0"), (True, "3")])
def test_goal_12_option_is_chosen_at_setup(app, adaptation, expected):
    """Three lions ending in the last column: 0 as printed, 3 as the adaptation scores it."""
    at = nimalia_night(app)
    at.text_area(key="nim_players").input("Ann\nBen")
    for colour, goal in {**GOALS, "green": 12}.items():
        at.selectbox(key=f"nim_goal_{colour}").set_value(goal)
    at.toggle(key="nim_goal12").set_value(adaptation)
    at.button(key="nim_start").click().run()
    no_errors(at)
    for c in (3, 4, 5):
        tap_square(at, 0, c, "S:lio")
    assert points(at)["Goal 12"] == expected
    assert at.session_state["nim_game"]["goal12"] == ("adaptation" if adaptation else "printed")


def test_a_damaged_stored_game_is_refused_with_a_reason(app, app_env):
    at = start(app)
    night = at.session_state["rt_session_id"]
    bad = {**at.session_state["nim_game"], "round": 9}
    PlayedGames(Store(app_env, history=schema_history()), "nimalia").put_draft(night, bad)
    fresh = AppTest.from_file(APP, default_timeout=60)
    fresh.query_params["night"] = at.session_state["rt_night_uid"]
    fresh.run()
    fresh.switch_page(PAGE).run()
    assert not fresh.exception
    assert fresh.error and "round 9 is not one of 1" in fresh.error[0].value
    assert fresh.button(key="nim_start")  # a new game can be started


def test_check_game_names_what_is_wrong():
    game = N.new_game(["Ann", "Ben"], list(GOALS.values()))
    assert N.check_game(game) is game
    broken = {**game, "reserves": {"Ann": [[["W:lio"] * 6] * 6], "Ben": game["reserves"]["Ben"]}}
    with pytest.raises(ValueError, match="known squares"):
        N.check_game(broken)
    with pytest.raises(ValueError, match="no 'uid'"):
        N.check_game({k: v for k, v in game.items() if k != "uid"})


def _last_card_corners(truth) -> list[tuple[float, float]]:
    """Image corners TL, TR, BR, BL of the scene's last card laid (always fully visible)."""
    p = truth["placements"][-1]
    r0, c0 = truth["bbox"][:2]
    q = truth["square_quads"]
    r, c = p["row"] - r0, p["col"] - c0
    return [
        tuple(q[r][c][0]),
        tuple(q[r][c + 1][1]),
        tuple(q[r + 1][c + 1][2]),
        tuple(q[r + 1][c][3]),
    ]


def test_no_reserve_found_asks_for_one_cards_corners(app, monkeypatch):
    """A photo without a reserve offers the card-corner taps at once; the read from them goes
    onto the reserve as a photo read (flags and all), with the stand-in reader of the corners."""

    import vision.nimalia.manual as manual
    from vision.nimalia.reader import ReserveRead, SquareRead

    calls = []

    def fake_read(image, corners, pack=None):
        calls.append((image.shape, [tuple(c) for c in corners]))
        cells = [
            [
                SquareRead("I:bea", 0.9, False, (("I:bea", 0.9),)),
                SquareRead("J:pan", 0.01, True, (("J:pan", 0.5), ("J:gor", 0.49))),
            ]
        ]
        return ReserveRead([["I:bea", "J:pan"]], cells, True, ["1 to check"], object())

    monkeypatch.setattr(manual, "read_reserve_from_card", fake_read)
    at = _plain_table_uploaded(app)
    assert any("No reserve found" in w.value for w in at.warning)
    assert any("0 of 4 placed" in m.value and "one card" in m.value for m in at.markdown)
    assert at.button(key="nim_corners_0_1_done").disabled
    # three corners: still waiting; a rerun keeps them
    at.session_state["nim_corners_0_1_points"] = [(100.0, 100.0), (300.0, 300.0), (300.0, 100.0)]
    at.run()
    assert any("3 of 4 placed" in m.value for m in at.markdown)
    # a fourth that does not make a card: refused with the reason, nothing read
    at.session_state["nim_corners_0_1_points"] += [(250.0, 150.0)]  # inside the others
    at.run()
    at.button(key="nim_corners_0_1_done").click().run()
    assert at.error and "do not outline a card" in at.error[0].value
    assert not calls
    at.session_state["nim_corners_0_1_points"][-1] = (100.0, 300.0)
    at.run()
    at.button(key="nim_corners_0_1_done").click().run()
    no_errors(at)
    assert calls == [
        ((600, 800, 3), [(100.0, 100.0), (300.0, 100.0), (300.0, 300.0), (100.0, 300.0)])
    ]
    game = at.session_state["nim_game"]
    assert game["reserves"]["Ann"][0][0][:2] == ["I:bea", "J:pan"]
    assert N.checks_of(game, "Ann") == [(0, 1)]
    assert any(
        "one card's corners: 2 square(s) newly covered" in c.value and "1 to check" in c.value
        for c in at.caption
    )
    at.run()  # the photo stays in its widget: read, not asked again
    assert len(calls) == 1
    assert at.button(key="nim_tap_card_0_1")


def _wrong_read(app):
    """Fresh seed 740016 uploaded and read (the automatic reader takes a wrong lattice):
    ``(app test, truth)``."""
    pytest.importorskip("cv2")
    from vision.nimalia.reader import DEFAULT_GALLERY
    from vision.nimalia.scene import render_reserve
    from vision.reptile_tank.classifier import DEFAULT_MODEL

    if not DEFAULT_MODEL.exists() or not DEFAULT_GALLERY.exists():
        pytest.skip("the Nimalia reader's model or gallery is missing")
    image, truth = render_reserve(740016, max_size=(1600, 1200))
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Photo").run()
    at.file_uploader(key="nim_photo_0_1").upload("reserve.jpg", _photo(image), "image/jpeg")
    at.run()
    no_errors(at)
    return at, truth


def test_a_wrong_read_is_replaced_by_a_read_from_one_cards_corners(app):
    """Fresh seed 740016: the automatic reader takes a wrong lattice; the 4 corners of the last
    card laid read the reserve right."""
    at, truth = _wrong_read(app)
    rows, cols = len(truth["squares"]), len(truth["squares"][0])

    def read_part():
        grid = at.session_state["nim_game"]["reserves"]["Ann"][0]
        return [row[:cols] for row in grid[:rows]]

    assert read_part() != truth["squares"]
    at.button(key="nim_tap_card_0_1").click().run()
    no_errors(at)
    assert any("0 of 4 placed" in m.value for m in at.markdown)
    corners = _last_card_corners(truth)
    at.session_state["nim_corners_0_1_points"] = [corners[i] for i in (2, 0, 3, 1)]
    at.run()
    at.button(key="nim_corners_0_1_done").click().run()
    no_errors(at)
    assert read_part() == truth["squares"]
    grid = at.session_state["nim_game"]["reserves"]["Ann"][0]
    assert all(t == "." for row in grid[rows:] for t in row)
    assert all(t == "." for row in grid for t in row[cols:])
    assert any("one card's corners" in c.value for c in at.caption)
    assert not [b for b in at.button if b.key == "nim_corners_0_1_done"]  # the taps are done


def test_tapping_a_cards_corners_can_be_cancelled(app):
    """Opened from under a read, the tap screen closes again without touching the read."""
    at, _truth = _wrong_read(app)
    before = [row[:] for row in at.session_state["nim_game"]["reserves"]["Ann"][0]]
    at.button(key="nim_tap_card_0_1").click().run()
    assert any("0 of 4 placed" in m.value for m in at.markdown)
    at.button(key="nim_tap_card_cancel_0_1").click().run()
    no_errors(at)
    assert not any("0 of 4 placed" in m.value for m in at.markdown)
    assert [b for b in at.button if b.key == "nim_tap_card_0_1"]  # offered again
    assert at.session_state["nim_game"]["reserves"]["Ann"][0] == before
