#!/usr/bin/env bash
# Renders the built-in demo scene headless: ./scripts/demo.sh [demo args...]
# (default: --headless --out frame.png). Installs lavapipe if no suitable
# Vulkan adapter exists and it can.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/vulkan-check.sh
ensure_vulkan
if [ $# -eq 0 ]; then set -- --headless --out frame.png; fi
exec cargo run --release --locked --features cli --bin unbound-demo -- "$@"
