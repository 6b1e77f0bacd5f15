"""Helpers shared by the Nimalia tests: reserves written as in the reference."""

from __future__ import annotations

import re

from scoring.nimalia.reserve import Reserve, reserve_from_squares


def grid(text: str) -> Reserve:
    """A reserve from rows of whitespace-separated tokens (the reference's grid pictures)."""
    rows = [line.split() for line in text.strip("\n").splitlines() if line.strip()]
    return reserve_from_squares(rows)


def sparse(text: str) -> Reserve:
    """A reserve from ``rRcC TOKEN`` pairs (the reference's player descriptions)."""
    rows = [["."] * 6 for _ in range(6)]
    for r, c, token in re.findall(r"r(\d)c(\d)\s+(\S+?)(?:,|$|\s)", text.strip() + " "):
        rows[int(r)][int(c)] = token
    return reserve_from_squares(rows)


def snow_otters(text: str) -> Reserve:
    """``r1c0 /, r1c3 \\`` -> snow otters with those rivers."""
    rows = [["."] * 6 for _ in range(6)]
    for r, c, river in re.findall(r"r(\d)c(\d)\s+([/\\])", text):
        rows[int(r)][int(c)] = f"I:ott{river}"
    return reserve_from_squares(rows)
