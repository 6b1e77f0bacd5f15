"""Every point honest (issue 13): provenance of every line, reasons from the rule fields, every
card explained once, the solo Master's readings, no import loop in ``scoring/``.

The provenance oracle reads the raw rules file with ``tomllib`` (not the engine's ``uses``): a
line of card X scored at tier T rests on the card's condition kind, the tier's VP, the tier's
condition and, for an area, the mask; an objective on its VP, its condition and its mask.
"""

from __future__ import annotations

import ast
import random
import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring_fixtures import SOLO_MASTER, make_board
from test_scoring_game_and_solo import BARBARA, CHARLES, MICHAEL
from test_scoring_objectives import CASES

from scoring.reptile_tank.board import Board
from scoring.reptile_tank.cards import CARD_IDS, FACE_LABELS
from scoring.reptile_tank.engine import card_lines, score_board
from scoring.reptile_tank.game import score_game
from scoring.reptile_tank.rules import DEFAULT_RULES_PATH, load_rules
from scoring.reptile_tank.solo import score_master, score_solo

RULES = load_rules()
RAW = tomllib.loads(DEFAULT_RULES_PATH.read_text(encoding="utf-8"))
ROWS, COLS = RULES.layout.rows, RULES.layout.cols
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)
WORKED = {"Charles": CHARLES, "Michael": MICHAEL, "Barbara": BARBARA}


def raw_provenances(group) -> list[str]:
    """What the line rests on, read from the raw data file (independent of ``group.uses``)."""
    if group.objective is not None:
        entry = RAW["objectives"][str(group.objective)]
        found = [entry["provenance"], entry["condition_provenance"]]
        if "mask" in entry:
            found.append(RAW["masks"][entry["mask"]]["provenance"])
        return found
    card = RAW["cards"][group.card_type]
    tier = card["tiers"][group.tier]
    found = [card["provenance"], tier["provenance"], tier["condition_provenance"]]
    if "mask" in card:
        found.append(RAW["masks"][card["mask"]]["provenance"])
    return found


def check_line(group) -> None:
    used = raw_provenances(group)
    assert (group.provenance == "rulebook") == all(p == "rulebook" for p in used), group
    assert group.assumed == ("assumed" in used), group
    assert group.to_json()["provenance"] == group.provenance


def check_pad(board: Board, pad) -> None:
    for group in pad.groups:
        check_line(group)
    assert pad.assumed_vp == sum(g.vp for g in pad.groups if "assumed" in raw_provenances(g))
    assert pad.to_json()["assumed_vp"] == pad.assumed_vp
    # every card in exactly one scoring or not-scoring line; no line holds an empty cell
    lines = card_lines(pad)
    for cell, label in board.cells():
        assert lines.get(cell, 0) == (0 if label == "empty" else 1), (cell, label, pad.non_scoring)


# ----------------------------------------------------------------------------- provenance walk


def test_worked_examples_every_line_has_the_provenance_of_everything_it_used():
    result = score_game([(n, make_board(t)) for n, t in WORKED.items()], RULES, objectives=[3, 10])
    for player in result.players:
        check_pad(player.board, player.pad)
    for number, (met, _) in CASES.items():
        board = make_board(met)
        check_pad(board, score_board(board, RULES, objectives=[number]))


CELLS = st.lists(st.sampled_from(list(FACE_LABELS) + ["empty"] * 3), min_size=20, max_size=20)


@SETTINGS
@given(CELLS, st.sampled_from([None, True, False]))
def test_generated_boards_every_line_has_the_provenance_of_everything_it_used(cells, majority):
    board = Board.from_rows([cells[r * COLS : (r + 1) * COLS] for r in range(ROWS)])
    pad = score_board(board, RULES, objectives=range(1, 20), roach_majority=majority)
    check_pad(board, pad)


def test_the_leaks_of_issue_13_are_assumed():
    corn = score_board(make_board("CS W . . .\nCS CS R . .\n. . . . .\n. . . . ."), RULES)
    (line,) = [g for g in corn.groups if g.card_type == "corn_snake"]
    assert line.tier == "advanced" and line.vp == 11 and line.assumed  # only the 11 is printed
    water = {
        4: score_board(make_board("W W W W .\n. . . . .\n. . . . .\n. . . . ."), RULES),
        5: score_board(make_board("W W W W W\n. . . . .\n. . . . .\n. . . . ."), RULES),
    }
    assert [g.provenance for g in water[4].groups] == ["rulebook"]
    assert [g.provenance for g in water[5].groups] == ["assumed"]  # 5+ cards: our reading
    ringneck = score_board(make_board("RS . RS . RS\n. . . . .\n. . . . .\n. . . . ."), RULES)
    assert [g.provenance for g in ringneck.groups] == ["assumed"]  # the mask is assumed
    pothos = score_board(make_board(". . . . .\n. GP GP GP .\n. . . . .\n. . . . ."), RULES)
    assert [g.provenance for g in pothos.groups] == ["assumed"]
    master, *_ = score_master(SOLO_MASTER, RULES, pairs=[("rock", "hollow_log")])
    pairs = [g for g in master.groups if g.tier == "pair"]
    assert pairs and all(g.assumed for g in pairs)  # lowest of values some of them assumed
    solo = score_solo(make_board(MICHAEL), SOLO_MASTER, RULES, objectives=[3, 11, 15])
    failed = [g for g in solo.master.groups if g.tier == "failed"]
    assert failed and all(g.assumed for g in failed)  # the objectives' VP is assumed
    assert solo.master.assumed_vp == sum(g.vp for g in solo.master.groups if g.assumed)


# ----------------------------------------------------------------------------- +1 to every VP


def _boards_for_every_tier() -> dict[tuple[str, str], tuple[Board, bool | None]]:
    """A board (and roach majority) on which each (card, tier) scores, found by seeded search."""
    rng = random.Random(13)
    envs = ["rock", "hollow_log", "golden_pothos", "scarlet_star", "silver_inch_plant", "water"]
    found: dict[tuple[str, str], tuple[Board, bool | None]] = {}
    wanted = {(cid, t.name) for cid, rule in RULES.cards.items() for t in rule.tiers}
    for card_id in CARD_IDS + ("water",):
        animals = ["corn_snake", "brown_anole", "common_box_turtle", "blue_tongued_skink"]
        alphabet = [card_id] * 8 + envs + animals + ["empty"] * 2
        for _ in range(3000):
            if all(key in found for key in wanted if key[0] == card_id):
                break
            cells = [rng.choice(alphabet) for _ in range(ROWS * COLS)]
            board = Board.from_rows([cells[r * COLS : (r + 1) * COLS] for r in range(ROWS)])
            for majority in (None, True):
                for g in score_board(board, RULES, roach_majority=majority).groups:
                    found.setdefault((g.card_type, g.tier), (board, majority))
    missing = wanted - set(found)
    assert not missing, missing
    return found


TIER_BOARDS = _boards_for_every_tier()


@pytest.mark.parametrize("card_id, tier", sorted(TIER_BOARDS), ids=lambda v: str(v))
def test_plus_one_to_a_tier_vp_shows_in_every_reason_that_uses_it(card_id, tier):
    board, majority = TIER_BOARDS[(card_id, tier)]
    new = RULES.cards[card_id].tier(tier).vp + 1
    rules = load_rules(overrides={"cards": {card_id: {"tiers": {tier: {"vp": new}}}}})
    assert f"{new} VP" in rules.cards[card_id].tier(tier).text  # the Rules page's sentence
    pad = score_board(board, rules, roach_majority=majority)
    lines = [g for g in pad.groups if g.card_type == card_id and g.tier == tier]
    assert lines
    for g in lines:
        if RULES.cards[card_id].per_unit:
            assert f"x {new} VP" in g.reason, g.reason
        else:
            assert g.vp == new and g.reason.endswith(f": {new} VP"), g.reason
        assert str(new - 1) + " VP" not in g.reason or new - 1 == g.vp, g.reason


@pytest.mark.parametrize("number", sorted(CASES))
def test_plus_one_to_an_objective_vp_shows_in_its_reasons(number):
    new = RULES.objectives[number].vp + 1
    rules = load_rules(overrides={"objectives": {number: {"vp": new}}})
    met, failed = (make_board(text) for text in CASES[number])
    (line,) = [g for g in score_board(met, rules, objectives=[number]).groups if g.objective]
    assert line.vp == new and line.reason.endswith(f": {new} VP")
    (why,) = score_board(failed, rules, objectives=[number]).failed
    assert f"{new} VP not scored" in why.reason
    solo = score_solo(failed, {"rock": 1}, rules, objectives=[number])
    (for_master,) = [g for g in solo.master.groups if g.objective == number]
    assert for_master.reason.endswith(f": {new} VP")


@pytest.mark.parametrize(
    "section, key",
    [
        ("quantity", "vp_per_card"),
        ("quantity", "more_than_player_vp"),
        ("adjacency", "vp_per_env_kind"),
    ],
)
def test_plus_one_to_a_solo_value_shows_in_the_masters_reasons(section, key):
    old = getattr(getattr(RULES.solo, section), key)
    rules = load_rules(overrides={"solo": {section: {key: old + 1}}})
    master = {**SOLO_MASTER, "dubia_roach": 2}
    master.pop("neon_day_gecko")
    master.pop("red_footed_tortoise")
    pad, *_ = score_master(master, rules, pairs=[("rock", "hollow_log")], player_roaches=0)
    card = "dubia_roach" if section == "quantity" else "brown_anole"
    lines = [g for g in pad.groups if g.card_type == card]
    assert any(f"{old + 1} VP" in g.reason for g in lines), [g.reason for g in lines]


# ----------------------------------------------------------------------------- reasons


def test_reasons_name_cards_and_one_based_positions():
    pad = score_board(make_board(MICHAEL), RULES)
    skinks = [g for g in pad.groups if g.card_type == "blue_tongued_skink"]
    assert skinks[0].reason.startswith("Blue-Tongued Skink (advanced): 3 in a straight line at ")
    assert "row 1, column 1; row 1, column 2; row 1, column 3" in skinks[0].reason
    assert all("(0," not in g.reason and "_" not in g.reason for g in pad.groups)


def test_a_fall_back_says_why_it_missed_the_higher_tier():
    # three skinks next to Water only: a pair (5), and why not the 13
    pad = score_board(make_board("BTS BTS BTS . .\nW W W . .\n. . . . .\n. . . . ."), RULES)
    (line,) = [g for g in pad.groups if g.card_type == "blue_tongued_skink"]
    assert line.vp == 5
    assert "not advanced (13 VP)" in line.reason and "had 1 kind: Water" in line.reason
    (left,) = [n for n in pad.non_scoring if n.card_type == "blue_tongued_skink"]
    assert left.reason.startswith("Blue-Tongued Skink at row 1, column")


def test_the_fourth_turtle_of_an_enclosure_belongs_to_it():
    pad = score_board(make_board(". TTB . . .\nTTB R TTB . .\n. TTB . . .\n. . . . ."), RULES)
    (line,) = [g for g in pad.groups if g.card_type == "three_toed_box_turtle"]
    assert (line.vp, len(line.cells)) == (12, 4)
    assert not [n for n in pad.non_scoring if n.card_type == "three_toed_box_turtle"]


def test_failed_objectives_say_why():
    pad = score_board(make_board(MICHAEL), RULES, objectives=[11, 15])
    reasons = {f.number: f.reason for f in pad.failed}
    assert "no 2x2 square of Environment cards" in reasons[11]
    assert "no row of Animal cards all of different types" in reasons[15]
    assert pad.to_json()["objectives_failed_reasons"][0]["objective"] == 11


# ----------------------------------------------------------------------------- solo


def test_solo_anole_reading_is_recorded_as_assumed_with_the_other_reading_named():
    adjacency = RULES.solo.adjacency
    assert adjacency.env_kinds == "dry_land_held" and adjacency.env_kinds_provenance == "assumed"
    assert "with_water" in RAW["solo"]["adjacency"]["env_kinds"] or "with_water" in (
        DEFAULT_RULES_PATH.read_text(encoding="utf-8")
    )
    assert "solo.adjacency.env_kinds" in RULES.assumed_values()
    # the rulebook's example: 4 dry-land kinds, the maximum, so the reading changes nothing
    master, *_ = score_master(SOLO_MASTER, RULES, pairs=[("rock", "hollow_log")])
    (anole,) = [g for g in master.groups if g.card_type == "brown_anole"]
    # 1 VP per kind is the worked example's value, not the sentence's (8 VP): assumed, marked †
    assert anole.vp == 8 and anole.assumed
    assert "Golden Pothos, Hollow Log, Rock, Silver Inch Plant" in anole.reason
    # two dry-land kinds and flipped cards: the readings differ and the line says so
    cards = {"brown_anole": 2, "rock": 1, "hollow_log": 1, "rosy_boa": 1, "corn_snake": 1}
    held, *_ = score_master(cards, RULES, pairs=[])
    with_water = load_rules(overrides={"solo": {"adjacency": {"env_kinds": "with_water"}}})
    after, *_ = score_master(cards, with_water, pairs=[])
    (a,) = [g for g in held.groups if g.card_type == "brown_anole"]
    (b,) = [g for g in after.groups if g.card_type == "brown_anole"]
    assert (a.vp, b.vp) == (2 * 2, 2 * 3) and a.assumed and b.assumed
    assert "Water" in b.reason and "Water" not in a.reason.split("(")[1].split(")")[0]


def test_master_pad_counts_its_three_card_sets_and_names_its_cards():
    master, *_ = score_master(SOLO_MASTER, RULES, pairs=[("rock", "hollow_log")])
    assert master.three_card_sets == 2  # 3 corn snakes, 3 three-toed box turtles
    assert master.total == 59
    assert all("_" not in g.reason for g in master.groups)
    assert "1 Environment cards" not in " ".join(g.reason for g in master.groups)


def test_a_master_of_more_than_twenty_cards_is_refused():
    from scoring.reptile_tank.solo import SoloError

    with pytest.raises(SoloError, match="at most 20"):
        score_master({"rock": 9, "hollow_log": 9, "corn_snake": 3}, RULES)


# ----------------------------------------------------------------------------- vocabulary


def test_the_pad_columns_names_and_star_cards_come_from_the_rules_data():
    assert RULES.column_keys == tuple(RAW["pad"]["columns"])
    pad = score_board(make_board(MICHAEL), RULES)
    assert list(pad.to_json())[: len(RULES.column_keys)] == list(RULES.column_keys)
    assert RULES.star_cards == tuple(c for c in RULES.cards if RAW["cards"][c]["star"])
    house = load_rules(overrides={"cards": {"rosy_boa": {"star": True}}})
    assert "rosy_boa" in house.star_cards


def test_an_edition_in_a_rules_file_shows_on_the_pad(tmp_path):
    path = tmp_path / "ours.toml"
    path.write_text('[edition]\nname = "Reptile Tank"\nversion = "2nd printing"\n')
    rules = load_rules(path)
    pad = score_board(make_board(MICHAEL), rules)
    assert pad.edition["version"] == "2nd printing"
    assert pad.to_json()["edition"]["version"] == "2nd printing"


def test_scoring_has_no_import_loop():
    root = Path(__file__).resolve().parents[3]
    graph: dict[str, set[str]] = {}
    for path in root.glob("scoring/**/*.py"):
        module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        graph[module] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("scoring."):
                graph[module].add(node.module)
            elif isinstance(node, ast.Import):
                graph[module] |= {a.name for a in node.names if a.name.startswith("scoring.")}
    state: dict[str, int] = {}

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if state.get(name) == 2:
            return
        assert state.get(name) != 1, " -> ".join((*trail, name))
        state[name] = 1
        for dep in graph.get(name, ()):
            visit(dep, (*trail, name))
        state[name] = 2

    for name in graph:
        visit(name, ())
    assert "scoring.reptile_tank.engine" not in graph["scoring.reptile_tank.objectives"]


def test_master_water_of_five_flipped_cards_rests_on_the_assumed_tier():
    cards = {"rosy_boa": 1, "corn_snake": 1, "neon_day_gecko": 1, "rock": 1, "dubia_roach": 0}
    cards |= {"red_footed_tortoise": 1, "blue_tongued_skink": 1}
    pad, flipped, *_ = score_master(cards, RULES, pairs=[])
    (water,) = [g for g in pad.groups if g.card_type == "water"]
    assert len(flipped) == 6 and water.tier == "five" and water.assumed


def test_a_game_has_one_to_four_players():
    from scoring.reptile_tank.game import GameError

    board = make_board(MICHAEL)
    with pytest.raises(GameError, match="1 to 4 players"):
        score_game([(f"P{k}", board) for k in range(5)], RULES)


def test_no_stored_prose_carries_a_number():
    """Numbers live in fields; sentences with numbers are built (objective cards' printed
    sentences excepted: they are the card's own words)."""

    def texts(table, path=()):
        for key, value in table.items():
            if isinstance(value, dict):
                yield from texts(value, (*path, key))
            elif key in ("text", "note") and path[:1] != ("objectives",):
                yield ".".join((*path, key)), value

    def numbers(text: str) -> bool:  # an objective's card number names it, it is no value
        return any(ch.isdigit() for ch in re.sub(r"Objective \d+", "", text))

    found = [(key, text) for key, text in texts(RAW) if numbers(text)]
    # the anole note quotes the rulebook's own discrepancy ("8 VP per Anole card")
    assert [key for key, _ in found] == ["solo.adjacency.note"], found
    assert all(
        "VP" not in tier.get("text", "")
        for c in RAW["cards"].values()
        for tier in c["tiers"].values()
    )
