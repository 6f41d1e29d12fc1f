"""Stop! on a live table: how often normal bots shout, and how often they are right, when
they play at human pace with people, beside ``simulate`` on the same kind of table.

    python -m bench.bot_stops [--tables 12] [--speed 20] [--nerve 0.3 0.5] [--sure 0.9]
                              [--lead hurried|words]

The real hub (``Hub(bot_delay=None)``, the server's pacing) runs tables of two scripted
people and two normal bots. The people play as a person would, at a person's pace: a lead
picks each item as a person in a hurry would (``--lead hurried``, the default: the item
people see as serving the mission most, the decoys ignored,
:class:`engine.reading.FirstThoughtLead`) or by the words on the cards (``--lead words``:
:mod:`engine.plain_reader`, never the bots' reading), taking 7-14 s over the first item
and 3.5-8 s over the others; a guesser hides its guess a
few seconds after the fourth item, tells its plan, and is ready for the next round a few
seconds later. People never shout, so every Stop! is a bot's. Every wait, the bots' think
times included, is divided by ``--speed`` (both sides alike, so the race between a bot
reading the newest item and the lead putting down the next one is kept).

Prints, for bot guessers: the share of rounds in which a bot shouted, and the share of its
Stop! bets that paid, live and in ``simulate`` (the same lineup, instantly). With several
``--nerve`` (or ``--sure``) values, the normal level with each, side by side in one run.
"""

from __future__ import annotations

import argparse
import asyncio
import random
from dataclasses import dataclass, replace

from engine import rules
from engine.bots import LEVELS, Bot, LeadPicker, Level
from engine.cards import load_deck
from engine.hub import Hub
from engine.identity import Player
from engine.plain_reader import PlainReader
from engine.reading import FirstThoughtLead
from engine.rules import Guess, LeadReveal, NextRound, Phase, Pick, Reveal, View
from engine.session import Session
from engine.tables import TableOptions

PERSON_PACE = {"first_pick": (7.0, 14.0), "pick": (3.5, 8.0), "guess": (3.0, 8.0),
               "reveal": (5.0, 10.0), "next": (3.0, 6.0)}


LEADS = ("hurried", "words")


def person_lead(how: str, reader: PlainReader) -> LeadPicker:
    """How a scripted person leads (see the module docstring): ``hurried`` or ``words``."""
    return FirstThoughtLead(load_deck().fits) if how == "hurried" else reader


class Person:
    """A scripted person at one seat: leads with ``lead``, guesses by the card words."""

    def __init__(self, reader: PlainReader, rng: random.Random,
                 lead: LeadPicker | None = None) -> None:
        self.reader = reader
        self.lead = lead or reader
        self.rng = rng

    def move(self, view: View) -> tuple[rules.Action, str] | None:
        seat = view.seat
        assert seat is not None
        if view.phase is Phase.PICKING and view.is_lead and view.can_pick():
            assert view.secret is not None
            rows = self.lead.pick(view.tasks, view.secret, view.grid[len(view.picks)],
                                  view.picked_items())
            return Pick(seat, len(view.picks), self.rng.choice(rows)), (
                "first_pick" if not view.picks else "pick")
        if view.can_guess():
            cards = self.reader.guess(view.tasks, view.picked_items())
            return Guess(seat, self.rng.choice(cards)), "guess"
        if view.phase is Phase.REVEALING and view.waiting_for == (seat,):
            return Reveal(seat, "we wing it"), "reveal"
        if view.phase is Phase.LEAD_REVEAL and view.is_lead:
            return LeadReveal(seat, "I had a plan"), "reveal"
        if view.phase is Phase.ROUND_OVER and seat in view.waiting_for:
            return NextRound(seat), "next"
        return None


class ScaledBot:
    """The real normal bot, its think times divided by ``speed``."""

    speed = 20.0
    level: Level = LEVELS["normal"]

    def __init__(self, seed: str) -> None:
        self.bot = Bot(load_deck(), seed, self.level)

    def act(self, view: View, now_ms: int = 0) -> rules.Action | None:
        return self.bot.act(view, now_ms)

    def think_seconds(self, view: View, action: rules.Action) -> float:
        return self.bot.think_seconds(view, action) / self.speed


@dataclass
class Tally:
    guesser_rounds: int = 0  # a bot seat was a guesser
    stop_rounds: int = 0  # ... and a bot shouted
    bets: int = 0
    bets_won: int = 0
    person_bets: int = 0  # ... in rounds a person led
    person_bets_won: int = 0

    def add(self, history: tuple[rules.RoundResult, ...], bots: set[int]) -> None:
        for result in history:
            guessing = [s for s in bots if s != result.lead]
            if not guessing:
                continue
            self.guesser_rounds += 1
            stoppers = [s for s in result.stop if s in bots]
            self.stop_rounds += bool(stoppers)
            for s in stoppers:
                right = result.guesses[s] == result.secret
                self.bets += 1
                self.bets_won += right
                if result.lead not in bots:
                    self.person_bets += 1
                    self.person_bets_won += right

    def line(self, name: str) -> str:
        rate = self.stop_rounds / max(self.guesser_rounds, 1)
        won = self.bets_won / max(self.bets, 1)
        person = self.person_bets_won / max(self.person_bets, 1)
        return (f"{name:10} bots shout in {rate:4.0%} of {self.guesser_rounds} rounds where "
                f"they guess; right {won:4.0%} of {self.bets} Stop! bets "
                f"({person:4.0%} of {self.person_bets} when a person led)")


async def _person(hub: Hub, session: Session, person: Person, code: str, speed: float) -> None:
    table = hub.tables[code]
    planned: tuple[object, ...] | None = None
    while table.status == "playing" or table.state is None:
        await asyncio.sleep(0.02)
        state = table.state
        seat = session.seat
        if state is None or seat is None or state.phase is Phase.GAME_OVER:
            continue
        view = rules.view_for(state, seat)
        key = (state.round, state.phase, len(state.picks), state.stop, state.waiting_for())
        if key == planned:
            continue
        planned = key
        move = person.move(view)
        if move is None:
            continue
        action, pace = move
        await asyncio.sleep(person.rng.uniform(*PERSON_PACE[pace]) / speed)
        if table.state is not state:  # the game moved on meanwhile: look again
            now = rules.view_for(table.state, seat) if table.state else None
            if now is None or person.move(now) is None or person.move(now)[0] != action:
                planned = None
                continue
        try:
            session.play(action)
        except rules.IllegalAction:
            planned = None


async def live(tables: int, speed: float, seed: str, level: Level = LEVELS["normal"],
               lead: str = "hurried") -> Tally:
    ScaledBot.speed, ScaledBot.level = speed, level
    hub = Hub(deck=load_deck(), seed=seed, settle_ms=0, bot_factory=ScaledBot)
    reader = PlainReader()
    leads = person_lead(lead, reader)
    tally = Tally()
    tasks = []
    codes = []
    for t in range(tables):
        host = hub.attach(Player(f"key:h{t}", f"Ann{t}"))
        code = host.create_table(TableOptions(turn_seconds=0))
        guest = hub.attach(Player(f"key:g{t}", f"Bob{t}"))
        guest.join(code)
        host.add_bot("normal")
        host.add_bot("normal")
        host.start()
        codes.append(code)
        for k, session in enumerate((host, guest)):
            person = Person(reader, random.Random(f"{seed}/{t}/{k}"), leads)
            tasks.append(asyncio.create_task(_person(hub, session, person, code, speed)))
    while any(hub.tables[c].status == "playing" for c in codes):
        await asyncio.sleep(0.2)
    for task in tasks:
        task.cancel()
    for code in codes:
        table = hub.tables[code]
        bots = {s for s, seat in enumerate(table.seats) if seat.is_bot}
        state = table.state
        assert state is not None
        tally.add(state.history, bots)
    hub.close()
    return tally


def simulated(games: int, seed: str, level: Level = LEVELS["normal"],
              lead: str = "hurried") -> Tally:
    """The same lineup in ``simulate``: seats 0-1 people (leading with ``lead``, never
    shouting), 2-3 normal bots."""
    from engine.simulate import game_seed

    deck = load_deck()
    reader = PlainReader()
    leads = person_lead(lead, reader)
    tally = Tally()
    for g in range(games):
        gs = game_seed(seed, g)
        state = rules.new_game(["Ann", "Bob", "Bot A", "Bot B"], seed=gs,
                               tasks=deck.task_names, items=deck.item_names)
        people = [Person(reader, random.Random(f"{gs}/{k}"), leads) for k in range(2)]
        bots = [Bot(deck, f"{gs}/bot{s}", level) for s in (2, 3)]
        order = random.Random(gs)
        step = 0
        while state.phase is not Phase.GAME_OVER:
            step += 1
            seats = list(state.guessers) if state.phase is Phase.PICKING else []
            order.shuffle(seats)
            seats += [state.lead] if state.phase is Phase.PICKING else list(state.waiting_for())
            for seat in seats:
                view = rules.view_for(state, seat)
                if seat < 2:
                    move = people[seat].move(view)
                    action = move[0] if move else None
                else:
                    action = bots[seat - 2].act(view, step * 1000)
                if action is not None:
                    state, _ = rules.apply(state, action)
                    break
        tally.add(state.history, {2, 3})
    return tally


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bot_stops")
    parser.add_argument("--tables", type=int, default=12)
    parser.add_argument("--speed", type=float, default=20.0)
    parser.add_argument("--seed", default="stops")
    parser.add_argument("--lead-pace", type=float, nargs=2, default=PERSON_PACE["pick"],
                        metavar=("LOW", "HIGH"),
                        help="seconds a person takes over each item after the first "
                             "(default 3.5 8)")
    normal = LEVELS["normal"]
    parser.add_argument("--nerve", type=float, nargs="+", default=[normal.nerve],
                        help=f"the normal level's nerve, each compared (default {normal.nerve})")
    parser.add_argument("--sure", type=float, nargs="+", default=[normal.stop_confidence],
                        help="the belief needed to shout, each compared "
                             f"(default {normal.stop_confidence})")
    parser.add_argument("--lead", choices=LEADS, nargs="+", default=["hurried"],
                        help="how the people lead, each compared (default hurried)")
    args = parser.parse_args(argv)
    PERSON_PACE["pick"] = tuple(args.lead_pace)
    PERSON_PACE["first_pick"] = (max(args.lead_pace[0], 2.0), 2 * args.lead_pace[1])
    print(f"{args.tables} tables of 2 people + 2 normal bots, a person leads "
          f"{args.lead_pace[0]:g}-{args.lead_pace[1]:g} s an item, waits / {args.speed:g}")
    for lead in args.lead:
        for sure in args.sure:
            for nerve in args.nerve:
                level = replace(normal, nerve=nerve, stop_confidence=sure)
                print(f"people lead {lead}; nerve {nerve:g}, sure {sure:g}")
                live_tally = asyncio.run(live(args.tables, args.speed, args.seed, level, lead))
                print("  " + live_tally.line("live hub"))
                print("  " + simulated(max(args.tables, 100), args.seed, level, lead)
                      .line("simulate"))


if __name__ == "__main__":
    main()
