"""The blind read: rounds kept with their key, answers scored, bots read the same rounds."""

from __future__ import annotations

from pathlib import Path

from bench.blind.__main__ import main as blind_main
from engine.blind_read import (
    bots_read,
    key_text,
    parse_answers,
    parse_key,
    questions_text,
    score,
    summary_lines,
)
from engine.simulate import make_rounds


def test_the_questions_show_tasks_and_items_only_and_the_key_keeps_the_round_whole() -> None:
    rounds = make_rounds(3, "test")
    text = questions_text(rounds)
    assert all(r.tasks[0] in text and ", then ".join(r.items) in text for r in rounds)
    rounds_part = text[text.index("Round 1"):].splitlines()
    assert all(line.startswith(("Round ", "  A) ", "  B) ", "  C) ", "  D) ", "  Items: "))
               for line in rounds_part if line)
    assert parse_key(key_text(rounds)) == rounds


def test_answers_are_scored_and_the_rounds_missed_listed() -> None:
    rounds = make_rounds(4, "test")
    letters = "ABCD"
    right = {r.number: r.secret for r in rounds[:3]}
    lines = "\n".join(f"{n}: {letters[c - 1].lower()}?" for n, c in right.items())
    result = score(rounds, parse_answers(lines))
    assert (result.right, result.total) == (3, 4)
    assert [r.number for r, _ in result.wrong] == [4]
    assert 0.25 < bots_read(rounds) <= 1.0


def test_the_stored_set_is_scored_from_the_command_line(tmp_path: Path, capsys) -> None:
    answers = tmp_path / "answers-1-test.txt"
    answers.write_text("1 A\n2 B\n", encoding="utf-8")
    assert blind_main(["score", str(answers)]) == 0
    out = capsys.readouterr().out
    assert "of 40 right" in out and "round 3: answered -" in out
    assert any("normal bots reading the same rounds" in line for line in summary_lines())


def test_a_set_is_led_anew_by_todays_lead_from_the_command_line(capsys) -> None:
    assert blind_main(["replay", "--set", "1"]) == 0
    out = capsys.readouterr().out
    assert "set 1: today's lead picks the same four items in" in out
    assert "a person's reading finds the task: then" in out
