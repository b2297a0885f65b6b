# Sourced by scripts/demo.sh and scripts/test.sh: makes sure a Vulkan adapter
# with the features unbound needs exists (and Mesa's EGL/GL for the tier C
# tests), installing Mesa's lavapipe (software Vulkan) and GL drivers where
# it can, or printing the exact commands and stopping.

export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/xdg-runtime-$(id -u)}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

# The features unbound requires, as vulkaninfo names them.
UNBOUND_VK_FEATURES="shaderSampledImageArrayNonUniformIndexing descriptorBindingPartiallyBound drawIndirectCount drawIndirectFirstInstance"

vulkan_ok() {
    command -v vulkaninfo >/dev/null 2>&1 || return 1
    local info
    info="$(vulkaninfo 2>/dev/null)" || return 1
    for feature in $UNBOUND_VK_FEATURES; do
        grep -Eq "^\s*${feature}\s*=\s*true" <<<"$info" || return 1
    done
}

print_install_help() {
    cat >&2 <<'HELP'
No Vulkan adapter with descriptor indexing and multi-draw-indirect-count was found.
Without a GPU, install Mesa's lavapipe (software Vulkan). On Debian 12 it must
come from bookworm-backports (Debian 12's own Mesa 22 lacks descriptor indexing):
  echo 'deb http://deb.debian.org/debian bookworm-backports main' | sudo tee /etc/apt/sources.list.d/backports.list
  sudo apt-get update
  sudo apt-get install -y -t bookworm-backports mesa-vulkan-drivers vulkan-tools
On Ubuntu 24.04 or Debian 13:
  sudo apt-get install -y mesa-vulkan-drivers vulkan-tools
The tier C tests also need Mesa's EGL and GL drivers (from the same Mesa):
  sudo apt-get install -y [-t bookworm-backports] libegl1 libegl-mesa0 libgl1-mesa-dri
HELP
}

# What runs a command as root here: nothing for root, "sudo -n" where sudo
# needs no password; fails otherwise.
root_prefix() {
    if [ "$(id -u)" -eq 0 ]; then
        echo ""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        echo "sudo -n"
    else
        return 1
    fi
}

# apt-get installs PACKAGES quietly where it can; otherwise, or when that
# fails, "WHO: apt-get install PACKAGES" goes to stderr. Never fails.
#   apt_install_or_say WHO PACKAGES...
apt_install_or_say() {
    local who="$1" sudo
    shift
    sudo="$(root_prefix)" || {
        echo "$who: sudo apt-get install $*" >&2
        return 0
    }
    command -v apt-get >/dev/null 2>&1 || return 0
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$@" >/dev/null \
        || echo "$who: apt-get install $*" >&2
}

install_lavapipe() {
    local sudo
    sudo="$(root_prefix)" || return 1
    command -v apt-get >/dev/null 2>&1 || return 1
    . /etc/os-release
    echo "Installing Mesa lavapipe (software Vulkan) for ${PRETTY_NAME}..." >&2
    if [ "${VERSION_CODENAME:-}" = "bookworm" ]; then
        echo 'deb http://deb.debian.org/debian bookworm-backports main' | $sudo tee /etc/apt/sources.list.d/unbound-backports.list >/dev/null
        $sudo apt-get update -q
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q -t bookworm-backports \
            mesa-vulkan-drivers vulkan-tools libegl1 libegl-mesa0 libgl1-mesa-dri
    else
        $sudo apt-get update -q
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q mesa-vulkan-drivers vulkan-tools \
            libegl1 libegl-mesa0 libgl1-mesa-dri
    fi
}

# Mesa's EGL and GL drivers: tier C (no binding arrays) is tested on GL.
gl_ok() {
    ldconfig -p 2>/dev/null | grep -q 'libEGL_mesa.so' && ldconfig -p 2>/dev/null | grep -q 'libEGL.so'
}

# glTF test files (valid and malformed) from Debian's assimp-testmodels.
ensure_test_models() {
    [ -d /usr/share/assimp/models/glTF2 ] && return 0
    apt_install_or_say "The glTF corpus tests need" assimp-testmodels
}

# The X libraries winit loads at run time (the windowed demo), and Xvfb for
# its test. Installed when possible; the demo and the test say what is
# missing otherwise.
ensure_window_libs() {
    local missing=""
    for lib in libxkbcommon-x11.so.0 libX11-xcb.so.1 libXcursor.so.1 libXi.so.6 libXrandr.so.2; do
        ldconfig -p 2>/dev/null | grep -q "$lib" || missing="yes"
    done
    command -v Xvfb >/dev/null 2>&1 || missing="yes"
    [ -z "$missing" ] && return 0
    apt_install_or_say "The windowed demo needs" xvfb libxkbcommon-x11-0 libx11-xcb1 \
        libxcursor1 libxi6 libxrandr2
}

ensure_vulkan() {
    if [ -n "${UNBOUND_SKIP_VULKAN_CHECK:-}" ] || { vulkan_ok && gl_ok; }; then
        return 0
    fi
    if install_lavapipe && vulkan_ok; then
        return 0
    fi
    print_install_help
    exit 1
}
