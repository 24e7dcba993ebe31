"""Human-readable text for tray frames, for `dominotable tray monitor`."""

from __future__ import annotations

from dominotray import wire

from dominotable.tray.geometry import Geometry
from dominotable.tray.tags import Registry


def cell_text(cell: int, status: int, uid: bytes, geometry: Geometry, registry: Registry | None) -> str:
    where = geometry.label(cell)
    if status == wire.EMPTY:
        return f"{where} empty"
    if status == wire.FAULT:
        return f"{where} READER FAULT"
    if status == wire.STACK:
        return f"{where} stack of tags"
    half = registry.lookup(uid) if registry is not None else None
    return f"{where} tag {uid.hex()}" + (f" = {half}" if half else " (not enrolled)" if registry else "")


def frame_text(kind: int, seq: int, msg, geometry: Geometry, registry: Registry | None = None) -> str:
    head = f"#{seq:<3d} {wire.NAMES[kind]}"
    if kind == wire.HELLO:
        failed = msg.failed_cells()
        return (f"{head} protocol {msg.proto}, firmware {'.'.join(map(str, msg.fw))}, board {msg.board_id.hex()}, "
                f"{msg.cells} cells, self-test failed: "
                + (", ".join(geometry.label(c) for c in failed) if failed else "none"))
    if kind == wire.SNAPSHOT:
        tags = [(c, s, u) for c, (s, u) in enumerate(msg.cells) if s != wire.EMPTY]
        lines = [f"{head} ({wire.REASONS[msg.reason]}): {len(msg.cells)} cells, "
                 f"{sum(1 for _, s, _ in tags if s == wire.TAG)} tags, "
                 f"{sum(1 for _, s, _ in tags if s == wire.FAULT)} faults"]
        lines += ["      " + cell_text(c, s, u, geometry, registry) for c, s, u in tags]
        return "\n".join(lines)
    if kind == wire.CHANGES:
        return "\n".join([f"{head}: {len(msg)} change(s)"]
                         + ["      " + cell_text(c, s, u, geometry, registry) for c, s, u in msg])
    if kind == wire.LIGHTS_ACK:
        return f"{head} of LIGHTS #{msg[0]}: {'taken' if msg[1] == wire.TAKEN else 'REFUSED (another cell count)'}"
    return head


def errors_text(errors: dict[str, int]) -> str:
    shown = ", ".join(f"{kind} {n}" for kind, n in errors.items() if n)
    return f"frame errors: {shown or 'none'}"
