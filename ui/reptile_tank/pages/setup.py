"""Page 1 — Game setup: the game night (in the page's link), the players, the variant, the
objectives, and the night's deck. A game in progress on this night is resumed, not replaced."""

from __future__ import annotations

import streamlit as st

from service.errors import STORAGE_ERRORS, storage_message
from service.reptile_tank.game import check_table_setup
from ui import nights
from ui.kit import night_link
from ui.navigation import page_path
from ui.reptile_tank import persist
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import get_store, load_rules, night_settings, use_deck
from ui.reptile_tank.journey import escape_markdown
from ui.reptile_tank.widgets import flash_ui

#: Widget keys of this page.
KEY_SESSION = "setup_session"
KEY_NEW_SESSION = "setup_new_session"
KEY_CREATE_SESSION = "setup_create_session"
KEY_PLAYERS = "setup_players"
KEY_RECENT = "setup_recent"
KEY_STAR_OUT = "setup_star_out"
KEY_USE_OBJECTIVES = "setup_use_objectives"
KEY_OBJECTIVES = "setup_objectives"
#: One button per objective card (``f"{KEY_OBJECTIVE}_{n}"``) and the random draw.
KEY_OBJECTIVE = "setup_objective"
KEY_DRAW_OBJECTIVES = "setup_draw_objectives"
KEY_START = "setup_start"
KEY_DECK = "setup_deck"
#: Most recent players offered for one-tap adding.
RECENT_PLAYERS = 8


def session_ui() -> None:
    """Pick the game night, or start a new one; the choice goes into the page's link."""
    store = get_store()
    sessions = {s.id: s for s in nights.visible_sessions(store, st.session_state)}
    if sessions:
        ids = list(reversed(sessions))  # newest first
        current = st.session_state[S.SESSION_ID]
        st.session_state[KEY_SESSION] = current if current in sessions else None

        def picked() -> None:
            chosen = st.session_state[KEY_SESSION]
            if chosen is not None:
                persist.choose_night(st.session_state, sessions[chosen])

        st.selectbox(
            "Game night",
            ids,
            index=None,
            placeholder="Pick your game night",
            format_func=lambda i: f"{sessions[i].name} ({sessions[i].created_at[:10]})",
            key=KEY_SESSION,
            on_change=picked,
        )
    with st.form(KEY_CREATE_SESSION, clear_on_submit=True, border=False):
        cols = st.columns([3, 1], vertical_alignment="bottom")
        new_name = cols[0].text_input("New game night", key=KEY_NEW_SESSION, max_chars=80)
        if cols[1].form_submit_button("Create", width="stretch") and new_name.strip():
            created = store.create_session(new_name.strip())
            persist.choose_night(st.session_state, created)
            st.rerun()
    nights.join_ui(store)
    current = sessions.get(st.session_state[S.SESSION_ID])
    if current is not None:
        nights.invite_ui(current)


def objectives_ui(rules) -> list[int]:
    """Optional objective cards: none, or exactly 2 — drawn at random (one tap) or tapped in
    the list, where every card's whole text and VP wrap (nothing is cut off at 390 px)."""
    use = st.toggle("Play with objective cards", key=KEY_USE_OBJECTIVES, persist_state="session")
    if not use:
        return []
    numbers = sorted(rules.objectives)
    chosen = [n for n in st.session_state.get(KEY_OBJECTIVES, []) if n in rules.objectives]
    st.session_state[KEY_OBJECTIVES] = chosen

    def draw() -> None:
        import random

        st.session_state[KEY_OBJECTIVES] = sorted(random.SystemRandom().sample(numbers, 2))

    def toggle(number: int) -> None:
        picked = list(st.session_state.get(KEY_OBJECTIVES, []))
        if number in picked:
            picked.remove(number)
        else:
            picked = [*picked, number][-2:]  # a third tap replaces the older choice
        st.session_state[KEY_OBJECTIVES] = sorted(picked)

    st.button("🎲 Draw 2 at random", key=KEY_DRAW_OBJECTIVES, on_click=draw)
    st.caption(
        f"Objective cards in play ({len(chosen)} of 2 chosen): draw them, or tap the 2 you drew."
    )
    grid = st.grid("auto", min_column_width=160, gap="xxsmall")
    for n in numbers:
        grid.button(
            f"{n}: {rules.objectives[n].text} ({rules.objectives[n].vp} VP)",
            key=f"{KEY_OBJECTIVE}_{n}",
            type="primary" if n in chosen else "secondary",
            icon="✅" if n in chosen else None,
            on_click=toggle,
            args=(n,),
            width="stretch",
            wrap=True,
        )
    return chosen


def recent_players_ui() -> None:
    """One tap adds a player who played recently (on any game night of this server)."""
    try:
        games = get_store().list_games()
    except STORAGE_ERRORS:
        return
    recent: list[str] = []
    for game in reversed(games):
        for line in game.players:
            if line.name not in recent:
                recent.append(line.name)
    typed = [n.strip().casefold() for n in str(st.session_state.get(KEY_PLAYERS, "")).splitlines()]
    offer = [n for n in recent if n.casefold() not in typed][:RECENT_PLAYERS]
    if not offer:
        return

    def add(name: str) -> None:
        text = str(st.session_state.get(KEY_PLAYERS, "")).rstrip("\n")
        st.session_state[KEY_PLAYERS] = f"{text}\n{name}" if text else name

    st.caption("Recent players (tap to add):")
    grid = st.grid("auto", min_column_width=96, gap="xxsmall")
    for i, name in enumerate(offer):
        grid.button(
            escape_markdown(name),
            key=f"{KEY_RECENT}_{i}",
            on_click=add,
            args=(name,),
            width="stretch",
        )


def deck_ui() -> None:
    """The night's deck: the bundled stand-in deck or the night's enrolled one (one tap)."""
    settings = night_settings()
    st.caption(
        "Cards read with: "
        + (
            "this night's enrolled deck."
            if settings.deck_of("reptile_tank") == "enrolled"
            else "the bundled deck."
        )
    )
    if settings.deck_of("reptile_tank") == "enrolled":
        if st.button("Back to the bundled deck", key=KEY_DECK):
            use_deck("bundled")
            st.session_state[S.FLASH] = "This game night now reads cards with the bundled deck."
            st.rerun()


def current_game_ui() -> None:
    """The game in progress on this night (resumed from the database), if any."""
    players = st.session_state[S.PLAYERS]
    if not players:
        return
    st.subheader("This game")
    saved = st.session_state[S.LAST_SAVED_GAME]
    entered = set(st.session_state[S.ENTRIES])
    st.dataframe(
        [
            {"Seat": i + 1, "Player": p, "Terrarium": "in" if p in entered else "to enter"}
            for i, p in enumerate(players)
        ],
        hide_index=True,
        key="setup_players_table",
    )
    objectives = st.session_state[S.OBJECTIVES]
    if objectives:
        rules = load_rules()
        with st.container(key="setup_game_objectives"):
            st.caption("Objective cards in play:")
            for n in objectives:
                card = rules.objectives.get(n)
                st.text(f"{n}: {card.text} ({card.vp} VP)" if card else f"{n}")
    else:
        st.caption("No objective cards in this game.")
    if saved is not None:
        st.success(f"Game {saved} is saved. Start the next game below when you are ready.")
    else:
        night_link("photo.py", "Next: photograph each terrarium", "📷")


def setup_ui() -> None:
    st.title("🦎 Game setup")
    flash_ui(st.session_state)
    rules = load_rules()
    try:
        session_ui()
    except STORAGE_ERRORS as error:
        st.error(escape_markdown(f"The game nights cannot be read: {storage_message(error)}"))
        return
    if st.session_state[S.SESSION_ID] is None:
        st.info("Pick or create a game night to start (it groups the evening's games).")
        return
    from ui.kit import game_choice_ui, game_page_link_ui

    chosen = game_choice_ui()
    if chosen != "reptile_tank":  # the night plays another game: its own page
        game_page_link_ui(chosen)
        return
    deck_ui()
    current_game_ui()
    in_progress = bool(st.session_state[S.PLAYERS]) and st.session_state[S.LAST_SAVED_GAME] is None
    with st.expander("Start a new game", expanded=not in_progress):
        if in_progress:
            st.warning("A game is in progress on this night: starting a new one closes it.")
        st.text_area(
            "Players, one per line (2 to 4)",
            key=KEY_PLAYERS,
            height=120,
            placeholder="Ann\nBen\nChloé",
            persist_state="session",
        )
        recent_players_ui()
        st.toggle(
            "Star cards out (2–3 player variant: no Corn snake, Brown anole or Rock)",
            key=KEY_STAR_OUT,
            persist_state="session",
        )
        objectives = objectives_ui(rules)
        if st.button("Start the game", type="primary", key=KEY_START):
            try:
                players = S.parse_player_names(st.session_state.get(KEY_PLAYERS, ""))
                check_table_setup(players, objectives, rules)
            except ValueError as error:
                st.error(escape_markdown(str(error)))
            else:
                if st.session_state[S.DRAFT_UID]:
                    try:
                        persist.next_game(st.session_state)
                    except STORAGE_ERRORS as error:
                        st.error(escape_markdown(f"Not saved: {storage_message(error)}"))
                        return
                S.start_game(
                    st.session_state,
                    players,
                    star_cards_out=st.session_state.get(KEY_STAR_OUT, False),
                    objectives=objectives,
                )
                note = ""
                if len(players) in (2, 3) and not st.session_state.get(KEY_STAR_OUT, False):
                    note = (
                        " The rulebook takes the star cards out with 2–3 players: "
                        "switch it on if you did."
                    )
                st.session_state[S.FLASH] = f"Game started with {len(players)} players.{note}"
                st.switch_page(
                    page_path("photo.py"), query_params=S.night_params(st.session_state)
                )  # the table's photos come next


setup_ui()
