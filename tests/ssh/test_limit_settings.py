"""Every limit is a setting: --limit NAME=VALUE or MI_LIMITS, checked before the server starts."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from server.admin import cli
from server.limits import LIMIT_CLASSES, build_limits, parse_limit

ROOT = Path(__file__).resolve().parents[2]


def test_a_limit_on_the_command_line_changes_only_that_limit() -> None:
    options = cli.build_parser().parse_args(
        ["serve", "--limit", "max_sessions_per_source=3", "--limit", "paste_quiet_s=0.5"]
    )
    session, connection = build_limits(dict(options.limit))
    assert connection.max_sessions_per_source == 3
    assert session.paste_quiet_s == 0.5
    assert connection.max_connections_per_source == 20  # the rest keep their defaults


@pytest.mark.parametrize("bad", ["max_sesions=3", "max_rows=lots", "block_s=-5", "max_rows"])
def test_a_bad_limit_is_refused_with_a_reason_before_anything_starts(
    bad: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["serve", "--limit", bad])
    assert stopped.value.code == 2
    assert "limit" in capsys.readouterr().err


def test_limits_from_the_environment_yield_to_the_command_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MI_LIMITS", "max_rows=60,block_s=30")
    seen = {}
    monkeypatch.setattr(cli, "serve", lambda options: seen.update(options.limit) or 0)
    assert cli.main(["serve", "--limit", "max_rows=70"]) == 0
    assert seen == {"max_rows": 70, "block_s": 30.0}
    assert parse_limit("block_s=30") == ("block_s", 30.0)


def test_the_security_notes_list_every_limit_with_its_default() -> None:
    notes = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    for cls in LIMIT_CLASSES:
        for field in fields(cls):
            assert f"`{field.name}`" in notes, field.name
