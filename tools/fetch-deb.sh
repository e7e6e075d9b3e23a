#!/usr/bin/env bash
# Unpack a Debian package of a foreign architecture into the build cache,
# without installing it: gnu-efi:arm64 for the UEFI loader (it has no
# Multi-Arch field, so it cannot be installed beside the host's own
# gnu-efi) and grub-efi-arm64-bin:arm64 for the arm64 network boot tree
# (GRUB's arm64-efi modules; the package is built only for arm64).
#
# Usage: tools/fetch-deb.sh CACHE_DIR LINK PACKAGE DEB_ARCH CHECK
#   DEB_ARCH is Debian's name of the architecture (arm64). Downloads
#   PACKAGE:DEB_ARCH with apt-get (adding DEB_ARCH to dpkg's architectures
#   and updating the lists first when apt does not know the package), unpacks
#   it with dpkg-deb into CACHE_DIR/PACKAGE-DEB_ARCH-VERSION and points the
#   symbolic link LINK at it. CHECK is a file the package must hold (relative
#   to its root, e.g. usr/lib/libefi.a); an unpacked version that has it is
#   reused; two builds sharing the cache wait for each other (flock).
set -euo pipefail

usage="usage: fetch-deb.sh CACHE_DIR LINK PACKAGE DEB_ARCH CHECK"
cache=${1:?$usage}
link=$(realpath -m "${2:?$usage}")
pkg=${3:?$usage}
arch=${4:?$usage}
check=${5:?$usage}
case "$arch" in
*[!a-z0-9]*) echo "fetch-deb: bad architecture name '$arch'" >&2; exit 64 ;;
esac
case "$pkg" in
*[!a-z0-9.+-]*) echo "fetch-deb: bad package name '$pkg'" >&2; exit 64 ;;
esac
if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi

version() {
	apt-cache policy "$pkg:$arch" 2>/dev/null | awk '/Candidate:/ { print $2 }'
}
v=$(version)
if [ -z "$v" ] || [ "$v" = "(none)" ]; then
	dpkg --print-foreign-architectures | grep -qx "$arch" ||
		"${sudo[@]}" dpkg --add-architecture "$arch"
	"${sudo[@]}" apt-get update -qq
	v=$(version)
fi
if [ -z "$v" ] || [ "$v" = "(none)" ]; then
	echo "fetch-deb: apt knows no $pkg:$arch (is $arch a Debian architecture?)" >&2
	exit 1
fi
mkdir -p "$cache"
dir=$cache/$pkg-$arch-${v//[^A-Za-z0-9.+-]/_}
exec 9>"$dir.lock"
flock 9
if [ ! -f "$dir/$check" ]; then
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	(cd "$work" && apt-get download -q "$pkg:$arch=$v" >/dev/null 2>&1) || {
		echo "fetch-deb: apt-get download $pkg:$arch=$v failed" >&2
		exit 1
	}
	rm -rf "$dir.tmp"
	debs=("$work"/*.deb)   # the one file just downloaded into an empty directory
	[ "${#debs[@]}" -eq 1 ] && [ -f "${debs[0]}" ] || {
		echo "fetch-deb: apt-get download $pkg:$arch=$v left no single .deb" >&2
		exit 1
	}
	dpkg-deb -x "${debs[0]}" "$dir.tmp"
	[ -f "$dir.tmp/$check" ] || {
		echo "fetch-deb: $pkg:$arch $v has no $check" >&2
		exit 1
	}
	mv "$dir.tmp" "$dir"
	echo "fetch-deb: $pkg:$arch $v unpacked in $dir"
fi
mkdir -p "$(dirname "$link")"
ln -sfn "$dir" "$link"
