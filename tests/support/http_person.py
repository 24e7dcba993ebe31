"""People at the table who use only its page's HTTP API (issue 28, "Done when"): they read the
screen (`GET /api/state`: its typed instruction, its actions), ask where a held tile may go (`GET
/api/targets`), lay and lift tiles (`POST /api/tray`) and choose actions (`POST /api/action`), and do
for the seats the table plays what their instruction says (tests/support/follow.py). They remember where they
laid every tile, what they hold and what is left in the boneyard, as people at a real table do.

What they find is kept, not asserted at once, so a run reports every kind of failure:
- `silent`: a turn of theirs with no instruction on the screen (or one without a way to finish);
- `refused`: a tile laid on a place offered for it that the table did not take, or asked back;
- `stuck`: a position of theirs where no tile they hold has a place and nothing else is said.

The table is waited for on a positive sign: the tray it last judged (`tray`'s cells, and a tile
over the scan pad or none) is the tray they made.
"""

from __future__ import annotations

import random

from dominotable.games import catalog
from dominotable.reading.instruction import Do, Step
from dominotable.rules.tiles import DominoSet, Tile
from dominotable.sim.hands.base import lay_aside
from dominotable.sim.memtray import MemoryTray
from dominotable.tray.action import Action, ActionKind
from dominotable.tray.geometry import default
from dominotable.tray.tags import Registry

from support import follow
from support.polling import until

PLAY_ON = ("End turn", "pass")  # the buttons that end a turn, or give it up


class People:
    def __init__(self, table, game: str, people: dict[str, int], seed: int, top: int = 6, dealt: int = 0):
        """`people`: their names and seats; `dealt`: the tiles each of them is dealt from the
        boneyard once the table's racks are full (Broadway's hand); none: they draw as they play."""
        self.t, self.seats, self.rng, self.dealt = table, people, random.Random(seed), dealt
        names = list(people)
        self.names = names
        self.drawn: set[str] = set()  # who has been dealt their hand this hand
        self.aside: set[Tile] = set()  # tiles out of the hand's play (captured, put aside) until gathered
        self.done: list[str] = []  # the last things done, to say where a run went wrong
        self.geometry = default()
        self.dset = DominoSet(top)
        self.tray = MemoryTray(Registry.virtual(self.dset), self.geometry)  # where they laid every tile
        self.pile = set(self.dset.tiles)  # the boneyard
        self.hands: dict[str, list[Tile]] = {name: [] for name in names}  # what each of them holds
        self.reader = catalog.reader_for(catalog.spec(game).new(None, {}, 0), self.geometry)
        self.silent: list[str] = []
        self.refused: list[str] = []
        self.stuck: list[str] = []
        self.turns = 0  # turns of theirs with an instruction read
        self.said: list[str] = []  # the words of every instruction of theirs, as the screen said them

    # -- the table ------------------------------------------------------------------------------

    def post(self, path: str, body: dict) -> tuple[int, dict]:
        status, answer = self.t.post(path, body)
        assert status < 500, (path, body, status, answer)
        return status, answer

    def state(self, timeout: float = 20.0) -> dict:
        """The table's state once it has judged the tray as they made it."""
        mine = sorted(tuple(sorted(c)) for c in self.tray.tiles.values() if not self.geometry.is_pad(c[0]))
        held = any(self.geometry.is_pad(c[0]) for c in self.tray.tiles.values())  # over the scan pad
        seen = {}

        def judged() -> bool:
            status, seen["state"] = self.t.get("/api/state")
            state = seen["state"]
            return status == 200 and state["screen"]["kind"] != "menu" and (state["pad"] is not None) == held \
                and sorted(tuple(sorted(t["cells"])) for t in state["tray"]) == mine

        until(judged, timeout, what="the table to judge the tray", shows=lambda: seen["state"].get("screen"))
        return seen["state"]

    def state_when(self, predicate, what: str, timeout: float = 20.0) -> dict:
        seen = {}

        def holds() -> bool:
            seen["state"] = self.state()
            return predicate(seen["state"])

        until(holds, timeout, what=what, shows=lambda: seen["state"]["screen"])
        return seen["state"]

    def apply(self, action: Action) -> None:
        body = {"action": str(action.kind), "tile": f"{action.tile.a}-{action.tile.b}"}
        if action.cells:
            body["cells"] = list(action.cells)
        assert self.post("/api/tray", body)[0] == 200, body
        self.tray.apply(action)
        self.done = [*self.done[-15:], f"{action.kind} {action.tile} {list(action.cells)}"]

    def lay(self, tile: Tile, cells) -> None:
        self.pile.discard(tile)
        self.apply(Action(ActionKind.PLACE, tile, tuple(cells)))

    def lift(self, tile: Tile, back: bool = True) -> None:
        """`tile` off the tray: back to the boneyard, or (not `back`) aside, out of the hand's play
        (captured, a stopped column put aside) until the tiles are gathered."""
        self.apply(Action(ActionKind.REMOVE, tile))
        (self.pile if back else self.aside).add(tile)

    def choose(self, state: dict, label: str) -> bool:
        """The action labelled `label` (the menu's words), if offered."""
        offered = next((a for a in state["screen"]["actions"] if a["label"].lower() == label.lower()), None)
        if offered is None:
            return False
        status, answer = self.post("/api/action", {"action": offered["action"], "move": offered["move"]})
        assert status == 200, (label, status, answer, state["screen"]["title"], state["screen"]["text"])
        self.state_when(lambda now: now["screen"] != state["screen"], f"{label} done")  # the sign it was done
        return True

    # -- one step -------------------------------------------------------------------------------

    def step(self) -> bool:
        """One thing done at the table; False once the match is over."""
        state = self.state()
        screen = state["screen"]
        said = screen.get("instruction")
        if screen["kind"] == "over":
            return False
        if screen["game"]["mode"] == "restore":  # a new match: its tray set up empty, then judged
            for tile in list(self.tray.tiles):
                self.lift(tile)
            self.state_when(lambda state: state["screen"]["game"]["mode"] != "restore", "the table set up")
            return True
        if said is None and not screen["turn"] and screen["kind"] == "play":
            # the board judged held a tile half read (caught moving): the table says nothing until
            # the next board settles, and that one it judges
            self.state_when(lambda now: now["screen"] != screen, "the tray judged at rest")
            return True
        if said is not None and said["table"]:
            return self.for_the_table(said, state) or True
        if said is not None and said["seat"] is None:
            return self.noted(said, state) or True
        turn = screen["turn"]
        if turn in self.names:
            if said is None or said["who"] != turn:
                self.silent.append(f"{turn}'s turn with nothing said: {screen['title']!r} {screen['text']!r}, "
                                   f"after {self.done}")
                return self.way_out(state, turn) or True
            return self.my_turn(turn, said, state) or True
        raise AssertionError(f"nothing to do at: {screen['kind']} {screen['title']!r} {screen['text']!r}")

    def for_the_table(self, said: dict, state: dict) -> None:
        """What a seat the table plays does next, as its typed instruction says it."""
        step = _step(said["steps"][0], self.dset)
        self.done.append(f"for {said['who']}: {step.do} {step.slots}")
        rack = next((r for r in state["screen"]["game"]["racks"] if r["seat"] == said["who"]), None)
        slots = type("Rack", (), {"slots": [tuple(s) for s in rack["slots"]]}) if rack else None
        made = follow.actions(step, dict(self.tray.tiles), self.geometry, slots,
                              drawn=lambda: self.draw())
        assert made, f"an instruction no one can follow: {said}"
        for action in made:
            if action.kind == ActionKind.REMOVE:
                self.lift(action.tile, back=step.do == Do.EMPTY)
            elif action.kind == ActionKind.PAD:
                self.apply(action)
            else:
                self.pile.discard(action.tile)
                self.apply(action)

    def draw(self) -> Tile:
        tile = self.rng.choice(sorted(self.pile))
        self.pile.discard(tile)
        return tile

    def noted(self, said: dict, state: dict) -> None:
        """What the table waits for from anyone, in a reader's words: a draw over the scan pad, a
        starting row, the tray gathered, who leads, the tiles left shown."""
        text = said["steps"][0]["label"]
        self.done.append(f"note {text[:40]}")
        if "over the scan pad" in text:
            tile = self.draw()
            self.apply(Action(ActionKind.PAD, tile))
            self.state()
            self.apply(Action(ActionKind.UNPAD, tile))
            self.pile.add(tile)
        elif "gather the tiles" in text or "clear the tray" in text or "clear the row" in text:
            for tile in [t for t, c in self.tray.tiles.items() if not self._in_rack(c, state)]:
                self.lift(tile)
            for name in self.names:  # their hands go back too, and what was aside
                self.pile.update(self.hands[name])
            self.pile |= self.aside
            self.hands, self.drawn, self.aside = {name: [] for name in self.names}, set(), set()
        elif "off the scrap zone and shuffle them" in text:  # the scrap pile is the new draw pile
            for name in text.split("take ")[1].split(" off the scrap zone")[0].split():
                self.lift(self.dset.parse(name))
        elif "lay out the starting row" in text:
            for k in range(int(text.split("(")[1].split()[0])):
                self.lay(self.draw(), self.reader.slots[k])
        elif "choose who leads" in text:  # their hands dealt; the double's holder leads
            for name in self.names:
                self.hand(name)
            double = self.dset.parse(text.split(" on ")[1].split(":")[0])
            holder = next((n for n in self.names if double in self.hands[n]), None)
            if holder is None:  # the double is left in the boneyard: whoever leads is given it
                holder = self.names[0]
                self.hands[holder][0], self.pile = double, (self.pile | {self.hands[holder][0]}) - {double}
            seat = ("North", "East", "South", "West")[self.seats[holder]]
            assert self.choose(state, f"{seat} leads"), (seat, state["screen"]["actions"])
        elif "show your tiles" in text:
            name = next(n for n in self.names if self.hands[n])
            for action in lay_aside(self.tray.board(), self.hands.pop(name)):
                self.lay(action.tile, action.cells)
            self.hands[name] = []
        else:
            raise AssertionError(f"a note no one can follow: {text!r}")

    def _in_rack(self, cells, state: dict) -> bool:
        return any(tuple(sorted(cells)) in {tuple(sorted(s)) for s in r["slots"]} for r in state["screen"]["game"]["racks"])

    def my_turn(self, name: str, said: dict, state: dict) -> None:
        """Their own turn, as the instruction says it: a tile laid where the page offers it (one of
        theirs, or drawn), the other ways on, a button that ends the turn."""
        self.turns += 1
        self.said.append(state["screen"]["text"])
        steps = [_step(s, self.dset) for s in said["steps"]]
        finish = steps[-1].do in (Do.PRESS, Do.DONE) or any(w[-1]["do"] == "press" for w in said["instead"])
        if not finish:
            self.silent.append(f"{name}: no way to finish the turn said: {state['screen']['text']!r}")
        if steps[0].do == Do.LAY and self.lay_offered(name, state):
            return
        for way in [steps, *([_step(s, self.dset) for s in w] for w in said["instead"])]:
            if way[0].do == Do.PRESS and self.choose(state, way[0].label):
                return
            if way[0].do in (Do.SLIDE, Do.TAKE) and way[0].tiles:  # tiles moved first: slid, or put aside
                for action in follow.actions(way[0], dict(self.tray.tiles), self.geometry) or []:
                    if action.kind == ActionKind.REMOVE and way[0].do == Do.TAKE:
                        self.lift(action.tile, back=False)
                    else:
                        self.apply(action)
                return
        if steps[0].do == Do.TAKE and self.choose(state, "End turn"):
            return
        self.stuck.append(f"{name}: no tile held has a place, and nothing else to do: {state['screen']['text']!r}")
        self.way_out(state, name)

    def hand(self, name: str) -> list[Tile]:
        """The tiles `name` may lay: their own (dealt once a hand, in a game where the table deals
        hands to people), else any from the boneyard (drawn now)."""
        if self.dealt and name not in self.drawn:
            self.drawn.add(name)
            self.hands[name] = [self.draw() for _ in range(min(self.dealt, len(self.pile)))]
        return list(self.hands[name]) if self.dealt else sorted(self.pile)

    def lay_offered(self, name: str, state: dict) -> bool:
        tiles = self.hand(name)
        self.rng.shuffle(tiles)
        for tile in tiles[:12]:
            status, answer = self.t.get(f"/api/targets?tile={tile.a}-{tile.b}")
            assert status == 200, answer
            if not answer["targets"]:
                continue
            cells = self.rng.choice(answer["targets"])
            moves = state["screen"]["game"]["moves"]
            self.lay(tile, cells)
            if tile in self.hands[name]:
                self.hands[name].remove(tile)
            after = self.state()
            screen = after["screen"]
            if screen["game"]["moves"] <= moves or screen["problem"] or screen["title"] in ("Take back?", "Fix the tray"):
                self.refused.append(f"{tile} on {cells} offered, then {screen['title']!r} {screen['text']!r}")
                self.lift(tile)
            return True
        return False

    def way_out(self, state: dict, name: str) -> None:
        """Nothing said, or nothing to do: the buttons that move the match on, else resign."""
        if not any(self.choose(state, label) for label in PLAY_ON):
            assert self.choose(state, "Resign"), f"{name} cannot even resign: {state['screen']}"


def _step(data: dict, dset: DominoSet) -> Step:
    """A step as the page receives it (Screen.to_dict), typed again."""
    return Step(Do(data["do"]), tuple(dset.parse(t) for t in data["tiles"]), tuple(data["cells"]),
                tuple(data["slots"]), data["place"], tuple(data["by"]) if data["by"] else None, data["count"],
                data["label"])
