"""Page 8 — Rules: every card's values, assumed ones marked, editable for your printing."""

from __future__ import annotations

import streamlit as st

from scoring.rules import load_rules as load_default_rules
from ui import rules_file
from ui.backend import load_rules, rules_path
from ui.labels import full_name
from ui.widgets import flash_ui

ASSUMED = "assumed — check your cards"


def provenance_text(provenance: str) -> str:
    """How sure the value is, in words."""
    return {"rulebook": "rulebook", "derived": "derived from the rulebook"}.get(provenance, ASSUMED)


def tier_key(card: str, tier: str) -> str:
    return f"rules_vp_{card}_{tier}"


def objective_key(number: int) -> str:
    return f"rules_obj_{number}"


def _vp_input(label: str, key: str, vp: int, provenance: str) -> None:
    """One editable VP value, seeded from the rules, with its provenance (assumed ones marked)."""
    if key not in st.session_state:
        st.session_state[key] = int(vp)
    st.number_input(
        label, min_value=0, max_value=99, step=1, key=key, help=provenance_text(provenance)
    )
    if provenance == "assumed":
        st.caption(f"↑ {ASSUMED}")


def rules_ui() -> None:
    st.title("📜 Rules")
    flash_ui(st.session_state)
    rules = load_rules()  # warns and falls back to the defaults if the user's file is broken
    defaults = load_default_rules()
    path = rules_path()
    st.caption(
        "Values marked **assumed** are the project's defaults where the rulebook text is "
        "silent: check them against your cards and correct them here."
        + (" House values are in force." if path.is_file() else "")
    )
    for cid, rule in rules.cards.items():
        flag = " ⚠" if any(t.provenance == "assumed" for t in rule.tiers) else ""
        with st.expander(f"{full_name(cid)}{flag}"):
            st.write(rule.text)
            for tier in rule.tiers:
                _vp_input(
                    f"{tier.name}: {tier.text}", tier_key(cid, tier.name), tier.vp, tier.provenance
                )
    with st.expander("Objective cards"):
        for number, objective in sorted(rules.objectives.items()):
            _vp_input(
                f"{number}: {objective.text}",
                objective_key(number),
                objective.vp,
                objective.provenance,
            )
    cols = st.columns(2)
    if cols[0].button("Save my values", type="primary", key="rules_save", width="stretch"):
        edited_tiers = {k: st.session_state[tier_key(*k)] for k in rules_file.tier_values(defaults)}
        edited_obj = {
            n: st.session_state[objective_key(n)] for n in rules_file.objective_values(defaults)
        }
        tiers = rules_file.changed_values(rules_file.tier_values(defaults), edited_tiers)
        objectives = rules_file.changed_values(rules_file.objective_values(defaults), edited_obj)
        rules_file.save_overrides(path, tiers, objectives)
        st.session_state["rt_flash"] = f"Saved {len(tiers) + len(objectives)} house value(s)."
        st.rerun()
    if cols[1].button("Reset to defaults", key="rules_reset", width="stretch"):
        rules_file.reset(path)
        for key in list(st.session_state):
            if str(key).startswith(("rules_vp_", "rules_obj_")):
                del st.session_state[key]
        st.session_state["rt_flash"] = "Back to the default rules."
        st.rerun()


rules_ui()
