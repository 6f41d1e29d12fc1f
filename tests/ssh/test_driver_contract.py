"""The session's driver is a whole Textual driver."""

from __future__ import annotations

from textual.driver import Driver

from server.driver import SSHDriver


def test_the_driver_implements_every_abstract_method() -> None:
    abstract = Driver.__abstractmethods__
    assert abstract <= set(vars(SSHDriver))
    assert not SSHDriver.__abstractmethods__
