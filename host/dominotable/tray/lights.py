"""What the host wants the tray's LEDs to show, until the tray says it shows it: protocol 4's
LIGHTS and LIGHTS_ACK (hardware/PROTOCOL.md). The link (tray/link.py) writes the frames and hears
the acks; this keeps the state between them: the lights wanted, what the tray acknowledged, the
frame in flight and when to send again.

A frame is sent when the lights wanted change, again when its ack has not come within RESEND_S
(a frame lost on the line), after a reconnect (`forget`: the tray may show anything), and every
REFRESH_S while anything is lit: the tray goes dark when it has not heard from the host for a
few seconds, so a host that stopped leaves no stale instruction on the tray.
"""

from __future__ import annotations

import threading
import time

from dominotray import wire

RESEND_S = 0.3
REFRESH_S = 1.0

Colour = tuple[int, int, int]
Lit = dict[int, Colour]  # cell -> (red, green, blue); every other cell dark


class Lights:
    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.wanted: Lit = {}
        self.shown: Lit | None = {}  # what the tray acknowledged; None: unknown (a new connection)
        self.refused = 0  # frames the tray refused (another cell count: never, once the HELLO agreed)
        self.frames = 0  # LIGHTS frames made
        self._flight: tuple[int, Lit] | None = None  # (seq, lit) of the frame awaiting its ack
        self._sent_at = 0.0
        self._lock = threading.Lock()

    def want(self, lit: Lit) -> bool:
        """The lights to show from now on; whether that is news (a frame to send now)."""
        lit = dict(lit)
        with self._lock:
            news = lit != self.wanted
            self.wanted = lit
        return news

    def forget(self) -> None:
        """A new connection, or a tray that restarted: what it shows is not known."""
        with self._lock:
            self.shown, self._flight = None, None

    def due(self) -> bool:
        """Whether a frame should go now: unanswered too long, the tray not showing what is wanted,
        or lit and not refreshed for REFRESH_S."""
        with self._lock:
            waited = self.clock() - self._sent_at
            if self._flight is not None:
                return waited >= RESEND_S
            return self.shown != self.wanted or (bool(self.shown) and waited >= REFRESH_S)

    def frame(self, framer: wire.Framer, cells: int) -> bytes:
        """The LIGHTS frame of what is wanted, now in flight (the caller writes it at once)."""
        with self._lock:
            lit = dict(self.wanted)
            seq = framer.seq
            self._flight, self._sent_at = (seq, lit), self.clock()
            self.frames += 1
        return framer.frame(wire.LIGHTS, wire.encode_lights(cells, [(c, *lit[c]) for c in sorted(lit)]))

    def acked(self, seq: int, result: int) -> None:
        """A LIGHTS_ACK: the frame in flight, if it is that one, is shown (or refused)."""
        with self._lock:
            if self._flight is None or self._flight[0] != seq:
                return  # an answer to a frame sent before the last one
            if result == wire.TAKEN:
                self.shown = self._flight[1]
            else:
                self.refused += 1
                self.shown = self.wanted  # sending it again would be refused again
            self._flight = None
