"""The screen model as a compact text transcript: one line per play (with its points and the
scores after it), per prompt and for the final scores. For logs, pipes and CI, where a
drawing of every OLED frame would be hundreds of lines of block art."""

from __future__ import annotations

import sys
from typing import TextIO

from dominotable.ui.screen import Screen, ScreenKind


def scores_text(screen: Screen) -> str:
    target = f" (to {screen.target})" if screen.target else ""
    return ", ".join(f"{s.name} {s.points}" for s in screen.scores) + target


def line(screen: Screen) -> str | None:
    """What a screen adds to the transcript (None: nothing worth a line, such as a menu)."""
    if screen.kind == ScreenKind.PROMPT:
        return f"! {screen.title}: {screen.text}" if screen.text else f"! {screen.title}"
    if screen.kind == ScreenKind.LOST:
        return f"! {screen.title}: {screen.text}"
    if screen.kind == ScreenKind.OVER:
        return f"{screen.title}. final scores: {scores_text(screen)}"
    if screen.kind == ScreenKind.PLAY and screen.last:
        last = screen.last
        return f"{last}  | {scores_text(screen)}"
    return None


class Transcript:
    """Prints a line whenever the screen says something new: a play, a prompt other than the
    last one since the last play, the end (not page turns or menus)."""

    def __init__(self, stream: TextIO | None = None):
        self.stream = stream or sys.stdout
        self.said: dict[ScreenKind, str] = {}

    def __call__(self, screen: Screen) -> None:
        text = line(screen)
        if text is None or self.said.get(screen.kind) == text:
            return
        if screen.kind == ScreenKind.PLAY:
            self.said.clear()  # after a play, the same prompt is news again
        self.said[screen.kind] = text
        self.stream.write(text + "\n")
        self.stream.flush()
