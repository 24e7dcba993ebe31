"""Generate firmware/dominotray/pins.py from hardware/wiring.toml (the one copy of the pinout),
hardware/tray.toml (the grid: columns, rows, scan pad), hardware/data/architecture.toml (the
carrier drive the RF model chose) and hardware/data/led_timing.toml (the cell LEDs' bit timing).

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
ARCHITECTURE = ROOT / "hardware" / "data" / "architecture.toml"
LED_TIMING = ROOT / "hardware" / "data" / "led_timing.toml"
PINS = ROOT / "firmware" / "dominotray" / "pins.py"
sys.path.insert(0, str(ROOT / "firmware"))
from dominotray.layout import blocks  # noqa: E402

# Board decoders by part: their address inputs and outputs ("direct": a bank output itself)
DECODERS = {"74HC154": (4, 16), "74HC139": (2, 4), "74LVC1G139": (2, 4), "direct": (0, 1)}

# RP2040 SPI0 pin functions, and GPIOs the Pico board uses itself (SMPS mode, VBUS sense,
# LED, VSYS sense) or does not bring out.
SPI0 = {"sck": (2, 6, 18, 22), "mosi": (3, 7, 19), "miso": (0, 4, 16, 20)}
SPI1 = {"sck": (10, 14), "mosi": (11, 15), "miso": (8, 12)}
RESERVED = (23, 24, 25, 29)


class WiringError(ValueError):
    pass


def _toml(path):
    with open(path, "rb") as f:
        return tomllib.load(f)


def load(path=WIRING, tray_path=TRAY, architecture_path=ARCHITECTURE, led_path=LED_TIMING):
    """The checked wiring as a dict of the values pins.py holds."""
    w, geometry, arch = _toml(path), _toml(tray_path), _toml(architecture_path)
    net, up = arch["network"], arch["bringup"]
    cols, rows = geometry["tray"]["columns"], geometry["tray"]["rows"]
    pad = geometry["scan_pad"]["cells"]
    if pad != list(range(cols * rows, cols * rows + len(pad))):
        raise WiringError("scan pad cells %s do not follow the %dx%d grid" % (pad, cols, rows))
    cells = cols * rows + len(pad)
    block = w["blocks"]
    reader_of, _coil_of = blocks(cols, rows, len(pad), block["cols"], block["rows"])
    readers = max(reader_of) + 1
    spi, sel = w["spi"], w["select"]
    gpios = {
        "spi.sck": spi["sck"], "spi.mosi": spi["mosi"], "spi.miso": spi["miso"],
        "select.strobe": sel["strobe"], "reset.pin": w["reset"]["pin"], "repl.jumper": w["repl"]["jumper"],
    }
    for i, pin in enumerate(sel["line_address"]):
        gpios["select.line_address[%d]" % i] = pin
    for i, pin in enumerate(sel["bank_address"]):
        gpios["select.bank_address[%d]" % i] = pin
    coils = w["coils"]["select"]
    for i, pin in enumerate(coils):
        gpios["coils.select[%d]" % i] = pin
    for i, pin in enumerate(w["lights"]["pins"]):
        gpios["lights.pins[%d]" % i] = pin
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
    if len(sel["bank_address"]) != 4:
        raise WiringError("a 74HC154 takes 4 address lines")
    per_reader = block["cols"] * block["rows"]
    if 1 << len(coils) != per_reader:
        raise WiringError("coils.select has %d lines: a block of %d coils needs %d" % (
            len(coils), per_reader, per_reader.bit_length() - 1))
    select = [None] * readers
    banks = set()
    for dec in w["decoder"]:
        if dec["bank"] in banks or not 0 <= dec["bank"] < 16:
            raise WiringError("decoder %s: bank %d is used twice or out of range" % (dec["ref"], dec["bank"]))
        banks.add(dec["bank"])
        if dec["part"] not in DECODERS:
            raise WiringError("decoder %s: unknown part %s (known: %s)" % (dec["ref"], dec["part"], sorted(DECODERS)))
        inputs, outputs = DECODERS[dec["part"]]
        if inputs > len(sel["line_address"]):
            raise WiringError("decoder %s: a %s takes %d address lines, line_address has %d" % (
                dec["ref"], dec["part"], inputs, len(sel["line_address"])))
        if len(dec["readers"]) != outputs:
            raise WiringError("decoder %s lists %d outputs, a %s has %d" % (
                dec["ref"], len(dec["readers"]), dec["part"], outputs))
        for line, reader in enumerate(dec["readers"]):
            if reader == -1:
                continue
            if not 0 <= reader < readers:
                raise WiringError("decoder %s output %d: no reader %d; the %dx%d + %d tray of tray.toml in "
                                  "%dx%d blocks has %d" % (dec["ref"], line, reader, cols, rows, len(pad),
                                                           block["cols"], block["rows"], readers))
            if select[reader] is not None:
                raise WiringError("reader %d is wired to two chip selects" % reader)
            select[reader] = dec["bank"] << 4 | line
    missing = [r for r in range(readers) if select[r] is None]
    if missing:
        raise WiringError("readers without a chip select: %s" % missing)
    chains = light_chains(w, reader_of, cols, pad)
    return {
        "COLS": cols, "ROWS": rows, "PAD_CELLS": len(pad), "CELLS": cells,
        "BLOCK_COLS": block["cols"], "BLOCK_ROWS": block["rows"], "READERS": readers,
        "TX_DRIVE": net["drive"],
        "FACE_DOWN_PERCENT": round(100 * net["face_down"]),
        "FACE_DOWN_MARGIN_PERCENT": round(100 * up["face_down_margin_min"]),
        "SPI_MAX_US": up["spi_max_us"],
        "SPI_ID": spi["id"], "SPI_BAUDRATE": spi["baudrate"], "SPI_POLARITY": spi["polarity"],
        "SPI_PHASE": spi["phase"], "SCK": spi["sck"], "MOSI": spi["mosi"], "MISO": spi["miso"],
        "LINE_ADDRESS": tuple(sel["line_address"]), "BANK_ADDRESS": tuple(sel["bank_address"]),
        "STROBE": sel["strobe"], "RESET": w["reset"]["pin"], "REPL_JUMPER": w["repl"]["jumper"],
        "COIL_SELECT": tuple(coils),
        "SELECT": bytes(select),
        "LIGHT_CHAINS": chains, **light_limits(w["lights"], _toml(led_path)),
    }


def light_chains(w, reader_of, cols, pad):
    """((GPIO, the cells along its chain from the controller), ...): the cell boards, in bank order,
    shared evenly among the chains (one a cable, in the order down it), the scan pad's LEDs first on
    its chain; within a board serpentine from its lowest cell, its first row left to right."""
    lights = w["lights"]
    if lights["within_board"] != "serpentine":
        raise WiringError('lights.within_board = %r: only "serpentine" is wired' % lights["within_board"])
    boards = sorted((d for d in w["decoder"] if d["part"] != "direct"), key=lambda d: d["bank"])
    pins = lights["pins"]
    if not pins or len(boards) % len(pins):
        raise WiringError("%d cell boards do not share evenly among %d light chains" % (len(boards), len(pins)))
    if not 0 <= lights["pad_chain"] < len(pins):
        raise WiringError("lights.pad_chain = %d: there are chains 0-%d" % (lights["pad_chain"], len(pins) - 1))
    per = len(boards) // len(pins)
    chains = []
    for c, pin in enumerate(pins):
        order = list(pad) if c == lights["pad_chain"] else []
        for board in boards[c * per:(c + 1) * per]:
            cells = sorted(cell for cell in range(len(reader_of) - len(pad)) if reader_of[cell] in board["readers"])
            rows = sorted({cell // cols for cell in cells})
            for i, row in enumerate(rows):
                along = [cell for cell in cells if cell // cols == row]
                order.extend(along if i % 2 == 0 else along[::-1])
        chains.append((pin, bytes(order)))
    lit = sorted(cell for _, order in chains for cell in order)
    if lit != list(range(len(reader_of))):
        raise WiringError("the light chains do not reach every cell once")
    return tuple(chains)


def light_limits(lights, led):
    """The brightness cap and frame rate the firmware keeps, and the LEDs' bit timing windows (min,
    max) from their datasheet's typical figures and tolerances."""
    if not 0 < lights["brightness"] <= 255:
        raise WiringError("lights.brightness = %r is not a channel cap from 1 to 255" % lights["brightness"])
    if not 1 <= lights["max_fps"] <= 100:
        raise WiringError("lights.max_fps = %r is not a frame rate from 1 to 100" % lights["max_fps"])
    if led["led"]["order"] != "GRB":
        raise WiringError("led_timing.toml: the firmware sends GRB, the LED takes %s" % led["led"]["order"])
    t = led["timing"]
    window = {name: (t[name][0] - t[name][1], t[name][0] + t[name][1]) for name in ("t0h", "t0l", "t1h", "t1l", "bit")}
    return {"LIGHT_BRIGHTNESS": lights["brightness"], "LIGHT_MAX_FPS": lights["max_fps"],
            "LIGHT_T0H_NS": window["t0h"], "LIGHT_T0L_NS": window["t0l"], "LIGHT_T1H_NS": window["t1h"],
            "LIGHT_T1L_NS": window["t1l"], "LIGHT_BIT_NS": window["bit"], "LIGHT_RESET_US": t["reset_us"]}


def render(values):
    out = ['"""Generated from hardware/wiring.toml by firmware/gen_pins.py: do not edit."""', ""]
    for name, value in values.items():
        if name == "SELECT":
            out.append("# SELECT[reader] = bank << 4 | line: the two decoder addresses of its chip select")
            codes = ["0x%02x," % v for v in value]
            out.append("SELECT = bytes((")
            out.extend("    " + " ".join(codes[i:i + 16]) for i in range(0, len(codes), 16))
            out.append("))")
            continue
        if name == "LIGHT_CHAINS":
            out.append("# LIGHT_CHAINS[c] = (GPIO of chain c, the cells along it from the controller)")
            out.append("LIGHT_CHAINS = (")
            for pin, order in value:
                out.append("    (%d, bytes((" % pin)
                cells = ["%d," % cell for cell in order]
                out.extend("        " + " ".join(cells[i:i + 16]) for i in range(0, len(cells), 16))
                out.append("    ))),")
            out.append(")")
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
