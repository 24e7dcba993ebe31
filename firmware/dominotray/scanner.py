"""Which reader to read next, and when a reading has settled enough to report.

Debouncing: a cell's reported state changes only after `confirm_present` equal tag (or
fault) reads in a row. A removal needs `confirm_absent` empty reads in a row spanning at
least `absent_ms`: a marginal tag misses single wake-ups now and then, but a tag's UID is
never read where there is none, so removals need the stronger evidence. A read that
disagrees with the reported state makes the cell *pending*: pending cells are re-read before
anything else, so a change settles within a few milliseconds of its first sighting.

Scheduling: besides the full sweep (every cell in turn), a *hot* list gets `hot_share`
reads for every sweep read: empty cells next to an occupied one (where the next tile will
go), cells that changed in the last `recent_ms`, and the scan pad. The sweep still reaches
every cell, only more slowly. When a new tag is first seen, its empty neighbours are
re-read at once too: the other half of its tile lies on one of them.
`hot_share=0, max_retries=0` gives a plain round-robin sweep.

A GARBLED read (the tag answered, but with a CRC, parity or collision error) is evidence
that something is there: it cancels a pending removal and never confirms one.
"""

from dominotray.mfrc522 import EMPTY, TAG, FAULT, GARBLED

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
    def __init__(self, driver, neighbours, clock_ms, usable, always_hot=(),
                 confirm_present=2, confirm_absent=3, absent_ms=60, hot_share=3, recent_ms=500,
                 max_retries=6):
        self.driver = driver
        self.neighbours = neighbours
        self.clock_ms = clock_ms
        self.cells = len(neighbours)
        self.always_hot = tuple(always_hot)
        self.confirm_present = confirm_present
        self.confirm_absent = confirm_absent
        self.absent_ms = absent_ms
        self.hot_share = hot_share
        self.recent_ms = recent_ms
        self.max_retries = max_retries
        self.usable = list(usable)  # False: the reader failed its self-test; not polled
        self.state = [_NOTHING if ok else _FAULTY for ok in self.usable]
        self._candidate = [None] * self.cells
        self._count = [0] * self.cells
        self._since = [0] * self.cells  # clock_ms of the candidate's first read
        self._retries = [0] * self.cells
        self.pending = []
        self._changed_at = {}  # cell -> clock_ms of its last reported change
        self.hot = []
        self._hot_i = 0
        self._sweep_i = 0
        self._step = 0
        self.sweeps = 0  # completed full sweeps
        self.reads = 0
        self.changes = []  # confirmed (cell, status, uid), drained by the caller
        self._rebuild_hot()

    @property
    def settled(self):
        """True once a full sweep has completed and nothing is waiting for a re-read."""
        return self.sweeps > 0 and not self.pending

    # --- scheduling ----------------------------------------------------------------------

    def _rebuild_hot(self):
        now = self.clock_ms()
        hot = set(self.always_hot)
        for cell, at in list(self._changed_at.items()):
            if now - at > self.recent_ms:
                del self._changed_at[cell]
            else:
                hot.add(cell)
        for cell in range(self.cells):
            if self.state[cell][0] == TAG:
                for near in self.neighbours[cell]:
                    if self.state[near][0] == EMPTY:
                        hot.add(near)
        self.hot = sorted(c for c in hot if self.usable[c])
        self._hot_i %= max(1, len(self.hot))

    def next_cell(self):
        if self.pending:
            cell = self.pending.pop(0)
            self._retries[cell] += 1  # observe() puts it back while it is undecided
            return cell
        self._step += 1
        if self.sweeps and self.hot_share and self.hot and self._step % (self.hot_share + 1):
            if self._hot_i >= len(self.hot):
                self._hot_i = 0
                self._rebuild_hot()  # also expires old "recently changed" entries
                if not self.hot:
                    return self._next_sweep()
            cell = self.hot[self._hot_i]
            self._hot_i += 1
            return cell
        return self._next_sweep()

    def _next_sweep(self):
        for _ in range(self.cells):
            cell = self._sweep_i
            self._sweep_i += 1
            if self._sweep_i == self.cells:
                self._sweep_i = 0
                self.sweeps += 1
            if self.usable[cell]:
                return cell
        return None

    # --- reading -------------------------------------------------------------------------

    def step(self):
        """Read one cell and account for the result; returns the cell read, or None."""
        cell = self.next_cell()
        if cell is not None:
            self.reads += 1
            self.observe(cell, self.driver.read_uid(cell))
        return cell

    def observe(self, cell, reading):
        status, uid = reading
        current = self.state[cell]
        if status == GARBLED:
            # Something answered: a pending removal is wrong, anything else stays undecided.
            if self._candidate[cell] is not None and self._candidate[cell][0] == EMPTY:
                self._clear(cell)
            elif current[0] != TAG:
                self._make_pending(cell)
            return
        value = (status, uid)
        if value == current:
            self._clear(cell)
            return
        if value == self._candidate[cell]:
            self._count[cell] += 1
        else:
            self._candidate[cell] = value
            self._count[cell] = 1
            self._since[cell] = self.clock_ms()
            if status == TAG and current[0] != TAG:
                # A new tag: its tile's other half lies on a neighbour; look there now.
                for near in self.neighbours[cell]:
                    if self.state[near][0] == EMPTY and self.usable[near]:
                        self._make_pending(near)
        if status == EMPTY:
            done = (self._count[cell] >= self.confirm_absent
                    and self.clock_ms() - self._since[cell] >= self.absent_ms)
        else:
            done = self._count[cell] >= self.confirm_present
        if done:
            self._clear(cell)
            self.state[cell] = value
            self.changes.append((cell, status, uid))
            self._changed_at[cell] = self.clock_ms()
            self._rebuild_hot()
        else:
            self._make_pending(cell)

    def _make_pending(self, cell):
        # After max_retries re-reads in a row without settling (a marginal tag), the cell
        # falls back to the normal schedule so that it cannot starve the others.
        if cell not in self.pending and self._retries[cell] < self.max_retries:
            self.pending.append(cell)

    def _clear(self, cell):
        self._candidate[cell] = None
        self._count[cell] = 0
        self._retries[cell] = 0
        if cell in self.pending:
            self.pending.remove(cell)

    def set_usable(self, cell, ok):
        """After a reader reset: a dead reader reports FAULT, a live one is re-read at once."""
        self.usable[cell] = ok
        self._clear(cell)
        if not ok:
            if self.state[cell] != _FAULTY:
                self.state[cell] = _FAULTY
                self.changes.append((cell, FAULT, b""))
        else:
            self._make_pending(cell)
        self._rebuild_hot()
