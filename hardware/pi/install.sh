#!/usr/bin/env bash
# Installs dominotable on Raspberry Pi OS (Bookworm or later) as a systemd service.
# Run from a checkout of the project:  sudo hardware/pi/install.sh
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run as root (sudo hardware/pi/install.sh)" >&2
    exit 2
fi
repo=$(cd "$(dirname "$0")/../.." && pwd)
prefix=/opt/dominotable

apt-get update
apt-get install -y python3-venv python3-dev i2c-tools

# The service user, in the groups that own the tray's tty, GPIO, I2C and SPI.
id dominotable >/dev/null 2>&1 || useradd --system --home-dir /var/lib/dominotable --create-home --shell /usr/sbin/nologin dominotable
for group in dialout gpio i2c spi; do
    getent group "$group" >/dev/null || groupadd --system "$group"
    usermod -a -G "$group" dominotable
done

python3 -m venv "$prefix/venv"
"$prefix/venv/bin/pip" install --upgrade pip
"$prefix/venv/bin/pip" install "$repo[pi]"

# A stable /dev/domino-tray for the tray's Pico (edit the serial number in the rule first).
install -m 0644 "$repo"/hardware/*.rules /etc/udev/rules.d/
udevadm control --reload-rules
udevadm trigger

# The OLED sits on I2C.
if command -v raspi-config >/dev/null; then
    raspi-config nonint do_i2c 0
fi

install -d -m 0755 /etc/dominotable
# The table's configuration (keys: README "Table configuration"); an existing one is kept.
if [ ! -e /etc/dominotable/config.toml ]; then
    cat > /etc/dominotable/config.toml <<'TOML'
# dominotable on the Pi: the real tray, OLED and buttons (pins: hardware/wiring.toml)
[tray]
port = "/dev/domino-tray"   # the udev rule's symlink; "auto" would fall back to a virtual tray
[display]
driver = "ssd1306"          # or sh1106
i2c_port = 1
address = 0x3C
[buttons]
up = 17
down = 27
select = 22
led = 23
buzzer = 24
pin_factory = "auto"        # lgpio on a Pi 5, RPi.GPIO before
[game]
settle_ms = 400
[storage]
database = "/var/lib/dominotable/dominotable.sqlite3"
TOML
    chmod 0644 /etc/dominotable/config.toml
fi
install -m 0644 "$repo/hardware/pi/dominotable.service" /etc/systemd/system/dominotable.service
systemctl daemon-reload
systemctl enable --now dominotable.service
echo "dominotable installed; follow it with: journalctl -fu dominotable"
