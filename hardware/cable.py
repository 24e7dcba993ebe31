"""The ribbon cable between boards, as both the schematic (circuit.py) and its checks (checks.py)
read it: a 2 x 8, 2.54 mm cable whose pin n carries CABLE[n - 1]. EN0 is the enable of the first
board down the chain; a board takes EN0 and passes EN1-EN3 on as EN0-EN2. LED is the light chain's
data: in on a board's "in" header, out (after the board's LEDs) on its "out" header."""

CABLE = ("+5V", "+3V3", "GND", "+3V3", "SCK", "GND", "MOSI", "LED",
         "MISO", "RST", "A0", "A1", "EN0", "EN1", "EN2", "EN3")
CABLE_SIGNALS = ("SCK", "MOSI", "MISO", "RST", "A0", "A1", "EN0", "EN1", "EN2", "EN3")
BOARDS_PER_CABLE = 4


def pin(signal: str) -> str:
    """The header pin (a number, as a string) that carries `signal`."""
    return str(CABLE.index(signal) + 1)
