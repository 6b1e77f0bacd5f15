"""A Nimalia game at the table, as one JSON-able document the app edits round by round.

The app keeps the game in progress as a plain dict (it goes into the database as is, see
:mod:`leaderboard.played`, under the game id ``nimalia``)::

    {"goals": [b, g, y, r], "players": ["Ann", "Ben"], "round": 2,
     "reserves": {"Ann": [ROWS_ROUND_1, ROWS_ROUND_2], ...},   # 6 x 6 tokens per round
     "check": {"Ann": [[r, c], ...]},   # squares a photo read asked to check (this round)
     "uid": "…", "goal12": "printed", "tiebreak": "adaptation"}

A reserve is always the full 6 x 6 frame of tokens (``"."`` empty) in the notation of
:mod:`scoring.nimalia.cards`; a new round starts from the previous round's reserve (a reserve only
grows). Placing a card stamps its 4 turned squares (later cards cover earlier ones), exactly
what :func:`scoring.nimalia.reserve.reserve_from_placements` does; squares can then be fixed one by one.
Scoring is :func:`scoring.nimalia.api.score_game` on the rounds played so far, so every point,
floor, relative goal and tie-break is the engine's.

Every function raises ``ValueError`` with one plain sentence on bad input; the UI only renders
and collects.
"""

from __future__ import annotations

import copy
import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from scoring.nimalia import api as nimalia_service
from scoring.nimalia.cards import (
    ANIMAL_NAMES,
    EMPTY,
    LAND_NAMES,
    SQUARE_KINDS,
    Square,
    layout,
    turn,
)
from scoring.nimalia.rules import load_rules
from service.players import MAX_TABLE_PLAYERS

#: Players at a Nimalia table (the help text: 2 to 4; there is no solo mode).
MIN_PLAYERS = 2
MAX_PLAYERS = MAX_TABLE_PLAYERS  # the one source: service.players
#: The goal colours in the order a goal set lists them.
COLOURS = ("blue", "green", "yellow", "red")
LEVELS = ("easy", "difficult", "random")
#: Every value a square can take in the app: the 14 kinds and empty.
TOKENS: tuple[str, ...] = (*SQUARE_KINDS, EMPTY)

#: One picture per animal (plain emoji; the land is the square's colour).
ANIMAL_ICONS = {
    "cro": "🐊",
    "fla": "🦩",
    "lio": "🦁",
    "gir": "🦒",
    "pan": "🐼",
    "gor": "🦍",
    "bea": "🐻‍❄️",
    "pen": "🐧",
    "ott": "🦦",
}
#: Land colours of the square buttons (colour-blind safe enough with the emoji on top).
LAND_COLOURS = {"W": "#7ec8f0", "S": "#f3d27a", "J": "#8fd18a", "I": "#d5e0ea"}
RIVER_GLYPHS = {"/": "╱", "\\": "╲"}


@cache
def _rules():
    return load_rules()


def size() -> tuple[int, int]:
    """Rows and columns of a reserve (the layout's, 6 x 6)."""
    grid = layout()
    return grid.rows, grid.cols


def empty_reserve() -> list[list[str]]:
    rows, cols = size()
    return [[EMPTY] * cols for _ in range(rows)]


def square_text(token: str) -> str:
    """A square's button text: the animal's picture and, for an otter, its river."""
    if token == EMPTY:
        return "·"
    square = Square.parse(token)
    text = ANIMAL_ICONS[square.animal]
    if square.river:
        text += RIVER_GLYPHS[square.river]
    return text


def square_name(token: str) -> str:
    """``"otter on snow, river ╱"``, ``"crocodile on water"``, ``"empty"``."""
    if token == EMPTY:
        return "empty"
    square = Square.parse(token)
    text = f"{ANIMAL_NAMES[square.animal]} on {LAND_NAMES[square.land]}"
    if square.river:
        text += f", river {RIVER_GLYPHS[square.river]}"
    return text


def square_colour(token: str) -> str | None:
    return None if token == EMPTY else LAND_COLOURS[token.split(":")[0]]


def position_name(row: int, col: int) -> str:
    """1-based, as the engine's reasons say them."""
    return f"row {row + 1}, column {col + 1}"


# ------------------------------------------------------------------------------ goals


def catalogue() -> dict[int, dict[str, Any]]:
    """The 22 goals by id (colour, level, name, text, relative)."""
    return {g["goal"]: g for g in nimalia_service.goal_catalogue()}


def goals_by_colour() -> dict[str, list[int]]:
    out: dict[str, list[int]] = {c: [] for c in COLOURS}
    for goal in catalogue().values():
        out[goal["colour"]].append(goal["goal"])
    return out


def draw_goals(level: str, seed: int | None = None) -> list[int]:
    """A legal goal set for ``level`` (easy, difficult, random); a random seed unless given."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose easy, difficult or random")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    return [g["goal"] for g in nimalia_service.choose_goals(level, seed)["goals"]]


def check_goals(goals: Sequence[int]) -> list[int]:
    """The 4 goals in colour order (blue, green, yellow, red), checked as the rules want."""
    from scoring.nimalia import engine

    if len(goals) != 4 or any(g is None for g in goals):
        raise ValueError("choose one goal of each colour (4 goals)")
    goals = [int(g) for g in goals]
    engine.check_goal_set(goals, _rules())
    by_colour = {catalogue()[g]["colour"]: g for g in goals}
    return [by_colour[c] for c in COLOURS]


def round_goals(game: dict[str, Any], number: int) -> list[int]:
    """The goals scored after round ``number``, in the round's scoring order."""
    colours = _rules().rounds[number].colours
    by_colour = {catalogue()[g]["colour"]: g for g in game["goals"]}
    return [by_colour[c] for c in colours]


def rounds_total() -> int:
    return len(_rules().rounds)


# ------------------------------------------------------------------------------ the game


def clean_players(names: Sequence[str]) -> list[str]:
    from service.players import clean_name

    players = [clean_name(n) for n in names if str(n).strip()]
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise ValueError(
            f"Nimalia is played by {MIN_PLAYERS} to {MAX_PLAYERS} players (no solo mode); "
            f"got {len(players)}"
        )
    folded = [p.casefold() for p in players]
    for i, name in enumerate(folded):
        if name in folded[:i]:
            raise ValueError(f"two players are called {players[i]!r}; give them different names")
    return players


def new_game(
    players: Sequence[str],
    goals: Sequence[int],
    *,
    goal12: str | None = None,
    tiebreak: str | None = None,
) -> dict[str, Any]:
    """A game at round 1 with empty reserves. ``goal12`` (``printed``/``adaptation``) and
    ``tiebreak`` (``adaptation``/``every_place``) are the engine's options (``docs/nimalia.md``);
    ``None`` keeps the rules' defaults."""
    names = clean_players(players)
    try:
        rules = _rules().with_options(goal12=goal12, tiebreak=tiebreak)
    except ValueError as error:
        raise ValueError(str(error)) from None
    return {
        "goals": check_goals(goals),
        "players": names,
        "round": 1,
        "reserves": {p: [empty_reserve()] for p in names},
        "check": {p: [] for p in names},
        "uid": uuid.uuid4().hex,
        "goal12": rules.goal12,
        "tiebreak": rules.tiebreak_scope,
    }


def check_game(document: Any) -> dict[str, Any]:
    """A stored game document, checked (``ValueError`` naming what is wrong): what the page
    reads back from the database may come from another version or be damaged."""
    if not isinstance(document, dict):
        raise ValueError("a Nimalia game is an object")
    for key in ("goals", "players", "round", "reserves", "check", "uid"):
        if key not in document:
            raise ValueError(f"the game has no {key!r}")
    check_goals(document["goals"])
    players = clean_players(document["players"])
    number = document["round"]
    if isinstance(number, bool) or not isinstance(number, int):
        raise ValueError("the round is not a number")
    if not 1 <= number <= rounds_total():
        raise ValueError(f"round {number} is not one of 1-{rounds_total()}")
    rows, cols = size()
    for player in players:
        rounds = document["reserves"].get(player)
        if not isinstance(rounds, list) or not 1 <= len(rounds) <= number:
            raise ValueError(f"{player!r} has no reserves for rounds 1-{number}")
        for grid in rounds:
            if (
                not isinstance(grid, list)
                or len(grid) != rows
                or any(not isinstance(line, list) or len(line) != cols for line in grid)
                or any(token not in TOKENS for line in grid for token in line)
            ):
                raise ValueError(f"a reserve of {player!r} is not {rows}x{cols} known squares")
        flags = document["check"].get(player, [])
        if not all(
            isinstance(f, list) and len(f) == 2 and 0 <= f[0] < rows and 0 <= f[1] < cols
            for f in flags
        ):
            raise ValueError(f"the squares to check of {player!r} are not squares")
    for option, allowed in (
        ("goal12", ("printed", "adaptation")),
        ("tiebreak", ("adaptation", "every_place")),
    ):
        if document.get(option) not in (None, *allowed):
            raise ValueError(f"unknown {option} option {document.get(option)!r}")
    return document


def _player(game: dict[str, Any], player: str) -> None:
    if player not in game["players"]:
        raise ValueError(f"{player!r} is not a player of this game")


def reserve_of(game: dict[str, Any], player: str, number: int | None = None) -> list[list[str]]:
    """The player's reserve after round ``number`` (default: the round being played)."""
    _player(game, player)
    number = number or game["round"]
    rounds = game["reserves"][player]
    while len(rounds) < number:
        rounds.append(copy.deepcopy(rounds[-1]) if rounds else empty_reserve())
    return rounds[number - 1]


def checks_of(game: dict[str, Any], player: str) -> list[tuple[int, int]]:
    return [(int(r), int(c)) for r, c in game["check"].get(player, [])]


def set_square(game: dict[str, Any], player: str, row: int, col: int, token: str) -> bool:
    """Set one square of the player's reserve this round; True when it changed. A fixed square
    is no longer flagged for checking."""
    if token not in TOKENS:
        raise ValueError(f"unknown square {token!r}")
    rows, cols = size()
    if not (0 <= row < rows and 0 <= col < cols):
        raise ValueError(f"{position_name(row, col)} is outside the {rows}x{cols} reserve")
    grid = reserve_of(game, player)
    game["check"][player] = [[r, c] for r, c in checks_of(game, player) if (r, c) != (row, col)]
    if grid[row][col] == token:
        return False
    grid[row][col] = token
    return True


def card_positions(game: dict[str, Any], player: str) -> list[tuple[int, int]]:
    """Where the next card may go (top-left square, 0-based): anywhere on an empty reserve,
    else covering at least one square already there."""
    spots = nimalia_service.next_positions({"squares": reserve_of(game, player)})
    return [(int(r), int(c)) for r, c in spots]


def place_card(
    game: dict[str, Any], player: str, card_id: int, row: int, col: int, degrees: int = 0
) -> list[tuple[int, int]]:
    """Lay card ``card_id`` turned ``degrees`` clockwise with its top-left square at
    ``(row, col)``; returns the 4 squares it covers."""
    if (row, col) not in card_positions(game, player):
        raise ValueError(
            f"a card cannot go at {position_name(row, col)}: it must fit in the reserve and "
            "cover at least one square already there"
        )
    squares = turn(int(card_id), int(degrees))
    spots = [(row, col), (row, col + 1), (row + 1, col), (row + 1, col + 1)]
    for (r, c), square in zip(spots, squares, strict=True):
        set_square(game, player, r, c, square.token)
    return spots


def _shifted(grid: list[list[str]], down: int, right: int) -> list[list[str]] | None:
    """``grid`` moved ``down``/``right`` squares within the frame, or None when a square would
    fall off it."""
    rows, cols = size()
    out = empty_reserve()
    for r, line in enumerate(grid):
        for c, token in enumerate(line):
            if token == EMPTY:
                continue
            if not (0 <= r + down < rows and 0 <= c + right < cols):
                return None
            out[r + down][c + right] = token
    return out


def grown_positions(game: dict[str, Any], player: str) -> list[tuple[int, int]]:
    """Where the next card may go as the reserve grows: top-left squares in the reserve's
    frame, ``-1`` for one square above or left of it (the reserve is moved down or right to
    make room, as long as it still fits the 6 x 6 area). Anywhere on an empty reserve."""
    grid = reserve_of(game, player)
    found: set[tuple[int, int]] = set()
    for down, right in ((0, 0), (1, 0), (0, 1), (1, 1)):
        moved = _shifted(grid, down, right)
        if moved is None:
            continue
        for r, c in nimalia_service.next_positions({"squares": moved}):
            found.add((int(r) - down, int(c) - right))
    if all(token == EMPTY for line in grid for token in line):
        found = {(r, c) for r, c in found if r >= 0 and c >= 0}
    return sorted(found)


def shift_reserve(game: dict[str, Any], player: str, down: int, right: int) -> None:
    """Move the player's reserve this round (and its flagged squares) within the 6 x 6 frame.

    Raises
    ------
    ValueError
        When a square would leave the frame.
    """
    grid = reserve_of(game, player)
    moved = _shifted(grid, down, right)
    if moved is None:
        raise ValueError("the reserve would leave the 6 x 6 area")
    game["reserves"][player][game["round"] - 1] = moved
    game["check"][player] = [[r + down, c + right] for r, c in checks_of(game, player)]
    likely = game.get("likely", {}).get(player)
    if likely:
        game["likely"][player] = {
            f"{int(k.split(',')[0]) + down},{int(k.split(',')[1]) + right}": v
            for k, v in likely.items()
        }


def lay_card(
    game: dict[str, Any], player: str, card_id: int, row: int, col: int, degrees: int = 0
) -> tuple[list[tuple[int, int]], tuple[int, int]]:
    """Lay a card with its top-left square at a place of :func:`grown_positions` (``-1`` moves
    the reserve down or right first); returns the 4 squares covered (in the frame after the
    move) and the move ``(down, right)``."""
    if (row, col) not in grown_positions(game, player):
        raise ValueError(
            f"a card cannot go with its top-left square at {position_name(row, col)}: it must "
            "cover at least one square already there, and the reserve must fit 6 x 6"
        )
    down, right = int(row < 0), int(col < 0)
    if down or right:
        shift_reserve(game, player, down, right)
    return place_card(game, player, card_id, row + down, col + right, degrees), (down, right)


def set_read(
    game: dict[str, Any],
    player: str,
    squares: Sequence[Sequence[str]],
    flagged: Sequence[tuple[int, int]] = (),
) -> list[str]:
    """Put a photo read (squares cropped to the reserve) on the player's reserve this round,
    at the frame's top-left corner; returns warnings (squares beyond the 6 x 6 frame dropped)."""
    rows, cols = size()
    grid = empty_reserve()
    warnings = []
    dropped = 0
    for r, line in enumerate(squares):
        for c, token in enumerate(line):
            if token not in TOKENS:
                raise ValueError(f"the reader gave an unknown square {token!r}")
            if r < rows and c < cols:
                grid[r][c] = token
            elif token != EMPTY:
                dropped += 1
    if dropped:
        warnings.append(f"{dropped} squares read beyond the {rows}x{cols} frame were left out")
    reserve_of(game, player)
    game["reserves"][player][game["round"] - 1] = grid
    game["check"][player] = [[int(r), int(c)] for r, c in flagged if r < rows and c < cols]
    return warnings


def merge_read(
    game: dict[str, Any],
    player: str,
    squares: Sequence[Sequence[str]],
    flagged: Sequence[tuple[int, int]] = (),
) -> dict[str, Any]:
    """Put a photo read onto the player's reserve this round, changing only the squares newly
    covered this round: the read is lined up with the reserve as it was before this round (the
    offset where most of its squares agree), then a square takes the read's kind when it was
    empty before this round, or when it lies in a 2 x 2 block with such a square (a card laid
    this round over an older one). Older squares that read differently are kept, and counted.

    Returns
    -------
    dict
        ``changed``: ``[(row, col, old, new)]``; ``kept``: older squares the photo reads
        differently, kept as they were; ``warnings``: sentences (squares beyond the frame).
    """
    for line in squares:
        for token in line:
            if token not in TOKENS:
                raise ValueError(f"the reader gave an unknown square {token!r}")
    rows, cols = size()
    number = game["round"]
    before = reserve_of(game, player, number - 1) if number > 1 else empty_reserve()
    current = reserve_of(game, player)
    height = len(squares)
    width = max((len(line) for line in squares), default=0)
    reference = before if any(t != EMPTY for line in before for t in line) else current

    def agreement(down: int, right: int) -> int:
        return sum(
            1
            for r, line in enumerate(squares)
            for c, token in enumerate(line)
            if 0 <= r + down < rows
            and 0 <= c + right < cols
            and reference[r + down][c + right] != EMPTY
            and reference[r + down][c + right] == token
        )

    offsets = [
        (d, e) for d in range(max(1, rows - height + 1)) for e in range(max(1, cols - width + 1))
    ]
    down, right = max(offsets, key=lambda o: (agreement(*o), -o[0] - o[1]))
    read = empty_reserve()
    dropped = 0
    for r, line in enumerate(squares):
        for c, token in enumerate(line):
            if 0 <= r + down < rows and 0 <= c + right < cols:
                read[r + down][c + right] = token
            elif token != EMPTY:
                dropped += 1
    fresh = {
        (r, c)
        for r in range(rows)
        for c in range(cols)
        if before[r][c] == EMPTY and read[r][c] != EMPTY
    }
    new_blocks = {
        (r + dr, c + dc)
        for r in range(rows - 1)
        for c in range(cols - 1)
        if any((r + dr, c + dc) in fresh for dr in (0, 1) for dc in (0, 1))
        for dr in (0, 1)
        for dc in (0, 1)
    }
    changed, kept = [], []
    for r in range(rows):
        for c in range(cols):
            new = read[r][c]
            if new == EMPTY or new == current[r][c]:
                continue
            if (r, c) in fresh or (r, c) in new_blocks:
                changed.append((r, c, current[r][c], new))
                current[r][c] = new
            elif before[r][c] != EMPTY:
                kept.append((r, c))
    changed_at = {(r, c) for r, c, _o, _n in changed}
    game["check"][player] = [
        [r + down, c + right] for r, c in flagged if (r + down, c + right) in changed_at
    ]
    warnings = []
    if dropped:
        warnings.append(f"{dropped} squares read beyond the {rows}x{cols} frame were left out")
    return {"changed": changed, "kept": kept, "warnings": warnings, "offset": (down, right)}


def next_round(game: dict[str, Any]) -> int:
    """Move to the next round (each reserve starts as it was); returns the new round."""
    if game["round"] >= rounds_total():
        raise ValueError(f"the game has {rounds_total()} rounds")
    game["round"] += 1
    for player in game["players"]:
        reserve_of(game, player)
        game["check"][player] = []
    game.pop("likely", None)
    return game["round"]


def game_document(game: dict[str, Any]) -> dict[str, Any]:
    """The engine's game document for the rounds played so far (``docs/nimalia.md``)."""
    number = game["round"]
    return {
        "goals": list(game["goals"]),
        "players": [
            {
                "name": p,
                "rounds": [{"squares": reserve_of(game, p, k)} for k in range(1, number + 1)],
            }
            for p in game["players"]
        ],
    }


def score(game: dict[str, Any]) -> dict[str, Any]:
    """:func:`scoring.nimalia.api.score_game` on the rounds played so far."""
    return nimalia_service.score_game(
        game_document(game), goal12=game.get("goal12"), tiebreak=game.get("tiebreak")
    )


def reason_lines(result: dict[str, Any], player: str, number: int) -> list[dict[str, Any]]:
    """The player's goals of round ``number``: ``{"goal", "name", "points", "reason", "lines"}``
    where each line has the 0-based squares it refers to."""
    names = {g["goal"]: g["name"] for g in catalogue().values()}
    for p in result["players"]:
        if p["name"] == player:
            return [
                {**goal, "name": names[goal["goal"]]} for goal in p["rounds"][number - 1]["goals"]
            ]
    raise ValueError(f"{player!r} is not a player of this game")


def ranking_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The standings: rank, player, total and the tie-break count where it was counted."""
    from scoring.nimalia.cards import ANIMAL_PLURALS

    rows = []
    for p in sorted(result["players"], key=lambda p: (p["rank"], p["name"])):
        tb = p["tiebreak"]
        rows.append(
            {
                "Rank": p["rank"],
                "Player": p["name"],
                "Total": p["total"],
                "Tie-break": (
                    f"{tb['count']} {ANIMAL_PLURALS.get(tb['animal'], tb['animal'])}"
                    if tb["counted"] and tb["animal"]
                    else ""
                ),
            }
        )
    return rows


def finished(game: dict[str, Any]) -> bool:
    return game["round"] == rounds_total()


# ------------------------------------------------------------------------------ one card's corners


@dataclass(frozen=True)
class CardPhoto:
    """A reserve photo waiting for one card's corners (what :func:`ui.corners.corners_ui` draws
    the taps on): the photo as shown, its frame (the corners' pixels) and its digest."""

    overlay_jpeg: bytes
    image_size: tuple[int, int]
    photo_sha256: str


def card_photo(image_rgb: Any, digest: str) -> CardPhoto:
    """The photo (``(H, W, 3)`` RGB, as given to the reader) to tap a card's corners on."""
    from service.photos import display_jpeg

    height, width = image_rgb.shape[:2]
    return CardPhoto(display_jpeg(image_rgb), (int(width), int(height)), digest)


def check_card_corners(
    points: Sequence[Sequence[float]], width: int, height: int
) -> list[tuple[float, float]]:
    """Four tapped corners of one card, clockwise from the top-left; ``ValueError`` (one sentence)
    when they are not 4 points in the photo outlining a card."""
    from vision.nimalia.manual import check_card_corners as check

    return [(float(x), float(y)) for x, y in check(points, width, height)]


def read_from_card(
    image_rgb: Any, corners: Sequence[Sequence[float]], pack: str | None = None
) -> Any:
    """The reserve read from the corners of one of its cards (any order):
    :func:`vision.nimalia.manual.read_reserve_from_card`, a ``ReserveRead`` as the automatic
    reader's."""
    from vision.nimalia.manual import read_reserve_from_card

    return read_reserve_from_card(image_rgb, corners, pack)


def flagged_squares(read: Any) -> list[tuple[int, int]]:
    """The squares of a photo read that its reader asks to check (row, column)."""
    return [(r, c) for r, row in enumerate(read.cells) for c, cell in enumerate(row) if cell.check]
