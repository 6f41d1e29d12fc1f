"""The server's Ed25519 host key: made on first start, kept private, reused after."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import asyncssh

log = logging.getLogger(__name__)

DEFAULT_HOST_KEY = Path("host_keys") / "ssh_host_ed25519_key"


def load_or_create_host_key(path: Path) -> asyncssh.SSHKey:
    """The Ed25519 key at ``path``, generated there (mode 600) if there is none yet."""
    if path.exists():
        return _load(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = asyncssh.generate_private_key("ssh-ed25519", comment="mission-impractical host key")
    _write_private(path, key.export_private_key())
    _write(path.with_name(path.name + ".pub"), key.export_public_key(), 0o644)
    log.info("generated a new host key at %s", path)
    return key


def copy_host_key(source: Path, target: Path) -> None:
    """Copy the key at ``source`` (and its ``.pub``, if any) to ``target``, mode 600."""
    _load(source)  # an Ed25519 key, or a ValueError before anything is written
    _write_private(target, source.read_bytes())
    public = source.with_name(source.name + ".pub")
    if public.exists():
        _write(target.with_name(target.name + ".pub"), public.read_bytes(), 0o644)


def _load(path: Path) -> asyncssh.SSHKey:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning("host key %s was readable by others (mode %o); set to 600", path, mode)
        path.chmod(0o600)
    key = asyncssh.read_private_key(path)
    if key.algorithm != b"ssh-ed25519":
        raise ValueError(f"host key {path} is {key.algorithm.decode()}, not ssh-ed25519")
    return key


def _write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` readable by the owner only, never briefly wider."""
    _write(path, data, 0o600)


def _write(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``path`` with ``mode`` exactly, whatever the umask."""
    temporary = path.with_name(path.name + ".new")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    os.fchmod(fd, mode)  # the umask (even 000) and a file left behind change nothing
    with os.fdopen(fd, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
