#!/bin/sh
# record-kmem-trace.sh OUT.trace.xz -- COMMAND...: a Linux page-allocator
# trace of COMMAND and its children for tools/memboot lab --trace
# (docs/allocators.md).
#
# As root: tracefs at $TRACEFS (default /sys/kernel/tracing; mounted here if
# it is not, and unmounted again), the events kmem:mm_page_alloc,
# mm_page_free and mm_page_free_batched, plus sched:sched_process_fork to
# follow COMMAND's children. The ring records the whole system (BUF_KB per
# CPU; its oldest events are overwritten when it fills, counted from each
# CPU's stats); afterwards only the events of COMMAND's processes are kept
# (an interrupt's allocation counts for the task it interrupted, as tracefs
# records it); the lines of other processes are dropped and counted. Every tracefs setting changed is put back as it was
# found, also when COMMAND fails or the script is interrupted.
set -eu
[ $# -ge 3 ] && [ "$2" = "--" ] || { echo "usage: $0 OUT.trace.xz -- COMMAND..." >&2; exit 64; }
out=$1; shift 2
case $out in */*) outdir=${out%/*} ;; *) outdir=. ;; esac
[ -d "$outdir" ] && [ -w "$outdir" ] || { echo "$0: cannot write $out: no writable directory $outdir" >&2; exit 64; }
T=${TRACEFS:-/sys/kernel/tracing}
BUF_KB=${BUF_KB:-4096}
KMEM="mm_page_alloc mm_page_free mm_page_free_batched"
work=$(mktemp -d)
mounted=

# What tracefs looks like now, put back on exit.
saved=
restore() {
	[ -n "$saved" ] || return 0
	echo 0 > $T/tracing_on
	for e in $KMEM; do echo "$(cat $work/en_$e)" > $T/events/kmem/$e/enable; done
	echo "$(cat $work/en_fork)" > $T/events/sched/sched_process_fork/enable
	echo "$(cat $work/buf_kb)" > $T/buffer_size_kb
	echo > $T/trace
	echo "$(cat $work/tracing_on)" > $T/tracing_on
	saved=
}
cleanup() {
	restore
	[ -z "$mounted" ] || umount $T
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -e $T/trace ]; then
	mount -t tracefs nodev $T
	mounted=1
fi
cat $T/tracing_on > $work/tracing_on
# buffer_size_kb reads "N" or, before the ring was first expanded, "N (expanded: M)".
sed -n 's/.*expanded: \([0-9]*\).*/\1/p; t; s/^\([0-9]*\).*/\1/p' $T/buffer_size_kb > $work/buf_kb
for e in $KMEM; do cat $T/events/kmem/$e/enable > $work/en_$e; done
cat $T/events/sched/sched_process_fork/enable > $work/en_fork
saved=1

echo 0 > $T/tracing_on
echo > $T/trace
echo "$BUF_KB" > $T/buffer_size_kb
for e in $KMEM; do echo 1 > $T/events/kmem/$e/enable; done
echo 1 > $T/events/sched/sched_process_fork/enable
echo 1 > $T/tracing_on
status=0
# The command's first process writes its pid before it becomes COMMAND.
sh -c 'echo $$ > "$0"; exec "$@"' "$work/pid" "$@" || status=$?
echo 0 > $T/tracing_on
lost=0
for s in $T/per_cpu/cpu*/stats; do
	[ -e "$s" ] || continue
	n=$(sed -n 's/^overrun: *//p' "$s")
	lost=$((lost + ${n:-0}))
done
cat $T/trace > $work/all
restore

# Keep the kmem lines whose task is the command or a descendant (followed
# through the fork events, in time order); a line starts "COMM-PID [CPU]".
awk -v root="$(cat $work/pid)" -v counts="$work/counts" '
	BEGIN { keep[root] = 1 }
	/^#/ { print; next }
	{
		if (!match($0, /-[0-9]+ +\[[0-9]+\]/)) { other++; next }
		pid = substr($0, RSTART + 1, RLENGTH - 1); sub(/ .*/, "", pid)
		if ($0 ~ /sched_process_fork:/) {
			if (pid in keep && match($0, /child_pid=[0-9]+/))
				keep[substr($0, RSTART + 10, RLENGTH - 10)] = 1
			next
		}
		if ($0 !~ /mm_page_(alloc|free|free_batched):/) { other++; next }
		if (pid in keep) { kept++; print } else dropped++
	}
	END {
		n = 0; for (p in keep) n++
		printf "%d %d %d\n", kept, dropped, n > counts
	}' $work/all | xz -9 > "$out"
read kept dropped procs < $work/counts
echo "$out: kept $kept events of the command's $procs process(es), dropped $dropped of other processes; $lost lost to a full ring (BUF_KB=$BUF_KB per CPU); command status $status"
exit $status
