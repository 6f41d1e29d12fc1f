"""The fit the bots read: meaning from the fit file, the tags where there is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cards import load_deck, load_deck_dir
from engine.fits import FitError, format_fits, parse_fits


def test_the_games_own_deck_is_read_by_meaning_for_every_card() -> None:
    deck = load_deck()
    assert deck.fits.by_meaning
    assert deck.fits.score("Rescue a Kitten From an Oak Tree", "Ladder") > deck.fits.score(
        "Rescue a Kitten From an Oak Tree", "Snorkel")


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
