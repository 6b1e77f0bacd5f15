"""Nimalia: the rules data and the exact scoring engine (pure Python, like :mod:`scoring`).

* :mod:`scoring.nimalia.cards` -- the 60 cards, the 14 square kinds, turning a card, the 6x6 layout;
* :mod:`scoring.nimalia.rules` -- the rules data (``scoring/nimalia/data/rules.toml``) with provenance;
* :mod:`scoring.nimalia.reserve` -- a reserve: the visible grid from placements in order, documents;
* :mod:`scoring.nimalia.engine` -- the 22 goals, relative goals, rounds, totals, the tie-break;
* :mod:`scoring.nimalia.api` -- JSON-able entry points for the app and the command line.
"""
