#!/usr/bin/env bash
# Unpack Debian's gnu-efi for a foreign architecture into the build cache,
# without installing it (the package has no Multi-Arch field, so it cannot
# be installed beside the host's own gnu-efi).
#
# Usage: tools/fetch-gnu-efi.sh CACHE_DIR LINK DEB_ARCH
#   DEB_ARCH is Debian's name of the architecture (arm64). Downloads
#   gnu-efi:DEB_ARCH with apt-get (adding DEB_ARCH to dpkg's architectures
#   and updating the lists first when apt does not know the package), unpacks
#   it with dpkg-deb into CACHE_DIR/gnu-efi-DEB_ARCH-VERSION and points the
#   symbolic link LINK at it. An unpacked version already there is reused;
#   two builds sharing the cache wait for each other (flock).
#   The tree holds usr/include/efi and usr/lib/{crt0-efi-*.o,elf_*_efi.lds,
#   libefi.a,libgnuefi.a}.
set -euo pipefail

usage="usage: fetch-gnu-efi.sh CACHE_DIR LINK DEB_ARCH"
cache=${1:?$usage}
link=$(realpath -m "${2:?$usage}")
arch=${3:?$usage}
case "$arch" in
*[!a-z0-9]*) echo "fetch-gnu-efi: bad architecture name '$arch'" >&2; exit 64 ;;
esac
if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi

version() {
	apt-cache policy "gnu-efi:$arch" 2>/dev/null | awk '/Candidate:/ { print $2 }'
}
v=$(version)
if [ -z "$v" ] || [ "$v" = "(none)" ]; then
	dpkg --print-foreign-architectures | grep -qx "$arch" ||
		"${sudo[@]}" dpkg --add-architecture "$arch"
	"${sudo[@]}" apt-get update -qq
	v=$(version)
fi
if [ -z "$v" ] || [ "$v" = "(none)" ]; then
	echo "fetch-gnu-efi: apt knows no gnu-efi:$arch (is $arch a Debian architecture?)" >&2
	exit 1
fi
mkdir -p "$cache"
dir=$cache/gnu-efi-$arch-${v//[^A-Za-z0-9.+-]/_}
exec 9>"$dir.lock"
flock 9
if [ ! -f "$dir/usr/lib/libefi.a" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	(cd "$work" && apt-get download -q "gnu-efi:$arch=$v" >/dev/null 2>&1) || {
		echo "fetch-gnu-efi: apt-get download gnu-efi:$arch=$v failed" >&2
		exit 1
	}
	rm -rf "$dir.tmp"
	dpkg-deb -x "$work"/gnu-efi_*.deb "$dir.tmp"
	[ -f "$dir.tmp/usr/lib/libefi.a" ] || {
		echo "fetch-gnu-efi: gnu-efi:$arch $v has no usr/lib/libefi.a" >&2
		exit 1
	}
	mv "$dir.tmp" "$dir"
	echo "fetch-gnu-efi: gnu-efi:$arch $v unpacked in $dir"
fi
mkdir -p "$(dirname "$link")"
ln -sfn "$dir" "$link"
