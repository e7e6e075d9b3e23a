#!/usr/bin/env bash
# Build newlib (Debian's newlib-source) for one of memboot's freestanding
# kernel targets.
#
# Usage: tools/build-newlib.sh CACHE_DIR LINK [TARGET]
#   TARGET is newlib's target, an architecture's NAME_NEWLIB (arch/NAME/arch.mk):
#   x86_64-elf (the default), aarch64-elf or powerpc64le-elf. Builds into CACHE_DIR/newlib-KEY,
#   where KEY hashes the source tarball, the configure flags and the compiler,
#   and points the symbolic link LINK at it. A build whose key already exists
#   is reused, so newlib is rebuilt only when its inputs change (about 3
#   minutes on 2 cores for x86_64; aarch64's is slower) and survives `make
#   clean`. Two builds of the same key (two checkouts sharing the cache) wait
#   for each other (flock) instead of installing over each other.
#
# printf gets long long and C99 (%zu, %hh) formats: the kernel logs u64 and
# size_t values everywhere.
#
# newlib must be built *with* the FP/vector registers: its printf and float
# functions return values in them (xmm on x86_64, v0 on aarch64), which gcc
# refuses to compile under -mno-sse or -mgeneral-regs-only. The kernel
# therefore enables them (x86_64: CR0.EM=0, CR4.OSFXSR; arm64: CPACR_EL1.FPEN)
# before its first libc call, and kernel code itself never uses them.
set -euo pipefail

usage="usage: build-newlib.sh CACHE_DIR LINK [x86_64-elf|aarch64-elf|powerpc64le-elf]"
cache=${1:?$usage}
link=$(realpath -m "${2:?$usage}")
target=${3:-x86_64-elf}
tarball=${NEWLIB_TARBALL:-$(ls /usr/src/newlib/newlib-*.tar.* 2>/dev/null | head -n 1)}
[ -n "$tarball" ] && [ -f "$tarball" ] || {
    echo "build-newlib: no newlib source tarball in /usr/src/newlib (install newlib-source)" >&2
    exit 1
}
common_cflags="-O2 -g -ffreestanding -fno-pic -fno-pie"
case "$target" in
x86_64-elf)
    # The kernel's code model (-mcmodel=kernel: sign-extended 32-bit
    # addresses) and no red zone, as arch/x86_64/arch.mk compiles the kernel.
    cc=gcc tools=()
    target_cflags="$common_cflags -mno-red-zone -mcmodel=kernel"
    ;;
aarch64-elf)
    # Debian's cross compiler; inline atomics (no outline helpers reading
    # HWCAP from a libc the kernel does not have), as arch/arm64/arch.mk.
    cc=aarch64-linux-gnu-gcc tools=(aarch64-linux-gnu-)
    target_cflags="$common_cflags -mno-outline-atomics"
    ;;
powerpc64le-elf)
    # Debian's cross compiler (ELFv2, little-endian); scalar floating point
    # only (no VMX/VSX code the compiler could vectorise into), so the kernel
    # enables MSR[FP] and nothing more for printf's float paths. newlib's
    # configure.host gives every powerpc*-elf 32-bit embedded code
    # (-mrelocatable-lib), which the 64-bit ABI refuses: taken back here.
    # long double is double (newlib knows no IBM double-double), as
    # arch/ppc64le/arch.mk compiles the kernel.
    cc=powerpc64le-linux-gnu-gcc tools=(powerpc64le-linux-gnu-)
    target_cflags="$common_cflags -mno-altivec -mno-vsx -mno-relocatable-lib -mlong-double-64"
    ;;
*) echo "build-newlib: unknown target '$target' ($usage)" >&2; exit 64 ;;
esac
command -v "$cc" >/dev/null || {
    echo "build-newlib: $target needs $cc (tools/setup-deps.sh installs it)" >&2; exit 1; }
target_cflags+=" -fno-stack-protector -fno-omit-frame-pointer"
p=${tools[0]:-}

config_flags=(--target="$target" --disable-multilib
    --disable-newlib-supplied-syscalls --enable-newlib-nano-malloc --disable-nls
    --enable-newlib-io-long-long --enable-newlib-io-c99-formats)
# The key covers what changes the library: the source, the flags, the compiler.
key=$( (echo "${config_flags[*]} $target_cflags"; "$cc" --version | head -n 1; cat "$tarball") |
    sha256sum | cut -c1-16)
prefix=$(realpath -m "$cache")/newlib-$key
mkdir -p "$(dirname "$link")" "$(dirname "$prefix")"
# One build of a key at a time; the second finds the first's result.
exec 9>"$prefix.lock"
flock 9
if [ -f "$prefix/.stamp" ]; then
    ln -sfn "$prefix" "$link"
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/memboot-newlib.XXXXXX")
trap 'rm -rf "$work"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)

echo "newlib: building $target from $tarball into $prefix (takes minutes)"
start=$(date +%s)
tar -C "$work" -xf "$tarball"
src=$(find "$work" -mindepth 2 -maxdepth 2 -name configure -printf '%h\n' | head -n 1)
mkdir -p "$work/build"
cd "$work/build"

"$src/configure" "${config_flags[@]}" --prefix="$prefix" \
    CC_FOR_TARGET="$cc" AR_FOR_TARGET="${p}ar" AS_FOR_TARGET="${p}as" LD_FOR_TARGET="${p}ld" \
    RANLIB_FOR_TARGET="${p}ranlib" NM_FOR_TARGET="${p}nm" OBJCOPY_FOR_TARGET="${p}objcopy" \
    OBJDUMP_FOR_TARGET="${p}objdump" STRIP_FOR_TARGET="${p}strip" READELF_FOR_TARGET="${p}readelf" \
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
