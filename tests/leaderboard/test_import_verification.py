"""Imports are checked by re-scoring the boards they carry (issue 16: a forged pad of 999,999 VP on
an empty board, and every player ranked 1, were imported as they were)."""

from __future__ import annotations

import copy

import pytest

from leaderboard import GamePlayer, GameRecord, LeaderboardError, Store
from service.reptile_tank.import_check import check_game, default_rules
from service.store import schema_history

EMPTY = {"rows": [["empty"] * 5 for _ in range(4)]}
MIXED = {
    "rows": [
        ["blue_tongued_skink", "blue_tongued_skink", "rock", "water", "corn_snake"],
        ["golden_pothos", "dubia_roach", "dubia_roach", "hollow_log", "rosy_boa"],
        ["common_box_turtle", "water", "empty", "scarlet_star", "ringneck_snake"],
        ["silver_inch_plant", "brown_anole", "red_footed_tortoise", "rock", "water"],
    ]
}


def scored_game(session_id: int, boards: dict[str, dict], *, rules_hash: str | None = None):
    """A game scored by the real engine with the default rules, as the app saves it."""
    from scoring.reptile_tank.board import Board
    from scoring.reptile_tank.engine import Variant
    from scoring.reptile_tank.game import score_game

    rules, digest = default_rules()
    result = score_game(
        [(name, Board.from_json(board)) for name, board in boards.items()],
        rules,
        objectives=(3, 11),
        variant=Variant(players=len(boards), star_cards_removed=False),
    )
    players = tuple(
        GamePlayer(name=p.name, board=p.board.to_json(), pad=p.pad.to_json(), rank=p.rank)
        for p in result.players
    )
    return GameRecord(
        session_id=session_id,
        players=players,
        objectives=[3, 11],
        rules_version="test",
        rules_hash=digest if rules_hash is None else rules_hash,
    )


@pytest.fixture
def exported() -> dict:
    with Store("sqlite://", history=schema_history()) as source:
        night = source.create_session("n")
        source.save_game(scored_game(night.id, {"Ann": MIXED, "Bo": EMPTY}))
        source.save_game(scored_game(night.id, {"Cy": EMPTY, "Di": MIXED}, rules_hash="house-1"))
        return source.export_json()


def test_genuine_games_import_verified(exported) -> None:
    with Store("sqlite://", history=schema_history()) as target:
        summary = target.import_json(exported, verify=check_game)
    assert summary.games_added == 2
    assert summary.flagged == ()  # house-rule game: its pads equal the default rules' anyway


def test_forged_pad_on_an_empty_board_is_refused(exported) -> None:
    forged = copy.deepcopy(exported)
    line = forged["games"][0]["players"][1]  # Bo, the empty board
    assert line["pad"]["total"] == 0
    line["pad"]["total"] = line["total"] = 999_999
    line["rank"] = 1
    forged["games"][0]["players"][0]["rank"] = 2
    with Store("sqlite://", history=schema_history()) as target:
        with pytest.raises(LeaderboardError, match=r"games\[0\]: .*total 999999 \(the board"):
            target.import_json(forged, verify=check_game)
        assert target.list_games() == [] and target.list_sessions() == []


def test_every_player_ranked_first_is_refused(exported) -> None:
    forged = copy.deepcopy(exported)
    for line in forged["games"][0]["players"]:
        line["rank"] = 1
    with Store("sqlite://", history=schema_history()) as target:
        with pytest.raises(LeaderboardError, match=r"games\[0\]: game.players\[1\].rank: 1"):
            target.import_json(forged, verify=check_game)
        assert target.list_games() == []


def test_forged_pad_under_house_rules_is_flagged(exported) -> None:
    forged = copy.deepcopy(exported)
    line = forged["games"][1]["players"][0]  # Cy, empty board, house rules
    line["pad"]["total"] = line["total"] = 500
    forged["games"][1]["players"][0]["rank"] = 1
    forged["games"][1]["players"][1]["rank"] = 2
    with Store("sqlite://", history=schema_history()) as target:
        summary = target.import_json(forged, verify=check_game)
    assert summary.games_added == 2
    [(uid, reason)] = summary.flagged
    assert uid == forged["games"][1]["uid"]
    assert "other rules" in reason and "total 500 (the board scores 0)" in reason


def test_forged_column_is_refused(exported) -> None:
    forged = copy.deepcopy(exported)
    forged["games"][0]["players"][0]["pad"]["lizards"] += 5
    with Store("sqlite://", history=schema_history()) as target:
        with pytest.raises(LeaderboardError, match="lizards"):
            target.import_json(forged, verify=check_game)


def test_unscorable_board_under_default_rules_is_refused(exported) -> None:
    forged = copy.deepcopy(exported)
    forged["games"][0]["players"][0]["board"] = {"rows": [["gecko"] * 5] * 4}
    with Store("sqlite://", history=schema_history()) as target:
        with pytest.raises(LeaderboardError, match="board"):
            target.import_json(forged, verify=check_game)


def test_verification_can_be_replaced_or_skipped(exported) -> None:
    forged = copy.deepcopy(exported)
    forged["games"][0]["players"][1]["pad"]["total"] = 999_999
    with Store("sqlite://", history=schema_history()) as target:
        summary = target.import_json(forged, verify=lambda record: "custom")
        assert len(summary.flagged) == 2
    with Store("sqlite://", history=schema_history()) as target:
        assert target.import_json(forged, verify=False).games_added == 2


def test_check_game_returns_none_for_a_genuine_game() -> None:
    assert check_game(scored_game(1, {"Ann": MIXED, "Bo": MIXED})) is None


def test_the_service_import_takes_the_check_from_the_game_list(exported) -> None:
    """``service.played.import_games`` finds the record game's check itself: a genuine export is
    imported, a forged pad is refused as by an explicit ``verify=check_game``."""
    from service.played import import_games

    with Store("sqlite://", history=schema_history()) as target:
        assert import_games(target, exported).games_added == 2
    forged = copy.deepcopy(exported)
    line = forged["games"][0]["players"][1]
    line["pad"]["total"] = line["total"] = 999_999
    line["rank"] = 1
    forged["games"][0]["players"][0]["rank"] = 2
    with Store("sqlite://", history=schema_history()) as target:
        with pytest.raises(LeaderboardError, match=r"total 999999"):
            import_games(target, forged)
        assert target.list_games() == []
