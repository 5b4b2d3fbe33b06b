# Statistics: generate measurements, then one pass with a tuple accumulator (count,
# sum, sum of squares, minimum, maximum), mean and variance, a histogram, and Welford's
# online algorithm for comparison.
import math

SAMPLES = 250000
BUCKETS = 10


def samples():
    seed = 11
    out = []
    for _ in range(SAMPLES):
        seed = (seed * 1103515245 + 12345) % 2147483648
        u = seed / 2147483648.0
        seed = (seed * 1103515245 + 12345) % 2147483648
        v = seed / 2147483648.0
        out.append(50.0 + 30.0 * (u + v - 1.0))
    return out


def main():
    xs = samples()
    n, total, squares, lo, hi = 0, 0.0, 0.0, xs[0], xs[0]
    for x in xs:
        n, total, squares, lo, hi = n + 1, total + x, squares + x * x, min(lo, x), max(hi, x)
    mean = total / n
    variance = squares / n - mean * mean
    count, m, m2 = 0, 0.0, 0.0
    for x in xs:
        count += 1
        delta = x - m
        m += delta / count
        m2 += delta * (x - m)
    width = (hi - lo) / BUCKETS
    histogram = [0] * BUCKETS
    for x in xs:
        histogram[min(BUCKETS - 1, math.floor((x - lo) / width))] += 1
    print(f"n = {n}")
    print(f"mean = {mean}")
    print(f"variance = {variance}")
    print(f"stddev = {math.sqrt(variance)}")
    print(f"min = {lo}, max = {hi}")
    print(f"welford mean = {m}, variance = {m2 / count}")
    print(f"histogram = {histogram}")
    above = [x for x in xs if x > mean + math.sqrt(variance)]
    print(f"above one sigma: {len(above)}")


main()
