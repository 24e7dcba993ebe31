"""Generate firmware/dominotray/pins.py from hardware/wiring.toml (the one copy of the pinout)
and hardware/tray.toml (the grid: columns, rows, scan pad).

    python firmware/gen_pins.py          # rewrite pins.py
    python firmware/gen_pins.py --check  # exit 1 if pins.py is out of date

The firmware cannot parse TOML on the Pico, so it imports the generated module instead.
`load()` also checks the wiring for mistakes a board would suffer from.
"""

import pathlib
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
WIRING = ROOT / "hardware" / "wiring.toml"
TRAY = ROOT / "hardware" / "tray.toml"
PINS = ROOT / "firmware" / "dominotray" / "pins.py"

# RP2040 SPI0 pin functions, and GPIOs the Pico board uses itself (SMPS mode, VBUS sense,
# LED, VSYS sense) or does not bring out.
SPI0 = {"sck": (2, 6, 18, 22), "mosi": (3, 7, 19), "miso": (0, 4, 16, 20)}
SPI1 = {"sck": (10, 14), "mosi": (11, 15), "miso": (8, 12)}
RESERVED = (23, 24, 25, 29)


class WiringError(ValueError):
    pass


def load(path=WIRING, tray_path=TRAY):
    """The checked wiring as a dict of the values pins.py holds."""
    with open(path, "rb") as f:
        w = tomllib.load(f)
    with open(tray_path, "rb") as f:
        geometry = tomllib.load(f)
    cols, rows = geometry["tray"]["columns"], geometry["tray"]["rows"]
    pad = geometry["scan_pad"]["cells"]
    if pad != list(range(cols * rows, cols * rows + len(pad))):
        raise WiringError("scan pad cells %s do not follow the %dx%d grid" % (pad, cols, rows))
    cells = cols * rows + len(pad)
    spi, sel = w["spi"], w["select"]
    gpios = {
        "spi.sck": spi["sck"], "spi.mosi": spi["mosi"], "spi.miso": spi["miso"],
        "select.strobe": sel["strobe"], "reset.pin": w["reset"]["pin"], "repl.jumper": w["repl"]["jumper"],
    }
    for i, pin in enumerate(sel["line_address"]):
        gpios["select.line_address[%d]" % i] = pin
    for i, pin in enumerate(sel["bank_address"]):
        gpios["select.bank_address[%d]" % i] = pin
    seen = {}
    for name, pin in gpios.items():
        if not 0 <= pin <= 28 or pin in RESERVED:
            raise WiringError("%s = GP%d is not a free Pico GPIO" % (name, pin))
        if pin in seen:
            raise WiringError("GP%d is used twice: %s and %s" % (pin, seen[pin], name))
        seen[pin] = name
    functions = (SPI0, SPI1)[spi["id"]]
    for role, allowed in functions.items():
        if spi[role] not in allowed:
            raise WiringError("spi.%s = GP%d cannot be SPI%d %s (allowed: %s)" % (
                role, spi[role], spi["id"], role, allowed))
    if len(sel["line_address"]) != 4 or len(sel["bank_address"]) != 4:
        raise WiringError("a 74HC154 takes 4 address lines")
    select = [None] * cells
    banks = set()
    for dec in w["decoder"]:
        if dec["bank"] in banks or not 0 <= dec["bank"] < 16:
            raise WiringError("decoder %s: bank %d is used twice or out of range" % (dec["ref"], dec["bank"]))
        banks.add(dec["bank"])
        if len(dec["cells"]) != 16:
            raise WiringError("decoder %s lists %d outputs, not 16" % (dec["ref"], len(dec["cells"])))
        for line, cell in enumerate(dec["cells"]):
            if cell == -1:
                continue
            if not 0 <= cell < cells:
                raise WiringError("decoder %s output %d: no cell %d on the %dx%d + %d tray of tray.toml" % (
                    dec["ref"], line, cell, cols, rows, len(pad)))
            if select[cell] is not None:
                raise WiringError("cell %d is wired to two chip selects" % cell)
            select[cell] = dec["bank"] << 4 | line
    missing = [c for c in range(cells) if select[c] is None]
    if missing:
        raise WiringError("cells without a chip select: %s" % missing)
    return {
        "COLS": cols, "ROWS": rows, "PAD_CELLS": len(pad), "CELLS": cells,
        "SPI_ID": spi["id"], "SPI_BAUDRATE": spi["baudrate"], "SPI_POLARITY": spi["polarity"],
        "SPI_PHASE": spi["phase"], "SCK": spi["sck"], "MOSI": spi["mosi"], "MISO": spi["miso"],
        "LINE_ADDRESS": tuple(sel["line_address"]), "BANK_ADDRESS": tuple(sel["bank_address"]),
        "STROBE": sel["strobe"], "RESET": w["reset"]["pin"], "REPL_JUMPER": w["repl"]["jumper"],
        "SELECT": bytes(select),
    }


def render(values):
    out = ['"""Generated from hardware/wiring.toml by firmware/gen_pins.py: do not edit."""', ""]
    for name, value in values.items():
        if name == "SELECT":
            out.append("# SELECT[cell] = bank << 4 | line: the two decoder addresses of its chip select")
            codes = ["0x%02x," % v for v in value]
            out.append("SELECT = bytes((")
            out.extend("    " + " ".join(codes[i:i + 16]) for i in range(0, len(codes), 16))
            out.append("))")
            continue
        out.append("%s = %r" % (name, value))
    return "\n".join(out) + "\n"


def main(argv):
    text = render(load())
    if "--check" in argv:
        if PINS.read_text() != text:
            print("%s is out of date: run python firmware/gen_pins.py" % PINS)
            return 1
        return 0
    PINS.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
