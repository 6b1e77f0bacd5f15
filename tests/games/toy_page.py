"""The toy game's one app page: two players' 3x3 grids, scored as they are entered, and Save.

Only the shared UI kit and the service layer are used (no code of the app knows this game)."""

from __future__ import annotations

import streamlit as st
from toy_game import CELLS, ID, score

from service.played import save_game
from ui import state as S
from ui.backend import get_store

st.title("🔲 Toy grid")
if st.session_state.get(S.SESSION_ID) is None:
    st.info("Pick a game night on the setup page first.")
    st.stop()
players = []
for p in range(2):
    name = st.text_input(f"Player {p + 1}", key=f"toy_name_{p}") or f"Player {p + 1}"
    rows = [
        [
            st.selectbox(f"{name} {r + 1},{c + 1}", CELLS, index=3, key=f"toy_{p}_{r}_{c}")
            for c in range(3)
        ]
        for r in range(3)
    ]
    st.metric(f"{name}", score({"rows": rows})["total"])
    players.append({"name": name, "rows": rows})
if st.button("Save", key="toy_save"):
    uid = st.session_state.setdefault("toy_uid", f"toy-{st.session_state[S.SESSION_ID]}-1")
    saved = save_game(
        get_store(), ID, st.session_state[S.SESSION_ID], {"uid": uid, "players": players}
    )
    st.success(f"Saved as game {saved}.")
