"""Which reader serves which cell: a reader per block of cells, switching the block's coils
(hardware/data/architecture.toml). Cells are numbered as in tray.toml; the readers of the grid
blocks are numbered row-major, the scan pad's reader after them.
"""


def blocks(cols, rows, pad_cells, block_cols, block_rows):
    """(reader of each cell, coil of each cell on its reader) as (list, bytes)."""
    across = -(-cols // block_cols)
    reader_of = []
    coil_of = bytearray()
    for cell in range(cols * rows):
        row, col = divmod(cell, cols)
        reader_of.append((row // block_rows) * across + col // block_cols)
        coil_of.append((row % block_rows) * block_cols + col % block_cols)
    pad_reader = across * -(-rows // block_rows)
    for i in range(pad_cells):
        reader_of.append(pad_reader)
        coil_of.append(i)
    return reader_of, bytes(coil_of)
