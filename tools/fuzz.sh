#!/usr/bin/env bash
# Run the libFuzzer targets that `make fuzz-build` puts in build/fuzz/.
#
#   tools/fuzz.sh SECONDS TARGET...     fuzz each target for SECONDS
#   tools/fuzz.sh --regress TARGET...   run each target once over its seeds
#                                       and regression inputs (for make test)
#
# TARGET is build/fuzz/NAME or just NAME. For NAME:
#   tests/fuzz/seeds/NAME/       seed corpus, kept in git (small)
#   tests/fuzz/regress/NAME/     inputs that once crashed NAME, kept in git
#   build/fuzz/corpus-NAME/      working corpus: seeded, grows run after run
#   build/fuzz/artifacts-NAME/   crash-*, leak-*, timeout-* inputs libFuzzer wrote
#   build/fuzz/NAME.log          libFuzzer's output of the last run
#
# Prints one line per target (executions, corpus size, result) and exits 1
# if any target found something (or is not built), 2 on a usage error.
# A finding is fixed by fixing the code and copying the artifact into
# tests/fuzz/regress/NAME/, so that --regress keeps it fixed.
set -uo pipefail
shopt -s nullglob

cd "$(dirname "$0")/.." || exit 2
FUZZ_O=${FUZZ_O:-build/fuzz}

usage() {
	echo "usage: tools/fuzz.sh SECONDS TARGET... | tools/fuzz.sh --regress TARGET..." >&2
	exit 2
}

# The binary for a TARGET argument; complains if it is not built.
target_bin() {
	local bin
	bin="$FUZZ_O/$(basename "$1")"
	if [ ! -x "$bin" ]; then
		echo "fuzz: $bin is not built (make fuzz-build)" >&2
		return 1
	fi
	echo "$bin"
}

# Number of executions libFuzzer reported in log $1 ("?" if none).
executions() {
	local n
	n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$1" | tail -n 1)
	echo "${n:-?}"
}

fuzz_one() {
	local seconds=$1 name=$2 bin=$3
	local corpus="$FUZZ_O/corpus-$name" artifacts="$FUZZ_O/artifacts-$name"
	local log="$FUZZ_O/$name.log" marker="$FUZZ_O/.fuzz-start-$name"
	local dirs=("$corpus") found rc

	mkdir -p "$corpus" "$artifacts"
	for f in "tests/fuzz/seeds/$name"/*; do
		[ -f "$f" ] && cp -n "$f" "$corpus/"
	done
	# Regression inputs are read, never written to: libFuzzer adds new
	# inputs to the first directory only.
	[ -d "tests/fuzz/regress/$name" ] && dirs+=("tests/fuzz/regress/$name")
	touch "$marker"
	"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$artifacts/" "${dirs[@]}" \
		>"$log" 2>&1
	rc=$?
	found=$(find "$artifacts" -type f -newer "$marker" | sort)
	rm -f "$marker"
	if [ $rc -eq 0 ] && [ -z "$found" ]; then
		printf '%-28s ok: %s executions in %ss, corpus %s inputs\n' "$name" \
			"$(executions "$log")" "$seconds" "$(find "$corpus" -type f | wc -l)"
		return 0
	fi
	printf '%-28s FAILED (exit %d) after %s executions; log %s\n' "$name" $rc \
		"$(executions "$log")" "$log"
	grep -m 3 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | sed 's/^/    /'
	for f in $found; do
		echo "    artifact: $f"
	done
	return 1
}

regress_one() {
	local name=$1 bin=$2
	local log="$FUZZ_O/$name.regress.log" rc
	local inputs=("tests/fuzz/seeds/$name"/* "tests/fuzz/regress/$name"/*)

	if [ ${#inputs[@]} -eq 0 ]; then
		printf '%-28s ok: no seeds or regression inputs\n' "$name"
		return 0
	fi
	# Files (not directories) as arguments: each runs once, nothing is written.
	"$bin" -timeout=10 -rss_limit_mb=2048 "${inputs[@]}" >"$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		printf '%-28s ok: %d inputs\n' "$name" ${#inputs[@]}
		return 0
	fi
	printf '%-28s FAILED (exit %d); log %s\n' "$name" $rc "$log"
	grep -E '^Running: ' "$log" | tail -n 1 | sed 's/^Running: /    input: /'
	grep -m 3 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | sed 's/^/    /'
	return 1
}

[ $# -ge 2 ] || usage
mode=$1
shift
if [ "$mode" != --regress ] && ! [[ "$mode" =~ ^[0-9]+$ ]]; then
	usage
fi

failed=0
total=0
for target in "$@"; do
	total=$((total + 1))
	name=$(basename "$target")
	if ! bin=$(target_bin "$target"); then
		failed=$((failed + 1))
		continue
	fi
	if [ "$mode" = --regress ]; then
		regress_one "$name" "$bin" || failed=$((failed + 1))
	else
		fuzz_one "$mode" "$name" "$bin" || failed=$((failed + 1))
	fi
done
echo "fuzz: $total targets, $failed failed"
[ $failed -eq 0 ]
