"""Which reader to read next, and when a reading is sure enough to report.

Confirming: a reading that differs from a cell's reported state is confirmed at once by
quick re-reads of that one cell, its field still on (no guard time): `confirm_present`
equal reads for a tag (after the full read, presence checks: the UID came with its BCC and
CRC), a stack or a fault, `confirm_absent` empty reads in a row for a removal. A marginal tag misses single wake-ups now and then, but a tag's UID is never read
where there is none, so removals need the stronger evidence; any answer (a tag, a garbled
exchange) cancels a removal. A new tag makes its empty neighbours *pending* (the other half
of its tile lies on one of them): pending cells are read before anything else.

Scheduling: five rings of cells, each read in turn, share the reads by stride scheduling
so that each ring's cells come round in proportion to its aimed-at period. A cell is in
the first ring that takes it:
- pad (`periods[0]`): the scan pad, while the host awaits a draw;
- hot (`periods[1]`): where the next tile will go and what changed: the empty black cells of
  the grid as a chessboard (a tile always covers one black and one white cell) next to a tile
  or next to an empty white cell next to a tile, and cells that changed in the last
  `recent_ms` (a tile found on its black half makes its white neighbours pending: below);
- occupied (`periods[2]`): cells holding a tag or a stack (to see a removal soon);
- watched (`periods[3]`): the cells the current game uses (the host's WATCH; every cell
  until it says);
- rest (`periods[4]`): every other cell, so that a tile anywhere is still seen.
The periods are what the rings aim at; when the tray cannot read that fast, all of them
stretch in proportion. Until every cell has been read once (boot), the scanner sweeps.

A cell whose tag is known is checked with a presence check (WUPA alone; see mfrc522.py)
on most visits, and read in full every `full_read_every`-th visit, and at once whenever a
neighbour changes (a tile slid along, or turned round, leaves another tag under a cell that
never stopped answering).

Fields: while one reader is read, the next `lookahead` readers of the schedule are woken so
that their guard times run meanwhile (`idle_lookahead` once the tray has been quiet for
`idle_ms`); two readers closer than `field_spacing` cells (rows
and columns both) never have their fields on together, so neighbouring antennas never
couple. The rings are ordered so that consecutive cells lie `field_spacing` apart.

A reader serving a block of cells (the driver's `reader_of`) has one field, on the coil the
tray's one coil index selects (the driver's `selected`, `select`): every awake reader's field is
on the same coil of its block. The scan goes by phases, one coil index each: the stride
scheduling picks among the rings' cells of that index only (each ring keeps its place per
index, and a ring with none on it keeps its share for its own phase), as many as the index's
cells ask for over one hot period (each ring's cells on it over the ring's period; at least
`phase_min`), so that the phases come round about once a hot period. The plan holds one phase's
cells; once they are read the index moves on, and with it every awake field (restarting their
guard times). A reader read keeps its field until its place is wanted: the next index may put
it on a planned cell of its own.
"""

from dominotray.mfrc522 import EMPTY, FAULT, GARBLED, STACK, TAG

_NOTHING = (EMPTY, b"")
_FAULTY = (FAULT, b"")


def grid_neighbours(cols, rows, pad_cells):
    """Per cell, the tuple of its edge neighbours: a cols x rows grid, row-major, then the
    scan pad's cells side by side."""
    out = []
    for cell in range(cols * rows):
        row, col = divmod(cell, cols)
        near = []
        if row:
            near.append(cell - cols)
        if col:
            near.append(cell - 1)
        if col < cols - 1:
            near.append(cell + 1)
        if row < rows - 1:
            near.append(cell + cols)
        out.append(tuple(near))
    first = cols * rows
    for i in range(pad_cells):
        out.append(tuple(first + j for j in (i - 1, i + 1) if 0 <= j < pad_cells))
    return out


class Scanner:
    def __init__(self, driver, neighbours, clock_ms, usable, cols=None, pad=(),
                 confirm_present=2, confirm_absent=6, periods=(60, 100, 250, 400, 450), recent_ms=500,
                 max_retries=6, lookahead=12, field_spacing=2, full_read_every=8, idle_ms=30000,
                 idle_lookahead=8, batch=2, phase_min=4):
        self.driver = driver
        self._reader_of = getattr(driver, "reader_of", None)  # cells sharing a reader share its field
        self._coil_of = getattr(driver, "coil_of", None)
        self._selected = getattr(driver, "selected", None)  # the coil index selects the cell
        self._coils = 1  # the most cells a reader serves: the coil indices the scan cycles through
        self._on = None  # per cell, a bit per coil index that puts its coil on its reader's network
        if self._reader_of is not None:
            counts = {}
            for r in self._reader_of:
                counts[r] = counts.get(r, 0) + 1
            self._coils = max(counts.values()) if counts else 1
            self._on = bytes(sum(1 << k for k in range(self._coils) if k % counts[r] == self._coil_of[c])
                             for c, r in enumerate(self._reader_of))
        self.neighbours = neighbours
        self.clock_ms = clock_ms
        self.cells = len(neighbours)
        self.pad = tuple(pad)
        self.playing = self.cells - len(self.pad)
        self.cols = cols or self.playing or 1
        self.confirm_present = confirm_present
        self.confirm_absent = confirm_absent
        self.periods = periods
        self.recent_ms = recent_ms
        self.max_retries = max_retries
        self.lookahead = lookahead
        self.idle_ms = idle_ms
        self.idle_lookahead = idle_lookahead
        self.batch = batch  # cells read together, their WUPAs overlapping on air
        self.phase_min = phase_min  # the fewest cells planned on one coil index before the next's
        self._index = 0  # the coil index the schedule picks cells of
        self._picks = 0  # cells picked on it
        self._active_at = clock_ms()  # the last change, or the host's last WATCH
        self.spacing = field_spacing
        self.full_read_every = full_read_every
        self.usable = list(usable)  # False: the reader failed its self-test; not polled
        self.state = [_NOTHING if ok else _FAULTY for ok in self.usable]
        self._visits = bytearray(self.cells)
        self._retries = bytearray(self.cells)
        self.pending = []
        self._changed_at = {}  # cell -> clock_ms of its last reported change
        self._row = [c // self.cols for c in range(self.cells)]
        self._col = [c % self.cols for c in range(self.cells)]
        # the grid as a chessboard: a tile covers one black cell and one white (row + column even:
        # black); the pad's cells count as black
        self._black = bytes(c >= self.playing or (self._row[c] + self._col[c]) % 2 == 0 for c in range(self.cells))
        self._order = sorted(range(self.cells), key=self._order_key)
        self._rank = bytearray(self.cells) if self.cells < 256 else [0] * self.cells
        for i in range(self.cells):
            self._rank[self._order[i]] = i
        self._mask = None  # watched cells (a bytes mask), None: every cell
        self._draw = False
        self._rings = [[], [], [], [], []]  # pad, hot, occupied, watched, rest
        self._at = [[0] * self._coils for _ in range(5)]  # per ring, a position per coil index
        self._pass = [0.0, 0.0, 0.0, 0.0, 0.0]
        self._v = 0.0
        self.plan = []  # the next cells of the schedule; their readers may be awake already
        self._unswept = set(c for c in range(self.cells) if self.usable[c])
        self._boot_i = 0  # until every cell has been read once, the scanner sweeps
        # completed full sweeps: every usable cell read since the last one (no usable cell: done)
        self.sweeps = 0 if self._unswept else 1
        self.reads = 0
        self.changes = []  # confirmed (cell, status, uid), drained by the caller
        self._rebuild()

    @property
    def settled(self):
        """True once every cell has been read and nothing is waiting for a re-read."""
        return self.sweeps > 0 and not self.pending

    # --- geometry ------------------------------------------------------------------------

    def _order_key(self, cell):
        if cell >= self.playing:
            return (1 << 30) + cell
        row, col = divmod(cell, self.cols)
        s = self.spacing
        if self._coils == 1:
            return ((row % s) * s + col % s) << 12 | cell
        # coil-major: the cells of one coil index together, blocks field_spacing apart (in blocks)
        first = self._reader_of.index(self._reader_of[cell])
        r0, c0 = divmod(first, self.cols)
        bh = bw = 1
        while first + bw < self.playing and self._reader_of[first + bw] == self._reader_of[first]:
            bw += 1
        while first + bh * self.cols < self.playing and self._reader_of[first + bh * self.cols] == self._reader_of[first]:
            bh += 1
        sr, sc = -(-s // bh), -(-s // bw)
        return (self._coil_of[cell] << 4 | ((r0 // bh) % sr) * sc + (c0 // bw) % sc) << 16 | first

    def near(self, a, b):
        """Too close to have both fields on: one reader's cells, within field_spacing on the
        grid, or both on the pad (the pad lies apart from the grid)."""
        reader_of = self._reader_of
        if reader_of is not None and reader_of[a] == reader_of[b]:
            return True
        playing = self.playing
        if a >= playing or b >= playing:
            return a >= playing and b >= playing
        s = self.spacing
        row, col = self._row, self._col  # (precomputed: this runs for every candidate of a step)
        return -s < row[a] - row[b] < s and -s < col[a] - col[b] < s

    # --- what the host says --------------------------------------------------------------

    def watch(self, mask, draw):
        """`mask[cell]` true: the game uses the cell (None: every cell); `draw`: a draw
        from the scan pad is awaited, so the pad is hot."""
        self._mask = mask
        self._draw = bool(draw)
        self._active_at = self.clock_ms()
        self._rebuild()

    # --- scheduling ----------------------------------------------------------------------

    def _rebuild(self):
        """Recompute the rings (hot and occupied from the current state, watched and rest
        from the host's WATCH); also expires old "recently changed" entries."""
        now = self.clock_ms()
        hot = set()
        for cell, at in list(self._changed_at.items()):
            if now - at > self.recent_ms:
                del self._changed_at[cell]
            else:
                hot.add(cell)
        state = self.state
        neighbours = self.neighbours
        black = self._black
        for cell in range(self.cells):
            if state[cell][0] == TAG:
                for near in neighbours[cell]:
                    if state[near][0] != EMPTY:
                        continue
                    if black[near]:
                        hot.add(near)
                    else:  # a tile on it has its other half on a black neighbour: reading those finds it
                        for far in neighbours[near]:
                            if state[far][0] == EMPTY:
                                hot.add(far)
        mask = self._mask
        usable = self.usable
        rings = [[], [], [], [], []]
        draw = self._draw
        playing = self.playing
        for cell in self._order:
            if usable[cell]:
                if draw and cell >= playing:
                    rings[0].append(cell)
                elif cell in hot:
                    rings[1].append(cell)
                elif state[cell][0] == TAG or state[cell][0] == STACK:
                    rings[2].append(cell)
                else:
                    rings[3 if mask is None or mask[cell] else 4].append(cell)
        rank = self._rank
        for i in range(5):
            old = self._rings[i]
            if rings[i] and not old and self._pass[i] < self._v:
                self._pass[i] = self._v  # a ring that was empty joins now, without a backlog
            if rings[i] != old:
                # Carry on from where the old ring was: its next cell, or the one after it.
                new = rings[i]
                for k in range(self._coils):
                    at = self._at[i][k]
                    mark = rank[old[at]] if at < len(old) else len(rank)
                    at = 0
                    while at < len(new) and rank[new[at]] < mark:
                        at += 1
                    self._at[i][k] = at
        self._rings = rings
        counts = self._counts = [[0] * self._coils for _ in range(5)]  # per ring, its cells per coil index
        for i in range(5):
            for c in rings[i]:
                for k in range(self._coils):
                    if self._on is None or self._on[c] >> k & 1:
                        counts[i][k] += 1
        # a phase's length: what its index's cells ask for over one hot period (the rings' cells
        # over their periods), so that the phases come round about once a hot period
        self._phase_len = [max(self.phase_min, int(self.periods[1] * sum(
            self._counts[i][k] / self.periods[i] for i in range(5)) + 0.999)) for k in range(self._coils)]

    def _expired(self):
        now = self.clock_ms()
        for at in self._changed_at.values():
            if now - at > self.recent_ms:
                return True
        return False

    def _due(self, i, index):
        """Ring i's next cell of coil index `index` from that index's position (wrapping round
        once), or None. With several coil indices, not one planned already: the plan holds one
        index's cells, and a second read of one at once would find what the first did."""
        ring = self._rings[i]
        at = self._at[i][index]
        for _ in range(len(ring)):
            if at >= len(ring):
                at = 0
                if self._expired():  # a new round: "recently changed" cells leave the hot ring
                    self._rebuild()  # (a change of state or of the host's WATCH rebuilds at once)
                    ring = self._rings[i]
                    if not ring:
                        return None
            cell = ring[at]
            if self._on is None or self._on[cell] >> index & 1 and (self._coils == 1 or cell not in self.plan):
                self._at[i][index] = at + 1
                return cell
            at += 1
        return None

    def _pick(self):
        """The next cell of the schedule, or None: stride scheduling over the rings, among the
        cells of one coil index at a time. The plan holds one index's cells alone (its phase's
        length of them); once they are read, the next index's come."""
        if not self.sweeps:
            order = self._order
            for _ in range(self.cells):
                cell = order[self._boot_i % self.cells]
                self._boot_i += 1
                if cell in self._unswept and cell not in self.plan:
                    return cell
        for _ in range(self._coils + 1):
            index = self._index
            if self._picks < self._phase_len[index]:
                # the ring furthest behind first (a ring without cells on this index keeps its
                # place for its own)
                rings = [i for i in range(5) if self._counts[i][index]]
                rings.sort(key=lambda i: self._pass[i])
                for i in rings:
                    cell = self._due(i, index)
                    if cell is not None:
                        self._v = self._pass[i]
                        self._pass[i] += self.periods[i] / len(self._rings[i])
                        self._picks += 1
                        return cell
            if self.plan:
                return None  # the planned cells of this index first
            self._index = (index + 1) % self._coils
            self._picks = 0
        return None

    def _next(self):
        if self.pending:
            cell = self.pending.pop(0)
            self._retries[cell] += 1  # _unsure() puts it back while it is undecided
            return cell
        plan = self.plan
        if not plan:
            cell = self._pick()
            if cell is None:
                return None
            plan.append(cell)
        for cell in self.driver.awake:  # the one woken first: its guard time is over soonest
            if cell in plan:
                plan.remove(cell)
                return cell
        return plan.pop(0)

    def awake_limit(self):
        """How many readers may be awake: `lookahead`, or `idle_lookahead` once nothing has
        changed for `idle_ms` and no draw is awaited (the tray idles at a fraction of the
        power; the first change then takes a little longer to see, and restores the pace)."""
        if self._draw or self.clock_ms() - self._active_at < self.idle_ms:
            return self.lookahead
        return self.idle_lookahead

    def _prewake(self, cell):
        """Fields: none near `cell` while it is read; wake the planned readers that may. A reader
        awake for no waiting cell keeps its field until its place is wanted: the coil index may
        move it onto a cell of its own that is planned, without a wake."""
        driver = self.driver
        limit = self.awake_limit()
        reader_of = self._reader_of
        selected = self._selected
        if selected is not None and not selected(cell):
            driver.select(cell)  # before waking others: they wake on the new index
        for other in list(driver.awake):
            if other != cell and self.near(other, cell) and not (reader_of and reader_of[other] == reader_of[cell]):
                driver.sleep(other)
        while len(self.plan) < limit * self._coils:
            nxt = self._pick()
            if nxt is None:
                break
            self.plan.append(nxt)
        waiting = self.pending + self.plan
        awake = driver.awake
        idle = [c for c in awake if c != cell and c not in waiting]  # the places that may be wanted
        while len(awake) + (cell not in awake) > limit:  # the limit fell (the tray went quiet)
            later = [c for c in reversed(waiting) if c in awake and c != cell]
            driver.sleep(idle.pop() if idle else later[0])
        busy = set(reader_of[c] for c in awake) if reader_of else ()  # a reader's one field
        busy_cell = reader_of[cell] if reader_of else None
        for nxt in waiting:  # the cells waiting for a re-read first
            if reader_of and (reader_of[nxt] in busy or reader_of[nxt] == busy_cell):
                continue
            if selected is not None and not selected(nxt):
                continue
            if nxt == cell or nxt in awake or self.near(nxt, cell):
                continue
            for other in awake:
                if self.near(nxt, other):
                    break
            else:
                if len(awake) + (cell not in awake) >= limit:  # the cell read wakes too
                    if not idle:
                        break
                    driver.sleep(idle.pop(0))
                driver.wake(nxt)
                if reader_of:
                    busy.add(reader_of[nxt])

    # --- reading -------------------------------------------------------------------------

    def step(self):
        """Read one cell (with its quick re-reads), and with it the other planned cells whose
        field is up (their WUPAs overlap on air), and account for the results; returns the
        cell read first, or None when no reader is usable."""
        cell = self._next()
        if cell is None:
            return None
        self._prewake(cell)
        driver = self.driver
        batch = [cell]
        if self.batch > 1 and not self.pending:
            for other in driver.awake:
                if len(batch) >= self.batch:
                    break
                if other != cell and other in self.plan and driver.ready(other):
                    self.plan.remove(other)
                    batch.append(other)
        knowns = [self._known(c) for c in batch]
        try:
            firsts = driver.read_many(batch, knowns)
            for c, first in zip(batch, firsts):
                self._read(c, first)
        except BaseException:
            for c in batch:
                driver.sleep(c)
            raise
        for c in batch:
            if self._coils == 1:  # (a reader of several coils keeps its field for the next index)
                driver.sleep(c)
            self.reads += 1
            unswept = self._unswept
            unswept.discard(c)
            if not unswept:
                self.sweeps += 1
                self._unswept = set(x for x in range(self.cells) if self.usable[x])
        return cell

    def _known(self, cell):
        """The UID a presence check confirms on this visit, or None for a full read."""
        current = self.state[cell]
        visits = self._visits[cell] = (self._visits[cell] + 1) & 0xFF
        return current[1] if current[0] == TAG and visits % self.full_read_every else None

    def _read(self, cell, reading):
        """Account for a cell's reading: confirm a change by quick re-reads, then report it."""
        current = self.state[cell]
        driver = self.driver
        tries = 0
        while reading[0] == GARBLED and tries < self.max_retries:
            if current[0] == TAG:
                self._retries[cell] = 0
                return  # something answered: the tag is still there
            reading = driver.read_uid(cell)
            tries += 1
        if reading == current:
            self._retries[cell] = 0
            return
        if reading[0] == GARBLED:
            self._unsure(cell)
            return
        need = self.confirm_absent if reading[0] == EMPTY else self.confirm_present
        # a tag read in full is confirmed by presence checks: its UID came with BCC and CRC
        known = reading[1] if reading[0] == TAG else None
        for _ in range(need - 1):
            if driver.read_uid(cell, known) != reading:
                if reading[0] != EMPTY:
                    self._unsure(cell)
                return  # not confirmed: a removal is cancelled by any answer
        self._retries[cell] = 0
        for near in self.neighbours[cell]:
            if not self.usable[near] or near in self.pending:
                continue
            if self.state[near][0] == EMPTY and reading[0] == TAG and current[0] != TAG:
                self.pending.append(near)  # a new tag: its tile's other half may lie here
            elif self.state[near][0] == TAG:
                # A tile slid or turned: a neighbour still answering may hold another tag
                # now, which a presence check cannot tell; read it in full, now.
                self._visits[near] = self.full_read_every - 1
                self.pending.append(near)
        self.state[cell] = reading
        self.changes.append((cell, reading[0], reading[1]))
        self._changed_at[cell] = self._active_at = self.clock_ms()
        self._rebuild()

    def _unsure(self, cell):
        # After max_retries re-reads in a row without settling (a marginal tag), the cell
        # falls back to the normal schedule so that it cannot starve the others.
        if cell not in self.pending and self._retries[cell] < self.max_retries:
            self.pending.append(cell)

    def set_usable(self, cell, ok):
        """After a reader reset: a dead reader reports FAULT, a live one is re-read at once."""
        self.usable[cell] = ok
        self._retries[cell] = 0
        if cell in self.pending:
            self.pending.remove(cell)
        if not ok:
            if self.state[cell] != _FAULTY:
                self.state[cell] = _FAULTY
                self.changes.append((cell, FAULT, b""))
            self._unswept.discard(cell)
        else:
            self.pending.append(cell)
        self.plan = [c for c in self.plan if self.usable[c]]
        self._rebuild()

