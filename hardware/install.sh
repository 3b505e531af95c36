#!/usr/bin/env bash
# Install pi-reader on Raspberry Pi OS (Bookworm or later) as a systemd service.
#
#   sudo hardware/install.sh [--prefix DIR] [--no-start]
#
# What it does, in order (safe to run again: it keeps an existing config and upgrades the rest):
#   1. apt: picamera2 and libcamera, lgpio, espeak-ng, aplay (alsa-utils), i2c-tools
#   2. enables the I2C bus (raspi-config nonint do_i2c 0)
#   3. creates the system user pi-reader in the video, gpio, i2c and audio groups
#   4. makes a venv in PREFIX/venv that sees the apt packages (--system-site-packages) and installs
#      pi-reader into it, keeping the apt numpy (see "numpy" below)
#   5. installs /etc/pi-reader/config.toml (only if absent) and checks it
#   6. installs and enables systemd/pi-reader.service, runs 'pi-reader doctor', starts the service
set -euo pipefail

PREFIX=/opt/pi-reader
START=1
SERVICE_USER=pi-reader
CONFIG=/etc/pi-reader/config.toml
STATE_DIR=/var/lib/pi-reader
UNIT=/etc/systemd/system/pi-reader.service
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() {
    sed -n '2,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case "$1" in
        --prefix)
            [ $# -ge 2 ] || { echo "--prefix needs a folder" >&2; exit 2; }
            PREFIX="$2"
            shift
            ;;
        --no-start) START=0 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

step() { printf '\n==> %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
    echo "run this as root: sudo $0" >&2
    exit 1
fi
if ! grep -qs "Raspberry Pi" /proc/device-tree/model; then
    echo "warning: this does not look like a Raspberry Pi; installing anyway" >&2
fi

step "System packages"
apt-get update
apt-get install -y python3-venv python3-pip python3-numpy python3-picamera2 python3-lgpio \
    espeak-ng alsa-utils i2c-tools

step "I2C bus (for the LCD)"
if command -v raspi-config >/dev/null; then
    raspi-config nonint do_i2c 0
else
    echo "raspi-config is missing: add 'dtparam=i2c_arm=on' to /boot/firmware/config.txt and reboot"
fi

step "Service user $SERVICE_USER"
if ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
    useradd --system --user-group --no-create-home --home-dir "$STATE_DIR" \
        --shell /usr/sbin/nologin "$SERVICE_USER"
fi
for group in video gpio i2c audio; do
    getent group "$group" >/dev/null || groupadd --system "$group"
    usermod -aG "$group" "$SERVICE_USER"
done
install -d -o "$SERVICE_USER" -g "$SERVICE_USER" -m 0750 "$STATE_DIR"

step "Python environment $PREFIX/venv"
# --system-site-packages: picamera2 and libcamera exist only as apt packages.
python3 -m venv --system-site-packages "$PREFIX/venv"
# numpy: apt's picamera2 (and simplejpeg) are built against the apt numpy. On Bookworm that is
# numpy 1.24, and pip would otherwise pull numpy 2 for OpenCV 4.12+/5, after which picamera2 fails
# with "A module that was compiled using NumPy 1.x cannot be run in NumPy 2". So with a numpy 1.x
# from apt we pin numpy to it and take OpenCV < 4.12 (4.11 runs on numpy 1.24).
constraints="$(mktemp)"
trap 'rm -f "$constraints"' EXIT
system_numpy="$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')"
if [ "${system_numpy%%.*}" -lt 2 ]; then
    echo "apt numpy $system_numpy: keeping it, installing opencv-python-headless<4.12"
    printf 'numpy==%s\nopencv-python-headless<4.12\n' "$system_numpy" >"$constraints"
fi
"$PREFIX/venv/bin/pip" install --quiet --constraint "$constraints" "${REPO}[pi]"
"$PREFIX/venv/bin/python" - <<'PY'
import cv2, numpy, onnxruntime
print(f"numpy {numpy.__version__}, OpenCV {cv2.__version__}, ONNX Runtime {onnxruntime.__version__}")
try:
    import picamera2  # noqa: F401  (fails here if numpy and the apt modules disagree)
except ImportError as error:
    raise SystemExit(f"picamera2 does not import in the venv: {error}")
PY

step "Configuration $CONFIG"
install -d -m 0755 "$(dirname "$CONFIG")"
if [ -e "$CONFIG" ]; then
    echo "keeping the existing $CONFIG"
else
    install -m 0644 "$REPO/hardware/config.example.toml" "$CONFIG"
    echo "installed $CONFIG: set [game] players and check the pins against your wiring"
fi
"$PREFIX/venv/bin/pi-reader" config check --config "$CONFIG" >/dev/null

step "Service $UNIT"
sed "s#/opt/pi-reader/venv/bin/pi-reader#$PREFIX/venv/bin/pi-reader#" \
    "$REPO/systemd/pi-reader.service" >"$UNIT"
chmod 0644 "$UNIT"
systemctl daemon-reload
systemctl enable pi-reader.service
systemctl stop pi-reader.service 2>/dev/null || true  # doctor needs the camera and the pins

step "Health check (as the service user)"
# From the state folder: lgpio makes its notification FIFOs in the working directory.
if ! (cd "$STATE_DIR" && runuser -u "$SERVICE_USER" -- \
    "$PREFIX/venv/bin/pi-reader" doctor --config "$CONFIG"); then
    echo "some devices need attention (see 'fix:' above); after enabling I2C, reboot once"
fi

if [ "$START" -eq 1 ]; then
    step "Starting pi-reader"
    systemctl start pi-reader.service
    echo "running: follow it with 'journalctl -u pi-reader -f'"
fi
