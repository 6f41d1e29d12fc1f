"""The blind read: can people who never saw the code read a bot lead's task?

A *set* of rounds led by normal bots (4 players, one round a game, fresh seeds) is written
as two files: ``questions-N.txt``, the four task names and the four items chosen, in order,
nothing else, for readers who have never seen the tags, the fit or the code; and
``key-N.jsonl``, each round whole (tasks, grid, picks, secret) for scoring and for the bots
to read the same rounds. Readers' answers go beside them as ``answers-N-WHO.txt``, a line
a round (``7 B`` or ``7: B``). ``python -m bench.blind`` writes sets and scores answers;
``simulate --figures`` prints the blind score beside the bots reading the same rounds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.bots import LEVELS, belief, evidence_grid
from engine.cards import Deck, load_deck

LETTERS = "ABCD"
BLIND_PLAYERS = 4
_ANSWER = re.compile(r"^\s*(\d+)\s*[:.)\-]?\s*([A-Da-d1-4])\b")


@dataclass(frozen=True)
class BlindRound:
    number: int
    seed: str
    tasks: tuple[str, ...]
    grid: tuple[tuple[str, ...], ...]
    picks: tuple[int, ...]
    secret: int  # 1-4

    @property
    def items(self) -> list[str]:
        return [self.grid[c][r] for c, r in enumerate(self.picks)]


def questions_text(rounds: Sequence[BlindRound]) -> str:
    """What a reader sees: per round the four tasks and the items chosen, in order."""
    lines = [
        "Mission Impractical: which mission was the lead agent planning?",
        "",
        "Each round shows four missions (A-D). The lead agent secretly had one of them and",
        "chose four items, one after another, to pull it off. Read the items in order and",
        "write the letter of the mission you think they were for, one line a round, like",
        "'1 B'. Go with your first reading; add '?' after the letter if you are guessing.",
        "",
    ]
    for r in rounds:
        lines.append(f"Round {r.number}")
        for letter, task in zip(LETTERS, r.tasks, strict=True):
            lines.append(f"  {letter}) {task}")
        lines.append(f"  Items: {', then '.join(r.items)}")
        lines.append("")
    return "\n".join(lines)


def key_text(rounds: Sequence[BlindRound]) -> str:
    return "".join(json.dumps({
        "round": r.number, "seed": r.seed, "tasks": list(r.tasks),
        "grid": [list(c) for c in r.grid], "picks": list(r.picks),
        "answer": LETTERS[r.secret - 1]}) + "\n" for r in rounds)


def parse_key(text: str) -> list[BlindRound]:
    rounds = []
    for line in text.splitlines():
        if line.strip():
            d = json.loads(line)
            rounds.append(BlindRound(d["round"], d["seed"], tuple(d["tasks"]),
                                     tuple(tuple(c) for c in d["grid"]), tuple(d["picks"]),
                                     LETTERS.index(d["answer"]) + 1))
    return rounds


def parse_answers(text: str) -> dict[int, int]:
    """``{round: card 1-4}`` from a reader's lines (``7 B``, ``7: b?``, ``7 2``)."""
    answers = {}
    for line in text.splitlines():
        found = _ANSWER.match(line)
        if found:
            mark = found.group(2).upper()
            answers[int(found.group(1))] = (LETTERS.index(mark) + 1 if mark in LETTERS
                                            else int(mark))
    return answers


@dataclass(frozen=True)
class Score:
    right: int
    total: int
    wrong: tuple[tuple[BlindRound, int | None], ...]  # each missed round and the answer

    @property
    def share(self) -> float:
        return self.right / self.total if self.total else 0.0


def score(rounds: Sequence[BlindRound], answers: dict[int, int]) -> Score:
    """How many rounds the answers got right (an unanswered round counts as wrong)."""
    wrong = tuple((r, answers.get(r.number)) for r in rounds
                  if answers.get(r.number) != r.secret)
    return Score(len(rounds) - len(wrong), len(rounds), wrong)


def bots_read(rounds: Sequence[BlindRound], level: str = "normal",
              deck: Deck | None = None) -> float:
    """How often a ``level`` bot guesser finds the task of these rounds after four items,
    on average over its draw (a sharp one takes its likeliest task)."""
    deck = deck or load_deck()
    lvl = LEVELS[level]
    total = 0.0
    for r in rounds:
        probs = belief(lvl, evidence_grid(deck, r.tasks, r.grid), r.picks)
        if lvl.focus is None:
            total += float(max(probs) == probs[r.secret - 1])
        else:
            weights = [p ** lvl.focus for p in probs]
            total += weights[r.secret - 1] / sum(weights)
    return total / len(rounds) if rounds else 0.0


def default_dir() -> Path:
    """``bench/blind`` of the checkout this module runs from."""
    return Path(__file__).resolve().parents[1] / "bench" / "blind"


def sets(folder: Path) -> list[int]:
    """The numbers of the sets in ``folder`` (``key-N.jsonl``), in order."""
    return sorted(int(p.stem.removeprefix("key-")) for p in folder.glob("key-*.jsonl"))


def summary_lines(folder: Path | None = None) -> list[str]:
    """Per set: the blind readers' score beside the bots reading the same rounds."""
    folder = folder or default_dir()
    if not folder.is_dir() or not sets(folder):
        return [f"blind read: no rounds in {folder}"]
    lines = []
    for n in sets(folder):
        rounds = parse_key((folder / f"key-{n}.jsonl").read_text(encoding="utf-8"))
        bots = bots_read(rounds)
        readers = [score(rounds, parse_answers(p.read_text(encoding="utf-8")))
                   for p in sorted(folder.glob(f"answers-{n}-*.txt"))]
        if readers:
            blind = sum(s.share for s in readers) / len(readers)
            people = (f"people {blind:.0%} ({len(readers)} reader(s), "
                      f"{' '.join(f'{s.right}/{s.total}' for s in readers)})")
            gap = f", bots {100 * (bots - blind):+.0f} points"
        else:
            people, gap = "people: no answers yet", ""
        lines.append(f"blind read, set {n} ({len(rounds)} normal bot leads): {people}; "
                     f"normal bots reading the same rounds {bots:.0%}{gap}")
    return lines
