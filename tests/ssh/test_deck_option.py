"""``serve --deck DIR``: a host plays with their own cards, checked before the server starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.cards import load_deck_dir
from engine.hub import Hub
from engine.journal import JournalError
from server.admin import cli


def write_deck(folder: Path, items: str | None = None) -> Path:
    folder.mkdir()
    (folder / "tasks.txt").write_text(
        "".join(f"Our Task {i} | height, rope\n" for i in range(10)), encoding="utf-8")
    (folder / "items.txt").write_text(
        items if items is not None else "".join(f"Our Item {i} | rope\n" for i in range(40)),
        encoding="utf-8")
    return folder


def serve(tmp_path: Path, deck: Path) -> int:
    return cli.main(["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir",
                     str(tmp_path / "data"), "--host-key", str(tmp_path / "key"),
                     "--deck", str(deck)])


def test_a_broken_deck_stops_the_server_at_start_naming_file_line_and_problem(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deck = write_deck(tmp_path / "cards", items="Our Item | rope\n# fine\nBroken line\n")
    assert serve(tmp_path, deck) == 2
    err = capsys.readouterr().err
    assert f"{deck / 'items.txt'}:3: expected 'Name | tag, tag'" in err
    assert not (tmp_path / "data").exists()  # nothing started, nothing written


def test_the_hosts_deck_is_the_one_the_tables_deal_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_open(data_dir: Path, **kwargs: Any) -> Hub:
        seen.update(kwargs)
        raise JournalError("stop here")  # the server stops before listening

    monkeypatch.setattr(Hub, "open", fake_open)
    assert serve(tmp_path, write_deck(tmp_path / "cards")) == 2
    assert seen["deck"].task_names[0] == "Our Task 0" and len(seen["deck"].items) == 40


def test_the_deck_folder_can_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MI_DECK", "/srv/cards")
    assert cli.build_parser().parse_args(["serve"]).deck == Path("/srv/cards")


def test_the_start_up_lines_name_the_deck_in_play(tmp_path: Path) -> None:
    folder = write_deck(tmp_path / "cards")
    assert cli._deck_line(load_deck_dir(folder), folder) == (
        f"your own cards from {folder} (10 tasks, 40 items)")
