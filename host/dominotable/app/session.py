"""The table session: settled boards in, engine moves, stored moves and screens out.

Pure logic with no threads and an injected clock, so that the runtime can drive it from
the tray link, the buttons and a timer, and tests can drive it directly:

- `on_board(board)` for every snapshot; a board is judged once nothing has changed for
  `settle_ms` (on a later `tick()`, or at once when `settle_ms` is 0). Transitional states
  (a capture half made) are never judged while they last.
- `on_button(event)`: "up", "down", "select", "long-select" (controls.py).
- `on_tray(event)`: "lost" / "back" (a link Event or its kind).
- `tick()`: call often (the runtime's timer); it judges a board that has settled.
- `screen`: what the OLED shows now (`screen.render(frame)` draws it); `alarms` counts
  alarms and `on_alarm()` is called for each (LED and buzzer); `problem` is the prompt of a
  problem still on the tray; `request` becomes "new" when the players ask for a new match.

A draw the game awaits (the tiles drawn for dealer or for the lead) is read over the scan
pad seat by seat (draw.py); the session keeps the tiles read so far and pushes the `lots`
move once every seat has drawn. A takeback or a resume starts the draw again.

Each legal move is pushed to the engine and committed with `Store.append_move` before
the screen changes. A problem (an invalid board, or an adapter's problem verdict) shows
its prompt and sounds the alarm once; nothing advances until the tray shows a legal state.
A board equal to the position before the last move offers a takeback, confirmed with
select. A session starts by waiting for the tray to show the engine's position exactly
("Set up the table", or "Restore the table" for a resumed match).

Resigning ends the match at once: the side of the player to move resigns and loses; the
other sides with the best score win (none in a solitaire). "New match" abandons an
unfinished match (recorded as abandoned, no winners) and sets `request`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from dominotable.app import catalog
from dominotable.app.storage import Store, replay
from dominotable.reading.draw import PadDraw
from dominotable.reading.reader import Adapter, Verdict
from dominotable.rules.game import Game, Move
from dominotable.tray.board import Board
from dominotable.tray.geometry import Geometry
from dominotable.ui import menu
from dominotable.ui.oled import screens

PLAY, RESTORE, TAKEBACK, LOST, OVER = "play", "restore", "takeback", "lost", "over"


@dataclass
class Screen:
    """What the display shows. `kind` is "play" (pages: the last play, whose turn, the
    scores; `page` picks one), "prompt" (title and text), "lost" (the spinner), "over"
    (final scores) or "menu" (a menu.py model)."""

    kind: str
    title: str = ""
    text: str = ""
    names: list[str] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    target: int | None = None
    current: int | None = None
    turn: str = ""
    last: tuple[str, str, int | None] | None = None  # who, what, points
    page: int = 0
    model: menu.Model | None = None

    def pages(self) -> int:
        return 3 if self.last else 2

    def render(self, frame: int = 0, size=screens.SIZE):
        if self.kind == "prompt":
            return screens.prompt(self.title, self.text, size)
        if self.kind == "lost":
            return screens.tray_lost(frame, size=size)
        if self.kind == "menu":
            return screens.render(self.model, size)
        if self.kind == "over":
            return screens.scores(self.names, self.points, self.target, title=self.title, size=size)
        page = self.page % self.pages()
        if page == 0:
            return screens.turn(self.turn, self.text, size)
        if page == 1:
            return screens.scores(self.names, self.points, self.target, self.current, size=size)
        who, what, points = self.last
        return screens.last_play(who, what, points, size)


class Session:
    def __init__(self, game: Game, adapter: Adapter, store: Store, match_id: int, *, settle_ms: int = 400,
                 clock: Callable[[], float] = time.monotonic, names: list[str] | None = None,
                 resumed: bool = False, on_alarm: Callable[[], None] | None = None):
        self.game = game
        self.adapter = adapter
        self.store = store
        self.match_id = match_id
        self.settle_ms = settle_ms
        self.clock = clock
        self.names = list(names or game.side_names())
        self.resumed = resumed
        self.on_alarm = on_alarm
        self.alarms = 0
        self.request: str | None = None
        self.mode = OVER if game.is_over() else RESTORE
        self.board: Board | None = None
        self.last: tuple[str, str, int | None] | None = None
        self.menu: menu.Model | None = None
        self._menu_choice: tuple | None = None
        self._changed = clock()
        self._judged = True
        self._fresh = False      # the board to judge came from the tray (not from a button)
        self._shown_problem: str | None = None
        self._offer: Move | None = None
        self._draw: PadDraw | None = None
        self._before_lost = self.mode
        self._page = 0
        self._screen = self._over_screen() if self.mode == OVER else self._prompt(*self._restore_text())

    # -- building a session -------------------------------------------------------------------

    @classmethod
    def start(cls, store: Store, game: Game, names: list[str], geometry: Geometry, **kwargs) -> Session:
        """A new match, recorded in `store` before the first move."""
        match_id = store.start_match(game, names)
        return cls(game, catalog.reader_for(game, geometry), store, match_id, names=names, **kwargs)

    @classmethod
    def resume(cls, store: Store, match_id: int, geometry: Geometry, **kwargs) -> Session:
        """A stored match rebuilt by replay; it waits until the tray shows its position."""
        record = store.match(match_id)
        game = replay(record)
        return cls(game, catalog.reader_for(game, geometry), store, match_id, names=record.names, resumed=True, **kwargs)

    # -- inputs -------------------------------------------------------------------------------

    def on_board(self, board: Board) -> None:
        if self.board is not None and board.cells == self.board.cells:
            return
        self.board = board
        self._changed = self.clock()
        self._judged = False
        self._fresh = True
        self.tick()

    def on_tray(self, event) -> None:
        kind = getattr(event, "kind", event)
        if kind == "lost" and self.mode != LOST:
            self._before_lost, self.mode = self.mode, LOST
        elif kind == "back" and self.mode == LOST:
            self.mode = self._before_lost
            self.board = None  # judge the resynced tray afresh
            self._judged = True

    def tick(self) -> bool:
        """Judge a board that has settled; True if one was judged (the screen may change)."""
        if self._judged or self.board is None or self.mode in (LOST, OVER):
            return False
        if (self.clock() - self._changed) * 1000 >= self.settle_ms:
            fresh, self._fresh, self._judged = self._fresh, False, True
            self._judge(self.board, fresh)
            return True
        return False

    def on_button(self, event: str) -> None:
        if self.mode == LOST:
            return
        if self.menu is not None:
            self.menu.handle(event)
            if self.menu.done:
                self._menu_done(self.menu)
            return
        if event == "long-select":
            self._open_menu()
        elif self.mode == OVER and event == "select":
            self.request = "new"
        elif self.mode == TAKEBACK and event == "select":
            self._take_back()
        elif event in ("up", "down"):
            self._page += 1 if event == "down" else -1
            if self._screen.kind == "play":
                self._screen.page = self._page

    @property
    def problem(self) -> str | None:
        """The problem the tray shows now, if any (the runtime may hold the status LED on)."""
        return self._shown_problem

    @property
    def judged(self) -> Board | None:
        """The board last judged; None while a newer one waits to settle."""
        return self.board if self._judged else None

    @property
    def drawn(self) -> tuple:
        """The tiles of the draw over the scan pad read so far."""
        return tuple(self._draw.tiles) if self._draw is not None else ()

    @property
    def screen(self) -> Screen:
        if self.mode == LOST:
            return Screen("lost")
        if self.menu is not None:
            return Screen("menu", model=self.menu)
        return self._screen

    # -- judging ------------------------------------------------------------------------------

    def _judge(self, board: Board, fresh: bool) -> None:
        problems = board.problems()
        if problems:
            self._problem("Check the tray", problems[0].message, fresh)
            return
        verdict = self._read(board)
        if self.mode == RESTORE and not verdict.same:
            self._screen = self._prompt(*self._restore_text(verdict.problem))
            return
        # moves, then what the tray shows after them: a note, or a problem read past them
        for _ in range(len(board.placements) + 2):
            if not verdict.moves or self.mode == OVER:
                break
            self._commit(verdict.moves)
            verdict = self._read(board)
        if self.mode == OVER:
            return
        if verdict.same:
            self._play(verdict.note)
        elif not verdict.moves:
            before = self._takeback_candidate(board) if fresh and self._draw is None else None
            if before is not None:
                self.mode, self._offer = TAKEBACK, before
                self._shown_problem = None
                self._screen = self._prompt("Take back?", f"take back {before}? press select")
            else:
                self._problem("Fix the tray", verdict.problem, fresh)

    def _read(self, board: Board) -> Verdict:
        """The adapter's verdict; while the game awaits a draw over the scan pad and the tray is
        otherwise in order, the draw's (started when first judged, the pad's tile not counted)."""
        verdict = self.adapter.judge(board)
        draw = self.adapter.pad_draw()
        if draw is None:
            self._draw = None
            return verdict
        if self._draw is None:
            self._draw = PadDraw(draw, [self._seat_name(seat) for seat in range(len(self.game.side_names()))], board)
        return self._draw.read(board) if verdict.same else verdict

    def _rejudge(self) -> None:
        """The engine changed under an unchanged tray (a button move, a takeback): judge it
        again now, without the alarm (nobody touched the tray)."""
        if self.board is not None and self.mode not in (LOST, OVER):
            self._judged = True
            self._judge(self.board, fresh=False)

    def _problem(self, title: str, text: str, fresh: bool) -> None:
        if self.mode == TAKEBACK:
            self.mode = PLAY
        if fresh and text != self._shown_problem:
            self.alarms += 1
            if self.on_alarm:
                self.on_alarm()
        self._shown_problem = text
        self._screen = self._prompt(title, text)

    def _takeback_candidate(self, board: Board) -> Move | None:
        """The last move, if the tray shows the position before it."""
        game = self.game
        if not game.moves:
            return None
        move = game.pop()
        try:
            same = self.adapter.judge(board).same
        finally:
            game.push(move, trusted=True)
        return move if same else None

    # -- changing the match -------------------------------------------------------------------

    def _commit(self, moves) -> None:
        """Push and store each move (durable before anything is shown), then show the result."""
        game = self.game
        self._draw = None
        segments: list[tuple[int | None, list[Move], list[int]]] = []
        for move in moves:
            seat = game.current_player
            if not segments or segments[-1][0] != seat:
                segments.append((seat, [], list(game.scores)))
            game.push(move)
            try:
                self.store.append_move(self.match_id, len(game.moves), str(move))
            except BaseException:
                game.pop()
                raise
            segments[-1][1].append(move)
        seat, played, before = segments[-1]
        side = game.side_of(seat) if seat is not None else 0
        gained = game.scores[side] - before[side]
        self.last = (self._seat_name(seat), " ".join(str(m) for m in played), gained or None)
        if game.is_over():
            self.store.finish(self.match_id, game)
            self.mode = OVER
            self._screen = self._over_screen()
        else:
            self.mode = PLAY

    def _take_back(self) -> None:
        game = self.game
        self.store.take_back(self.match_id, len(game.moves))
        undone = game.pop()
        self._draw = None
        self._offer = None
        self.mode = PLAY
        self.last = (self._seat_name(game.current_player), f"took back {undone}", None)
        self._play()
        self._rejudge()

    def _button_move(self, move: Move) -> None:
        problem = self.game.why_illegal(move)
        if problem is not None:
            self._screen = self._prompt("Not now", str(problem))
            return
        self._commit([move])
        if self.mode != OVER:
            self._play()
        self._rejudge()

    def _resign(self) -> None:
        game = self.game
        seat = game.current_player
        loser = game.side_of(seat) if seat is not None else 0
        others = [side for side in range(len(game.scores)) if side != loser]
        top = max((game.scores[side] for side in others), default=None)
        winners = [side for side in others if game.scores[side] == top]
        self.store.finish(self.match_id, game, "resigned", winners)
        self.mode = OVER
        self.last = (self._seat_name(seat), "resigned", None)
        self._screen = self._over_screen(f"{self._seat_name(seat)} resigned")

    def _new_match(self) -> None:
        if self.mode != OVER:
            self.store.finish(self.match_id, self.game, "abandoned", [])
            self.mode = OVER
            self._screen = self._over_screen("Match abandoned")
        self.request = "new"

    # -- the in-game menu ---------------------------------------------------------------------

    def _open_menu(self) -> None:
        items, values = [], []
        if self.mode not in (OVER, RESTORE):
            for label, move in self.adapter.button_moves(self.board):
                items.append(label)
                values.append(("move", move, label))
            if self.board is not None and self.mode != TAKEBACK:
                before = self._takeback_candidate(self.board)
                if before is not None:
                    items.append(f"{menu.ACTIONS['takeback']} {before}")
                    values.append(("takeback", before, ""))
            if self.mode == TAKEBACK:
                items.append(f"{menu.ACTIONS['takeback']} {self._offer}")
                values.append(("takeback", self._offer, ""))
            items.append(menu.ACTIONS["resign"])
            values.append(("resign", None, ""))
        items += [menu.ACTIONS["new"], menu.ACTIONS["back"]]
        values += [("new", None, ""), ("back", None, "")]
        self.menu = menu.ListMenu("Menu", items, values)
        self._menu_choice = None

    def _menu_done(self, model: menu.Model) -> None:
        self.menu = None
        if model.cancelled:
            return
        if self._menu_choice is None:  # the list: ask before acting
            choice = model.value
            kind, move, label = choice
            if kind == "back":
                return
            who = self._seat_name(self.game.current_player)
            question = (menu.Confirm(f"{who}: {label.lower()}?") if kind == "move"
                        else menu.confirm_action(kind, str(move) if kind == "takeback" else who))
            self.menu, self._menu_choice = question, choice
            return
        kind, move, _ = self._menu_choice
        self._menu_choice = None
        if not model.value:
            return
        if kind == "move":
            self._button_move(move)
        elif kind == "takeback":
            if self.game.moves and self.game.moves[-1] == move:
                self._take_back()
        elif kind == "resign":
            self._resign()
        elif kind == "new":
            self._new_match()

    # -- screens ------------------------------------------------------------------------------

    def _seat_name(self, seat: int | None) -> str:
        if seat is None:
            return ""
        return self.names[seat] if seat < len(self.names) else self.game.side_names()[seat]

    def _side_names(self) -> list[str]:
        sides = len(self.game.scores)
        return self.names if len(self.names) == sides else self.game.side_names()[:sides]

    @staticmethod
    def _prompt(title: str, text: str) -> Screen:
        return Screen("prompt", title, text)

    def _restore_text(self, problem: str | None = None) -> tuple[str, str]:
        if self.resumed:
            return "Restore the table", f"restore the table: {self.adapter.expected()}"
        return "Set up the table", problem or self.adapter.expected()

    def _play(self, note: str | None = None) -> None:
        self.mode = PLAY
        self._shown_problem = None
        self._offer = None
        if note:
            self._screen = self._prompt("At the table", note)
            return
        game = self.game
        seat = game.current_player
        labels = [label for label, _ in self.adapter.button_moves(self.board)]
        if labels:
            note = f"hold select: {', '.join(labels).lower()}"
        elif self.last:
            who, what, points = self.last
            note = f"{who} {what}" + (f" {points:+d}" if points else "")
        else:
            note = ""
        self._screen = Screen("play", text=note, names=self._side_names(), points=list(game.scores),
                              target=getattr(game.options, "target", None),
                              current=game.side_of(seat) if seat is not None else None,
                              turn=self._seat_name(seat), last=self.last, page=self._page)

    def _over_screen(self, title: str | None = None) -> Screen:
        game = self.game
        names = self._side_names()
        if title is None:
            winners = game.winners()
            title = ("Won by " + ", ".join(names[w] for w in winners)) if winners else "Match over"
        return Screen("over", title, names=names, points=list(game.scores),
                      target=getattr(game.options, "target", None))
