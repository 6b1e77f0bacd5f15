"""The service layer under the app (and, later, the command line): one place that joins photo,
rules and storage.

- :mod:`service.reptile_tank.game` — a game in progress (players, terrariums, fixes) and the setup checks;
- :mod:`service.reptile_tank.reading` — photo bytes → a read the pages can show (``PhotoRead``);
- :mod:`service.reptile_tank.records` — scored tables and solo games → leaderboard records; solo standings;
- :mod:`service.settings` — a game night's settings (game, house rules, deck) → rules;
- :mod:`service.reptile_tank.drafts` — a game in progress as a JSON document that survives reloads and
  restarts (stored by :mod:`leaderboard.drafts`);
- :mod:`service.errors` — storage failures as one sentence;
- :mod:`service.reptile_tank.pad_image` — the board with its scoring groups drawn, as a PNG to look at and
  to share.

Nothing here imports Streamlit.
"""
