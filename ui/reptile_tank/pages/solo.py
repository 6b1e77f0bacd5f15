"""Page 7 — Solo: the player's terrarium against the Terrarium Master.

The player's board is typed (or read from a photo); the Master's cards are entered as counts,
his mixed Environment pairs as drawn at the table (missing ones are proposed), and the level.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import uuid

import streamlit as st

from scoring.reptile_tank.cards import CARD_IDS, DRY_LAND_IDS
from service.errors import STORAGE_ERRORS, storage_message
from service.reptile_tank.game import SOLO_OBJECTIVES, check_solo_setup
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import get_store, load_rules, read_photo_cached, rules_fingerprint
from ui.reptile_tank.journey import escape_markdown, score_solo_entry, solo_record
from ui.reptile_tank.labels import full_name, picker_text
from ui.reptile_tank.widgets import board_fix_ui, flash_ui, grid_editor_ui, score_pad_ui

KEY_NAME = "solo_name"
KEY_PHOTO = "solo_photo"
KEY_GRID = "solo_grid"
KEY_LEVEL = "solo_level"
KEY_PAIRS = "solo_pairs"
KEY_OBJECTIVES = "solo_objectives"
KEY_STAR_OUT = "solo_star_out"
LEVELS = {"normal": "Normal", "hard": "Hard", "very_hard": "Very hard"}


def count_key(card: str) -> str:
    return f"solo_count_{card}"


def board_ui() -> S.TerrariumEntry:
    """The solo player's board: by hand, or from a photo (then fixable cell by cell)."""
    entry = st.session_state[S.SOLO_ENTRY]
    photo = st.file_uploader(
        "Photo of your terrarium (optional)",
        type=["jpg", "jpeg", "png", "webp", "heic"],
        key=KEY_PHOTO,
    )
    if photo is not None and st.session_state.get("solo_photo_sha") != photo.file_id:
        with st.spinner("Reading the terrarium…"):
            try:
                read = read_photo_cached(photo.getvalue(), None, st.session_state[KEY_STAR_OUT])
            except ValueError as error:
                st.error(f"That photo cannot be used: {error}")
                read = None
        st.session_state["solo_photo_sha"] = photo.file_id
        if read is not None and read.grid_found:
            entry = S.TerrariumEntry(
                rows=[list(r) for r in read.rows],
                confidence=read.confidence,
                source="photo",
                photo_sha256=read.photo_sha256,
                thumbnail_jpeg=read.thumbnail_jpeg,
                overlay_jpeg=read.overlay_jpeg,
                read_ms=read.read_ms,
                check=read.check,
                candidates=read.candidates,
                check_reasons=list(read.check_reasons),
            )
            st.session_state[S.SOLO_ENTRY] = entry
        elif read is not None:
            st.warning(f"No terrarium found ({read.message}); type the board below.")

    def typed(r: int, c: int, label: str) -> None:
        solo = st.session_state[S.SOLO_ENTRY]
        solo.rows[r][c] = label
        if solo.confidence is not None:
            solo.corrected.add((r, c))

    if entry.overlay_jpeg is not None:
        st.image(entry.overlay_jpeg, width="stretch")
    board_fix_ui(entry, typed, key="solo", selected_key="solo_selected")
    with st.expander("Type the whole board"):
        grid_editor_ui(entry.rows, typed, key=KEY_GRID)
    return entry


def master_ui() -> tuple[dict[str, int], list[tuple[str, str]]]:
    """The Master's cards as counts, and his mixed Environment pairs as drawn."""
    counts: dict[str, int] = {}
    grid = st.grid("auto", min_column_width=150, gap="small")
    for card in CARD_IDS:
        counts[card] = grid.number_input(
            picker_text(card),
            min_value=0,
            max_value=9,
            step=1,
            key=count_key(card),
            persist_state="session",
        )
    n_pairs = st.number_input(
        "Mixed Environment pairs drawn (leave 0 to let the app propose them)",
        min_value=0,
        max_value=10,
        step=1,
        key=KEY_PAIRS,
        persist_state="session",
    )
    pairs = []
    for i in range(int(n_pairs)):
        left, right = st.columns(2)
        a = left.selectbox(
            f"Pair {i + 1}: first",
            DRY_LAND_IDS,
            format_func=full_name,
            key=f"solo_pair_{i}_a",
            persist_state="session",
        )
        b = right.selectbox(
            f"Pair {i + 1}: second",
            DRY_LAND_IDS,
            format_func=full_name,
            key=f"solo_pair_{i}_b",
            persist_state="session",
        )
        pairs.append((a, b))
    return {k: int(v) for k, v in counts.items() if v}, pairs


def solo_ui() -> None:
    st.title("🧑‍🔬 Solo vs the Terrarium Master")
    flash_ui(st.session_state)
    rules = load_rules()
    st.text_input(
        "Your name",
        key=KEY_NAME,
        max_chars=S.MAX_NAME_LENGTH,
        placeholder="Ann",
        persist_state="session",
    )
    st.toggle("Star cards out", key=KEY_STAR_OUT, persist_state="session")
    objectives = st.multiselect(
        f"Objective cards (pick {SOLO_OBJECTIVES}, or none)",
        sorted(rules.objectives),
        format_func=lambda n: f"{n}: {rules.objectives[n].text} ({rules.objectives[n].vp} VP)",
        max_selections=SOLO_OBJECTIVES,
        key=KEY_OBJECTIVES,
        persist_state="session",
    )
    st.subheader("Your terrarium")
    entry = board_ui()
    st.subheader("The Master's cards")
    counts, pairs = master_ui()
    level = st.segmented_control(
        "Level",
        list(LEVELS),
        format_func=LEVELS.get,
        key=KEY_LEVEL,
        default="normal",
        required=True,
        persist_state="session",
    )
    if all(label == "empty" for row in entry.rows for label in row):
        st.info("Enter your terrarium (photo or taps) and the Master's cards to see the score.")
        return
    try:
        check_solo_setup(objectives, rules)
    except ValueError:
        st.info(f"Solo uses {SOLO_OBJECTIVES} objective cards (or none).")
        return
    try:
        result = score_solo_entry(
            entry,
            counts,
            rules,
            pairs=pairs or None,
            level=level or "normal",
            objectives=objectives,
            star_cards_out=st.session_state[KEY_STAR_OUT],
        )
    except ValueError as error:
        st.error(str(error))
        return
    verdict = {"player": "You win!", "master": "The Master wins.", "tie": "A tie."}[result.winner]
    st.metric("You vs the Master", f"{result.player.total} : {result.master.total} VP", border=True)
    st.write(verdict)
    if result.pairs_proposed:
        st.caption(
            "Pairs proposed by the app: " + ", ".join(f"{a}+{b}" for a, b in result.master_pairs)
        )
    with st.expander("Your score pad"):
        score_pad_ui(st.session_state[KEY_NAME] or "You", result.player, key="solo_pad_player")
    with st.expander("The Master's score pad"):
        score_pad_ui("Terrarium Master", result.master, key="solo_pad_master")
    if st.session_state[S.SOLO_UID] is None:
        st.session_state[S.SOLO_UID] = uuid.uuid4().hex
    if st.button("Save the solo game", type="primary", key="solo_save"):
        save_solo(result, entry, counts, objectives)
    if st.button("Start another solo game", key="solo_new"):
        st.session_state[S.SOLO_UID] = None
        st.session_state[S.SOLO_ENTRY] = S.TerrariumEntry(rows=S.empty_rows())
        st.rerun()


def solo_uid(record) -> str:
    """One saved game per solo game on screen, whatever the presses: the uid is the page's
    nonce plus what is saved (a changed board or Master is another game)."""
    content = json.dumps(
        [record.players[0].name, record.players[0].board, record.extra, record.objectives],
        sort_keys=True,
    )
    nonce = st.session_state[S.SOLO_UID]
    return hashlib.sha256(f"{nonce}\0{content}".encode()).hexdigest()[:32]


def save_solo(result, entry, counts, objectives) -> None:
    try:
        name = S.clean_name(st.session_state[KEY_NAME])
        session_id = st.session_state[S.SESSION_ID]
        if session_id is None:
            raise ValueError("pick a game night on the setup page first")
        version, digest = rules_fingerprint()
        record = solo_record(
            result,
            entry,
            name=name,
            counts=counts,
            session_id=session_id,
            star_cards_out=st.session_state[KEY_STAR_OUT],
            objectives=objectives,
            rules_version=version,
            rules_hash=digest,
        )
        record = dataclasses.replace(record, uid=f"solo-{solo_uid(record)}")
        store = get_store()
        found = [g.id for g in store.list_games(session_id) if g.uid == record.uid]
        game_id = found[0] if found else store.save_game(record)
    except STORAGE_ERRORS as error:
        message = storage_message(error) if not isinstance(error, ValueError) else str(error)
        st.error(escape_markdown(f"Not saved: {message}"))
    else:
        st.session_state[S.FLASH] = (
            f"Solo game {game_id} was already saved." if found else f"Solo game {game_id} saved."
        )
        st.rerun()


solo_ui()
