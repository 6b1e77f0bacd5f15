"""Nights belong to their players (issue 29 item 6): a stranger at the bare address lists no
night, reads no board and changes nothing; the join code or the invite link lets a player in;
REPTILE_TANK_PASSPHRASE guards the whole app; an export carries the chosen night only."""

from __future__ import annotations

import pytest
from app_helpers import APP, FULL_BOARD, enter_by_hand, no_errors, start_game
from streamlit.testing.v1 import AppTest

from service.nights import find_by_code, join_code, normalise_code, passphrase_matches


def stranger() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    no_errors(at)
    return at


def keys(at: AppTest) -> set[str]:
    return {w.key for w in (*at.selectbox, *at.button, *at.text_input) if w.key}


def test_a_stranger_lists_no_night_and_reads_no_game(app):
    owners = start_game(app)
    enter_by_hand(owners, "Ann", FULL_BOARD)
    other = stranger()
    assert "setup_session" not in keys(other)  # no list of nights at all
    other.switch_page("ui/pages/leaderboard.py").run()
    no_errors(other)
    assert other.selectbox(key="lb_scope").options == ["All time"]
    other.switch_page("ui/reptile_tank/pages/players.py").run()
    no_errors(other)
    assert not other.selectbox  # no saved game of another night to open or edit
    assert other.session_state["rt_session_id"] is None


def test_the_join_code_and_the_invite_link_let_a_player_in(app):
    owners = start_game(app, "Ann\nBen")
    uid = owners.session_state["rt_night_uid"]
    code = join_code(uid)
    owners.switch_page("ui/reptile_tank/pages/setup.py").run()  # Start moved on to Photograph
    assert any(code in e.label for e in owners.expander)  # shown on the night's page
    phone = stranger()
    phone.text_input(key="nights_join_code").input("zzzz-zzzz")
    phone.button(key="FormSubmitter:nights_join-Join").click().run()
    assert any("No game night has this code" in e.value for e in phone.error)
    phone.text_input(key="nights_join_code").input(code.lower().replace("-", " "))
    phone.button(key="FormSubmitter:nights_join-Join").click().run()
    no_errors(phone)
    assert phone.session_state["rt_night_uid"] == uid
    assert phone.session_state["rt_players"] == ["Ann", "Ben"]
    assert "setup_session" in keys(phone)  # now listed on this browser
    linked = AppTest.from_file(APP, default_timeout=60)
    linked.query_params["night"] = uid
    linked.run()
    no_errors(linked)
    assert linked.session_state["rt_known_nights"] == [uid]


def test_codes_are_short_forgiving_and_distinct():
    class Night:
        def __init__(self, uid):
            self.uid = uid

    nights = [Night(f"{i:032x}") for i in range(2000)]
    codes = {join_code(n.uid) for n in nights}
    assert len(codes) == len(nights)
    code = join_code(nights[7].uid)
    assert len(code) == 9 and code[4] == "-"
    typed = code.lower().replace("0", "o").replace("1", "l")
    assert find_by_code(nights, typed) is nights[7]
    assert normalise_code("abc") is None and find_by_code(nights, None) is None


def test_the_club_passphrase_guards_every_page(app_env, monkeypatch):
    monkeypatch.setenv("REPTILE_TANK_PASSPHRASE", "tortoise 7")
    at = AppTest.from_file(APP, default_timeout=60).run()
    no_errors(at)
    assert "setup_new_session" not in keys(at)  # nothing of the app before the passphrase
    at.text_input(key="nights_passphrase_in").input("hare")
    at.button(key="FormSubmitter:nights_passphrase-Enter").click().run()
    assert any("not the club's passphrase" in e.value for e in at.error)
    assert "setup_new_session" not in keys(at)
    at.text_input(key="nights_passphrase_in").input("tortoise 7")
    at.button(key="FormSubmitter:nights_passphrase-Enter").click().run()
    no_errors(at)
    assert "setup_new_session" in keys(at)
    assert passphrase_matches(" tortoise 7 ", "tortoise 7") and not passphrase_matches(None, "x")


def test_the_export_is_of_the_chosen_night_unless_every_night_is_asked(app):
    owners = start_game(app)
    owners.switch_page("ui/pages/leaderboard.py").run()
    no_errors(owners)
    assert owners.checkbox(key="lb_export_all").value is False


@pytest.mark.parametrize("code", ["", "ABCD-EFG", "ABCD-EFGHI", "ABCD-EFG!", "U" * 100])
def test_malformed_codes_find_nothing(code):
    class Night:
        uid = "0" * 32

    assert normalise_code(code) is None
    assert find_by_code([Night()], code) is None


def test_the_invite_qr_code_opens_the_night_link():
    """The QR code on the night's page decodes (OpenCV's detector, an independent reader) to
    exactly the invite link; an empty or absurd link is refused in one line."""
    import cv2
    import numpy as np

    from service.nights import invite_qr_png

    link = "http://192.168.1.20:8501/?night=" + "0f" * 16
    png = invite_qr_png(link)
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    decoded, _points, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert decoded == link
    for bad in ("", "x" * 2001, None):
        with pytest.raises(ValueError, match="1-2000 characters"):
            invite_qr_png(bad)


def test_the_nights_page_shows_the_invite_as_a_qr_code(app):
    owners = start_game(app, "Ann\nBen")
    owners.switch_page("ui/reptile_tank/pages/setup.py").run()  # Start moved on to Photograph
    captions = [str(image.proto) for image in owners.get("image")]
    assert any("point a phone" in c and "camera" in c for c in captions), captions
