"""Save a played game of any game of the game list: the game's scorer scores the stored
document, storage keeps both (:mod:`leaderboard.played`). Game-blind: the game is an id."""

from __future__ import annotations

from typing import Any

import games


def score_game(game_id: str, document: Any) -> dict[str, Any]:
    """The game's whole-game result for ``document`` (``ValueError`` when the game has no
    whole-game scorer or the document is bad)."""
    entry = games.game(game_id)
    if entry.score_game is None:
        raise ValueError(f"{entry.name} games are saved by its own pages")
    return games.resolve(entry.score_game)(document)


def save_game(store: Any, game_id: str, session_id: int, document: dict[str, Any]) -> int:
    """Score ``document`` and save it (again, on its ``uid``) at the game night; returns the
    saved game's id."""
    from leaderboard.played import PlayedGames

    result = score_game(game_id, document)
    game_id_saved, _created = PlayedGames(store, game_id, name=games.game(game_id).name).save_game(
        session_id, document, result
    )
    return game_id_saved


def import_games(store: Any, data: dict[str, Any], **options: Any) -> Any:
    """Import a leaderboard export into ``store``, each record checked by its game's
    ``import_check`` (the record game's entry in the game list); returns the
    :class:`leaderboard.ImportSummary`. ``options`` go to ``Store.import_json``."""
    check = games.game(store.record_game).import_check
    return store.import_json(
        data, verify=games.resolve(check) if check is not None else False, **options
    )
