"""Generated from hardware/wiring.toml by firmware/gen_pins.py: do not edit."""

COLS = 16
ROWS = 12
PAD_CELLS = 2
CELLS = 194
BLOCK_COLS = 2
BLOCK_ROWS = 2
READERS = 49
TX_DRIVE = 22
FACE_DOWN_PERCENT = 100
FACE_DOWN_MARGIN_PERCENT = 200
SPI_MAX_US = 150
SPI_ID = 0
SPI_BAUDRATE = 4000000
SPI_POLARITY = 0
SPI_PHASE = 0
SCK = 18
MOSI = 19
MISO = 16
LINE_ADDRESS = (6, 7)
BANK_ADDRESS = (10, 11, 12, 13)
STROBE = 14
RESET = 15
REPL_JUMPER = 22
COIL_SELECT = (8, 9)
# SELECT[reader] = bank << 4 | line: the two decoder addresses of its chip select
SELECT = bytes((
    0x00, 0x01, 0x10, 0x11, 0x20, 0x21, 0x30, 0x31, 0x02, 0x03, 0x12, 0x13, 0x22, 0x23, 0x32, 0x33,
    0x40, 0x41, 0x50, 0x51, 0x60, 0x61, 0x70, 0x71, 0x42, 0x43, 0x52, 0x53, 0x62, 0x63, 0x72, 0x73,
    0x80, 0x81, 0x90, 0x91, 0xa0, 0xa1, 0xb0, 0xb1, 0x82, 0x83, 0x92, 0x93, 0xa2, 0xa3, 0xb2, 0xb3,
    0xc0,
))
# LIGHT_CHAINS[c] = (GPIO of chain c, the cells along it from the controller)
LIGHT_CHAINS = (
    (2, bytes((
        192, 193, 0, 1, 2, 3, 19, 18, 17, 16, 32, 33, 34, 35, 51, 50,
        49, 48, 4, 5, 6, 7, 23, 22, 21, 20, 36, 37, 38, 39, 55, 54,
        53, 52, 8, 9, 10, 11, 27, 26, 25, 24, 40, 41, 42, 43, 59, 58,
        57, 56, 12, 13, 14, 15, 31, 30, 29, 28, 44, 45, 46, 47, 63, 62,
        61, 60,
    ))),
    (3, bytes((
        64, 65, 66, 67, 83, 82, 81, 80, 96, 97, 98, 99, 115, 114, 113, 112,
        68, 69, 70, 71, 87, 86, 85, 84, 100, 101, 102, 103, 119, 118, 117, 116,
        72, 73, 74, 75, 91, 90, 89, 88, 104, 105, 106, 107, 123, 122, 121, 120,
        76, 77, 78, 79, 95, 94, 93, 92, 108, 109, 110, 111, 127, 126, 125, 124,
    ))),
    (4, bytes((
        128, 129, 130, 131, 147, 146, 145, 144, 160, 161, 162, 163, 179, 178, 177, 176,
        132, 133, 134, 135, 151, 150, 149, 148, 164, 165, 166, 167, 183, 182, 181, 180,
        136, 137, 138, 139, 155, 154, 153, 152, 168, 169, 170, 171, 187, 186, 185, 184,
        140, 141, 142, 143, 159, 158, 157, 156, 172, 173, 174, 175, 191, 190, 189, 188,
    ))),
)
LIGHT_BRIGHTNESS = 32
LIGHT_MAX_FPS = 30
LIGHT_T0H_NS = (150, 450)
LIGHT_T0L_NS = (750, 1050)
LIGHT_T1H_NS = (450, 750)
LIGHT_T1L_NS = (450, 750)
LIGHT_BIT_NS = (650, 1850)
LIGHT_RESET_US = 80
