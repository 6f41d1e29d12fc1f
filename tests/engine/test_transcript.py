"""The Markdown transcript of a finished game reads right: checked against a seeded game."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from engine import rules
from engine.records import Records
from engine.replay import find_game, load_replay
from engine.rules import Phase
from engine.tables import TableOptions
from engine.transcript import escape, markdown
from tests.engine.test_replay import journal_of, journaled_hub, play_to_the_end, seat_people

EXPECTED = Path(__file__).parent / "expected" / "transcript.md"


class Scripted:
    """Moves fixed by the round and the seat, whatever the bots would do: the transcript
    changes only with the rules, the deck or the transcript itself. The first guesser
    shouts Stop! after two items in round 1; plans carry markup and a mention."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def act(self, view: rules.View, now_ms: int = 0) -> rules.Action | None:
        seat, n = self.seat, len(view.players)
        match view.phase:
            case Phase.PICKING if view.is_lead:
                return rules.Pick(seat, len(view.picks), (view.round + len(view.picks)) % 4)
            case Phase.PICKING if seat == view.guessers[0] and view.round == 1:
                if not view.stop and len(view.picks) == 2:
                    return rules.Shout(seat)
                return rules.Guess(seat, 3) if view.can_guess() else None
            case Phase.GUESSING if view.can_guess():
                return rules.Guess(seat, 1 + (seat + view.round) % 4)
            case Phase.REVEALING if seat == next(
                    s for s in view.guessers if s not in view.revealed):
                return rules.Reveal(seat, f"the *first* item [{seat}] then run, @everyone")
            case Phase.LEAD_REVEAL if view.is_lead:
                return rules.LeadReveal(seat, "" if view.round == 2 else "all _four_, in order")
            case Phase.BEST_PLAN if view.is_lead:
                return rules.BestPlan(seat, (seat + 1 + view.round) % n or 1)
            case Phase.ROUND_OVER:
                return rules.NextRound(seat)
        return None


def seeded_transcript(data: Path) -> str:
    """Three people (one with markup in her name), two rounds, the best plan rule."""
    hub = journaled_hub(data, seed="transcript")
    try:
        table, people = seat_people(hub, ["Ann_the*Great", "Bob", "Cy"], options=TableOptions(
            turn_seconds=0, rounds=2, best_plan=True))
        asyncio.run(play_to_the_end(table, people, "transcript", brain=Scripted))
        db = journal_of(hub).connection
        return markdown(load_replay(db, find_game(Records(db), table.code)))
    finally:
        hub.close()


def test_the_transcript_of_a_seeded_game_is_the_one_expected(tmp_path: Path) -> None:
    """To accept a change on purpose: ``MI_UPDATE_EXPECTED=1`` rewrites the file (read
    the diff before committing it)."""
    text = seeded_transcript(tmp_path)
    if os.environ.get("MI_UPDATE_EXPECTED"):
        EXPECTED.write_text(text, encoding="utf-8")
    assert text == EXPECTED.read_text(encoding="utf-8")


def test_the_transcript_tells_each_round_in_the_order_a_player_would(tmp_path: Path) -> None:
    text = seeded_transcript(tmp_path)
    assert text.startswith("# Mission Impractical: table ")
    for round_no in (1, 2):
        part = text.split(f"## Round {round_no}: ")[1].split("## Round")[0]
        labels = [line.split(":")[0] for line in part.splitlines() if line.startswith("- ")]
        order = ["- Tasks", "- Secret task", "- Items", "- Guesses", "- Best plan", "- Points",
                 "- Scores"]
        assert [label for label in labels if label in order] == order
    assert "Ann\\_the\\*Great" in text and "Ann_the*Great" not in text


def test_what_players_type_cannot_become_markup_or_a_mention() -> None:
    assert escape("[click](http://x) @everyone *bold* `code` <b>") == (
        "\\[click\\](http://x) \\@everyone \\*bold\\* \\`code\\` \\<b\\>")
    assert escape("First the rope. Then 1-2-3!") == "First the rope. Then 1-2-3!"
