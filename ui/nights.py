"""Nights belong to their players: this browser's nights, joining by code, the invite, the
club passphrase.

* **This browser's nights.** The pages list only the game nights this browser created or joined
  (by its invite link, ``?night=<uid>``, or its join code). The list lives in the browser: in
  this session (``st.session_state``) and in a cookie (``rt_nights``, the night uids, read back
  through ``st.context.cookies`` when the browser opens the app again; written by a tiny script
  when the list changes). A stranger at the bare address sees no night at all.
* **Join code** (:mod:`service.nights`): shown on the night's setup page with the invite link;
  typed on another phone to join.
* **Passphrase.** When ``REPTILE_TANK_PASSPHRASE`` is set (a server open to a network), every
  page asks for it once per browser session before anything else runs.

The UI only renders and collects; codes and the passphrase check are :mod:`service.nights`'.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import MutableMapping
from typing import Any

import streamlit as st

from service.nights import find_by_code, invite_qr_png, join_code, passphrase_matches
from ui import state as S

#: Session keys: the uids of this browser's nights; whether the cookie must be written again;
#: the passphrase was given.
KNOWN = "rt_known_nights"
COOKIE_DIRTY = "rt_known_nights_dirty"
UNLOCKED = "rt_passphrase_ok"
COOKIE = "rt_nights"
PASSPHRASE_ENV = "REPTILE_TANK_PASSPHRASE"
#: Most nights a browser remembers (the newest kept).
MAX_KNOWN = 50
#: What a night uid may hold (in the cookie and its script): nothing else reaches the page.
_UID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _from_cookie() -> list[str]:
    try:
        raw = st.context.cookies.get(COOKIE) or ""
    except Exception:  # noqa: BLE001 - no browser context (tests, bare mode): no cookie
        return []
    return [uid for uid in raw.split(".") if _UID.fullmatch(uid)][-MAX_KNOWN:]


def known(state: MutableMapping[str, Any]) -> list[str]:
    """The uids of the nights this browser created or joined (oldest first)."""
    if KNOWN not in state:
        state[KNOWN] = _from_cookie()
    return list(state[KNOWN])


def remember(state: MutableMapping[str, Any], uid: str) -> None:
    """This browser created or joined the night ``uid``: list it from now on."""
    uids = [u for u in known(state) if u != uid]
    if not _UID.fullmatch(str(uid)):
        return
    state[KNOWN] = (uids + [uid])[-MAX_KNOWN:]
    state[COOKIE_DIRTY] = True


def visible_sessions(store: Any, state: MutableMapping[str, Any]) -> list[Any]:
    """The store's game nights this browser may list: the ones it created or joined."""
    mine = set(known(state))
    return [s for s in store.list_sessions() if s.uid in mine]


def visible_ids(store: Any, state: MutableMapping[str, Any]) -> set[int]:
    """Ids of :func:`visible_sessions`."""
    return {s.id for s in visible_sessions(store, state)}


def join(state: MutableMapping[str, Any], store: Any, code: str) -> Any:
    """Join the night whose join code is ``code``: it becomes this page's night and is
    remembered. Returns the night, or ``None`` when no night has that code."""
    from ui import persist

    found = find_by_code(store.list_sessions(), code)
    if found is not None:
        persist.choose_night(state, found)
        remember(state, found.uid)
    return found


def invite_link(uid: str) -> str:
    """The night's link: this app's address with ``?night=<uid>``."""
    try:
        base = (st.context.url or "").split("?")[0]
    except Exception:  # noqa: BLE001 - no browser context
        base = ""
    return f"{base}?night={uid}"


def join_ui(store: Any) -> None:
    """Join a game night by the code shown on one of its players' phones."""
    with st.form("nights_join", clear_on_submit=True, border=False):
        cols = st.columns([3, 1], vertical_alignment="bottom")
        code = cols[0].text_input(
            "Join a game night", key="nights_join_code", max_chars=20, placeholder="ABCD-EFGH"
        )
        if cols[1].form_submit_button("Join", width="stretch") and code.strip():
            found = join(st.session_state, store, code)
            if found is None:
                st.error("No game night has this code: check it on a player's phone.")
            else:
                st.session_state[S.FLASH] = "You joined this game night."
                st.rerun()


def invite_ui(session: Any) -> None:
    """The night's join code and invite link, for the other players' phones."""
    with st.expander(f"Invite the table · join code **{join_code(session.uid)}**"):
        st.caption(
            "Other phones join this game night with this code (Join a game night) or by "
            "opening this link. Only people with the code or the link can see the night."
        )
        link = invite_link(session.uid)
        st.code(link, language=None)
        st.image(invite_qr_png(link), caption="Or point a phone's camera here", width=220)


def cookie_ui(state: MutableMapping[str, Any]) -> None:
    """Write this browser's nights to its cookie when the list changed (a tiny script)."""
    if not state.get(COOKIE_DIRTY):
        return
    state[COOKIE_DIRTY] = False
    script = cookie_script(known(state))
    import streamlit.components.v1 as components

    components.html(script, height=0)


def cookie_script(uids: Any) -> str:
    """The tiny script that stores ``uids`` in this browser's cookie. Only uids made of
    ``[A-Za-z0-9_-]`` are written (any other is left out), so no text from a stored or typed
    value can break out of the script."""
    value = ".".join(u for u in uids if isinstance(u, str) and _UID.fullmatch(u))
    cookie = json.dumps(f"{COOKIE}={value}")
    return (
        f"<script>try{{const c={cookie}+'; path=/; max-age=31536000; SameSite=Lax';"
        "document.cookie=c;window.parent.document.cookie=c;}catch(e){}</script>"
    )


def passphrase_set() -> bool:
    """True when the server is guarded by a club passphrase (its nights are the club's)."""
    return bool(os.environ.get(PASSPHRASE_ENV, "").strip())


def passphrase_ok(state: MutableMapping[str, Any]) -> bool:
    """True when no passphrase is set, or this session gave it; else asks for it (the page
    must then stop)."""
    expected = os.environ.get(PASSPHRASE_ENV, "")
    if not expected.strip() or state.get(UNLOCKED):
        return True
    st.title("🦎 Reptile Tank companion")
    with st.form("nights_passphrase", border=False):
        given = st.text_input("Club passphrase", type="password", key="nights_passphrase_in")
        if st.form_submit_button("Enter"):
            if passphrase_matches(given, expected):
                state[UNLOCKED] = True
                st.rerun()
            st.error("That is not the club's passphrase.")
    return False
