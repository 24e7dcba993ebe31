#!/usr/bin/env bash
# Installs dominotable on Raspberry Pi OS (Bookworm or Trixie) as a systemd service.
# Plug the tray in first, then from a checkout of the project:
#     sudo hardware/pi/install.sh [--serial SERIAL]
#
# It records the tray's USB serial number (found under /dev/serial/by-id, or given) in the
# udev rule, so /dev/domino-tray names this tray and ModemManager leaves it alone; makes a
# venv that sees the apt packages (python3-lgpio: gpiozero's pin factory on every Pi model);
# enables I2C at 400 kHz for the OLED; writes /etc/dominotable/config.toml unless one exists;
# and enables the service. Running it again is harmless.
#
# DOMINOTABLE_ROOT (tests only): a throwaway root every path is written under; PYTHON: the
# interpreter that makes the venv.
set -euo pipefail

root=${DOMINOTABLE_ROOT:-}
python=${PYTHON:-python3}
serial=""

usage() {
    echo "usage: sudo hardware/pi/install.sh [--serial SERIAL]" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --serial) [ $# -ge 2 ] || usage; serial=$2; shift 2 ;;
        -h|--help) usage ;;
        *) echo "install.sh: unknown argument $1" >&2; usage ;;
    esac
done

if [ -z "$root" ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run as root (sudo hardware/pi/install.sh)" >&2
    exit 2
fi
repo=$(cd "$(dirname "$0")/../.." && pwd)
prefix=/opt/dominotable

# --- the tray's serial number, before anything is changed --------------------------------
# A MicroPython Pico shows up as /dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_<serial>-if00.
if [ -z "$serial" ]; then
    found=()
    for link in "$root"/dev/serial/by-id/usb-MicroPython_*-if00; do
        [ -e "$link" ] || [ -L "$link" ] || continue
        name=${link##*/}
        name=${name%-if00}
        found+=("${name##*_}")
    done
    if [ ${#found[@]} -eq 0 ]; then
        echo "install.sh: no tray found under /dev/serial/by-id: plug the tray's Pico into the Pi" \
             "(it must run the tray firmware, see firmware/README.md) and run install.sh again," \
             "or give its serial number with --serial" >&2
        exit 2
    fi
    if [ ${#found[@]} -gt 1 ]; then
        echo "install.sh: ${#found[@]} MicroPython boards are plugged in (serial numbers: ${found[*]});" \
             "unplug all but the tray, or name it with --serial" >&2
        exit 2
    fi
    serial=${found[0]}
fi
case "$serial" in
    *[!0-9A-Za-z]*|"") echo "install.sh: serial number '$serial' is not a USB serial number (letters and digits)" >&2; exit 2 ;;
esac
echo "tray serial number: $serial"

# --- packages, user, venv ---------------------------------------------------------------------
apt-get update
apt-get install -y python3-venv python3-lgpio i2c-tools

id dominotable >/dev/null 2>&1 || useradd --system --home-dir /var/lib/dominotable --create-home \
    --shell /usr/sbin/nologin dominotable
for group in dialout gpio i2c spi; do
    getent group "$group" >/dev/null || groupadd --system "$group"
    usermod -a -G "$group" dominotable
done

# --system-site-packages: the venv uses apt's python3-lgpio (no compiler, no wheel needed,
# whatever the Python version) and pip installs the rest.
"$python" -m venv --system-site-packages "$root$prefix/venv"
"$root$prefix/venv/bin/pip" install --upgrade pip
"$root$prefix/venv/bin/pip" install "${repo}[pi]"

# --- udev: /dev/domino-tray for this tray only ------------------------------------------------
install -d -m 0755 "$root/etc/udev/rules.d"
cat > "$root/etc/udev/rules.d/99-domino-tray.rules" <<RULES
# Written by hardware/pi/install.sh: /dev/domino-tray is the tray's Pico, serial $serial.
# ID_MM_DEVICE_IGNORE keeps ModemManager from probing the port (it would send AT commands).
SUBSYSTEM=="tty", ATTRS{idVendor}=="2e8a", ATTRS{idProduct}=="0005", ATTRS{serial}=="$serial", SYMLINK+="domino-tray", MODE="0660", GROUP="dialout", ENV{ID_MM_DEVICE_IGNORE}="1"
RULES
chmod 0644 "$root/etc/udev/rules.d/99-domino-tray.rules"
udevadm control --reload-rules
udevadm trigger --subsystem-match=tty

# --- I2C at 400 kHz (the OLED's frame takes about a quarter of the time at 100 kHz) --------
if command -v raspi-config >/dev/null; then
    raspi-config nonint do_i2c 0
fi
config_txt="$root/boot/firmware/config.txt"  # Bookworm and later
[ -e "$config_txt" ] || config_txt="$root/boot/config.txt"
if [ -e "$config_txt" ]; then
    sed -i '/^dtparam=i2c_arm_baudrate=/d' "$config_txt"
    echo "dtparam=i2c_arm_baudrate=400000" >> "$config_txt"
else
    echo "install.sh: no config.txt under /boot/firmware or /boot: set dtparam=i2c_arm_baudrate=400000 by hand" >&2
fi

# --- configuration and service ----------------------------------------------------------------
install -d -m 0755 "$root/etc/dominotable"
# The table's configuration (keys: README "Table configuration"); an existing one is kept.
if [ ! -e "$root/etc/dominotable/config.toml" ]; then
    cat > "$root/etc/dominotable/config.toml" <<'TOML'
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
pin_factory = "lgpio"       # apt's python3-lgpio: every Pi model, Pi 5 included
[game]
settle_ms = 400
[storage]
database = "/var/lib/dominotable/dominotable.sqlite3"
TOML
    chmod 0644 "$root/etc/dominotable/config.toml"
fi
install -d -m 0755 "$root/etc/systemd/system"
install -m 0644 "$repo/hardware/pi/dominotable.service" "$root/etc/systemd/system/dominotable.service"
systemctl daemon-reload
systemctl enable --now dominotable.service
echo "dominotable installed for the tray $serial; follow it with: journalctl -fu dominotable"
echo "reboot once for I2C at 400 kHz"
