#!/usr/bin/env bash
# Installs the Debian packages rlx needs to build, test and benchmark (idempotent).
# Usage: scripts/deps.sh [--bench]
set -euo pipefail
pkgs=(gcc make cmake libdlpack-dev python3-numpy)
if [[ "${1:-}" == "--bench" ]]; then pkgs+=(libopenblas0-pthread); fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq </dev/null
  $SUDO apt-get install -y -qq "${missing[@]}" </dev/null >/dev/null
fi
