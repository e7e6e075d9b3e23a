/*
 * memtest_bench.c: the memory test's passes (mm/memtest.c, built with the
 * kernel's code generation) on the host, against the store limit: bytes per
 * second per pattern and store, beside a loop that does the least any pass
 * must (stream the pattern over the buffer with 16-byte non-temporal stores,
 * fence, read it all back, eight words at a time or-ed together). Not a
 * test: figures for docs, `make bench-memtest`.
 *
 *   memtest_bench [--mib N] [--reps R]
 *
 * Each figure is the median of R passes; the buffer is touched first so no
 * page fault is timed. One thread (memboot runs one pass per CPU, each on
 * its own memory).
 */
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "mm/memtest.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(v[0]), cmp_u64);
	return v[n / 2];
}

static volatile uint64_t sink;

/* The limit: what every pass must do, the plainest fast way. */
static void limit_pass(uint64_t *mem, uint64_t words, uint64_t pattern)
{
	__m128i v = _mm_set1_epi64x((long long)pattern), acc = _mm_setzero_si128();

	for (uint64_t i = 0; i + 8 <= words; i += 8) {
		_mm_stream_si128((__m128i *)&mem[i], v);
		_mm_stream_si128((__m128i *)&mem[i + 2], v);
		_mm_stream_si128((__m128i *)&mem[i + 4], v);
		_mm_stream_si128((__m128i *)&mem[i + 6], v);
	}
	_mm_sfence();
	for (uint64_t i = 0; i + 8 <= words; i += 8) {
		__m128i a = _mm_xor_si128(_mm_load_si128((__m128i *)&mem[i]), v);
		__m128i b = _mm_xor_si128(_mm_load_si128((__m128i *)&mem[i + 2]), v);
		__m128i c = _mm_xor_si128(_mm_load_si128((__m128i *)&mem[i + 4]), v);
		__m128i d = _mm_xor_si128(_mm_load_si128((__m128i *)&mem[i + 6]), v);
		acc = _mm_or_si128(acc, _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)));
	}
	sink = (uint64_t)_mm_cvtsi128_si64(acc);
}

static void cpu_model(char *out, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(out, n, "unknown CPU");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "model name", 10) == 0) {
			char *c = strchr(line, ':');
			if (c) {
				snprintf(out, n, "%s", c + 2);
				out[strcspn(out, "\n")] = '\0';
			}
			break;
		}
	fclose(f);
}

int main(int argc, char **argv)
{
	uint64_t mib = 256;
	unsigned reps = 5;
	char model[128];

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--mib") == 0 && i + 1 < argc)
			mib = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = (unsigned)strtoul(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: %s [--mib N] [--reps R]\n", argv[0]);
			return 64;
		}
	}
	if (!mib || !reps || reps > 101) {
		fprintf(stderr, "memtest_bench: --mib must be > 0 and --reps 1..101\n");
		return 64;
	}
	uint64_t bytes = mib << 20, words = bytes / 8;
	uint64_t *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "memtest_bench: cannot map %llu MiB\n", (unsigned long long)mib);
		return 1;
	}
	memset(mem, 1, bytes);
	cpu_model(model, sizeof(model));
	printf("memtest-bench: %s, %llu MiB, median of %u, one thread; GB/s = bytes written (each "
	       "also read back) per second\n", model, (unsigned long long)mib, reps);
	printf("%-3s %-18s %9s %9s %9s %8s %8s\n", "#", "pattern", "limit", "nt", "plain", "nt/lim",
	       "pl/lim");
	uint64_t t[101];
	double sum_nt = 0, sum_pl = 0;
	for (unsigned p = 0; p < MEMTEST_NR_PATTERNS; p++) {
		uint64_t pat = memtest_patterns[p], lim, nt, pl;
		for (unsigned r = 0; r < reps; r++) {
			uint64_t t0 = now_ns();
			limit_pass(mem, words, pat);
			t[r] = now_ns() - t0;
		}
		lim = median(t, reps);
		for (int s = 0; s < 2; s++) {
			const struct memtest_ops ops = { .store = s ? MEMTEST_STORE_PLAIN : MEMTEST_STORE_NT };
			for (unsigned r = 0; r < reps; r++) {
				uint64_t t0 = now_ns();
				if (memtest_pass(mem, (uint64_t)(uintptr_t)mem, words, pat, &ops)) {
					fprintf(stderr, "memtest_bench: the host's memory failed the test\n");
					return 1;
				}
				t[r] = now_ns() - t0;
			}
			if (s)
				pl = median(t, reps);
			else
				nt = median(t, reps);
		}
		printf("%-3u %016llx %9.2f %9.2f %9.2f %8.2f %8.2f\n", p, (unsigned long long)pat,
		       (double)bytes / lim, (double)bytes / nt, (double)bytes / pl, (double)lim / nt,
		       (double)lim / pl);
		sum_nt += (double)lim / nt;
		sum_pl += (double)lim / pl;
	}
	printf("mean ratio to the limit: nt %.3f, plain %.3f\n", sum_nt / MEMTEST_NR_PATTERNS,
	       sum_pl / MEMTEST_NR_PATTERNS);
	munmap(mem, bytes);
	return 0;
}
