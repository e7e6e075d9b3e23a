"""stats: summaries of repeated measurements that the benchmarks print
beside their medians (bench/memmap_results.py, bench/usable.py)."""


def median_ci(values):
    """The distribution-free 95 % confidence interval of the median of
    @values, as (low, high): the order statistics symmetric about the middle
    whose binomial (n, 1/2) tail on each side is at most 2.5 % (15 values:
    the 4th and the 12th, 96.5 % coverage). Below six values no such pair
    exists: the smallest and the largest. None for no values."""
    v = sorted(values)
    n = len(v)
    if not n:
        return None
    tail, term, k = 0.0, 0.5 ** n, 0     # term: C(n, k) / 2^n
    while k < n // 2 and tail + term <= 0.025:
        tail += term
        term = term * (n - k) / (k + 1)
        k += 1
    lo = k - 1 if k else 0
    return v[lo], v[n - 1 - lo]
