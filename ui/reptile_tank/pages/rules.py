"""Page 8 — Rules: every card's values, assumed ones marked, editable for your printing.

House values belong to the game night (stored with it in the database): one night's edit never
changes another night's scores. Resetting asks first."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from scoring.reptile_tank.rules import load_rules as load_default_rules
from service import settings as night
from service.errors import STORAGE_ERRORS, storage_message
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import load_rules, night_settings, save_night_settings, settings_seen
from ui.reptile_tank.journey import escape_markdown
from ui.reptile_tank.labels import full_name
from ui.reptile_tank.widgets import flash_ui

KEY_RESET_ASK = "rules_reset_ask"
KEY_SEEN = "rules_settings_seen"

ASSUMED = "assumed — check your cards"


def provenance_text(provenance: str) -> str:
    """How sure the value is, in words."""
    return {"rulebook": "rulebook", "derived": "derived from the rulebook"}.get(provenance, ASSUMED)


def tier_key(card: str, tier: str) -> str:
    return f"rules_vp_{card}_{tier}"


def objective_key(number: int) -> str:
    return f"rules_obj_{number}"


def mask_key(name: str, row: int) -> str:
    """The pills of one row (0 = farthest from you) of a marked-cell area."""
    return f"rules_mask_{name}_{row}"


def edited_mask(name: str, default_rows: tuple[str, ...]) -> tuple[str, ...]:
    """The area as the page's pills now mark it (the default where a row was never drawn)."""
    rows = []
    for i, row in enumerate(default_rows):
        key = mask_key(name, i)
        if key not in st.session_state:
            rows.append(row)
            continue
        marked = set(st.session_state[key] or ())
        rows.append("".join("X" if j + 1 in marked else "." for j in range(len(row))))
    return tuple(rows)


def _vp_input(label: str, key: str, vp: int, provenance: str) -> None:
    """One editable VP value, seeded from the rules, with its provenance (assumed ones marked)."""
    if key not in st.session_state:
        st.session_state[key] = int(vp)
    st.number_input(
        label, min_value=0, max_value=99, step=1, key=key, help=provenance_text(provenance)
    )
    if provenance == "assumed":
        st.caption(f"↑ {ASSUMED}")


def clear_inputs() -> None:
    for key in list(st.session_state):
        if str(key).startswith(("rules_vp_", "rules_obj_", "rules_mask_")):
            del st.session_state[key]


def save_values(defaults) -> None:
    """Callback: write the changed values as this night's house rules."""
    edited_tiers = {k: st.session_state[tier_key(*k)] for k in night.tier_values(defaults)}
    edited_obj = {n: st.session_state[objective_key(n)] for n in night.objective_values(defaults)}
    default_masks = night.mask_values(defaults)
    edited_masks = {name: edited_mask(name, rows) for name, rows in default_masks.items()}
    try:
        tiers = night.changed_values(night.tier_values(defaults), edited_tiers)
        objectives = night.changed_values(night.objective_values(defaults), edited_obj)
        masks = night.changed_masks(default_masks, edited_masks)
        save_night_settings(
            replace(night_settings(), tiers=tiers, objectives=objectives, masks=masks),
            seen=st.session_state.get(KEY_SEEN),
        )
    except ValueError as error:
        st.session_state[S.FLASH] = None
        st.session_state[S.STORAGE_ERROR] = f"Not saved: {error}"
        return
    except STORAGE_ERRORS as error:
        st.session_state[S.STORAGE_ERROR] = f"Not saved: {storage_message(error)}"
        return
    st.session_state[S.FLASH] = (
        f"Saved {len(tiers) + len(objectives) + len(masks)} house value(s) for this game night."
    )


def reset_values() -> None:
    """Callback (after "Yes, reset"): this night back to the default rules."""
    try:
        save_night_settings(
            replace(night_settings(), tiers={}, objectives={}, masks={}),
            seen=st.session_state.get(KEY_SEEN),
        )
    except STORAGE_ERRORS as error:
        st.session_state[S.STORAGE_ERROR] = f"Not reset: {storage_message(error)}"
        return
    clear_inputs()
    st.session_state[KEY_RESET_ASK] = False
    st.session_state[S.FLASH] = "This game night is back to the default rules."


def mask_text(cells) -> str:
    """A mask as 4 lines of 5 squares (■ marked, · not), row 1 (farthest from you) first."""
    return "\n".join(" ".join("■" if marked else "·" for marked in row) for row in cells)


def marked_cells_ui(rules, defaults, editable: bool) -> None:
    """The marked cells points rest on (the Ringneck's and the Pothos's areas, objectives
    16-19), each drawn, the assumed ones said so (the rulebook shows them only as pictures),
    and, at a game night, editable row by row as a house rule of that night."""
    masks = getattr(rules, "mask_rules", {})
    if not masks:
        return
    assumed = [m for m in masks.values() if m.provenance == "assumed"]
    default_cells = getattr(defaults, "mask_rules", {})
    with st.expander("Marked cells" + (" ⚠" if assumed else "")):
        st.caption(
            "Which cells count as marked, drawn as on your terrarium (row 1 farthest from you). "
            "Compare them with your cards' pictures"
            + (
                "; if yours differ, tap the squares of each row to mark them as printed, "
                "then save (for this game night only)."
                if editable
                else "."
            )
        )
        for name, mask in masks.items():
            house = name in default_cells and mask.cells != default_cells[name].cells
            how = "house rule tonight" if house else provenance_text(mask.provenance)
            if not editable:  # drawn in squares; at a night the rows of taps below draw it
                st.text(f"{mask.text} ({how})\n{mask_text(mask.cells)}")
                continue
            st.text(f"{mask.text} ({how})")
            for i, row in enumerate(mask.cells):
                key = mask_key(name, i)
                if key not in st.session_state:
                    st.session_state[key] = [j + 1 for j, marked in enumerate(row) if marked]
                st.pills(
                    f"Row {i + 1}",
                    list(range(1, len(row) + 1)),
                    selection_mode="multi",
                    key=key,
                    format_func=lambda j: f"{j}",
                    label_visibility="collapsed",
                )


def rules_ui() -> None:
    st.title("📜 Rules")
    flash_ui(st.session_state)
    if st.session_state[S.SESSION_ID] is None:
        st.info("House rules belong to a game night: pick one on the Game setup page first.")
        st.caption("The default rules are shown below, read-only.")
    settings = night_settings()
    st.session_state[KEY_SEEN] = settings_seen()  # what the player sees: the base of a save
    # The inputs show this night's values: when the night changes (or another phone saved),
    # they are seeded again.
    seeded_for = (st.session_state[S.SESSION_ID], settings.to_json()["house"].__repr__())
    if st.session_state.get("rules_seeded_for") != seeded_for:
        clear_inputs()
        st.session_state["rules_seeded_for"] = seeded_for
    rules = load_rules()
    defaults = load_default_rules()
    st.caption(
        "Values marked **assumed** are the project's defaults where the rulebook text is "
        "silent: check them against your cards and correct them here. They apply to this "
        "game night only."
        + (" House values are in force tonight." if settings.has_house_rules else "")
    )
    for cid, rule in rules.cards.items():
        flag = " ⚠" if any(t.provenance == "assumed" for t in rule.tiers) else ""
        with st.expander(f"{full_name(cid)}{flag}"):
            st.text(rule.text)
            for tier in rule.tiers:
                _vp_input(
                    f"{tier.name}: {escape_markdown(tier.text)}",
                    tier_key(cid, tier.name),
                    tier.vp,
                    tier.provenance,
                )
    with st.expander("Objective cards"):
        for number, objective in sorted(rules.objectives.items()):
            _vp_input(
                f"{number}: {escape_markdown(objective.text)}",
                objective_key(number),
                objective.vp,
                objective.provenance,
            )
    marked_cells_ui(rules, defaults, editable=st.session_state[S.SESSION_ID] is not None)
    if st.session_state[S.SESSION_ID] is None:
        return
    cols = st.columns(2)
    cols[0].button(
        "Save my values",
        type="primary",
        key="rules_save",
        width="stretch",
        on_click=save_values,
        args=(defaults,),
    )
    if cols[1].button("Reset to defaults…", key="rules_reset", width="stretch"):
        st.session_state[KEY_RESET_ASK] = True
    if st.session_state.get(KEY_RESET_ASK):
        with st.container(border=True):
            st.warning("Reset every house value of this game night to the default rules?")
            yes, no = st.columns(2)
            yes.button("Yes, reset", key="rules_reset_yes", on_click=reset_values, width="stretch")
            if no.button("Cancel", key="rules_reset_no", width="stretch"):
                st.session_state[KEY_RESET_ASK] = False
                st.rerun()


rules_ui()
