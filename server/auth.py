"""Who may come in, and who they are once in.

By default everyone gets in: a client that proves a public key is known by the key's
SHA256 fingerprint (``key:SHA256:...``), a client with no key comes in as a guest through
keyboard-interactive authentication with no prompt. ``--authorized-keys`` lets in only the
keys it lists (and no guests); ``--password`` asks everyone else for one shared password.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from engine.identity import Player
from engine.text import clean_name


def fingerprint(key: asyncssh.SSHKey) -> str:
    """``SHA256:...``, as ``ssh-keygen -l`` prints it."""
    return key.get_fingerprint("sha256")


def read_authorized_keys(path: Path) -> frozenset[str]:
    """Fingerprints of the public keys in an OpenSSH ``authorized_keys`` file.

    Options before a key are skipped, not honoured: this server runs no commands and
    forwards nothing, so there is nothing for them to restrict.
    """
    found: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        for i in range(len(words) - 1):
            try:
                key = asyncssh.import_public_key(f"{words[i]} {words[i + 1]}")
            except (asyncssh.KeyImportError, ValueError):
                continue
            found.add(fingerprint(key))
            break
    return frozenset(found)


@dataclass(frozen=True)
class AccessPolicy:
    """Which keys, guests and passwords are let in."""

    allowed_keys: frozenset[str] | None = None
    """Fingerprints let in by key; ``None`` lets in any key."""
    password: str | None = None
    """A shared password that lets in anyone (as a guest)."""

    @classmethod
    def from_options(cls, authorized_keys: Path | None, password: str | None) -> AccessPolicy:
        """The policy for the CLI's ``--authorized-keys`` and ``--password``."""
        allowed = read_authorized_keys(authorized_keys) if authorized_keys else None
        return cls(allowed_keys=allowed, password=password or None)

    @property
    def keys_accepted(self) -> bool:
        """Is public key authentication offered?"""
        return self.allowed_keys is not None or self.password is None

    @property
    def open_to_guests(self) -> bool:
        """Do keyless clients get in with no question asked?"""
        return self.allowed_keys is None and self.password is None

    def key_allowed(self, key_fingerprint: str) -> bool:
        """May this key come in?"""
        if self.allowed_keys is None:
            return self.password is None
        return key_fingerprint in self.allowed_keys

    def password_ok(self, attempt: str) -> bool:
        """Is ``attempt`` the shared password? (Constant time.)"""
        if self.password is None:
            return False
        return hmac.compare_digest(attempt.encode(), self.password.encode())


class Identity:
    """What one connection proved during authentication, turned into a :class:`Player`."""

    def __init__(self) -> None:
        self.username = ""
        self._key: str | None = None
        self._guest_token = secrets.token_urlsafe(12)

    @property
    def key(self) -> str | None:
        """The fingerprint of the key this connection proved, if any."""
        return self._key

    def proved_key(self, key_fingerprint: str) -> None:
        """The last accepted key (a signature is checked right after this)."""
        self._key = key_fingerprint

    def proved_nothing(self) -> None:
        """Let in without a key (guest or shared password)."""
        self._key = None

    def player(self, address: str = "") -> Player:
        """The player this connection is, once authentication has succeeded, connected
        from ``address``."""
        name = clean_name(self.username) or "guest"
        if self._key is not None:
            return Player(id=f"key:{self._key}", name=name, address=address)
        return Player(id=f"guest:{self._guest_token}", name=name, address=address)
