"""Secrets stay secret: no seat's screen tells another seat's hidden guess, nor the lead's
task, before it is revealed (one app per seat, real hubs, whole rounds)."""

from __future__ import annotations

from dataclasses import replace

from tests.tui.game_host import GameHost, make_table, running, screen_text, settle
from tui.board import ItemGrid, Lines


def looks(app: GameHost) -> tuple[object, ...]:
    """What a player can see: the screen's text, plus the styled spans of every text panel
    and what the grid draws (roles carry the highlights, so a tell in colour shows too)."""
    screen = app.game_screen
    return (screen_text(app),
            tuple((w.id, w.lines) for w in screen.query(Lines)),
            ItemGrid.drawn_fields(screen.query_one(ItemGrid).view))


def table_name(i: int) -> str:
    return "the spectator" if i == 3 else f"seat {i}"


async def test_no_seat_ever_sees_another_seats_hidden_guess_or_the_leads_task_early() -> None:
    """Counterfactual worlds: the same round is played at four tables that differ only in
    one secret (the lead's task, or one guesser's hidden card). Until that secret is
    revealed, every other seat's screen (text and styles) must be the same in both worlds;
    and no screen but the lead's ever shows a secret task marker before the reveal."""
    base_cards = {0: 1, 1: 2}  # guesser index -> card hidden

    def world(secret_shift: int = 0, cards: dict[int, int] = base_cards, owner: int = -1):
        """A table, and an app for every seat but ``owner`` (whose secret differs)."""
        table = make_table(3, spectators=1)
        hub_table = table.hub.tables[table.code]
        if secret_shift:
            hub_table.state = replace(hub_table.state,
                                      secret=(hub_table.state.secret % 4) + secret_shift)
        apps = {i: GameHost(s) for i, s in enumerate(table.sessions) if s.seat != owner}
        return table, apps, cards

    probe = make_table(3)
    lead, (g0, g1) = probe.lead, probe.guessers()
    worlds = {"base": world(), "lead": world(secret_shift=1, owner=lead),
              "g0": world(cards={0: 3, 1: 2}, owner=g0),
              "g1": world(cards={0: 1, 1: 4}, owner=g1)}
    revealed_by = {"g0": "reveal0", "g1": "reveal1", "lead": "lead_reveal"}
    all_apps = [app for _, apps, _ in worlds.values() for app in apps.values()]

    def step(name: str) -> None:
        for table, _apps, cards in worlds.values():
            session = table.seat_session
            match name:
                case "pick0":
                    session(lead).pick(0, 1)
                case "picks":
                    for column in (1, 2, 3):
                        session(lead).pick(column, column)
                case "stop":
                    session(g0).shout()
                case "hide0":
                    session(g0).guess(cards[0])
                case "hide1":
                    session(g1).guess(cards[1])
                case "reveal0":
                    session(g0).reveal("plan zero")
                case "reveal1":
                    session(g1).reveal("plan one")
                case "lead_reveal":
                    session(lead).lead_reveal("the lead's plan")

    async with running(all_apps) as pilots:
        done: set[str] = set()
        for name in ("start", "pick0", "stop", "hide0", "picks", "hide1", "reveal0",
                     "reveal1", "lead_reveal"):
            if name != "start":
                step(name)
                done.add(name)
            await settle(pilots)
            base_apps = worlds["base"][1]
            base_looks = {i: looks(app) for i, app in base_apps.items()}
            for label, (_table, apps, _cards) in worlds.items():
                if label == "base" or revealed_by[label] in done:
                    continue
                for i, theirs in apps.items():
                    for _retry in range(3):  # a leak persists; a late repaint does not
                        if looks(theirs) == base_looks[i]:
                            break
                        await settle(pilots)
                        base_looks[i] = looks(base_apps[i])
                    assert looks(theirs) == base_looks[i], (
                        f"after {name}, {table_name(i)} can tell {label}'s secret")
            if "lead_reveal" not in done:
                for i, app in base_apps.items():
                    text = screen_text(app)
                    if i != lead:
                        for marker in ("your task", "secret task", "◀ the task",
                                       "The task was", "reveals the task:"):
                            assert marker not in text
