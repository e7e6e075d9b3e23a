#!/usr/bin/env bash
# Build memboot's hybrid BIOS+UEFI ISO with grub-mkrescue.
#
# Usage: tools/mkiso.sh KERNEL.elf OUT.iso
# The GRUB command line is $MEMBOOT_CMDLINE (empty by default); per-run words
# are better passed by tools/memboot --append, which needs no rebuild.
set -euo pipefail

kernel=${1:?usage: mkiso.sh KERNEL.elf OUT.iso}
out=${2:?usage: mkiso.sh KERNEL.elf OUT.iso}
stage=$(mktemp -d "${TMPDIR:-/tmp}/memboot-iso.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/boot/grub"
cp "$kernel" "$stage/boot/memboot.elf"
cat >"$stage/boot/grub/grub.cfg" <<CFG
set timeout=0
set default=0
# Video drivers (VBE under BIOS, GOP under UEFI), so GRUB can set the
# framebuffer mode the kernel's Multiboot2 header asks for.
insmod all_video
menuentry "memboot" {
	multiboot2 /boot/memboot.elf ${MEMBOOT_CMDLINE:-}
	boot
}
CFG
tmp_iso="$stage.iso"
if ! grub-mkrescue -o "$tmp_iso" "$stage" >"$stage.log" 2>&1; then
	cat "$stage.log" >&2
	rm -f "$stage.log" "$tmp_iso"
	echo "mkiso: grub-mkrescue failed" >&2
	exit 1
fi
rm -f "$stage.log"
mv "$tmp_iso" "$out"
echo "  ISO     $out"
