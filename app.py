"""Reptile Tank companion: photograph each terrarium, check the read, score, save, compare.

Run with ``streamlit run app.py``. This file only sets the page up and lists the pages; each page
lives in ``ui/pages/`` and all logic in importable modules of :mod:`ui` and the backends.
"""

import streamlit as st

from ui.navigation import build_navigation, layout_for
from ui.state import init_state

page = build_navigation()
st.set_page_config(
    page_title="Reptile Tank companion", page_icon="🦎", layout=layout_for(page.url_path)
)
init_state(st.session_state)
page.run()
