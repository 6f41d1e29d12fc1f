"""Keys that arrive in one burst are applied in the order their bytes arrived."""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.paste import PASTE_END, PASTE_START
from tests.field_model import FieldModel
from tests.ssh.client import TermClient
from tests.ssh.conftest import StartServer
from tests.ssh.driver_harness import DriverHarness, FieldApp
from tests.waiting import until

KEYS = {
    "backspace": "\x7f",
    "left": "\x1b[D",
    "right": "\x1b[C",
    "home": "\x1b[H",
    "end": "\x1b[F",
    "delete": "\x1b[3~",
    "enter": "\r",
}
PRINTABLE = "abcxyzABC019 .,!?-éß"


def encode(token: tuple[str, str]) -> str:
    kind, value = token
    if kind == "char":
        return value
    if kind == "paste":
        return PASTE_START + value + PASTE_END
    return KEYS[value]


tokens = st.one_of(
    st.tuples(st.just("char"), st.sampled_from(PRINTABLE)),
    st.tuples(st.just("key"), st.sampled_from(sorted(KEYS))),
    st.tuples(st.just("paste"), st.text(alphabet=PRINTABLE, min_size=1, max_size=12)),
)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(cut, len(data)) for cut in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


def test_random_bursts_reach_a_text_field_as_typed() -> None:
    loop = asyncio.new_event_loop()
    # (the order of keys is under test, not the key budget: 40 bursts in a row exceed it)
    harness = loop.run_until_complete(DriverHarness.start(keys_per_s=10**6))
    app = harness.app
    assert isinstance(app, FieldApp)

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(tokens, min_size=1, max_size=40), st.lists(st.integers(0, 400), max_size=4))
    def burst_matches_the_model(burst: list[tuple[str, str]], cuts: list[int]) -> None:
        model = FieldModel()
        app.field.value, app.sent[:] = "", []
        data = "".join(encode(token) for token in burst).encode()
        for token in burst:
            model.apply(token)

        async def type_it() -> None:
            harness.feed(*split(data, cuts))
            await harness.settled()

        loop.run_until_complete(type_it())
        assert (app.sent, app.field.value, app.field.cursor_position) == (
            model.sent, model.text, model.cursor,
        )

    try:
        burst_matches_the_model()
    finally:
        loop.run_until_complete(harness.stop())
        loop.close()


async def test_a_burst_typed_over_ssh_keeps_its_order(game_server: StartServer) -> None:
    server = await game_server()
    alice = await TermClient.connect(server.port)
    await alice.wait_for("len: 0")
    alice.send("x\x7fabc")  # one write: x, Backspace, a, b, c
    await alice.wait_for("len: 3")
    alice.send("\x7f" * 10 + "Bobby")
    await alice.wait_for("len: 5")
    app = next(s.app for s in server.sessions if s.app is not None)
    await until(lambda: app.query_one("#entry").value == "Bobby", "Bobby in the field")


async def test_a_paste_holding_escapes_arrives_as_text_never_as_keys() -> None:
    harness = await DriverHarness.start()
    app = harness.app
    assert isinstance(app, FieldApp)
    try:
        harness.feed(f"{PASTE_START}ab\x1bc\r\x1b[31mcd\x1b[24~{PASTE_END}".encode())
        await harness.settled()
        assert (app.field.value, app.sent, app.marks) == ("ab", [], 1)
    finally:
        await harness.stop()
