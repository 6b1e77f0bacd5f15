"""The one list of games: each game is one :class:`Game` value, a set of plug-ins.

A game is its layout, cell vocabulary, rules loader, scorer, photo reader, document codec, CLI
commands and app pages. The shared layers are built from this list and name no game:

* the command line (:mod:`reptile_tank.cli`) registers every game's ``cli_modules`` and gives
  a game without a command group of its own the generic ``<game id> score DOCUMENT``;
* the app's navigation (:mod:`ui.navigation`) lists every game's ``pages``;
* the night settings (:mod:`service.settings`) offer every game and keep one deck choice per
  game that has a ``deck_setting``;
* storage (:mod:`leaderboard.played`) keeps a saved game as the game's document in one table
  keyed by game id, and the leaderboard page (:mod:`ui.pages.leaderboard`) shows every game's
  ``leaderboard`` views (the shared played-games view when a game names none).

Nothing here reads a file or imports a layer at import: each :class:`Game` holds loaders, and
UI/vision entry points are named ``"module:attribute"`` (resolved by :func:`resolve` when
asked), so the registry is importable from every layer without pulling the others in.

Adding a game = its folders (``scoring/<id>/``, ``vision/<id>/``, ``service/<id>/``,
``ui/<id>/``) and one :func:`register` call (below for the shipped games; a test may register
its own, see ``tests/games/toy_game.py``).

Examples
--------
>>> game("nimalia").layout().shape
(6, 6)
>>> sorted(GAMES)
['nimalia', 'reptile_tank']
>>> game("reptile_tank").name
'Reptile Tank'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from scoring.layout import Layout


@dataclass(frozen=True)
class Page:
    """One app page of a game: ``script`` is below ``ui/`` (``"nimalia/page.py"``) or an
    absolute path; ``section`` groups it in the navigation (``"Game"``, ``"Results"``,
    ``"More"``)."""

    script: str
    title: str
    icon: str
    url_path: str
    section: str = "Game"
    #: A page showing a photo beside the board uses the whole width of a laptop screen.
    wide: bool = False


@dataclass(frozen=True)
class LeaderboardView:
    """One standings view on the leaderboard page: ``render(store, session_id)`` (a callable or
    ``"module:function"``) draws it; ``key`` is unique across games."""

    key: str
    title: str
    render: Callable[..., Any] | str


@dataclass(frozen=True)
class AppSession:
    """A game's part in every run of the app's frame (``app.py``), for a game that keeps its
    game in progress in the session and the database around every page run (each hook takes
    the session state; ``None`` = nothing to do):

    * ``init(state)`` gives the game's session keys their defaults;
    * ``night_chosen(state, night)`` loads the game in progress of the night just chosen;
    * ``resume(state)`` at the start of a run picks up another device's change;
    * ``sync(state) -> bool`` at the end of a run writes the game's change (False: not
      stored, the storage error is in the shared state);
    * ``offer_ui(state)`` draws, before the page, what the game offers after a write that met
      another device's (e.g. "put mine back");
    * ``rerun(state) -> bool``: this run met another device's write, run again to show it.
    """

    init: Callable[[Any], None] | None = None
    night_chosen: Callable[[Any, Any], None] | None = None
    resume: Callable[[Any], None] | None = None
    sync: Callable[[Any], bool] | None = None
    offer_ui: Callable[[Any], None] | None = None
    rerun: Callable[[Any], bool] | None = None


@dataclass(frozen=True)
class Game:
    """One game the companion scores.

    ``cell_labels()`` is the cell vocabulary (what a reader may put in a cell, the empty label
    included); ``parse_document`` is the document codec's reader: it checks one player's table
    document and returns the game's own board object (``ValueError`` with one line when it is
    bad); ``score_document(document, **options)`` scores one player's document and returns a
    JSON-able dict; ``score_game(document)`` scores a whole game document and returns a dict
    whose ``players`` list holds ``{"name", "total", "rank"}`` per seat (what storage keeps and
    the standings rank); ``reader`` names the photo reader (``"module:function"``).
    """

    id: str
    name: str
    empty_label: str
    layout: Callable[[], Layout]
    cell_labels: Callable[[], tuple[str, ...]]
    rules: Callable[[], Any]
    parse_document: Callable[[Any], Any]
    score_document: Callable[..., dict[str, Any]]
    score_game: Callable[[Any], dict[str, Any]] | str | None = None
    reader: str | None = None
    icon: str = "🎲"
    #: Modules with ``register(subparsers)`` adding this game's commands to the CLI.
    cli_modules: tuple[str, ...] = ()
    pages: tuple[Page, ...] = ()
    #: Standings views; empty = the shared played-games view (:mod:`ui.played`).
    leaderboard: tuple[LeaderboardView, ...] = ()
    #: ``describe_game(document) -> {column: text}``: extra columns of a saved game in the
    #: shared games list (e.g. Nimalia's goals); ``None``: none.
    describe_game: Callable[[Any], dict[str, str]] | str | None = None
    #: Key of the night settings document holding this game's deck choice (``None``: no deck).
    deck_setting: str | None = None
    #: ``"module:attribute"`` of the game's :class:`AppSession` (``None``: its pages keep
    #: their own state and the app's frame does nothing for it).
    app_session: str | None = None
    #: ``check(record) -> reason or None`` (a callable or ``"module:function"``): what an
    #: import of a leaderboard export runs on each of the game's records (raise
    #: ``leaderboard.LeaderboardError`` to refuse it); ``None``: imported unchecked.
    import_check: Callable[[Any], str | None] | str | None = None
    #: Schema history (what storage's migrations must be told, :func:`service.store.
    #: schema_history`): ``True`` for the one game whose saved games are storage's
    #: ``GameRecord`` rows, the first release's game (every row a leaderboard holds from before
    #: schema version 5 is one of its games).
    first_game: bool = False
    #: Schema history: the ``(games, player lines, drafts)`` tables an earlier release created
    #: for this game alone, which the migration to schema version 4 folds in (``None``: none).
    legacy_tables: tuple[str, str, str] | None = None
    #: Anything else a game's own layers want to find from its entry.
    extra: Mapping[str, Any] = field(default_factory=dict)


_GAMES: dict[str, Game] = {}
#: The registered games by id, in registration order (a live, read-only view).
GAMES: Mapping[str, Game] = MappingProxyType(_GAMES)


def register(entry: Game, *, replace: bool = False) -> Game:
    """Add ``entry`` to the list (``ValueError`` if its id is taken and ``replace`` is false,
    or if a page url or leaderboard key is already another game's)."""
    if not entry.id.isidentifier() or entry.id != entry.id.lower():
        raise ValueError(f"a game id is a lower-case identifier, not {entry.id!r}")
    if entry.id in _GAMES and not replace:
        raise ValueError(f"a game {entry.id!r} is already registered")
    others = [g for g in _GAMES.values() if g.id != entry.id]
    urls = {p.url_path for g in others for p in g.pages}
    keys = {v.key for g in others for v in g.leaderboard}
    for page in entry.pages:
        if page.url_path in urls:
            raise ValueError(f"page url {page.url_path!r} is already another game's")
    for view in entry.leaderboard:
        if view.key in keys:
            raise ValueError(f"leaderboard view {view.key!r} is already another game's")
    _GAMES[entry.id] = entry
    return entry


def unregister(game_id: str) -> None:
    """Remove a game (tests that registered one clean up with this)."""
    _GAMES.pop(game_id, None)


def game(game_id: str) -> Game:
    """The game registered as ``game_id``; ``ValueError`` naming the known games otherwise."""
    try:
        return _GAMES[game_id]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown game {str(game_id)[:40]!r}: one of {', '.join(sorted(_GAMES))}"
        ) from None


def default_game() -> Game:
    """The first registered game (what a night plays until it chooses)."""
    return next(iter(_GAMES.values()))


def resolve(reference: Callable[..., Any] | str) -> Any:
    """``"module:attribute"`` -> that attribute (imported now); a callable is returned as is."""
    if not isinstance(reference, str):
        return reference
    module, _, name = reference.partition(":")
    target: Any = importlib.import_module(module)
    for part in name.split(".") if name else ():
        target = getattr(target, part)
    return target


def pages() -> list[tuple[Game | None, Page]]:
    """Every game's pages, in registration order (the navigation adds the shared ones)."""
    return [(g, p) for g in _GAMES.values() for p in g.pages]


# The shipped games: each module below builds its entry from its own folders.
from games import nimalia as _nimalia  # noqa: E402
from games import reptile_tank as _reptile_tank  # noqa: E402

register(_reptile_tank.GAME)
register(_nimalia.GAME)
