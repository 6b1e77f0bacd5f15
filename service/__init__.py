"""The service layer under the app (and, later, the command line): one place that joins photo,
rules and storage.

Shared, game-blind modules:

- :mod:`service.settings` — a game night's settings (game, house values, a deck per game);
- :mod:`service.played` — score and save a played game of any game of the list;
- :mod:`service.shared` — compare-and-set writes merged with another phone's change;
- :mod:`service.nights` — game nights;
- :mod:`service.errors` — storage failures as one sentence.

Each game's own service modules live in ``service/<game id>/`` (see the README's layout).

Nothing here imports Streamlit.
"""
