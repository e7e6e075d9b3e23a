#!/usr/bin/env bash
# Install the Debian packages memboot needs, if any are missing.
#
# Called by the Makefile before anything is built, so that `make run` and
# `make test` work on a fresh Debian 12 machine. Uses apt-get directly as root,
# or through sudo otherwise. Prints nothing when everything is present.
set -euo pipefail

packages=(
	gcc make binutils python3            # kernel, host tests, tools
	clang lld                            # libFuzzer targets
	libcmocka-dev                        # host unit tests
	newlib-source                        # libc for the kernel, built by tools/build-newlib.sh
	qemu-system-x86                      # the everyday machine
	grub-common grub-pc-bin grub-efi-amd64-bin xorriso mtools   # hybrid BIOS+UEFI ISO
	ovmf                                 # UEFI firmware for QEMU
	gnu-efi                              # the direct UEFI loader
	acpica-tools                         # iasl/acpidump formats for ACPI tests
	python3-matplotlib                   # tools/memboot plot
)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1; then
	sudo=(sudo)
else
	echo "setup: not root and no sudo; install these packages by hand: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
