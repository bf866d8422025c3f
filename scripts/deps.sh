#!/usr/bin/env bash
# Installs the Debian packages rlx needs to build, test and benchmark (idempotent).
# Usage: scripts/deps.sh [--test | --bench]
set -euo pipefail
pkgs=(gcc g++ make cmake libdlpack-dev python3-numpy libprotobuf-c-dev protobuf-c-compiler libonnx-dev libarchive-dev libcjson-dev)
# The test suite also needs the ONNX backend test data, onnx and PyTorch (real-model export).
if [[ "${1:-}" == "--test" ]]; then pkgs+=(libonnx-testdata python3-onnx python3-torch python3-torchvision python3-matplotlib python3-pytest); fi
# ... and clang for the libFuzzer targets and the ThreadSanitizer test; the aarch64 cross
# compiler and qemu-user for the other CPUs (aarch64, and x86-64-v2 under -cpu Nehalem).
if [[ "${1:-}" == "--test" ]]; then pkgs+=(clang-14 libclang-rt-14-dev gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user); fi
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
