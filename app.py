"""Game-night companion: photograph each board, check the read, score, save, compare.

Run with ``streamlit run app.py``. This file only sets the page up and lists the pages (every
game's, from the game list :mod:`games`, and the shared ones); each page lives in its game's
folder below ``ui/`` and all logic in importable modules of :mod:`ui`, :mod:`service` and the
backends. Around every page run, each game's game in progress is resumed from (and written to)
the database (:mod:`ui.persist`), so a reload, a server restart or another app server
continues the same game.
"""

import streamlit as st

from ui.kit import close_menu_on_phone_ui, flash_ui, storage_banner_ui
from ui.navigation import build_navigation, layout_for, page_path
from ui.nights import cookie_ui, passphrase_ok
from ui.persist import offer_ui, resume, show_night_in_url, sync, wants_rerun
from ui.state import GOTO, LAST_PAGE, init_state, night_params

page = build_navigation()
st.set_page_config(
    page_title="Reptile Tank companion", page_icon="🦎", layout=layout_for(page.url_path)
)
init_state(st.session_state)
if not passphrase_ok(st.session_state):  # REPTILE_TANK_PASSPHRASE guards a networked server
    st.stop()
resume(st.session_state)
show_night_in_url(st.session_state)
goto = st.session_state.pop(GOTO, None)
if goto and goto != page.url_path:  # a button's callback asked for another page
    st.switch_page(page_path(goto), query_params=night_params(st.session_state))
close_menu_on_phone_ui()
storage_banner_ui(st.session_state, retry=sync)
flash_ui(st.session_state)  # e.g. "updated from another device", on whichever page
offer_ui(st.session_state)  # this page's change another device replaced: put it back?
finished = False
try:
    page.run()
    finished = True
finally:
    st.session_state[LAST_PAGE] = page.url_path  # the next run knows whether it changed page
    stored = sync(st.session_state)
if finished and not stored:
    storage_banner_ui(st.session_state, retry=sync, toast=True)
cookie_ui(st.session_state)  # this browser's nights, remembered for its next visit
if finished and wants_rerun(st.session_state):
    st.rerun()  # another device wrote too: show the merged game and say so
