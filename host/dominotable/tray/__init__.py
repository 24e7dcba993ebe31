"""The tile tray on the host side: geometry, tag registry, boards, the serial link, enrollment
and the virtual tray. The wire codec itself is `dominotray.wire`, shared with the firmware."""
