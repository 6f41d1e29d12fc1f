"""The plain reader: a second guesser that links tasks and items by their words only."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine.plain_reader
from engine.cards import load_deck
from engine.plain_reader import LinksError, PlainReader, parse_links, words_of


def test_the_reader_never_looks_at_the_tags() -> None:
    source = Path(engine.plain_reader.__file__).read_text(encoding="utf-8")
    assert "from engine.cards" not in source and "import engine.cards" not in source
    assert ".tags" not in source


def test_a_ladder_reads_as_help_to_rescue_a_kitten_from_a_tree_not_to_calm_a_baby() -> None:
    reader = PlainReader()
    assert reader.link("Rescue a Kitten From an Oak Tree", "Ladder") > 0
    assert reader.link("Calm a Crying Baby", "Ladder") == 0


def test_the_reader_guesses_the_task_the_items_bring_to_mind() -> None:
    tasks = ("Calm a Crying Baby", "Rescue a Kitten From an Oak Tree", "Cross a Lava Floor",
             "Patch a Leaky Boat on a Lake")
    assert PlainReader().guess(tasks, ["Ladder", "Pet Treats", "Butterfly Net"]) == [2]


def test_a_lead_reading_by_meaning_picks_the_item_tied_to_its_task() -> None:
    tasks = ("Calm a Crying Baby", "Rescue a Kitten From an Oak Tree", "Cross a Lava Floor",
             "Patch a Leaky Boat on a Lake")
    column = ("Duct Tape", "Ladder", "Music Box", "Hot Sauce")
    assert PlainReader().pick(tasks, 2, column, []) == [1]


def test_every_card_brings_something_to_mind_beyond_its_own_words() -> None:
    reader = PlainReader()
    deck = load_deck()
    for name in (*deck.task_names, *deck.item_names):
        assert reader.concepts(name) - set(words_of(name)), name


def test_a_malformed_links_line_names_the_line() -> None:
    with pytest.raises(LinksError, match=r"links\.txt:2: expected 'word: linked, words'"):
        parse_links("# words\nladder climb high\n")
