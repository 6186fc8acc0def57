#!/usr/bin/env bash
# Installs the Debian 12 packages Steer needs that are not installed yet.
# Run as root (or with sudo available). Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(build-essential cmake pkg-config libuv1-dev libnanopb-dev nanopb protobuf-compiler
          python3 python3-protobuf libncurses-dev libedit-dev libjansson-dev tmux netcat-openbsd
          python3-venv python3-pip python3-setuptools
          openmpi-bin libopenmpi-dev libtrilinos-zoltan-dev
          libwebsockets-dev libwebsockets-evlib-uv chromium)
# The page (web/) is built with Node.js and npm; a machine that has them from
# elsewhere (a newer Node.js) keeps its own.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
