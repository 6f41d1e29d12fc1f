"""The fit the bots read: meaning from the fit file, the tags where there is none, and
people's ratings where the deck has them."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cards import load_deck, load_deck_dir
from engine.fits import FitError, format_fits, format_ratings, parse_fits, parse_ratings


def test_the_games_own_deck_is_read_by_meaning_for_every_card() -> None:
    deck = load_deck()
    assert deck.fits.by_meaning
    assert deck.fits.score("Rescue a Kitten From an Oak Tree", "Ladder") > deck.fits.score(
        "Rescue a Kitten From an Oak Tree", "Snorkel")


def test_the_games_own_deck_is_rated_by_people_for_every_item() -> None:
    deck = load_deck()
    assert deck.fits.by_people and deck.fit_note().endswith("as people rated it (sense.txt)")
    kitten = "Rescue a Kitten From an Oak Tree"
    assert deck.fits.rating(kitten, "Ladder") == 3.0
    assert deck.fits.rating(kitten, "Snorkel") == 0.0
    # every mission has items people see as clearly serving it (the fewest, 2 of 183: the
    # belly flop and Mom's teapot, the hardest missions to lead; 8 on average)
    ratings = deck.ratings or {}
    clear = [sum(ratings.get((task, item), 0) >= 2 for item in deck.item_names)
             for task in deck.task_names]
    assert min(clear) >= 2 and sum(clear) / len(clear) >= 7


def test_a_ratings_file_reads_back_what_was_written() -> None:
    ratings = {("Task A", "Pen"): 3.0, ("Task B", "Pen"): 0.5, ("Task B", "Cup"): 2.0}
    text = format_ratings(["Pen", "Cup", "Mug"], ["Task A", "Task B"], ratings, "hi")
    assert text.splitlines() == ["# hi", "Pen | Task A: 3; Task B: 0.5", "Cup | Task B: 2",
                                 "Mug |"]
    assert parse_ratings(text, ["Task A", "Task B"], ["Pen", "Cup", "Mug"]) == ratings


@pytest.mark.parametrize(("text", "problem"), [
    ("Pen | Task A: 3\n", r"no line for 1 item\(s\) of the deck, such as 'Cup'"),
    ("Pen | Task A: 3\nCup |\nPen |\n", r"sense\.txt:3: 'Pen' is rated twice"),
    ("Pen | Task A: 4\nCup |\n", r"sense\.txt:1: expected 'Task: rating' \(0 to 3\)"),
    ("Pen | Task A: lots\nCup |\n", r"sense\.txt:1: expected 'Task: rating'"),
    ("Pen | Task A\nCup |\n", r"sense\.txt:1: expected 'Task: rating'"),
    ("Pen | Task Z: 1\nCup |\n", r"sense\.txt:1: no task 'Task Z'"),
    ("Pen | Task A: 1\nMug |\n", r"sense\.txt:2: no item 'Mug'"),
    ("Pen Task A: 1\nCup |\n", r"sense\.txt:1: expected 'Item \| Task: rating"),
])
def test_a_ratings_file_with_a_mistake_is_refused_with_the_line_named(
        text: str, problem: str) -> None:
    with pytest.raises(FitError, match=problem):
        parse_ratings(text, ["Task A", "Task B"], ["Pen", "Cup"])


def test_a_hosts_deck_with_a_broken_ratings_file_is_read_without_it_and_says_so(
        tmp_path: Path) -> None:
    write_deck(tmp_path)
    tmp_path.joinpath("sense.txt").write_text("Item 0 | Task 0: 9\n", encoding="utf-8")
    deck = load_deck_dir(tmp_path)
    assert not deck.fits.by_people and deck.fits.rating("Task 0", "Item 0") == 0.0
    assert "its ratings are not read (" in deck.fit_note() and "sense.txt:1" in deck.fit_note()
    lines = [f"Item {i} |" + (" Task 0: 3" if i == 5 else "") for i in range(32)]
    tmp_path.joinpath("sense.txt").write_text("\n".join(lines), encoding="utf-8")
    deck = load_deck_dir(tmp_path)
    assert deck.fits.by_people and deck.fits.rating("Task 0", "Item 5") == 3.0
    assert not deck.fits.by_meaning  # rated, with no fit file: the tags and the ratings


def test_a_fit_file_reads_back_what_was_written() -> None:
    text = format_fits(["Task A", "Task B"], ["Pen", "Cup"], [[1.25, -0.5], [0, 3]], "hi")
    fits = parse_fits(text, ["Task A", "Task B"], ["Pen", "Cup"], {})
    assert fits.scores(["Task A", "Task B"], "Pen") == [1.2, 0.0]
    assert fits.score("Task B", "Cup") == 3.0
    assert fits.score("Task Z", "Cup") == 0.0  # another deck's card fits nothing


def test_a_fit_file_that_misses_a_card_is_refused_with_the_card_named() -> None:
    text = format_fits(["Task A"], ["Pen"], [[1.0]])
    with pytest.raises(FitError, match="'Cup'"):
        parse_fits(text, ["Task A"], ["Pen", "Cup"], {})
    with pytest.raises(FitError, match=r"fit\.txt:1"):
        parse_fits("Task A | 1 2\n", ["Task A"], ["Pen"], {})


def write_deck(folder: Path) -> None:
    folder.mkdir(exist_ok=True)
    folder.joinpath("tasks.txt").write_text(
        "".join(f"Task {i} | water, cold\n" for i in range(8)), encoding="utf-8")
    folder.joinpath("items.txt").write_text(
        "".join(f"Item {i} | {'water' if i % 2 else 'fire'}\n" for i in range(32)),
        encoding="utf-8")


def test_a_hosts_deck_without_a_fit_file_is_read_by_its_tags_and_says_so(
        tmp_path: Path) -> None:
    write_deck(tmp_path)
    deck = load_deck_dir(tmp_path)
    assert not deck.fits.by_meaning
    assert deck.fits.score("Task 0", "Item 1") == 1.0
    assert "deck fit" in deck.fit_note() and "no fit.txt" in deck.fit_note()


def test_a_hosts_deck_with_a_stale_fit_file_falls_back_to_the_tags(tmp_path: Path) -> None:
    write_deck(tmp_path)
    tmp_path.joinpath("fit.txt").write_text(format_fits(["Task 0"], ["Item 0"], [[5.0]]),
                                            encoding="utf-8")
    deck = load_deck_dir(tmp_path)
    assert not deck.fits.by_meaning
    assert "Task 1" in deck.fit_note()


def test_a_hosts_deck_with_its_fit_file_is_read_by_meaning(tmp_path: Path) -> None:
    write_deck(tmp_path)
    deck = load_deck_dir(tmp_path)
    table = [[float(t == i) for i in range(32)] for t in range(8)]
    tmp_path.joinpath("fit.txt").write_text(
        format_fits(deck.task_names, deck.item_names, table), encoding="utf-8")
    deck = load_deck_dir(tmp_path)
    assert deck.fits.by_meaning and deck.fit_note().startswith("bots read the deck by meaning")
    assert deck.fits.score("Task 3", "Item 3") == 1.0
