#!/bin/sh
# record-kmem-trace.sh OUT.trace.xz -- COMMAND...: a Linux page-allocator
# trace of COMMAND for tools/memboot lab --trace (docs/allocators.md).
# As root: tracefs at /sys/kernel/tracing (mounted here if it is not), the
# events kmem:mm_page_alloc, mm_page_free and mm_page_free_batched, the
# whole system while COMMAND runs (a ring of BUF_KB per CPU: the oldest
# events are overwritten when it fills, and the lab reports the frees it
# then cannot match).
set -eu
[ $# -ge 3 ] && [ "$2" = "--" ] || { echo "usage: $0 OUT.trace.xz -- COMMAND..." >&2; exit 64; }
out=$1; shift 2
T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs nodev $T
BUF_KB=${BUF_KB:-4096}
echo 0 > $T/tracing_on
echo > $T/trace
echo "$BUF_KB" > $T/buffer_size_kb
for e in mm_page_alloc mm_page_free mm_page_free_batched; do
	echo 1 > $T/events/kmem/$e/enable
done
echo 1 > $T/tracing_on
status=0
"$@" || status=$?
echo 0 > $T/tracing_on
for e in mm_page_alloc mm_page_free mm_page_free_batched; do
	echo 0 > $T/events/kmem/$e/enable
done
xz -9 < $T/trace > "$out"
echo > $T/trace
echo "$out: $(xz -dc "$out" | grep -vc '^#') events (command status $status)"
