#!/usr/bin/env bash
# Build newlib (Debian's newlib-source) for memboot's freestanding x86_64 target.
#
# Usage: tools/build-newlib.sh CACHE_DIR LINK
#   Builds into CACHE_DIR/newlib-KEY, where KEY hashes this script and the
#   source tarball, and points the symbolic link LINK at it. A build whose key
#   already exists is reused, so newlib is rebuilt only when its inputs change
#   (about 3 minutes on 2 cores), and survives `make clean`.
#
# printf gets long long and C99 (%zu, %hh) formats: the kernel logs u64 and
# size_t values everywhere.
#
# newlib must be built *with* SSE: its printf and float functions return values
# in xmm registers, which gcc refuses to compile under -mno-sse. The kernel
# therefore enables SSE (CR0.EM=0, CR4.OSFXSR) before its first libc call.
set -euo pipefail

cache=${1:?usage: build-newlib.sh CACHE_DIR LINK}
link=$(realpath -m "${2:?usage: build-newlib.sh CACHE_DIR LINK}")
tarball=${NEWLIB_TARBALL:-$(ls /usr/src/newlib/newlib-*.tar.* 2>/dev/null | head -n 1)}
[ -n "$tarball" ] && [ -f "$tarball" ] || {
    echo "build-newlib: no newlib source tarball in /usr/src/newlib (install newlib-source)" >&2
    exit 1
}
target_cflags="-O2 -g -ffreestanding -fno-pic -fno-pie -mno-red-zone -mcmodel=kernel"
target_cflags+=" -fno-stack-protector -fno-omit-frame-pointer"

config_flags=(--target=x86_64-elf --disable-multilib
    --disable-newlib-supplied-syscalls --enable-newlib-nano-malloc --disable-nls
    --enable-newlib-io-long-long --enable-newlib-io-c99-formats)
# The key covers what changes the library: the source, the flags, the compiler.
key=$( (echo "${config_flags[*]} $target_cflags"; gcc --version | head -n 1; cat "$tarball") |
    sha256sum | cut -c1-16)
prefix=$(realpath -m "$cache")/newlib-$key
mkdir -p "$(dirname "$link")"
if [ -f "$prefix/.stamp" ]; then
    ln -sfn "$prefix" "$link"
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/memboot-newlib.XXXXXX")
trap 'rm -rf "$work"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)

echo "newlib: building from $tarball into $prefix (takes about 3 minutes)"
start=$(date +%s)
tar -C "$work" -xf "$tarball"
src=$(find "$work" -mindepth 2 -maxdepth 2 -name configure -printf '%h\n' | head -n 1)
mkdir -p "$work/build"
cd "$work/build"

"$src/configure" "${config_flags[@]}" --prefix="$prefix" \
    CC_FOR_TARGET=gcc AR_FOR_TARGET=ar AS_FOR_TARGET=as LD_FOR_TARGET=ld \
    RANLIB_FOR_TARGET=ranlib NM_FOR_TARGET=nm OBJCOPY_FOR_TARGET=objcopy \
    OBJDUMP_FOR_TARGET=objdump STRIP_FOR_TARGET=strip READELF_FOR_TARGET=readelf \
    CFLAGS_FOR_TARGET="$target_cflags" >configure.log 2>&1 ||
    { tail -n 30 configure.log >&2; echo "build-newlib: configure failed" >&2; exit 1; }
make -j"$jobs" all-target-newlib >make.log 2>&1 ||
    { tail -n 30 make.log >&2; echo "build-newlib: make failed (log above)" >&2; exit 1; }
rm -rf "$prefix"
make install-target-newlib >install.log 2>&1 ||
    { tail -n 30 install.log >&2; echo "build-newlib: install failed" >&2; exit 1; }
echo "$tarball" >"$prefix/.stamp"
ln -sfn "$prefix" "$link"
echo "newlib: done in $(( $(date +%s) - start )) s"
