"""Open the tray the configuration names ([tray] port): a device path, "auto" (the real
tray if one is found, else a virtual one) or "none" (always the virtual tray). With `retry`, a
tray that answers but cannot be used yet is a lost link that keeps trying (TrayLink.open)."""

from __future__ import annotations

import logging

from dominotable.tray.errors import TrayNotFound
from dominotable.tray.link import UDEV_PATH, TrayLink, find_port
from dominotable.tray.virtual import VirtualTray

log = logging.getLogger("dominotable.tray")


class Tray:
    """A connected link, and the virtual tray behind it if there is one."""

    def __init__(self, link: TrayLink, virtual: VirtualTray | None = None):
        self.link = link
        self.virtual = virtual

    def close(self) -> None:
        self.link.close()
        if self.virtual is not None:
            self.virtual.stop()

    def __enter__(self) -> Tray:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_tray(port: str = "auto", serial_number: str | None = None, on_event=None, retry: bool = False,
              **virtual_options) -> Tray:
    geometry = virtual_options.get("geometry")
    if port.lower() != "none":
        try:
            find_port(port, serial_number)
        except TrayNotFound:
            if port != "auto":
                raise
            log.info("no tray at %s or by USB id: using the virtual tray", UDEV_PATH)
        else:
            # the link looks the tray up again at every reconnect: a replugged Pico may come back
            # as another /dev/ttyACMn
            return Tray(TrayLink(port, serial_number=serial_number, on_event=on_event, geometry=geometry).open(retry))
    virtual = VirtualTray(**virtual_options).start()
    try:
        return Tray(TrayLink(locate=lambda: virtual.path, on_event=on_event, geometry=geometry).open(retry), virtual)
    except BaseException:
        virtual.stop()
        raise
