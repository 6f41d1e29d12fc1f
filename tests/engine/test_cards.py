"""The deck: its data files, their validation, and the balance the bots rely on."""

from __future__ import annotations

import difflib
import itertools
import re
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import (
    ITEM_COUNT,
    NAME_MAX,
    TAGS,
    TASK_COUNT,
    Card,
    Deck,
    DeckError,
    load_deck,
    load_deck_dir,
    parse_deck,
)
from engine.plain_reader import stem, words_of

SMALL_TASKS = "Climb a Wall | height, rope\n"
SMALL_ITEMS = "Ladder | height, heavy\n"


def parse_small(tasks: str = SMALL_TASKS, items: str = SMALL_ITEMS) -> Deck:
    return parse_deck(tasks, items, expect_counts=False)


# --- the shipped deck ------------------------------------------------------------------


def test_the_deck_has_the_rulebooks_62_tasks_and_183_items() -> None:
    deck = load_deck()
    assert len(deck.tasks) == TASK_COUNT == 62
    assert len(deck.items) == ITEM_COUNT == 183


def test_the_deck_is_loaded_once_and_cached() -> None:
    assert load_deck() is load_deck()


def test_every_card_has_two_to_four_known_tags_and_a_short_name() -> None:
    deck = load_deck()
    for card in (*deck.tasks, *deck.items):
        assert 2 <= len(card.tags) <= 4, card
        assert card.tags <= TAGS, card
        assert 0 < len(card.name) <= NAME_MAX, card


def test_the_tag_vocabulary_has_sixteen_to_twenty_lowercase_words() -> None:
    assert 16 <= len(TAGS) <= 20
    assert all(tag.isalpha() and tag.islower() for tag in TAGS)


def test_card_names_are_unique_across_tasks_and_items() -> None:
    deck = load_deck()
    names = [*deck.task_names, *deck.item_names]
    assert len({n.casefold() for n in names}) == len(names) == 245


def test_a_card_is_found_by_name_among_tasks_and_items() -> None:
    deck = load_deck()
    assert deck.card(deck.task_names[0]) is deck.tasks[0]
    assert deck.card(deck.item_names[-1]) is deck.items[-1]
    with pytest.raises(KeyError):
        deck.card("A Card Nobody Printed")


def test_names_keep_file_order() -> None:
    deck = load_deck()
    assert deck.task_names == tuple(c.name for c in deck.tasks)
    text = (resources.files("engine") / "data" / "items.txt").read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.strip() and line[0] != "#")
    assert deck.item_names[0] == first.split("|")[0].strip()


def test_the_data_files_hold_only_printable_text() -> None:
    for name in ("tasks.txt", "items.txt"):
        text = (resources.files("engine") / "data" / name).read_text(encoding="utf-8")
        assert all(ch == "\n" or ch.isprintable() for ch in text), name


# --- balance ---------------------------------------------------------------------------


def test_every_task_is_served_by_at_least_twelve_items() -> None:
    deck = load_deck()
    for task in deck.tasks:
        served = [item for item in deck.items if item.tags & task.tags]
        assert len(served) >= 12, task.name


def test_every_tag_is_needed_by_five_tasks_and_offered_by_fifteen_items() -> None:
    deck = load_deck()
    needed = Counter(tag for card in deck.tasks for tag in card.tags)
    offered = Counter(tag for card in deck.items for tag in card.tags)
    for tag in TAGS:
        assert needed[tag] >= 5, tag
        assert offered[tag] >= 15, tag


def test_no_tag_dominates_the_items() -> None:
    offered = Counter(tag for card in load_deck().items for tag in card.tags)
    assert max(offered.values()) <= 2.5 * min(offered.values())


def test_every_item_is_useful_for_at_least_ten_tasks() -> None:
    deck = load_deck()
    for item in deck.items:
        assert sum(1 for task in deck.tasks if task.tags & item.tags) >= 10, item.name


def test_no_two_tasks_need_exactly_the_same_tags() -> None:
    deck = load_deck()
    for a, b in itertools.combinations(deck.tasks, 2):
        assert a.tags != b.tags, (a.name, b.name)


# --- validation ------------------------------------------------------------------------


def test_comments_and_blank_lines_are_ignored() -> None:
    deck = parse_small("# tasks\n\n  Climb a Wall | height, rope  \n# end\n")
    assert deck.tasks == (Card("Climb a Wall", frozenset({"height", "rope"})),)


def test_tags_are_case_and_space_insensitive() -> None:
    deck = parse_small("Climb a Wall |  Height ,ROPE,  \n")
    assert deck.tasks[0].tags == {"height", "rope"}


@pytest.mark.parametrize(
    ("tasks", "items", "message"),
    [
        ("Climb a Wall | height, wings\n", SMALL_ITEMS, "tasks.txt:1: 'Climb a Wall' has "
                                                        "unknown tag(s) wings"),
        ("# c\nClimb a Wall height rope\n", SMALL_ITEMS, "tasks.txt:2: expected 'Name | tag"),
        ("Climb a Wall | height | rope\n", SMALL_ITEMS, "tasks.txt:1: expected"),
        (SMALL_TASKS, "Ladder |\n", "items.txt:1: 'Ladder' has 0 tags"),
        (SMALL_TASKS, "Ladder | height, heavy, soft, rope, fire\n", "items.txt:1: 'Ladder' has 5"),
        (SMALL_TASKS, " | height\n", "items.txt:1: card has no name"),
        (SMALL_TASKS, "Ladder | height, height\n", "items.txt:1: 'Ladder' repeats a tag"),
        (SMALL_TASKS, "L" * 33 + " | height\n", "items.txt:1: name 'LLL"),
        (SMALL_TASKS, "Lad\x1b[31mder | height\n", "items.txt:1: control character"),
        (SMALL_TASKS, "Ladder | height\u200b\n", "items.txt:1: control character"),
        (SMALL_TASKS, "Ladder | height\n\nladder | rope\n",
         "items.txt:3: duplicate card name 'ladder' (first at items.txt:1)"),
        ("Ladder | height\n", SMALL_ITEMS,
         "items.txt:1: duplicate card name 'Ladder' (first at tasks.txt:1)"),
    ],
)
def test_a_malformed_line_gives_a_deck_error_naming_file_and_line(
        tasks: str, items: str, message: str) -> None:
    with pytest.raises(DeckError) as error:
        parse_small(tasks, items)
    assert message in str(error.value)


def test_a_name_of_exactly_32_characters_is_accepted() -> None:
    deck = parse_small(items="L" * 32 + " | height\n")
    assert deck.item_names == ("L" * 32,)


def test_the_wrong_number_of_cards_is_an_error_unless_counts_are_not_expected() -> None:
    with pytest.raises(DeckError, match=r"tasks.txt: 1 cards, expected 62"):
        parse_deck(SMALL_TASKS, SMALL_ITEMS)
    tasks = "".join(f"Task {i} | height\n" for i in range(62))
    with pytest.raises(DeckError, match=r"items.txt: 1 cards, expected 183"):
        parse_deck(tasks, SMALL_ITEMS)
    assert len(parse_deck(tasks, SMALL_ITEMS, expect_counts=False).tasks) == 62


# --- property: the format round-trips, and junk never crashes the parser -------------------

names = st.text(alphabet=st.characters(categories=("L", "N"), include_characters=" '-!"),
                min_size=1, max_size=NAME_MAX).map(lambda s: " ".join(s.split())).filter(bool)
cards = st.builds(Card, names, st.frozensets(st.sampled_from(sorted(TAGS)), min_size=1,
                                             max_size=4))


def unparse(deck_cards: list[Card]) -> str:
    return "".join(f"{c.name} | {', '.join(sorted(c.tags))}\n" for c in deck_cards)


@settings(max_examples=60, deadline=None)
@given(st.lists(cards, max_size=8, unique_by=lambda c: c.name.casefold()))
def test_any_valid_cards_written_out_parse_back_the_same(deck_cards: list[Card]) -> None:
    half = len(deck_cards) // 2
    deck = parse_small(unparse(deck_cards[:half]), unparse(deck_cards[half:]))
    assert (*deck.tasks, *deck.items) == tuple(deck_cards)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200), st.text(max_size=200))
def test_any_text_either_parses_or_raises_a_deck_error(tasks: str, items: str) -> None:
    try:
        deck = parse_small(tasks, items)
    except DeckError as error:
        assert ":" in str(error)  # file and line, then what is wrong
    else:
        assert all(c.tags <= TAGS for c in (*deck.tasks, *deck.items))


# --- what a person reads on the cards ----------------------------------------------------

def _words(name: str) -> set[str]:
    return {stem(w) for w in words_of(name)}


def test_no_item_names_its_task() -> None:
    deck = load_deck()
    for task in deck.task_names:
        for item in deck.item_names:
            assert not _words(task) & _words(item), (task, item)


def test_no_two_items_look_alike_at_a_glance() -> None:
    names = load_deck().item_names
    for a, b in itertools.combinations(names, 2):
        assert difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio() < 0.7, (a, b)


@pytest.mark.parametrize("word", ["mum", "chips", "coax", "jelly", "colour", "torch", "biscuit",
                                  "lorry", "m", "steal the show"])
def test_cards_are_plain_american_english(word: str) -> None:
    deck = load_deck()
    for name in (*deck.task_names, *deck.item_names):
        words = " ".join(re.findall(r"[a-z0-9]+", name.lower()))
        assert f" {word} " not in f" {words} ", name


def test_at_least_half_the_tasks_are_impractical_missions() -> None:
    text = (resources.files("engine") / "data" / "tasks.txt").read_text(encoding="utf-8")
    section, missions = "", 0
    for line in text.splitlines():
        if line.startswith("# ---"):
            section = line
        elif line.strip() and not line.startswith("#") and "missions" in section:
            missions += 1
    assert missions >= TASK_COUNT / 2


@pytest.mark.parametrize("word", ["herd", "chore", "laundry", "kitchen fire", "dishes"])
def test_no_task_is_a_chore_or_a_real_danger(word: str) -> None:
    assert not [t for t in load_deck().task_names if word in t.lower()]


@pytest.mark.parametrize(("item", "tag"), [
    ("Marbles", "sticky"), ("Earmuffs", "noise"), ("Scissors", "rope"),
    ("Sunglasses", "light"), ("Trumpet", "light"), ("Fog Machine", "cold"),
])
def test_tags_do_not_contradict_their_card(item: str, tag: str) -> None:
    assert tag not in load_deck().card(item).tags


# --- a host's own deck ----------------------------------------------------------------------


def _write_deck(folder: Path, tasks: int = 8, items: int = 32) -> None:
    (folder / "tasks.txt").write_text(
        "".join(f"Own Task {i} | height, rope\n" for i in range(tasks)), encoding="utf-8")
    (folder / "items.txt").write_text(
        "".join(f"Own Item {i} | rope\n" for i in range(items)), encoding="utf-8")


def test_a_hosts_deck_folder_loads_with_any_number_of_cards_enough_to_play(
        tmp_path: Path) -> None:
    _write_deck(tmp_path, tasks=9, items=40)
    deck = load_deck_dir(tmp_path)
    assert len(deck.tasks) == 9 and len(deck.items) == 40


@pytest.mark.parametrize(("setup", "message"), [
    (lambda d: (d / "tasks.txt").unlink(), "tasks.txt: no such file"),
    (lambda d: (d / "items.txt").write_text("Own Item | wings\n", encoding="utf-8"),
     "items.txt:1: 'Own Item' has unknown tag(s) wings (known tags: "),
    (lambda d: (d / "items.txt").write_bytes(b"\xff\xfe junk"), "items.txt: not UTF-8"),
    (lambda d: _write_deck(d, tasks=3), "tasks.txt: 3 cards, a game needs at least 8"),
])
def test_a_broken_hosts_deck_names_the_file_the_line_and_the_problem(
        tmp_path: Path, setup: Callable[[Path], object], message: str) -> None:
    _write_deck(tmp_path)
    setup(tmp_path)
    with pytest.raises(DeckError) as error:
        load_deck_dir(tmp_path)
    assert message in str(error.value)
    assert str(tmp_path) in str(error.value)


def test_few_items_share_exactly_the_same_tags_so_a_lead_can_tell_them_apart() -> None:
    groups = Counter(item.tags for item in load_deck().items)
    assert sum(n for n in groups.values() if n > 1) <= 65  # the old deck: 71 items
    assert max(groups.values()) <= 4


def test_the_hosting_guide_lists_exactly_the_tags_a_deck_may_use() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "hosting.md").read_text()
    listed = guide.split("tags from this list", 1)[1].split(". A task", 1)[0]
    assert set(re.findall(r"`([a-z]+)`", listed)) == set(TAGS)
