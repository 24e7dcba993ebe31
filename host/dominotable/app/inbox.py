"""What the table's loop (app/runtime.py) is sent, one typed message each, by whoever may send it:

- `Event` (tray/link.py): the tray link's reader thread: the link lost or back, a SNAPSHOT or
  CHANGES frame with the whole tray it left (the board the match judges);
- `Press` (ui/press.py): the buttons' callbacks (gpiozero's thread, the keyboard, the bots);
- `Choice` (ui/menu.py) and `Act`: the page's setup form and its in-game actions, checked in the
  page's thread before they are sent;
- `PartnerEvent` and `Invitation` (app/partner.py): what the venue link heard of the partner;
- `Stop`: wakes the loop so that it ends.
"""

from __future__ import annotations

from dataclasses import dataclass

from dominotable.app.partner import Invitation, PartnerEvent
from dominotable.match.actions import Action
from dominotable.tray.link import Event
from dominotable.ui.menu import Choice
from dominotable.ui.press import Press


@dataclass(frozen=True)
class Act:
    """One of the actions that apply now (the in-game menu's), chosen on the page."""

    action: Action


@dataclass(frozen=True)
class Stop:
    """Wakes the loop so that it sees it is stopped."""


Message = Event | Press | Choice | Act | PartnerEvent | Invitation | Stop
