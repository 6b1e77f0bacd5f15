"""A night's settings on two phones and from a damaged store (issue 29 items 1 and 8): a stale
phone's house value is merged, not reverting the other's; malformed stored settings never crash
a page and out-of-range values are refused visibly (a stored 150 no longer shows as 0)."""

from __future__ import annotations

from app_helpers import APP, no_errors, start_game
from streamlit.testing.v1 import AppTest

from leaderboard.drafts import DraftStore
from leaderboard.store import Store
from service.settings import NightSettings, settings_problems
from service.store import schema_history

RULES = "ui/reptile_tank/pages/rules.py"
SKINK = "rules_vp_blue_tongued_skink_advanced"
ROCK = "rules_vp_rock_basic"


def test_two_phones_changing_different_house_values_keep_both(app, app_env):
    a = start_game(app)
    night = a.session_state["rt_session_id"]
    b = AppTest.from_file(APP, default_timeout=60)
    b.query_params["night"] = a.session_state["rt_night_uid"]
    b.run()
    a.switch_page(RULES).run()
    b.switch_page(RULES).run()
    skink, rock = a.number_input(key=SKINK).value, a.number_input(key=ROCK).value
    b.number_input(key=ROCK).set_value(rock + 2)
    b.button(key="rules_save").click().run()
    no_errors(b)
    a.number_input(key=SKINK).set_value(skink + 5)  # A's page still shows the old rock value
    a.button(key="rules_save").click().run()
    no_errors(a)
    document, _revision = DraftStore(Store(app_env, history=schema_history())).settings(night)
    tiers = NightSettings.from_json(document).tiers
    assert tiers[("blue_tongued_skink", "advanced")] == skink + 5
    assert tiers[("rock", "basic")] == rock + 2  # B's change survives A's stale save


def test_malformed_and_out_of_range_stored_settings_warn_and_pages_still_run(app, app_env):
    at = start_game(app)
    night = at.session_state["rt_session_id"]
    drafts = DraftStore(Store(app_env, history=schema_history()))
    drafts.put_settings(night, {"house": {"tiers": [["rock", "basic", 150]]}})
    at.switch_page(RULES).run()
    no_errors(at)
    assert any("outside 0-99" in w.value for w in at.warning)
    assert at.number_input(key=ROCK).value != 0  # the default, not a silent 0
    for broken in (
        {"house": "garbage", "game": 5, "deck": ["x"]},
        {"house": {"tiers": "nope", "objectives": [[1, 2, 3], ["a", 4]]}},
        {"house": {"tiers": [[1], None, ["rock", "basic", "ten"]]}},
    ):
        drafts.put_settings(night, broken)
        assert settings_problems(broken)
        for page in ("setup", "check", "confirm", "nimalia", "rules"):
            at.switch_page(
                "ui/nimalia/page.py" if page == "nimalia" else f"ui/reptile_tank/pages/{page}.py"
            ).run()
            assert not at.exception, (broken, page, [e.message for e in at.exception])
        assert any("cannot be used" in w.value for w in at.warning)  # on the rules page


def test_a_house_mask_and_a_house_value_from_two_phones_are_both_kept(app, app_env):
    """The marked cells go through the same compare-and-set as the VP values (issue 31): a
    stale phone saving a VP value keeps the other phone's Ringneck cells."""
    a = start_game(app)
    night = a.session_state["rt_session_id"]
    b = AppTest.from_file(APP, default_timeout=60)
    b.query_params["night"] = a.session_state["rt_night_uid"]
    b.run()
    a.switch_page(RULES).run()
    b.switch_page(RULES).run()
    b.button_group(key="rules_mask_ringneck_snake_3").set_value([1, 2, 3, 4, 5])
    b.button(key="rules_save").click().run()
    no_errors(b)
    rock = a.number_input(key=ROCK).value
    a.number_input(key=ROCK).set_value(rock + 1)  # A's page still shows the old cells
    a.button(key="rules_save").click().run()
    no_errors(a)
    document, _revision = DraftStore(Store(app_env, history=schema_history())).settings(night)
    settings = NightSettings.from_json(document)
    assert settings.masks == {"ringneck_snake": ("X.X.X", ".....", ".....", "XXXXX")}
    assert settings.tiers == {("rock", "basic"): rock + 1}
