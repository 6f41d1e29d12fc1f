"""The host key: made once, private, and the same after a restart."""

from __future__ import annotations

import stat
from pathlib import Path

import asyncssh
import pytest

from server.auth import fingerprint
from server.host_keys import load_or_create_host_key


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_host_key_is_ed25519_and_readable_by_the_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "host_keys" / "ssh_host_ed25519_key"
    key = load_or_create_host_key(path)
    assert key.algorithm == b"ssh-ed25519"
    assert _mode(path) == 0o600
    assert path.with_name(path.name + ".pub").read_bytes() == key.export_public_key()


def test_the_same_host_key_is_used_after_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "key"
    first = load_or_create_host_key(path)
    second = load_or_create_host_key(path)
    assert fingerprint(first) == fingerprint(second)


def test_a_host_key_left_readable_by_others_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "key"
    load_or_create_host_key(path)
    path.chmod(0o644)
    load_or_create_host_key(path)
    assert _mode(path) == 0o600


def test_a_host_key_of_another_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "key"
    path.write_bytes(asyncssh.generate_private_key("ecdsa-sha2-nistp256").export_private_key())
    path.chmod(0o600)
    with pytest.raises(ValueError, match="not ssh-ed25519"):
        load_or_create_host_key(path)
