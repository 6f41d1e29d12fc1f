"""Bytes from one SSH channel turned into Textual events, fairly.

Textual's message loop does not yield while its queue has messages, so a client that
pastes megabytes of junk must not be allowed to fill its app's queue: that would freeze
every session on the loop. :class:`InputPump` keeps the raw bytes, parses them a small
slice at a time on the loop, only while the app's queue is short, and pauses reading the
channel while too much is waiting. Every event carries the arrival time of its bytes.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
from collections import deque
from collections.abc import Callable

from textual import constants, events
from textual.message import Message
from textual.messages import InBandWindowResize

from engine.clock import now_ms
from lean_textual.internals import XTermParserWithoutKeyCache
from server.limits import SessionLimits
from server.paste import PasteLimiter

log = logging.getLogger(__name__)

Deliver = Callable[[Message, float], None]
"""Hands one parsed event, with its arrival time in ms, to the app."""

_QUIET = object()  # marks a pause in the client's input, in stream order
_APP_BUSY_POLL_S = 0.005  # how soon to look again when the app stays busy
_QUICK_LOOKS = 32  # looks on the next loop turns before falling back to that poll




def _allowed(event: Message) -> bool:
    """Sizes come only from SSH window changes, never from bytes a client can type."""
    return not isinstance(event, events.Resize | InBandWindowResize)


class InputPump:
    """Parses one session's input in slices, as fast as its app keeps up and no faster.

    Bytes wait in ``_chunks`` until parsed; parsed events wait in ``_parsed`` until the
    app's queue has room. Only one slice's worth of events is ever parsed ahead.
    """

    def __init__(
        self,
        limits: SessionLimits,
        pause_reading: Callable[[], None],
        resume_reading: Callable[[], None],
    ) -> None:
        self._limits = limits
        self._pause_reading = pause_reading
        self._resume_reading = resume_reading
        self._loop = asyncio.get_running_loop()
        self._chunks: deque[tuple[bytes | object, float]] = deque()
        self._parsed: deque[tuple[Message, float]] = deque()
        self._pending = 0
        self._reading_paused = False
        self._last_arrival = 0.0
        self._deliver: Deliver | None = None
        self._queue_size: Callable[[], int] = lambda: 0
        self._looks = 0
        self._step_handle: asyncio.Handle | None = None
        self._tick_handle: asyncio.TimerHandle | None = None
        self._tick_arrival = 0.0
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        self._paste = PasteLimiter(limits.paste_max_chars)
        self._parser = XTermParserWithoutKeyCache()
        self.bytes_parsed = 0
        self._budget = float(limits.key_burst)
        self._budget_at = self._loop.time()
        self._pace_s = 0.0

    @property
    def pending_bytes(self) -> int:
        """Bytes received and not yet parsed."""
        return self._pending

    @property
    def idle(self) -> bool:
        """Nothing received is waiting to be parsed or handed on."""
        return not (self._chunks or self._parsed)

    @property
    def pastes_truncated(self) -> int:
        """How many bracketed pastes were cut at the cap."""
        return self._paste.truncated

    def feed(self, data: bytes, arrived_ms: float | None = None) -> None:
        """Take bytes as they arrive from the channel."""
        arrived = now_ms() if arrived_ms is None else arrived_ms
        if self._paste.in_paste and arrived - self._last_arrival > self._quiet_ms():
            self._chunks.append((_QUIET, arrived))
        self._last_arrival = arrived
        self._chunks.append((data, arrived))
        self._pending += len(data)
        if self._pending >= self._limits.input_pause_bytes and not self._reading_paused:
            self._reading_paused = True
            self._pause_reading()
        if self._step_handle is None and self._deliver is not None:
            # At once, not a loop turn later: on a busy server a turn holds dozens of other
            # players' updates, and a key waited for one before the app saw it. A step is
            # bounded (a few slices), and a flood still goes on a slice at a time.
            self._step()

    def attach(self, deliver: Deliver, queue_size: Callable[[], int]) -> None:
        """Start handing events to an app (input received before now is kept).

        ``queue_size`` says how many messages wait on the input's way through the app.
        With the default ``max_app_queue`` of 1 an event is handed on only once the one
        before it, and whatever it caused on that way, has been handled: Textual sends a
        key down to the focused widget and back up to the app's bindings, so two keys in
        flight at once can be applied out of order (a Backspace after the letters typed
        behind it, an Enter after them).
        """
        self._deliver = deliver
        self._queue_size = queue_size
        self._schedule()

    def detach(self) -> None:
        """Stop handing events on; anything unparsed is dropped."""
        self._deliver = None
        for handle in (self._step_handle, self._tick_handle):
            if handle is not None:
                handle.cancel()
        self._step_handle = self._tick_handle = None
        self._chunks.clear()
        self._parsed.clear()
        self._pending = 0
        self._maybe_resume()

    def _quiet_ms(self) -> float:
        return self._limits.paste_quiet_s * 1000

    def _schedule(self, delay: float = 0.0) -> None:
        if self._step_handle is not None or self._deliver is None:
            return
        if not (self._chunks or self._parsed):
            return
        if delay:
            self._step_handle = self._loop.call_later(delay, self._step)
        else:
            self._step_handle = self._loop.call_soon(self._step)

    def _step(self) -> None:
        """One turn: hand on as many events as the app has room for, parse a few slices,
        then yield to the other sessions."""
        self._step_handle = None
        slices = 0
        while self._deliver is not None:
            if self._parsed:
                if not self._deliver_some():
                    if self._pace_s:  # over its budget: back when it has earned one more
                        self._schedule(delay=self._pace_s)
                        self._pace_s = 0.0
                    else:
                        self._wait_for_app()
                    break
            elif self._chunks and slices < self._limits.slices_per_turn:
                self._parse_slice()
                slices += 1
            else:
                break
        self._maybe_resume()
        self._schedule()

    def _wait_for_app(self) -> None:
        """Look again on the next few loop turns (an event takes a turn per widget on
        its way), then every few milliseconds while the app stays busy."""
        if self._looks < _QUICK_LOOKS:
            self._looks += 1
            self._schedule()
        else:
            self._schedule(delay=_APP_BUSY_POLL_S)

    def _deliver_some(self) -> bool:
        """Hand on events, one at a time, while the app has room and the session has
        budget; False if some wait (``_pace_s`` says how long, if for budget)."""
        deliver = self._deliver
        while self._parsed and deliver is not None:
            if self._queue_size() >= self._limits.max_app_queue:
                return False
            self._pace_s = self._spend()
            if self._pace_s:
                return False
            event, arrived = self._parsed.popleft()
            self._looks = 0
            deliver(event, arrived)
        return not self._parsed

    def _spend(self) -> float:
        """Take one event's budget: 0, or the seconds until there is one.

        Every key costs its app a repaint on the loop all sessions share, so a client
        typing faster than a person (``yes``, a 10 MiB flood typed into a text field)
        gets ``keys_per_s`` events a second after a burst of ``key_burst``: the rest wait,
        with their arrival stamps, and reading pauses once too many bytes wait. A paste
        is one event, however long."""
        limits, now = self._limits, self._loop.time()
        self._budget = min(float(limits.key_burst),
                           self._budget + (now - self._budget_at) * limits.keys_per_s)
        self._budget_at = now
        if self._budget >= 1:
            self._budget -= 1
            return 0.0
        return (1 - self._budget) / limits.keys_per_s

    def _parse_slice(self) -> None:
        data, arrived = self._chunks[0]
        if data is _QUIET:
            self._chunks.popleft()
            self._parse_text(self._paste.expire(), arrived)
            return
        assert isinstance(data, bytes)
        size = self._limits.slice_bytes
        piece = data[:size]
        if len(data) > size:
            self._chunks[0] = (data[size:], arrived)
        else:
            self._chunks.popleft()
        self._pending -= len(piece)
        self.bytes_parsed += len(piece)
        self._parse_text(self._paste.filter(self._decode(piece)), arrived)

    def _parse_text(self, text: str, arrived: float) -> None:
        if not text:
            return
        try:
            events_ = list(self._parser.feed(text))
        except Exception:  # a malformed sequence can break Textual's parser for good
            log.debug("input parser reset after unparsable input", exc_info=True)
            self._parser = XTermParserWithoutKeyCache()
            events_ = []
        self._hand_on(events_, arrived)
        if "\x1b" in text or self._tick_handle is not None:
            self._schedule_tick(arrived)

    def _hand_on(self, parsed: list[Message], arrived: float) -> None:
        self._parsed.extend((event, arrived) for event in parsed if _allowed(event))

    def _schedule_tick(self, arrived: float) -> None:
        """A lone Esc is only known to be one once the escape delay has passed.

        The parser restarts its delay with every character of a sequence, so the tick
        moves to one delay after the latest input.
        """
        self._tick_arrival = arrived
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        self._tick_handle = self._loop.call_later(constants.ESCAPE_DELAY + 0.005, self._tick)

    def _tick(self) -> None:
        self._tick_handle = None
        try:
            parsed = list(self._parser.tick())
        except Exception:
            log.debug("input parser reset on tick", exc_info=True)
            self._parser = XTermParserWithoutKeyCache()
            return
        self._hand_on(parsed, self._tick_arrival)
        self._schedule()

    def _maybe_resume(self) -> None:
        if self._reading_paused and self._pending <= self._limits.input_resume_bytes:
            self._reading_paused = False
            self._last_arrival = now_ms()  # time spent paused is not the client's silence
            self._resume_reading()
