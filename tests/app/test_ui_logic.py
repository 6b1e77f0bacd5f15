"""The app's logic without Streamlit: state bookkeeping, pads as columns, corners, the user's
rules file, labels and deck uploads."""

from __future__ import annotations

import dataclasses
import io

import numpy as np
import pytest
from app_helpers import FULL_BOARD
from PIL import Image

from scoring.reptile_tank.board import Board
from scoring.reptile_tank.cards import CELL_LABELS
from scoring.reptile_tank.engine import score_board
from scoring.reptile_tank.rules import load_rules
from ui.corners import check_corners, default_corners
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import PhotoRead
from ui.reptile_tank.journey import escape_markdown, pad_columns, pad_row
from ui.reptile_tank.labels import FULL_NAMES, ICONS, SHORT_NAMES


def test_player_names_are_trimmed_checked_and_distinct():
    assert S.parse_player_names("  Ann  \n\nBen   Jr\n") == ["Ann", "Ben Jr"]
    assert S.parse_player_names("<b>Zoë</b> 🦎\nAnn") == ["<b>Zoë</b> 🦎", "Ann"]
    for bad in ["", "Ann\nANN", "a\nb\nc\nd\ne", "x" * 41, "Ann\x07"]:
        with pytest.raises(ValueError):
            S.parse_player_names(bad)


def test_set_cell_marks_corrections_of_a_read_only():
    state: dict = {}
    S.start_game(state, ["Ann", "Ben"], star_cards_out=False, objectives=[])
    assert S.missing_players(state) == ["Ann", "Ben"]
    assert S.set_cell(state, "Ann", 0, 0, "rock") is True
    assert S.set_cell(state, "Ann", 0, 0, "rock") is False
    assert S.entry_for(state, "Ann").corrected == set()  # typed by hand: nothing "corrected"
    with pytest.raises(ValueError):
        S.set_cell(state, "Ann", 4, 0, "rock")
    with pytest.raises(ValueError):
        S.set_cell(state, "Ann", 0, 0, "dragon")
    with pytest.raises(ValueError):
        S.set_cell(state, "Cara", 0, 0, "rock")
    read = PhotoRead(
        grid_found=True,
        rows=[row[:] for row in FULL_BOARD],
        confidence=[[0.5] * 5 for _ in range(3)] + [[0.5, 0.01, 0.5, 0.5, 0.05]],
        overlay_jpeg=b"\xff\xd8",
        image_size=(800, 600),
        photo_sha256="a" * 64,
        thumbnail_jpeg=b"\xff\xd8",
        read_ms=12.0,
        check=[[False] * 5 for _ in range(3)] + [[False, True, False, False, True]],
        needs_check=True,
    )
    S.store_read(state, "Ben", b"photo", read)
    entry = S.entry_for(state, "Ben")
    # the reader's check flags decide (not the confidence); a read without flags flags nothing
    assert S.low_confidence_cells(entry, S.LOW_CONFIDENCE) == [(3, 1), (3, 4)]
    unflagged = dataclasses.replace(read, check=None)
    S.store_read(state, "Ann", b"photo 2", unflagged)
    assert S.entry_for(state, "Ann").cells_to_check() == []
    S.set_cell(state, "Ben", 3, 1, "water")
    assert entry.corrected == {(3, 1)}
    assert S.low_confidence_cells(entry, S.LOW_CONFIDENCE) == [(3, 4)]
    assert S.missing_players(state) == []  # a cell set by hand enters the board


def test_a_photo_is_read_once_and_a_failed_read_waits_for_corners():
    state: dict = {}
    S.start_game(state, ["Ann", "Ben"], star_cards_out=False, objectives=[])
    photo = b"some jpeg bytes"
    failed = PhotoRead(
        grid_found=False,
        rows=None,
        confidence=None,
        overlay_jpeg=b"",
        image_size=(800, 600),
        photo_sha256=__import__("hashlib").sha256(photo).hexdigest(),
        thumbnail_jpeg=b"",
        read_ms=5.0,
        message="no grid",
    )
    assert S.photo_is_new(state, "Ann", photo)
    S.store_read(state, "Ann", photo, failed)
    assert not S.photo_is_new(state, "Ann", photo)
    assert S.photo_is_new(state, "Ben", photo)
    assert S.pending_corners(state, "Ann").photo == photo
    assert "Ann" not in state[S.ENTRIES]


def test_start_game_refuses_one_objective():
    with pytest.raises(ValueError):
        S.start_game({}, ["Ann", "Ben"], star_cards_out=False, objectives=[3])


def test_pad_columns_sum_to_the_total_and_carry_every_group():
    rules = load_rules()
    pad = score_board(Board.from_rows(FULL_BOARD), rules, objectives=(3, 11))
    columns = pad_columns(pad)
    assert sum(c.vp for c in columns) == pad.total
    assert sum(len(c.reasons) for c in columns) == len(pad.groups)
    assert [c.header for c in columns] == [h for _key, h in load_rules().pad_columns]
    row = pad_row("Ann", pad)
    assert row["Total"] == pad.total and row["Player"] == "Ann"


def test_escape_markdown_neutralises_markup():
    text = escape_markdown("**Bo** :red[x] <b>")
    assert "**" not in text.replace("\\*", "")
    assert text == "\\*\\*Bo\\*\\* \\:red\\[x\\] \\<b\\>"


def test_corners_must_be_clockwise_inside_and_large_enough():
    good = default_corners(800, 600)
    assert check_corners(good, 800, 600) == [tuple(map(float, p)) for p in good]
    with pytest.raises(ValueError, match="clockwise"):
        check_corners(list(reversed(good)), 800, 600)
    with pytest.raises(ValueError, match="outside"):
        check_corners([(-5, 0), (100, 0), (100, 100), (0, 100)], 800, 600)
    with pytest.raises(ValueError, match="too small"):
        check_corners([(0, 0), (20, 0), (20, 20), (0, 20)], 800, 600)
    with pytest.raises(ValueError, match="four"):
        check_corners(good[:3], 800, 600)


def test_house_values_round_trip_through_the_night_settings():
    from service import settings as night
    from service.reptile_tank import house_rules

    defaults = load_rules()
    tiers = night.tier_values(defaults)
    edited = dict(tiers)
    edited[("neon_day_gecko", "advanced")] = 14
    changed = night.changed_values(tiers, edited)
    assert changed == {("neon_day_gecko", "advanced"): 14}
    objectives = night.changed_values(
        night.objective_values(defaults), {1: 7, 2: defaults.objectives[2].vp}
    )
    settings = night.NightSettings(tiers=changed, objectives=objectives)
    again = night.NightSettings.from_json(settings.to_json())
    assert again == settings
    house = house_rules.rules_for(again)
    assert house.cards["neon_day_gecko"].tier("advanced").vp == 14
    assert house.objectives[1].vp == 7
    assert house.cards["blue_tongued_skink"].tier("advanced").vp == (
        defaults.cards["blue_tongued_skink"].tier("advanced").vp
    )
    assert house_rules.rules_for(night.NightSettings()) is house_rules.rules_for(
        night.NightSettings()
    )
    assert house_rules.rules_fingerprint(settings) != house_rules.rules_fingerprint(
        night.NightSettings()
    )
    with pytest.raises(ValueError):
        night.changed_values(tiers, {("dragon", "basic"): 3})
    with pytest.raises(ValueError):
        night.changed_values(tiers, {("rock", "basic"): -1})


def test_engine_reasons_in_the_players_words():
    from ui.reptile_tank.labels import humanize

    assert humanize("golden_pothos+rock at (0,1) (2,4)") == (
        "Golden pothos+rock at row 1, column 2; row 3, column 5"
    )


def test_every_label_has_a_name_a_short_name_and_an_icon():
    assert set(FULL_NAMES) == set(SHORT_NAMES) == set(ICONS) == set(CELL_LABELS)
    assert all(len(name) <= 8 for name in SHORT_NAMES.values())


@pytest.mark.parametrize(
    ("master", "rank"),
    [
        ({}, 1),
        (  # the rulebook's solo example: the Master scores 59, this board 43
            {
                "corn_snake": 3,
                "three_toed_box_turtle": 3,
                "common_box_turtle": 2,
                "blue_tongued_skink": 2,
                "brown_anole": 2,
                "golden_pothos": 2,
                "rock": 1,
                "hollow_log": 1,
                "silver_inch_plant": 1,
            },
            2,
        ),
    ],
)
def test_a_solo_record_ranks_the_player_against_the_master(master, rank):
    from ui.reptile_tank.journey import score_solo_entry, solo_record
    from ui.reptile_tank.state import TerrariumEntry

    entry = TerrariumEntry(rows=[list(row) for row in FULL_BOARD])
    rules = load_rules()
    result = score_solo_entry(entry, master, rules)
    record = solo_record(
        result,
        entry,
        name="Ann",
        counts=master,
        session_id=1,
        star_cards_out=False,
        objectives=(),
        rules_version="test",
        rules_hash="0",
    )
    assert record.players[0].rank == rank
    assert record.extra["winner"] == ("master" if rank == 2 else "player")


def test_the_share_picture_is_a_png_of_the_board_and_columns():
    from service.reptile_tank.pad_image import draw_board, scoring_cells, share_image
    from ui.reptile_tank.journey import pad_columns
    from ui.reptile_tank.labels import SHORT_NAMES

    pad = score_board(Board.from_rows(FULL_BOARD), load_rules())
    board = draw_board(FULL_BOARD, pad, SHORT_NAMES)
    assert board.size[0] > board.size[1] > 0
    assert scoring_cells(pad) == {c for g in pad.groups if g.vp > 0 for c in map(tuple, g.cells)}
    columns = [(c.header, c.vp) for c in pad_columns(pad)]
    data = share_image("![x](http://h/t.png) 🦎", FULL_BOARD, pad, columns, SHORT_NAMES)
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size[0] > board.size[0]


def test_a_players_history_counts_wins_best_and_head_to_head():
    from types import SimpleNamespace as NS

    from service.reptile_tank.records import player_history

    def game(gid, lines, mode="multi"):
        return NS(
            id=gid,
            played_at=f"2026-11-0{gid}T20:00:00+00:00",
            mode=mode,
            players=[NS(name=n, total=t, rank=r) for n, t, r in lines],
        )

    games = [
        game(1, [("Ann", 40, 1), ("Ben", 30, 2)]),
        game(2, [("Ann", 20, 2), ("Ben", 50, 1), ("Cara", 20, 2)]),
        game(3, [("Ann", 33, 1)], mode="solo"),
    ]
    history = player_history(games, "Ann")
    assert [g["game"] for g in history["games"]] == [3, 2, 1]
    assert history["wins"] == 2 and history["trend"] == [40, 20, 33]
    assert history["best"] == {"game": 1, "total": 40}
    assert history["head_to_head"] == [
        {"Opponent": "Ben", "Games": 2, "Won": 1, "Lost": 1, "Tied": 0},
        {"Opponent": "Cara", "Games": 1, "Won": 0, "Lost": 0, "Tied": 1},
    ]


def test_a_game_round_trips_through_its_draft_document_photos_as_blobs():
    from service.reptile_tank.drafts import (
        GameInProgress,
        PendingPhoto,
        digest_of,
        from_document,
        to_document,
    )
    from service.reptile_tank.game import TerrariumEntry

    blobs: dict[str, bytes] = {}

    def put(data: bytes) -> str:
        blobs[digest_of(data)] = data
        return digest_of(data)

    entry = TerrariumEntry(
        rows=[row[:] for row in FULL_BOARD],
        confidence=[[0.4] * 5 for _ in range(4)],
        source="photo",
        photo_sha256="c" * 64,
        thumbnail_jpeg=b"thumb",
        overlay_jpeg=b"overlay",
        corrected={(1, 2)},
        read_ms=12.5,
        check=[[r == c for c in range(5)] for r in range(4)],
        candidates=[[["rock", "water"]] * 5 for _ in range(4)],
        check_reasons=["4 cell(s) in doubt", "1 card(s) partly hidden or unlike their face"],
    )
    waiting = PendingPhoto(
        photo=b"the photo bytes",
        read=PhotoRead(
            grid_found=False,
            rows=None,
            confidence=None,
            overlay_jpeg=b"shown",
            image_size=(640, 480),
            photo_sha256="d" * 64,
            thumbnail_jpeg=b"t2",
            read_ms=3.0,
            message="no terrarium found",
        ),
    )
    game = GameInProgress(
        players=["Ann", "Ben"],
        star_cards_out=True,
        objectives=[3, 11],
        entries={"Ann": entry},
        pending={"Ben": waiting},
        active_player="Ben",
        notes="**rematch**",
    )
    document = to_document(game, put)
    assert b"the photo bytes" in blobs.values() and len(str(document)) < 5000
    back = from_document(document, blobs.get)
    assert back.players == ["Ann", "Ben"] and back.objectives == [3, 11] and back.star_cards_out
    assert back.notes == "**rematch**" and back.active_player == "Ben"
    again = back.entries["Ann"]
    assert again.rows == entry.rows and again.corrected == {(1, 2)}
    assert again.check == entry.check and again.candidates_for(0, 0) == ["rock", "water"]
    assert again.check_reasons == entry.check_reasons  # the reasons survive a reload
    assert again.overlay_jpeg == b"overlay" and again.thumbnail_jpeg == b"thumb"
    assert back.pending["Ben"].photo == b"the photo bytes"
    assert back.pending["Ben"].read.image_size == (640, 480)
    with pytest.raises(ValueError):
        from_document({**document, "format": 99}, blobs.get)


def test_the_photo_page_says_why_a_read_needs_a_check():
    from service.reptile_tank.game import TerrariumEntry
    from ui.reptile_tank.journey import why_check

    entry = TerrariumEntry(
        rows=[row[:] for row in FULL_BOARD],
        check_reasons=[
            "3 cell(s) in doubt",
            "1 card(s) between two faces too close to tell apart",
            "another fit of the grid explains the photo almost as well; check the grid's corners",
        ],
    )
    assert why_check(entry) == (
        "Why: 1 card(s) between two faces too close to tell apart; another fit of the grid "
        "explains the photo almost as well; check the grid's corners."
    )
    assert why_check(TerrariumEntry(rows=[row[:] for row in FULL_BOARD])) == ""
