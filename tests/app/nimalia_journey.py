"""A Nimalia night played in a real browser, card by card, counting taps, keys and waiting:
the browser test ``test_nimalia_journey.py`` and ``scripts/bench_nimalia_entry.py`` share it.

Cards, turns and places are drawn at random (``seed``) among the places the rules allow; the
same night is played on a game document beside the browser (``expected``), so what the app
stored can be checked against it.

Two ways to enter a card:

* ``"lay"`` (the default mode, "Lay cards"): tap the number field and type the number (no
  Enter: the next tap sends it), tap its turn (only when turned), tap where its top-left square
  goes;
* ``"tap"`` ("Tap squares", the baseline): each square the card changes, tap it, then tap its
  animal (2 taps a square). The reserve cannot move in this mode, so cards go only where the
  reserve need not move.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from browser_helpers import button, settled

from service.store import schema_history

PLAYERS = ["Ann", "Ben"]
GOALS = [3, 8, 1, 13]  # as test_nimalia_browser.GOALS: blue, green, yellow, red
CARDS_A_ROUND = 3
KEY_CARD = "nim_card"
#: True when the script run is over and the element ``arg`` (a CSS selector; ``"empty "``
#: before it: an input that is empty) is on the page.
DONE = """arg => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
    const empty = arg.startsWith('empty ');
    const found = document.querySelector(empty ? arg.slice(6) : arg);
    return found !== null && (!empty || found.value === '');
}"""


@dataclass
class Night:
    """What a played night cost: taps of each card, keys typed, taps around the cards (start,
    player, next round), seconds waiting for the app, and the game played beside it."""

    card_taps: list[int] = field(default_factory=list)
    keys: int = 0
    other_taps: int = 0
    waited: float = 0.0
    expected: dict | None = None

    def line(self) -> str:
        cards = len(self.card_taps)
        return (
            f"{cards} cards, {sum(self.card_taps)} taps ({sum(self.card_taps) / cards:.2f} a "
            f"card, most {max(self.card_taps)}), {self.keys} keys, {self.other_taps} other "
            f"taps, {self.waited:.1f} s waiting"
        )


def seed_night(url: str) -> tuple[str, dict]:
    """A game night playing Nimalia with a game started (players :data:`PLAYERS`, goals
    :data:`GOALS`), stored at ``url``; returns the night's uid (its link lets a browser in)
    and the game."""
    from leaderboard.drafts import DraftStore
    from leaderboard.played import PlayedGames
    from leaderboard.store import Store
    from service.nimalia import game as N

    store = Store(url, history=schema_history())
    night = store.create_session("Nimalia night")
    DraftStore(store).put_settings(night.id, {"game": "nimalia"})
    game = N.new_game(PLAYERS, GOALS)
    PlayedGames(store, "nimalia").put_draft(night.id, game)
    store.close()
    return night.uid, game


def play_night(
    page, *, mode: str = "lay", rounds: int = 5, seed: int = 31, started: dict | None = None
) -> Night:
    """From the Nimalia page after its setup (players :data:`PLAYERS`, goals :data:`GOALS`):
    tap Start (unless the game ``started`` is on the page already) and play ``rounds`` rounds
    of :data:`CARDS_A_ROUND` cards a player."""
    import copy

    from service.nimalia import game as N
    from ui.nimalia.widgets import lay_window

    rng = random.Random(seed)
    deck = rng.sample(range(1, 61), len(PLAYERS) * rounds * CARDS_A_ROUND)
    night = Night(expected=copy.deepcopy(started) if started else N.new_game(PLAYERS, GOALS))
    expected = night.expected

    def act(action, shows: str | None = None) -> None:
        """One tap; wait until the app is idle (``settled``), or, given ``shows`` (a CSS
        selector of what the tap leads to), until that shows and the script run is over."""
        start = time.monotonic()
        action()
        if shows is None:
            settled(page)
        else:
            page.wait_for_function(DONE, arg=shows, timeout=60_000)
        night.waited += time.monotonic() - start

    if started is None:
        act(lambda: button(page, "nim_start").tap())
        page.get_by_text("Nimalia started with 2 players").first.wait_for()
        night.other_taps += 1
    if mode == "tap":
        act(lambda: page.locator(".st-key-nim_mode button").filter(has_text="Tap squares").tap())
        night.other_taps += 1
    field_ = page.locator(".st-key-nim_card input")
    for number in range(1, rounds + 1):
        for player in PLAYERS:
            label = page.locator(".st-key-nim_player label").filter(has_text=player).first
            if not label.locator("input").is_checked():
                act(label.tap)
                night.other_taps += 1
            for _ in range(CARDS_A_ROUND):
                card = deck.pop()
                spots = N.grown_positions(expected, player)
                if mode == "tap":
                    spots = [(r, c) for r, c in spots if r >= 0 and c >= 0]
                row, col = rng.choice(spots)
                degrees = rng.choice((0, 90, 180, 270))
                before = [line[:] for line in N.reserve_of(expected, player)]
                top, left, _h, _w = lay_window(expected, player)
                N.lay_card(expected, player, card, row, col, degrees)
                taps = 0
                if mode == "lay":
                    field_.tap()  # the keyboard opens; the number is typed, and the next
                    page.keyboard.type(str(card))  # tap (turn or place) sends it with itself
                    night.keys += len(str(card))
                    taps += 1
                    if degrees:  # done when that turn is the chosen one
                        chosen = f'.st-key-nim_turn_{degrees} [data-testid="stBaseButton-primary"]'
                        act(button(page, f"nim_turn_{degrees}").tap, chosen)
                        taps += 1
                    laid = f"empty .st-key-{KEY_CARD} input"  # the field emptied: laid
                    act(button(page, f"nim_lay_{row - top}_{col - left}").tap, laid)
                    taps += 1
                    assert field_.input_value() == "", (number, player, card)
                else:
                    after = N.reserve_of(expected, player)
                    for r, line in enumerate(after):
                        for c, token in enumerate(line):
                            if token != before[r][c]:
                                act(button(page, f"nim_sq_{r}_{c}").tap)
                                act(button(page, f"nim_pick_{N.TOKENS.index(token)}").tap)
                                taps += 2
                night.card_taps.append(taps)
        if number < rounds:
            act(button(page, "nim_next").tap)
            night.other_taps += 1
            N.next_round(expected)
    page.get_by_text(f"Round {rounds}").first.wait_for()
    return night


def stored_game(url: str) -> dict:
    """The Nimalia game stored for the one game night of the database at ``url``."""
    from leaderboard.played import PlayedGames
    from leaderboard.store import Store

    store = Store(url, history=schema_history())
    (session,) = store.list_sessions()
    document, _revision = PlayedGames(store, "nimalia").draft(session.id)
    return document
