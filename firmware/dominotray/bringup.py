"""Bring-up: what the board measures when the host sends BRINGUP (`dominotable tray bringup`).

For every reader: its self-test and its mean SPI transaction time, timed over SPI_SAMPLES
register reads (the figure the latency budget assumes: benchmarks/tray_latency.py). For every
cell: what it reads at the drive the firmware scans with, and for a tag, the weakest drive at
which it still answers (a binary search, the field off for FIELD_OFF_US before each try so the
tag powers up at that drive). The host judges the results (host/dominotable/tray/bringup.py).
"""

from dominotray.mfrc522 import FAULT, TAG, VERSION
from dominotray.wire import Probe

SPI_SAMPLES = 16
FIELD_OFF_US = 1000  # longer than a tag's supply capacitor carries it
_TICKS = 0x40000000  # MicroPython's ticks_us wrap (TICKS_PERIOD)


def probe(driver, cells, drive, feed=lambda: None):
    """A Probe per cell; `drive` is the CWGsPReg value the scan uses, restored after."""
    bus = driver.bus
    readers = {}
    out = []
    for cell in range(cells):
        r = driver.reader_of[cell]
        if r not in readers:
            present = driver.init(cell)
            start = bus.ticks_us()
            for _ in range(SPI_SAMPLES):
                driver.read(r, VERSION)
            readers[r] = (present, int(((bus.ticks_us() - start) % _TICKS) // SPI_SAMPLES))
        present, spi_us = readers[r]
        status, uid, weakest = FAULT, b"", 0
        if present:
            status, uid = driver.read_uid(cell)
            driver.sleep(cell)
            if status == TAG:
                weakest = _weakest(driver, cell, uid, drive)
        out.append(Probe(present, spi_us, status, uid, weakest))
        feed()
    return out


def _weakest(driver, cell, uid, drive):
    r = driver.reader_of[cell]
    lo, hi = 1, drive  # the tag answered at `drive`
    while lo < hi:
        mid = (lo + hi) // 2
        driver.set_drive(r, mid)
        driver.bus.wait_us(driver.bus.ticks_us(), FIELD_OFF_US)
        answered = driver.read_uid(cell, uid)[0] == TAG
        driver.sleep(cell)
        if answered:
            hi = mid
        else:
            lo = mid + 1
    driver.set_drive(r, drive)
    return lo
