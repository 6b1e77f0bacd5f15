"""Helpers of the app tests: boards, AppTest drivers (imported by name, like lb_helpers)."""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")

#: A finished terrarium (every cell filled) used across the journey tests.
FULL_BOARD = [
    ["blue_tongued_skink", "blue_tongued_skink", "blue_tongued_skink", "rock", "water"],
    ["golden_pothos", "corn_snake", "rock", "hollow_log", "dubia_roach"],
    ["water", "water", "water", "water", "water"],
    ["scarlet_star", "scarlet_star", "scarlet_star", "scarlet_star", "scarlet_star"],
]
#: A second finished terrarium with two roaches (it takes the cockroach majority).
SECOND_BOARD = [
    ["dubia_roach", "dubia_roach", "rock", "water", "water"],
    ["three_toed_box_turtle", "hollow_log", "three_toed_box_turtle", "water", "water"],
    ["silver_inch_plant", "silver_inch_plant", "silver_inch_plant", "rosy_boa", "rosy_boa"],
    ["water", "water", "water", "water", "golden_pothos"],
]


def no_errors(at: AppTest) -> None:
    """Fail with the page's exception or error messages, if any."""
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def create_night(at: AppTest, name: str = "Friday") -> AppTest:
    at.text_input(key="setup_new_session").input(name)
    at.button(key="FormSubmitter:setup_create_session-Create").click().run()
    no_errors(at)
    return at


def start_game(at: AppTest, players: str = "Ann\nBen", *, star_out: bool = False) -> AppTest:
    create_night(at)
    at.text_area(key="setup_players").input(players)
    at.toggle(key="setup_star_out").set_value(star_out)
    at.button(key="setup_start").click().run()
    no_errors(at)
    return at


def enter_by_hand(at: AppTest, player: str, rows: list[list[str]]) -> AppTest:
    """Type a whole board on the check page's grid of selectboxes."""
    at.switch_page("ui/reptile_tank/pages/check.py").run()
    at.radio(key="check_player").set_value(player).run()
    if at.session_state["rt_entries"].get(player) is None:
        at.button(key="check_manual").click().run()
    for r, row in enumerate(rows):
        for c, label in enumerate(row):
            at.selectbox(key=f"check_grid_{r}_{c}").select(label)
    at.run()
    no_errors(at)
    return at


def frame(at: AppTest, *columns: str):
    """The first dataframe on the page having all ``columns`` (as a pandas DataFrame)."""
    for element in list(at.dataframe) + list(at.table):
        value = element.value
        if all(c in value.columns for c in columns):
            return value
    raise AssertionError(f"no table with columns {columns}")


@contextmanager
def fresh_pg_database(url: str):
    """A new, empty database on the test server (dropped afterwards); the URL itself when the
    server does not let us create one."""
    import sqlalchemy as sa

    name = f"rt_app_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except sa.exc.DBAPIError:
        admin.dispose()
        yield url
        return
    try:
        yield sa.make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
