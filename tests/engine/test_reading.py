"""How a person reads a lead (engine.reading): leads people read, bots that read as people."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from engine.blind_read import bots_read, default_dir, parse_answers, parse_key, score
from engine.bots import LEVELS, Bot, belief, evidence_grid
from engine.cards import Deck, load_deck, parse_deck
from engine.reading import PERSON, FirstThoughtLead, Reading, evidence, lead_values, read
from engine.rules import Pick, View, new_game, view_for
from engine.simulate import Lineup, Summary, game_seed, play_game

TASKS = """\
Cool a Hot Penguin | cold, water
Win a Chili Contest | fire, food
Wake a Sleepy Giant | noise, speed
Climb a Tall Tower | rope, height
""" + "".join(f"Spare Task {i} | soft\n" for i in range(4))
CARDS = {"Frozen Soup": "cold, water, fire, food", "Snow Globe": "cold, water",
         "Marshmallow": "soft", "Pillow Fort": "soft", "Ice Pop": "cold", "Tuba": "noise"}
SPARES = [f"Spare Item {i}" for i in range(26)]
ITEMS = "".join(f"{name} | {tags}\n" for name, tags in CARDS.items()) + "".join(
    f"{name} | sharp\n" for name in SPARES)
BAR = tuple(line.partition(" |")[0] for line in TASKS.splitlines()[:4])
GRID = (("Frozen Soup", "Marshmallow", "Snow Globe", "Pillow Fort"),
        ("Ice Pop", "Tuba", *SPARES[:2]), tuple(SPARES[2:6]), tuple(SPARES[6:10]))


@pytest.fixture(scope="module")
def deck() -> Deck:
    return parse_deck(TASKS, ITEMS, expect_counts=False)


def lead_view(deck: Deck, secret: int = 1) -> View:
    state = new_game(list("ABCD"), seed="reading", tasks=deck.task_names,
                     items=deck.item_names)
    return view_for(replace(state, lead=0, secret=secret, tasks=BAR, grid=GRID), 0)


# --- the lead -----------------------------------------------------------------------------


def test_the_lead_takes_first_the_item_that_fits_the_secret_alone(deck: Deck) -> None:
    # Frozen Soup fits the penguin as well as the Snow Globe does, and the chili contest too:
    # a person could read it either way. The Snow Globe says the penguin alone.
    view = lead_view(deck)
    assert {Bot(deck, seed, level).act(view) for seed in range(10)
            for level in ("normal", "sharp")} == {Pick(0, 0, GRID[0].index("Snow Globe"))}
    columns = evidence_grid(deck, BAR, GRID)
    values = lead_values(columns, (), 0)
    assert values[GRID[0].index("Snow Globe")] > values[GRID[0].index("Frozen Soup")]
    # for the chili contest, the soup is the only item that says anything: it takes it
    assert Bot(deck, 0, "sharp").act(lead_view(deck, secret=2)) == Pick(0, 0, 0)


def test_a_hurried_lead_takes_what_fits_its_task_most_decoys_or_not(deck: Deck) -> None:
    hurried = FirstThoughtLead(deck.fits)
    # the soup and the globe serve the penguin alike: a hurried lead takes either, though
    # the soup serves the chili contest as well (a bot lead takes the globe)
    assert hurried.pick(BAR, 1, GRID[0], ()) == [0, 2]
    assert hurried.pick(BAR, 2, GRID[0], ()) == [0]
    assert hurried.pick(BAR, 3, GRID[1], ("Snow Globe",)) == [1]  # the Tuba wakes the giant


def test_an_item_that_fits_two_tasks_splits_a_persons_reading(deck: Deck) -> None:
    soup = evidence(deck.fits, BAR, "Frozen Soup")
    globe = evidence(deck.fits, BAR, "Snow Globe")
    split, clear = read([soup], 4), read([globe], 4)
    assert math.isclose(split[0], split[1])
    assert clear[0] > 0.5 > split[0]


def test_the_first_item_counts_most_for_a_reader(deck: Deck) -> None:
    ice, tuba = evidence(deck.fits, BAR, "Ice Pop"), evidence(deck.fits, BAR, "Tuba")
    assert read([ice, tuba], 4).index(max(read([ice, tuba], 4))) == 0
    assert read([tuba, ice], 4).index(max(read([tuba, ice], 4))) == 2
    flat = Reading(attention=1.0)
    assert math.isclose(read([ice, tuba], 4, flat)[0], read([tuba, ice], 4, flat)[0])


# --- calibrated on the blind readers -------------------------------------------------------


def blind_sets() -> list[tuple[list, dict[int, int]]]:
    folder = default_dir()
    out = []
    for n in (1, 2):
        rounds = parse_key((folder / f"key-{n}.jsonl").read_text(encoding="utf-8"))
        answers = parse_answers((folder / f"answers-{n}-reader{n}.txt").read_text(
            encoding="utf-8"))
        out.append((rounds, answers))
    return out


def log_loss(deck: Deck, reading: Reading, rounds, answers) -> float:
    total = 0.0
    for r in rounds:
        items = [evidence(deck.fits, r.tasks, item, reading) for item in r.items]
        total -= math.log(read(items, 4, reading)[answers[r.number] - 1])
    return total / len(rounds)


def test_the_person_reading_predicts_the_blind_readers_better_than_the_fit_read_flat() -> None:
    deck = load_deck()
    flat = Reading(meaning=1.0, floor=0.0, attention=1.0, scale=1.0)  # the fit, as it is
    for rounds, answers in blind_sets():
        person = log_loss(deck, PERSON, rounds, answers)
        assert person < log_loss(deck, flat, rounds, answers) - 0.05
        assert person < math.log(4) - 0.2  # well above chance


def every_blind_reader() -> list[tuple[str, list, dict[int, int]]]:
    folder = default_dir()
    out = []
    for path in sorted(folder.glob("answers-*-*.txt")):
        n = path.name.split("-")[1]
        rounds = parse_key((folder / f"key-{n}.jsonl").read_text(encoding="utf-8"))
        out.append((path.name, rounds, parse_answers(path.read_text(encoding="utf-8"))))
    return out


def test_peoples_ratings_predict_every_blind_reader_far_better_than_tags_and_model() -> None:
    """Five readers of four sets. The weights were fitted on sets 1-3; set 4's two readers
    read leads made with the ratings and were never fitted on."""
    deck = load_deck()
    unrated = replace(PERSON, rated=0.0, rated_tags=PERSON.tags, rated_meaning=PERSON.meaning)
    readers = every_blind_reader()
    assert len(readers) >= 5
    for name, rounds, answers in readers:
        rated = log_loss(deck, PERSON, rounds, answers)
        assert rated < log_loss(deck, unrated, rounds, answers) - 0.2, name
        assert rated < 0.9, name  # chance: 1.39


def test_normal_bots_read_the_blind_rounds_within_10_points_of_the_people() -> None:
    deck = load_deck()
    for rounds, answers in blind_sets():
        people = score(rounds, answers).share
        bots = bots_read(rounds, "normal", deck)
        assert abs(bots - people) <= 0.10, (bots, people)
        assert bots_read(rounds, "easy", deck) < bots < bots_read(rounds, "sharp", deck)


def test_a_normal_reader_finds_a_normal_bot_lead_about_as_often_as_a_person() -> None:
    """Seeded: 24 four-player games of normal bots; their guesses after four items land
    near what people reach on today's bot leads (80-82% on blind set 4), short of a private
    code (sharp bots read each other at 100%)."""
    deck = load_deck()
    summary = Summary()
    for game in range(24):
        summary.add(play_game(4, game_seed("reading", game), deck,
                              lineup=Lineup(("normal",)))[0])
    assert summary.guesses > 300
    assert 0.65 <= summary.accuracy <= 0.85


def test_a_normal_bots_belief_is_the_persons_reading_of_the_items_alone(deck: Deck) -> None:
    columns = evidence_grid(deck, BAR, GRID)
    picked = [columns[0][2], columns[1][0]]
    assert belief(LEVELS["normal"], columns, (2, 0)) == read(picked, 4)
    # what the lead passed over changes a sharp bot's belief, never a normal one's
    chili = (0.0, 1.5, 0.0, 0.0)  # a clear chili item where the Marshmallow was
    other = tuple((columns[0][0], chili, *columns[0][2:]) if c == 0 else col
                  for c, col in enumerate(columns))
    assert belief(LEVELS["normal"], other, (2, 0)) == belief(LEVELS["normal"], columns, (2, 0))
    assert belief(LEVELS["sharp"], other, (2, 0)) != belief(LEVELS["sharp"], columns, (2, 0))
