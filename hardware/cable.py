"""The ribbon cable between boards, as both the schematic (circuit.py) and its checks (checks.py)
read it: a 2 x 10, 2.54 mm cable whose pin n carries CABLE[n - 1]. EN0 is the enable of the first
board down the chain; a board takes EN0 and passes EN1-EN3 on as EN0-EN2. LED is the light chain's
data: in on a board's "in" header, out (after the board's LEDs) on its "out" header. C0 and C1 are
the coil index every board's decoder turns into its coil selects (wiring.toml [coils])."""

CABLE = ("+5V", "+3V3", "GND", "+3V3", "SCK", "GND", "MOSI", "LED",
         "MISO", "RST", "A0", "A1", "EN0", "EN1", "EN2", "EN3",
         "C0", "C1", "GND", "+5V")
CABLE_SIGNALS = ("SCK", "MOSI", "MISO", "RST", "A0", "A1", "EN0", "EN1", "EN2", "EN3", "C0", "C1")
BOARDS_PER_CABLE = 4
