#!/usr/bin/env bash
# bench/device.sh: one prepared run on a many-core machine (at most 8
# minutes): build the host benchmarks and run them at 1, 2, 4, 8 and 16
# threads, then print one scaling table with the parallel efficiency of
# each thread count (T1 / (n x Tn): 1.00 is perfect scaling).
#
#   bench/device.sh [THREADS]        THREADS default: 1,2,4,8,16
#
# Benchmarks: memmap (descriptor init, the store the kernel picks, and the
# store limit), pt (page-table fault-in, one lock against split locks, 1 GiB
# region) and the per-CPU page list benchmark (pcp) when this tree has one
# (`make bench-pcp-build`); a missing one is named and skipped. Thread counts
# above the machine's CPUs are skipped. Writes nothing in the checkout
# except build/.
set -uo pipefail
cd "$(dirname "$0")/.."

threads=${1:-1,2,4,8,16}
ncpu=$(nproc)
deadline=$((SECONDS + 450))          # leave the 8-minute budget some slack
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

keep=()
IFS=, read -ra want <<<"$threads"
for t in "${want[@]}"; do
	if [ "$t" -le "$ncpu" ]; then keep+=("$t"); else echo "device: $t threads > $ncpu CPUs, skipped"; fi
done
threads=$(IFS=,; echo "${keep[*]}")

echo "device: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $ncpu CPUs, threads $threads"
make -j"$ncpu" bench-build >"$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }

left() { echo $((deadline - SECONDS)); }

# memmap: 16-byte descriptors, arrays four times the LLC, 3 repetitions.
timeout "$(left)" build/bench/memmap_bench_16 --quick --threads "$threads" \
	--what init,lim_memset,lim_store,lim_nt >"$out/memmap.txt" 2>"$out/memmap.err" ||
	echo "device: memmap bench failed or ran out of time: $(tail -1 "$out/memmap.err")"

# pt (seed 003's fault-in): one run per thread count, the same region.
if make -n bench-pt-build >/dev/null 2>&1; then
	make -j"$ncpu" bench-pt-build >>"$out/build.log" 2>&1
	for t in "${keep[@]}"; do
		timeout "$(left)" build/bench/pt_bench --threads "$t" --mib 1024 --reps 3 \
			>"$out/pt-$t.table" 2>&1 || echo "device: pt bench at $t threads failed or ran out of time"
	done
else
	echo "device: no pt benchmark in this tree (make bench-pt-build), skipped"
fi
# pcp: the per-CPU page list benchmark, when the tree has one.
if make -n bench-pcp-build >/dev/null 2>&1; then
	make -j"$ncpu" bench-pcp-build >>"$out/build.log" 2>&1 &&
	timeout "$(left)" build/bench/pcp_bench --threads "$threads" >"$out/pcp.txt" 2>"$out/pcp.err" ||
		echo "device: pcp bench failed or ran out of time"
else
	echo "device: no pcp benchmark in this tree (make bench-pcp-build), skipped"
fi

python3 - "$out" <<'PY'
import glob, os, re, sys
out = sys.argv[1]
rows = {}
for path in sorted(glob.glob(os.path.join(out, "*.txt"))):
    name = os.path.basename(path)[:-4]
    for line in open(path):
        f = line.split()
        if not f or "=" not in line or line.startswith("memmap-bench-cpu"):
            continue
        kv = dict(x.split("=", 1) for x in f[1:] if "=" in x)
        if "threads" not in kv or "ns_per_page" not in kv and "ns_per_op" not in kv:
            continue
        what = "%s %s" % (name, kv.get("what", ""))
        per = float(kv.get("ns_per_page", kv.get("ns_per_op")))
        rows.setdefault(what, {})[int(kv["threads"])] = per
# pt_bench prints a table per thread count: "ROW | global|split | ms | ..."
for path in sorted(glob.glob(os.path.join(out, "pt-*.table"))):
    t = int(os.path.basename(path)[3:-6])
    row = None
    for line in open(path):
        m = re.match(r"^(.*?)\s*\|\s*(global|split)\s*\|\s*([\d.]+)\s*\|", line)
        if not m:
            continue
        row = m.group(1).strip() or row
        rows.setdefault("pt %s %s lock (ms)" % (row, m.group(2)), {})[t] = float(m.group(3))
if not rows:
    sys.exit("device: no measurements")
threads = sorted({t for r in rows.values() for t in r})
print("\n| benchmark | " + " | ".join("%d thr ns (eff.)" % t for t in threads) + " |")
print("|---|" + "---|" * len(threads))
for what, r in sorted(rows.items()):
    base = r.get(1)
    cells = []
    for t in threads:
        if t not in r:
            cells.append("-")
        elif base:
            cells.append("%.3f (%.2f)" % (r[t], base / (t * r[t])))
        else:
            cells.append("%.3f" % r[t])
    print("| %s | %s |" % (what, " | ".join(cells)))
print("\nmemmap: ns per page of wall time; pt: ms to fault in the region; "
      "efficiency = T1 / (n x Tn), the same total work at every thread count.")
PY
