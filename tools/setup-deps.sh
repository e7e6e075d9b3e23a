#!/usr/bin/env bash
# Install the Debian packages memboot needs, if any are missing.
#
#   tools/setup-deps.sh          everything (`make`, `make run`, `make test`)
#   tools/setup-deps.sh host     only what the host builds need: the cmocka
#                                tests, the fuzzers, the benchmarks and
#                                memboot-topo (gcc, clang with libFuzzer,
#                                cmocka); no QEMU, GRUB or OVMF
#
# Called by the Makefile before anything is built, so that `make run` and
# `make test` work on a fresh Debian 12 machine. Uses apt-get directly as root,
# or through sudo otherwise. Prints nothing when everything is present.
#
# QEMU comes from Debian 12's backports suite (10.x): Debian 12's own QEMU 7.2
# has no x2APIC under TCG and refuses q35 guests with 256 or more vCPUs
# (docs/building.md). The backports entry is derived from this machine's own
# Debian apt source (same URI and keyring, suite bookworm-backports), so no
# mirror is ever named here.
set -euo pipefail

# The host builds' packages (the `host` mode installs only these).
host_packages=(
	gcc make binutils python3            # kernel, host tests, tools
	clang lld                            # libFuzzer targets
	libclang-rt-dev                      # libFuzzer and the sanitizers' runtime (clang only recommends it)
	libcmocka-dev                        # host unit tests
)
packages=(
	"${host_packages[@]}"
	newlib-source                        # libc for the kernel, built by tools/build-newlib.sh
	grub-common grub-pc-bin grub-efi-amd64-bin xorriso mtools   # hybrid BIOS+UEFI ISO
	ovmf                                 # UEFI firmware for QEMU
	gnu-efi                              # the direct UEFI loader
	acpica-tools                         # iasl/acpidump formats for ACPI tests
	python3-matplotlib                   # tools/memboot plot
	python3-hypothesis                   # property tests of the tools
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross   # the lab and make bench-arm64-user built for arm64
	gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross      # make cross-check; the arch interface run for ppc64le (qemu-user)
	sbsigntool efibootmgr mokutil        # install --sign-key, --bootnext and their guest tests
	debootstrap                          # the package's install/purge test in a Debian 12 root
	fdisk openssl                        # tools/memboot rehearse: the server's GPT disk, its key
	bubblewrap                           # lab grade --class: each student's code in a sandbox
	valgrind                             # the lab's counted figures (callgrind)
	qemu-efi-aarch64 device-tree-compiler   # arm64: AAVMF, device trees (dtc) for its tests
)
# The everyday machine, from bookworm-backports (QEMU >= 10).
# qemu-system-arm runs the arm64 port (make ARCH=arm64 run): QEMU 10's virt;
# qemu-system-ppc the ppc64le port (make ARCH=ppc64le run): pseries with VOF
# (its firmware, vof.bin and slof.bin, is in qemu-system-data); qemu-user
# runs the arm64 and ppc64le builds of the host code (the lab, make
# bench-arm64-user, the arch interface's tests), the same QEMU 10.
qemu_packages=(qemu-system-x86 qemu-system-arm qemu-system-ppc qemu-system-common qemu-system-data seabios
	qemu-user)
qemu_min_major=10
# Also only in bookworm-backports: virt-fw-vars, which enrolls the Secure
# Boot guest tests' key in an OVMF variable store without a key press.
backports_packages=(python3-virt-firmware)

case "${1:-all}" in
all) ;;
host) packages=("${host_packages[@]}") qemu_packages=() backports_packages=() ;;
*) echo "usage: tools/setup-deps.sh [host]" >&2; exit 64 ;;
esac

if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1; then
	sudo=(sudo)
else
	sudo=(false)
fi
export DEBIAN_FRONTEND=noninteractive

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done

# The installed major version of package $1 (default qemu-system-x86); 0: none.
qemu_major() {
	local v
	v=$(dpkg-query -W -f='${Status} ${Version}' "${1:-qemu-system-x86}" 2>/dev/null || true)
	case "$v" in "install ok installed "*) ;; *) echo 0; return ;; esac
	v=${v#install ok installed }
	v=${v#*:}                 # drop the epoch
	echo "${v%%.*}"
}
need_qemu=0
[ ${#qemu_packages[@]} -eq 0 ] || [ "$(qemu_major)" -ge "$qemu_min_major" ] 2>/dev/null || need_qemu=1
# Every QEMU package comes from backports with the others: one missing
# (qemu-system-arm or qemu-system-ppc, added after the first) installs them
# all from there.
for p in "${qemu_packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || need_qemu=1
done
# Debian 12's own qemu-user (7.2) installed before: from backports too.
[ ${#qemu_packages[@]} -eq 0 ] || [ "$(qemu_major qemu-user)" -ge "$qemu_min_major" ] 2>/dev/null ||
	need_qemu=1
missing_backports=()
for p in "${backports_packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing_backports+=("$p")
done
[ ${#missing_backports[@]} -eq 0 ] || need_qemu=1

[ ${#missing[@]} -eq 0 ] && [ $need_qemu -eq 0 ] && exit 0

if [ "${sudo[0]:-}" = false ]; then
	echo "setup: not root and no sudo; install these packages by hand: ${missing[*]}" \
	     "$( [ $need_qemu -eq 1 ] && echo "and ${qemu_packages[*]} from bookworm-backports")" >&2
	exit 1
fi

# Write a deb822 entry for bookworm-backports from the first Debian entry of
# this machine's sources whose suite is bookworm: same URI, same keyring.
backports_entry() {
	local list=/etc/apt/sources.list.d/memboot-backports.sources
	[ -f "$list" ] && return 0
	grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
	local uri="" keyring=""
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		# deb822 stanzas: pick the one listing suite "bookworm".
		read -r uri keyring < <(awk '
			/^[[:space:]]*$/ { if (ok && u != "") { print u, (k == "" ? "-" : k); exit } ok = 0; u = ""; k = ""; next }
			/^URIs:/      { u = $2 }
			/^Signed-By:/ { k = $2 }
			/^Suites:/    { for (i = 2; i <= NF; i++) if ($i == "bookworm") ok = 1 }
			END { if (ok && u != "") print u, (k == "" ? "-" : k) }' "$f") || true
		[ -n "$uri" ] && break
	done
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		# One-line format: deb [signed-by=K] URI bookworm main ...
		read -r uri keyring < <(awk '
			$1 == "deb" { k = "-"; i = 2
			  if ($2 ~ /^\[/) { for (; i <= NF; i++) { if ($i ~ /signed-by=/) { k = $i; sub(/.*signed-by=/, "", k); sub(/\]$/, "", k) } if ($i ~ /\]$/) { i++; break } } }
			  if ($(i + 1) == "bookworm") { print $i, k; exit } }' /etc/apt/sources.list) || true
	fi
	if [ -z "$uri" ]; then
		echo "setup: no Debian 12 (bookworm) entry in /etc/apt/sources.list*; add bookworm-backports by hand" >&2
		return 1
	fi
	echo "setup: adding bookworm-backports from this machine's Debian source ($list)"
	{
		echo "Types: deb"
		echo "URIs: $uri"
		echo "Suites: bookworm-backports"
		echo "Components: main"
		[ "$keyring" != "-" ] && echo "Signed-By: $keyring"
	} | "${sudo[@]}" tee "$list" >/dev/null
}

if [ $need_qemu -eq 1 ]; then
	backports_entry
fi
echo "setup: installing missing Debian packages: ${missing[*]} $( [ $need_qemu -eq 1 ] && echo "${qemu_packages[*]} (bookworm-backports)")"
"${sudo[@]}" apt-get update -qq
[ ${#missing[@]} -eq 0 ] || "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
if [ $need_qemu -eq 1 ]; then
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends -t bookworm-backports "${qemu_packages[@]}" "${backports_packages[@]}"
	if [ "$(qemu_major)" -lt "$qemu_min_major" ]; then
		echo "setup: qemu-system-x86 from bookworm-backports is older than $qemu_min_major" >&2
		exit 1
	fi
fi
