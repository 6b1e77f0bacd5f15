"""Nimalia — the game night's Nimalia game: 4 goals, 2-4 players, 5 rounds.

Each round every player enters their reserve (lay cards by number and turn — the default —,
tap squares, or a photo read square by square); the round's goals are scored on it with every
reason drawn on the reserve, running totals are floored at 0, and after round 5 the ranking
(with the tie-break) is saved to Nimalia's own leaderboard. The game in progress is the night's
Nimalia draft in the database, so a reload or another phone finds it back.
"""

from __future__ import annotations

import copy
import hashlib
import json

import streamlit as st

import games
from games import nimalia as NIMALIA
from leaderboard.drafts import ConflictError
from service.errors import STORAGE_ERRORS, storage_message
from service.nimalia import game as N
from service.nimalia import reading
from service.photos import PHOTO_TYPES
from service.shared import Written, describe, reapply, write_merged
from ui import state as S
from ui.kit import flash_ui, game_choice_ui, game_page_link_ui, night_link
from ui.nimalia.backend import (
    enroll_nimalia_deck,
    nimalia_deck_choice,
    nimalia_pack,
    nimalia_pack_path,
    use_nimalia_deck,
)
from ui.nimalia.widgets import (
    GAME,
    HASH,
    LAST_CHANGE,
    NIGHT,
    REVISION,
    SELECTED,
    get_nimalia_store,
    lay_grid_style_ui,
    lay_window,
    picker_ui,
    reserve_ui,
)
from ui.text import escape_markdown

KEY_PLAYERS = "nim_players"
KEY_LEVEL = "nim_level"
KEY_PLAYER = "nim_player"
KEY_MODE = "nim_mode"
KEY_SHOW = "nim_show"
KEY_CARD = "nim_card"
KEY_TURN = "nim_turn"
KEY_VIEW = "nim_view"
KEY_GOAL12 = "nim_goal12"
KEY_TIEBREAK = "nim_tiebreak"
#: How a reserve is entered; the first is the default: laying cards takes at most 3 taps a card
#: (number, turn, place), tapping squares 2 a square, 8 a card (BENCHMARKS.md, Nimalia entry).
MODES = ("Lay cards", "Tap squares", "Photo")
LAY, TAP, PHOTO = MODES
#: The lay grid's square buttons: ``f"{KEY_LAY}_{i}_{j}"`` in the window shown.
KEY_LAY = "nim_lay"


def goal_key(colour: str) -> str:
    return f"nim_goal_{colour}"


# ------------------------------------------------------------------------------ the draft


def _hash(game: dict | None) -> str:
    return hashlib.sha256(json.dumps(game, sort_keys=True).encode()).hexdigest()


#: The stored game this page last read or wrote (the base of a merge) and this page's squares
#: another device changed too (offered again).
BASE = "nim_base"
OFFERED = "nim_offered_again"


def place_name(path: tuple) -> str:
    """A place in a Nimalia game document, for a message ("Ann's reserve, round 2, B3")."""
    if len(path) >= 5 and path[0] == "reserves":
        where = N.position_name(int(path[3]), int(path[4]))
        return f"{path[1]}'s reserve, round {int(path[2]) + 1}, {where}"
    if len(path) >= 2 and path[0] in ("reserves", "check"):
        return f"{path[1]}'s reserve"
    return {"round": "the round", "goals": "the goals", "players": "the players"}.get(
        str(path[0]) if path else "", "the game"
    )


def _show(document: dict | None, revision: int) -> None:
    """Put the stored game on the page (checked: a damaged one is replaced by a new game)."""
    if document is not None:
        try:
            N.check_game(document)
        except (ValueError, TypeError, AttributeError) as error:
            st.error(
                escape_markdown(
                    f"The Nimalia game stored for this night cannot be read ({error}); "
                    "start a new one below (it replaces it)."
                )
            )
            document = None
    before = st.session_state.get(GAME) or {}
    st.session_state[GAME] = copy.deepcopy(document)
    st.session_state[BASE] = copy.deepcopy(document)
    st.session_state[NIGHT] = st.session_state[S.SESSION_ID]
    st.session_state[REVISION] = revision
    st.session_state[HASH] = _hash(document)
    if (document or {}).get("uid") != before.get("uid"):  # another game: nothing to carry over
        st.session_state[SELECTED] = None
        st.session_state[LAST_CHANGE] = None


def resume() -> None:
    """Load the night's Nimalia game when this page does not have it, or it changed elsewhere;
    a change made on this page meanwhile (its callback ran first) is merged, never dropped."""
    night = st.session_state[S.SESSION_ID]
    store = get_nimalia_store()
    document, revision = store.draft(night) if night else (None, 0)
    if st.session_state.get(NIGHT) == night:
        if revision == st.session_state.get(REVISION):
            return
        if _hash(st.session_state.get(GAME)) != st.session_state.get(HASH):
            sync()  # compare-and-set on the revision this page had: merged with theirs
            return
        st.session_state[S.FLASH] = "This Nimalia game was updated from another device."
    _show(document, revision)


def sync() -> None:
    """Write the game to the night's draft when it changed on this page.

    A compare-and-set on the revision this page read (as Reptile Tank's drafts,
    :func:`service.shared.write_merged`): another device's write meanwhile is merged with this
    page's change (other squares both kept); a square both changed shows theirs and offers this
    page's again; a game started on two phones at once keeps the first and says so.
    """
    game = st.session_state.get(GAME)
    if _hash(game) == st.session_state.get(HASH):
        return
    night = st.session_state[S.SESSION_ID]
    store = get_nimalia_store()
    base = st.session_state.get(BASE)
    seen = int(st.session_state.get(REVISION) or 0)

    def write(document: dict | None, expected: int) -> int:
        return store.put_draft(night, document, expected_revision=expected)

    same_game = base is not None and game is not None and game.get("uid") == base.get("uid")
    try:
        if same_game:
            written = write_merged(write, base, game, seen)
        else:  # a new game, or the game discarded: only over the version this page saw
            written = Written(game, write(game, seen))
    except ConflictError as error:
        _show(error.document or None, error.revision)
        st.session_state[S.FLASH] = (
            "The Nimalia game was started, changed or ended on another device at the same "
            "time: theirs is shown (yours was not written; start or discard it again to "
            "replace theirs)."
        )
        return
    if not written.merged:
        st.session_state[REVISION] = written.revision
        st.session_state[HASH] = _hash(game)
        st.session_state[BASE] = copy.deepcopy(game)
        return
    keep = st.session_state.get(SELECTED)
    _show(written.document, written.revision)
    st.session_state[SELECTED] = keep
    theirs = describe(written.other_changes, namer=place_name) or "the game"
    if written.conflicts:
        st.session_state[OFFERED] = written.offered
        same = describe(written.conflicts, namer=place_name)
        st.session_state[S.FLASH] = (
            f"Another device changed this Nimalia game at the same time ({theirs}). Where you "
            f"both changed the same square ({same}) their version is shown: put yours back "
            "below if it was right. Your other changes are kept."
        )
    else:
        st.session_state[S.FLASH] = (
            f"Another device changed this Nimalia game at the same time ({theirs}); your change "
            "is kept too."
        )
    st.session_state[MET_ANOTHER] = True


MET_ANOTHER = "nim_met_another_write"
#: The revision of the game as this page last drew it (a save is of what the player saw).
SHOWN = "nim_shown_revision"


def put_mine_back() -> None:
    """Put this page's squares back where another device's change replaced them."""
    offered = st.session_state.pop(OFFERED, None)
    if offered and st.session_state.get(BASE) is not None:
        st.session_state[GAME] = reapply(st.session_state[BASE], offered)
        where = describe([p for p, _ in offered], namer=place_name)
        st.session_state[S.FLASH] = f"Your version of {where} is back."


def offer_ui() -> None:
    offered = st.session_state.get(OFFERED)
    if not offered:
        return
    where = describe([p for p, _ in offered], namer=place_name)
    cols = st.columns([3, 1], vertical_alignment="center")
    cols[0].warning(escape_markdown(f"Your change to {where} was replaced by another device's."))
    cols[1].button("Put mine back", key="nim_offer_put_back", on_click=put_mine_back)
    if cols[1].button("Keep theirs", key="nim_offer_keep_theirs"):
        st.session_state.pop(OFFERED, None)
        st.rerun()


# ------------------------------------------------------------------------------ setup


def draw_goals() -> None:
    goals = N.draw_goals(st.session_state.get(KEY_LEVEL) or "easy")
    for colour, goal in zip(N.COLOURS, goals, strict=True):
        st.session_state[goal_key(colour)] = goal


def setup_ui() -> None:
    """Players and the 4 goals (drawn at random by level, or picked one per colour)."""
    st.subheader("New Nimalia game")
    st.text_area(
        "Players, one per line (2 to 4)",
        key=KEY_PLAYERS,
        height=120,
        placeholder="Ann\nBen\nChloé",
    )
    catalogue = N.catalogue()
    cols = st.columns([2, 1], vertical_alignment="bottom")
    cols[0].segmented_control(
        "Goal level",
        list(N.LEVELS),
        key=KEY_LEVEL,
        default="easy",
        required=True,
    )
    cols[1].button("Draw goals", key="nim_draw", on_click=draw_goals, width="stretch")
    by_colour = N.goals_by_colour()
    for colour in N.COLOURS:
        st.selectbox(
            f"{colour.capitalize()} goal",
            by_colour[colour],
            index=None,
            key=goal_key(colour),
            placeholder="Draw, or pick one",
            format_func=lambda g: f"{g}. {catalogue[g]['name']} (level {catalogue[g]['level']})",
        )
        chosen = st.session_state.get(goal_key(colour))
        if chosen:
            st.caption(catalogue[chosen]["text"])
    with st.expander("Scoring options (open questions of the rules)"):
        st.toggle(
            "Goal 12 as the online adaptation scores it (a run of 2 or more ending in the"
            " last column scores 3)",
            key=KEY_GOAL12,
        )
        st.toggle(
            "Break ties at every place (not only between the players tied for first)",
            key=KEY_TIEBREAK,
        )
    nimalia_deck_ui()  # the photo reader's deck; also under each photo upload
    if st.button("Start the Nimalia game", type="primary", key="nim_start"):
        try:
            players = S.parse_player_names(st.session_state.get(KEY_PLAYERS, ""))
            goals = [st.session_state.get(goal_key(c)) for c in N.COLOURS]
            game = N.new_game(
                players,
                goals,
                goal12="adaptation" if st.session_state.get(KEY_GOAL12) else "printed",
                tiebreak="every_place" if st.session_state.get(KEY_TIEBREAK) else "adaptation",
            )
        except ValueError as error:
            st.error(escape_markdown(str(error)))
            return
        st.session_state[GAME] = game
        st.session_state[S.FLASH] = f"Nimalia started with {len(game['players'])} players."
        st.rerun()


# ------------------------------------------------------------------------------ a round


def goals_header_ui(game: dict) -> None:
    catalogue = N.catalogue()
    number = game["round"]
    scored = N.round_goals(game, number)
    st.markdown(
        f"**Round {number} of {N.rounds_total()}** · scores goals "
        + ", ".join(f"{g} ({catalogue[g]['colour']})" for g in scored)
    )
    with st.expander("The 4 goals"):
        st.caption(
            f"Goal 12 scored as {game.get('goal12', 'printed')}; "
            f"tie-break: {str(game.get('tiebreak', 'adaptation')).replace('_', ' ')}."
        )
        for g in game["goals"]:
            st.text(
                f"{g}. {catalogue[g]['name']} ({catalogue[g]['colour']}): {catalogue[g]['text']}"
            )


def player_ui(game: dict) -> str:
    players = game["players"]
    if st.session_state.get(KEY_PLAYER) not in players:
        st.session_state[KEY_PLAYER] = players[0]
    return st.radio(
        "Player",
        players,
        key=KEY_PLAYER,
        horizontal=True,
        format_func=escape_markdown,
    )


def goal_points_ui(goals: list[dict], player: str, *, deltas: bool = True) -> None:
    """This round's goals for the player: points, and how the last change moved them."""
    change = (st.session_state.get(LAST_CHANGE) or {}) if deltas else {}
    before = change.get("points", {}) if change.get("player") == player else {}
    with st.container(key="nim_points"):
        grid = st.grid(len(goals) + 1, wrap=False, min_column_width=60, gap="xxsmall")
        for goal in goals:
            old = before.get(str(goal["goal"]))
            delta = None if old is None or old == goal["points"] else goal["points"] - old
            grid.metric(
                f"Goal {goal['goal']}",
                goal["points"],
                delta=f"{delta:+d}" if delta else None,
                help=goal["name"],
            )
        grid.metric("Total", goals[-1]["total_after"] if goals else 0)
    if change.get("player") == player and change.get("text"):
        cols = st.columns([3, 1], vertical_alignment="center")
        cols[0].caption(change["text"])
        cols[1].button("Undo", key="nim_undo", on_click=undo, args=(st.session_state[GAME],))


def reasons_ui(goals: list[dict]) -> tuple[list[tuple[int, int]], list[str], dict[str, str]]:
    """Pick a goal or one of its lines to ring its squares on the reserve; returns them."""
    options: list[str] = ["none"]
    squares: dict[str, list[tuple[int, int]]] = {"none": []}
    labels: dict[str, str] = {"none": "Nothing highlighted"}
    for goal in goals:
        key = f"g{goal['goal']}"
        options.append(key)
        squares[key] = [tuple(s) for line in goal["lines"] for s in line["squares"]]
        labels[key] = f"Goal {goal['goal']} · {goal['points']:+d}: {goal['reason']}"
        for i, line in enumerate(goal["lines"]):
            if len(goal["lines"]) > 1:
                lk = f"g{goal['goal']}_{i}"
                options.append(lk)
                squares[lk] = [tuple(s) for s in line["squares"]]
                labels[lk] = f"  └ {line['points']:+d}: {line['reason']}"
    if st.session_state.get(KEY_SHOW) not in options:
        st.session_state[KEY_SHOW] = "none"
    shown = st.session_state[KEY_SHOW]
    return squares.get(shown, []), options, labels


def reasons_list_ui(goals: list[dict], options, labels) -> None:
    st.caption("Why: tap a goal or a line to ring its squares on the reserve.")
    st.radio(
        "Show on the reserve",
        options,
        key=KEY_SHOW,
        format_func=lambda k: escape_markdown(labels[k]),  # relative goals name players
        label_visibility="collapsed",
    )


def snapshot(game: dict, player: str) -> dict:
    """The player's reserve, flags and goal points before a change (for the delta and undo)."""
    return {
        "points": points_now(game, player),
        "grid": copy.deepcopy(N.reserve_of(game, player)),
        "check": [list(s) for s in N.checks_of(game, player)],
        "round": game["round"],
    }


def remember_change(game: dict, player: str, text: str, before: dict) -> None:
    st.session_state[LAST_CHANGE] = {"player": player, "text": text, **before}


def undo(game: dict) -> None:
    """Callback: put back the reserve as it was before the last change."""
    change = st.session_state.get(LAST_CHANGE) or {}
    if change.get("round") != game["round"] or change.get("player") not in game["players"]:
        return
    player = change["player"]
    game["reserves"][player][game["round"] - 1] = change["grid"]
    game["check"][player] = change["check"]
    st.session_state[LAST_CHANGE] = None
    st.session_state[S.FLASH] = f"Undone: {change['text']}"


def points_now(game: dict, player: str) -> dict[str, int]:
    result = N.score(game)
    return {str(g["goal"]): g["points"] for g in N.reason_lines(result, player, game["round"])}


def tap_ui(game: dict, player: str) -> None:
    """The picker for the selected square (tap a square of the reserve first)."""
    selected = st.session_state.get(SELECTED)
    if selected is None:
        st.caption("Tap a square of the reserve, then what it shows.")
        return
    r, c = selected
    grid = N.reserve_of(game, player)
    st.caption(f"{N.position_name(r, c)}: {N.square_name(grid[r][c])} → tap the right kind")
    likely = game.get("likely", {}).get(player, {}).get(f"{r},{c}")

    def pick(token: str) -> None:
        before = snapshot(game, player)
        old = grid[r][c]
        if N.set_square(game, player, r, c, token):
            remember_change(
                game,
                player,
                f"{N.position_name(r, c)}: {N.square_name(old)} → {N.square_name(token)}",
                before,
            )
        st.session_state[SELECTED] = None

    picker_ui(grid[r][c], pick, likely=likely)


def place_ui(game: dict, player: str) -> None:
    """Lay cards at card speed: type the card's number, tap its turn (0° unless tapped), then
    tap where its top-left square goes on the reserve — up to 3 taps a card. The grid shows
    the reserve with one square around it wherever the next card may go (up and left too:
    the reserve moves to make room, within 6 x 6); the turn goes back to 0° for the next card.
    """
    from scoring.nimalia.cards import turn

    if st.session_state.get(KEY_TURN) not in (0, 90, 180, 270):
        st.session_state[KEY_TURN] = 0
    cols = st.columns([1, 2], vertical_alignment="bottom")
    cols[0].number_input("Card number", 1, 60, value=None, key=KEY_CARD, step=1)
    card = st.session_state.get(KEY_CARD)
    degrees = int(st.session_state[KEY_TURN])
    if card is None:
        cols[1].caption("Type the card's number, then tap where its top-left square goes.")
    else:
        cols[1].caption(f"Card {int(card)}: tap its turn, then where its top-left square goes.")

    def set_turn(d: int) -> None:
        st.session_state[KEY_TURN] = d

    turns = st.grid(4, wrap=False, min_column_width=60, gap="xxsmall")
    for d in (0, 90, 180, 270):  # the card as it would lie, each turn one tap
        if card is not None and 1 <= int(card) <= 60:
            sq = [N.square_text(x.token) for x in turn(int(card), d)]
            label = f"{sq[0]}{sq[1]}\n{sq[2]}{sq[3]}"
        else:
            label = f"↻ {d}°"
        turns.button(
            label,
            key=f"nim_turn_{d}",
            help=f"Turned {d}° clockwise",
            type="primary" if d == degrees else "secondary",
            on_click=set_turn,
            args=(d,),
            width="stretch",
        )
    top, left, height, width = lay_window(game, player)
    grid = N.reserve_of(game, player)
    spots = set(N.grown_positions(game, player))

    def token_at(r: int, c: int) -> str:
        return grid[r][c] if 0 <= r < len(grid) and 0 <= c < len(grid[0]) else "."

    def lay(r: int, c: int) -> None:
        number = st.session_state.get(KEY_CARD)
        if number is None:
            st.session_state[S.FLASH] = "Type the card's number first, then tap the grid."
            return
        d = int(st.session_state.get(KEY_TURN) or 0)
        before = snapshot(game, player)
        try:
            _squares, moved = N.lay_card(game, player, int(number), r, c, d)
        except (ValueError, TypeError) as error:
            st.session_state[S.FLASH] = str(error)
            return
        where = N.position_name(r + moved[0], c + moved[1])
        note = " (the reserve moved to make room)" if any(moved) else ""
        remember_change(
            game, player, f"Card {int(number)} turned {d}° laid at {where}{note}", before
        )
        st.session_state[KEY_TURN] = 0  # the next card starts unturned
        st.session_state[KEY_CARD] = None

    window = [[token_at(top + i, left + j) for j in range(width)] for i in range(height)]
    lay_grid_style_ui(window, key=KEY_LAY, footprint=[(r - top, c - left) for r, c in spots])
    board = st.grid(width, wrap=False, min_column_width=40, gap="xxsmall")
    for i in range(height):
        for j in range(width):
            r, c = top + i, left + j
            board.button(
                N.square_text(window[i][j]),
                key=f"{KEY_LAY}_{i}_{j}",
                help="Lay the card with its top-left square here" if (r, c) in spots else None,
                on_click=lay,
                args=(r, c),
                width="stretch",
                disabled=(r, c) not in spots,
            )
    st.caption("Dotted: where a card's top-left square may go.")


#: Session keys: the photo being read (decoded) and whether its card corners are asked for.
KEY_CARD_PHOTO = "nim_card_photo"
KEY_TAP_CARD = "nim_tap_card"
#: Widget keys of the night's Nimalia deck section.
KEY_DECK_FILES = "nim_deck_files"
KEY_DECK_ENROL = "nim_deck_enrol"
KEY_DECK_BUNDLED = "nim_deck_bundled"
KEY_DECK_ENROLLED = "nim_deck_enrolled"
CARD_PROMPT = (
    "**Tap the {ordinal} corner of one card** ({placed} of 4 placed, any order): any card whose "
    "4 squares all show, such as the last one laid."
)


def _decode(data: bytes, digest: str):
    """The photo as the reader takes it (:func:`service.nimalia.reading.load_reserve_photo`:
    full size, EXIF orientation applied, decoded once), or None when it is not a picture.

    The same photos as Reptile Tank's (JPEG, PNG, WebP, HEIC/HEIF, AVIF, TIFF, up to 64 MB),
    through the same loader; one over its pixel cap is reduced first."""
    from service.nimalia.reading import load_reserve_photo

    try:
        return load_reserve_photo(data, sha256=digest)
    except Exception:  # noqa: BLE001 - a file that is not a picture
        return None


def put_read(game: dict, player: str, read, where: str, digest: str, text: str) -> None:
    """A photo read (automatic or from a card's corners) onto the player's reserve: only the
    squares newly covered this round change, and the page says which."""
    game.setdefault("photos", {})[where] = digest
    flagged = N.flagged_squares(read)
    before = snapshot(game, player)
    merged = N.merge_read(game, player, read.squares, flagged)
    down, right = merged["offset"]
    game.setdefault("likely", {})[player] = {
        f"{r + down},{c + right}": [t for t, _s in read.cells[r][c].top][:3] for r, c in flagged
    }
    card = [r for r in read.reasons if "card tapped" in r]
    changes = merged["changed"]
    what = "; ".join(
        f"{N.position_name(r, c)}: {N.square_text(old)} → {N.square_text(new)}"
        for r, c, old, new in changes[:8]
    )
    more = f" and {len(changes) - 8} more" if len(changes) > 8 else ""
    text = (
        f"{text}: {len(changes)} square(s) newly covered this round"
        + (f" ({what}{more})" if changes else "")
        + f", {len(N.checks_of(game, player))} to check"
    )
    notes = list(merged["warnings"])
    if merged["kept"]:
        notes.append(
            f"{len(merged['kept'])} square(s) laid in earlier rounds read differently and were "
            "kept as they were (tap one to change it)"
        )
    remember_change(game, player, "; ".join([text, *card, *notes]), before)


def _read_or_explain(label: str, read_photo):
    """Run one photo read under a spinner; on failure say why in one error (the squares can
    still be tapped) and return ``None``."""
    try:
        with st.spinner(label):
            return read_photo()
    except ValueError as error:  # the corners, the night's deck or its pack refused
        st.error(escape_markdown(str(error)))
    except Exception as error:  # noqa: BLE001 - the reader failed: the squares can be tapped
        st.error(f"This photo could not be read ({type(error).__name__}): tap the squares.")
    return None


def card_corners_ui(game: dict, player: str, seat: str, data: bytes, digest: str) -> None:
    """Tap the 4 corners of one card on the photo; the reserve is then read around that card."""
    from ui.corners import corners_ui

    where = f"{player}/{game['round']}"
    kept = st.session_state.get(KEY_CARD_PHOTO)
    if not kept or kept[0] != digest:  # decoded once per photo, not on every tap
        photo = _decode(data, digest)
        if photo is None:
            st.error("This file is not a photo the app can open.")
            return
        kept = (digest, N.card_photo(photo.image.rgb, digest))
        st.session_state[KEY_CARD_PHOTO] = kept
    photo = kept[1]
    corners = corners_ui(
        photo,
        key=f"nim_corners_{seat}",
        prompt=CARD_PROMPT,
        done_label="Done: read the reserve",
        check=N.check_card_corners,
        typed_check=N.check_card_corners,
    )
    if corners is None:
        return
    photo = _decode(data, digest)
    if photo is None:
        st.error("This file is not a photo the app can open.")
        return
    read = _read_or_explain(
        "Reading the reserve around that card…",
        lambda: N.read_from_card(photo.image.rgb, corners, nimalia_pack()),
    )
    if read is None:
        return
    if not read.found:
        st.warning("No squares read around that card: check its corners, or tap the squares.")
        return
    put_read(game, player, read, where, digest, "Photo read from one card's corners")
    st.session_state.pop(KEY_TAP_CARD, None)
    st.rerun()


def nimalia_deck_ui() -> None:
    """The night's own Nimalia deck: which deck photos are read with, the one tap that
    switches, and enrolling the 60 card images (:mod:`service.nimalia.deck`)."""
    from service.nimalia.deck import CARDS, ENROL_SECONDS, PACK_MISSING, has_pack

    uid = st.session_state.get(S.NIGHT_UID)
    if uid is None:
        return
    with st.expander("Your Nimalia deck"):
        if nimalia_deck_choice() == "enrolled":
            st.write("Photos are read with **your enrolled Nimalia deck**.")
            if not has_pack(nimalia_pack_path(uid)):
                st.warning(PACK_MISSING)
            if st.button("Use the stand-in deck", key=KEY_DECK_BUNDLED, icon="↩"):
                use_nimalia_deck("bundled")
                st.session_state[S.FLASH] = "Back to the stand-in deck (your deck is kept)."
                st.rerun()
        else:
            st.write("Photos are read with the stand-in deck.")
            if has_pack(nimalia_pack_path(uid)) and st.button(
                "Use my enrolled deck", key=KEY_DECK_ENROLLED, icon="🃏"
            ):
                use_nimalia_deck("enrolled")
                st.session_state[S.FLASH] = "Your enrolled Nimalia deck is in use again."
                st.rerun()
        st.caption(
            f"Enrol your printing: one upright, unturned image of each of the {CARDS} cards, "
            f"named after its id as the rules' reference numbers them (`1.png` … `{CARDS}.png`, "
            f"or .jpg): a scan cropped to the card, or a photo of the card alone on a plain, "
            f"contrasting surface. Building the deck takes {ENROL_SECONDS}."
        )
        files = st.file_uploader(
            f"The {CARDS} card images",
            type=["png", "jpg", "jpeg"],
            accept_multiple_files=True,
            key=KEY_DECK_FILES,
        )
        if st.button("Enrol my deck", key=KEY_DECK_ENROL, disabled=not files):
            try:
                with st.spinner(f"Building your deck's gallery ({ENROL_SECONDS})…"):
                    seconds = enroll_nimalia_deck([(f.name, f.getvalue()) for f in files])
            except ValueError as error:
                st.error(escape_markdown(str(error)))
                return
            st.session_state[S.FLASH] = (
                f"Deck enrolled in {seconds:.0f} s: new photos are read with your cards."
            )
            st.rerun()


def upload_limit_text() -> str:
    """The upload limit and what to do over it, said under the upload box (a file over it never
    reaches the page: the browser shows a red icon only)."""
    from common.safe_io import MAX_PHOTO_BYTES

    return (
        f"Up to {MAX_PHOTO_BYTES // 2**20} MB a photo. A bigger file is refused with a red ⚠ "
        "and never read: choose a lower resolution in your camera's settings (12 MP is "
        "plenty), send a smaller copy of the photo, or use Camera above."
    )


def photo_ui(game: dict, player: str) -> None:
    """Upload (or take) a photo of the reserve from your seat; flagged squares are outlined.
    When the reserve is not found, or its squares are in the wrong place, the player taps the
    corners of one card and the reserve is read around it."""
    if not reading.reader_available():
        st.info("The photo reader is not available on this server: tap the squares instead.")
        return
    nimalia_deck_ui()
    seat = f"{game['players'].index(player)}_{game['round']}"
    source = st.segmented_control(
        "Photo from", ["Upload", "Camera"], key="nim_photo_source", default="Upload", required=True
    )
    if source == "Camera":  # the capture helper's back camera (largest photo the phone gives)
        from ui.camera import back_camera_ui

        data = back_camera_ui(f"nim_camera_{seat}")
        if data is None:
            st.caption("Take it from your seat, the whole reserve in view.")
            return
    else:
        upload = st.file_uploader(
            "Photo of the reserve, from your seat",
            type=PHOTO_TYPES,
            key=f"nim_photo_{seat}",
        )
        st.caption(upload_limit_text())
        if upload is None:
            return
        data = upload.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    seen = game.setdefault("photos", {})
    where = f"{player}/{game['round']}"
    tap_card = f"{where}/{digest}"
    if seen.get(where) == digest:
        st.caption("Photo read. Fix any square by tapping it (outlined squares first).")
        if st.session_state.get(KEY_TAP_CARD) != tap_card:
            if st.button(
                "Squares in the wrong place? Tap the corners of one card",
                key=f"nim_tap_card_{seat}",
                icon="📐",
            ):
                st.session_state[KEY_TAP_CARD] = tap_card
                st.rerun()
            return
        if st.button("Cancel: keep the read", key=f"nim_tap_card_cancel_{seat}", icon="✖️"):
            st.session_state.pop(KEY_TAP_CARD, None)
            st.rerun()
        card_corners_ui(game, player, seat, data, digest)
        return
    if seen.get(where) == f"none:{digest}":
        st.warning(
            "No reserve found in this photo: tap the 4 corners of one card below, take it again "
            "from above, or tap the squares."
        )
        card_corners_ui(game, player, seat, data, digest)
        return
    photo = _decode(data, digest)
    if photo is None:
        st.error("This file is not a photo the app can open.")
        return
    read = _read_or_explain(
        "Reading the reserve…", lambda: reading.read_reserve_photo(photo, nimalia_pack())[0]
    )
    if read is None:
        return
    if not read.found:
        seen[where] = f"none:{digest}"
        st.rerun()
    put_read(game, player, read, where, digest, "Photo read")
    st.rerun()


def totals_ui(result: dict) -> None:
    rows = []
    for p in result["players"]:
        row = {"Player": p["name"]}
        for r in p["rounds"]:
            row[f"R{r['round']}"] = r["goals"][-1]["total_after"] if r["goals"] else r["total"]
        rows.append(row)
    st.caption("Running totals (floored at 0 after each goal)")
    st.dataframe(rows, hide_index=True, key="nim_totals")


def finish_ui(game: dict, result: dict) -> None:
    st.subheader("Final ranking")
    st.dataframe(N.ranking_rows(result), hide_index=True, key="nim_ranking")
    st.caption("Ties on the total: most animals of one kind in the last reserve (as counted).")
    found = get_nimalia_store().saved(game["uid"])  # saved here, on another phone, earlier
    changed = found is not None and found[1] != game
    if found is not None and not changed:
        st.success(f"Nimalia game {found[0]} is saved to the leaderboard.")
        night_link("leaderboard.py", "See the leaderboard", "🏆")
        if st.button("New Nimalia game", key="nim_new"):
            st.session_state[GAME] = None
            st.rerun()
        return
    if changed:
        st.warning(f"Nimalia game {found[0]} changed since it was saved.")
    label = "Save the changes" if changed else "Save to the leaderboard"
    if st.button(label, type="primary", key="nim_save"):
        if st.session_state.get(SHOWN) != st.session_state.get(REVISION):
            # another device wrote after this page was drawn: save only what the player saw
            st.warning(
                "Not saved: this Nimalia game was changed on another device just now (shown "
                "above). Check it and save again."
            )
            return
        try:
            get_nimalia_store().save_game(st.session_state[S.SESSION_ID], game, result)
        except STORAGE_ERRORS as error:
            st.error(escape_markdown(f"Not saved: {storage_message(error)}"))
            return
        st.rerun()


def round_view_ui(game: dict) -> int:
    """Which round's reserve and goals are shown: the round being played, or an earlier one
    (read-only, as it was scored)."""
    number = game["round"]
    if number == 1:
        return 1
    if st.session_state.get(KEY_VIEW) not in range(1, number + 1):
        st.session_state[KEY_VIEW] = number
    return st.segmented_control(
        "Round",
        list(range(1, number + 1)),
        key=KEY_VIEW,
        required=True,
        format_func=lambda k: f"Round {k}" if k == number else f"R{k}",
    )


def game_ui(game: dict) -> None:
    goals_header_ui(game)
    player = player_ui(game)
    number = game["round"]
    view = round_view_ui(game)
    playing = view == number
    if playing:
        mode = st.segmented_control(
            "Enter the reserve by", MODES, key=KEY_MODE, default=LAY, required=True
        )
    else:
        mode = None
        st.caption(f"Round {view} as it was scored (read only).")
    result = N.score(game)
    goals = N.reason_lines(result, player, view)
    highlight, options, labels = reasons_ui(goals)
    goal_points_ui(goals, player, deltas=playing)

    def select(r: int, c: int) -> None:
        st.session_state[SELECTED] = None if st.session_state.get(SELECTED) == (r, c) else (r, c)

    if mode == LAY:  # the lay grid is the reserve, with room to grow
        place_ui(game, player)
    else:
        reserve_ui(
            N.reserve_of(game, player, view),
            flagged=N.checks_of(game, player) if playing else (),
            highlight=highlight,
            selected=st.session_state.get(SELECTED) if playing else None,
            on_select=select if playing else None,
        )
    if playing and (mode == TAP or st.session_state.get(SELECTED) is not None):
        tap_ui(game, player)
    if mode == PHOTO:
        photo_ui(game, player)
    reasons_list_ui(goals, options, labels)
    totals_ui(result)
    if N.finished(game):
        finish_ui(game, result)
    else:

        def advance() -> None:
            st.session_state[KEY_VIEW] = N.next_round(game)
            st.session_state[SELECTED] = None
            st.session_state[LAST_CHANGE] = None

        st.button(f"Next: round {number + 1}", key="nim_next", on_click=advance, type="primary")
    with st.expander("End this game without saving"):
        if st.button("Discard the game", key="nim_discard"):
            st.session_state[GAME] = None
            st.rerun()


def nimalia_ui() -> None:
    st.title("🦦 Nimalia")
    if st.session_state[S.SESSION_ID] is None:
        st.info("Pick or create a game night first.")
        night_link("setup.py", "Game setup", "🎲")
        return
    try:
        chosen = game_choice_ui()
        if chosen != NIMALIA.ID:
            flash_ui(st.session_state)
            names = {g.id: g.name for g in games.GAMES.values()}
            st.info(f"This game night plays {names[chosen]}: choose Nimalia above to play it.")
            game_page_link_ui(chosen)
            return
        resume()
        flash_ui(st.session_state)
        offer_ui()
        game = st.session_state.get(GAME)
        if game is None:
            setup_ui()
        else:
            game_ui(game)
        st.session_state[MET_ANOTHER] = False
        sync()
        st.session_state[SHOWN] = st.session_state.get(REVISION)  # what the player now sees
    except STORAGE_ERRORS as error:
        st.error(escape_markdown(f"Not saved: {storage_message(error)}"))
        return
    if st.session_state.get(MET_ANOTHER):
        st.session_state[MET_ANOTHER] = False
        st.rerun()  # show the merged game and say so


nimalia_ui()
