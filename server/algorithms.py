"""The only SSH algorithms this server speaks: modern ones, nothing ssh-audit fails.

Each list keeps only what the installed asyncssh supports, in order of preference.
"""

from __future__ import annotations

from asyncssh.encryption import get_encryption_algs
from asyncssh.kex import get_kex_algs
from asyncssh.mac import get_mac_algs

KEX = (
    "mlkem768x25519-sha256",
    "sntrup761x25519-sha512",
    "sntrup761x25519-sha512@openssh.com",
    "curve25519-sha256",
    "curve25519-sha256@libssh.org",
)
CIPHERS = (
    # No chacha20-poly1305: a client takes the first cipher of its own list that the
    # server offers, and OpenSSH lists it first, but asyncssh builds it per packet from
    # three cipher objects and a Poly1305 key made in Python: 18-27 us a packet against
    # 3-5 for AES (GCM, or CTR with an EtM MAC), which the processor does itself. Every
    # OpenSSH since 6.2 and PuTTY since 0.58 speak AES-CTR.
    "aes256-gcm@openssh.com",
    "aes128-gcm@openssh.com",
    "aes256-ctr",
    "aes192-ctr",
    "aes128-ctr",
)
MACS = (
    "hmac-sha2-256-etm@openssh.com",
    "hmac-sha2-512-etm@openssh.com",
    "umac-128-etm@openssh.com",
)
HOST_KEY = ("ssh-ed25519",)  # the server offers exactly the keys it holds: one Ed25519 key
SIGNATURES = (  # accepted from clients proving their keys
    "ssh-ed25519",
    "sk-ssh-ed25519@openssh.com",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ecdsa-sha2-nistp256@openssh.com",
    "rsa-sha2-512",
    "rsa-sha2-256",
)
COMPRESSION = ("none",)


def _supported(wanted: tuple[str, ...], available: list[bytes]) -> list[str]:
    names = {name.decode() for name in available}
    return [name for name in wanted if name in names]


def algorithm_options() -> dict[str, list[str]]:
    """Keyword arguments for ``asyncssh.listen`` restricting every algorithm list."""
    return {
        "kex_algs": _supported(KEX, get_kex_algs()),
        "encryption_algs": _supported(CIPHERS, get_encryption_algs()),
        "mac_algs": _supported(MACS, get_mac_algs()),
        "signature_algs": list(SIGNATURES),
        "compression_algs": list(COMPRESSION),
    }
