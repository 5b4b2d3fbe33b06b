# Generator pipelines: lazy streams built with map / filter / take over an infinite
# sequence (a random-number stream and Collatz chains).
from itertools import count, islice, takewhile


def lcg(seed):
    while True:
        seed = (seed * 1103515245 + 12345) % 2147483648
        yield seed


def is_prime(n):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True


def collatz(n):
    while True:
        yield n
        n = n // 2 if n % 2 == 0 else 3 * n + 1


def main():
    primes = list(islice(filter(is_prime, (r % 100000 for r in lcg(1))), 4000))
    print(f"primes: {len(primes)}, sum {sum(primes)}, last {primes[-5:]}")
    lengths = ((n, sum(1 for _ in takewhile(lambda x: x != 1, collatz(n)))) for n in count(1))
    longest = max(islice(lengths, 30000), key=lambda nl: nl[1])
    print(f"longest chain below 30001: {longest}")
    squares = list(islice((x * x for x in count(1) if x % 3 != 0 and x % 7 != 0), 10))
    print(f"squares: {squares}")
    running = list(islice(filter(lambda s: s % 2 == 1, (sum(range(k)) for k in count(1))), 8))
    print(f"odd triangles: {running}")


main()
