# Edit distance: Levenshtein distances between generated DNA-like sequences, by the
# classic dynamic programme, one row at a time.

PAIRS = 250
SEED = 5


def sequences():
    seed = SEED
    while True:
        seed = (seed * 1103515245 + 12345) % 2147483648
        length = 40 + seed // 64 % 80
        chars = []
        for _ in range(length):
            seed = (seed * 1103515245 + 12345) % 2147483648
            chars.append("ACGT"[seed // 65536 % 4])
        yield "".join(chars)


def distance(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            row.append(min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost))
        prev = row
    return prev[-1]


def main():
    gen = sequences()
    pairs = [(next(gen), next(gen)) for _ in range(PAIRS)]
    dists = [distance(a, b) for a, b in pairs]
    print(f"pairs: {len(pairs)}")
    print(f"total distance: {sum(dists)}")
    print(f"closest: {min(dists)}, farthest: {max(dists)}")
    a, b = pairs[0]
    print(f"{a}\n{b}\n{dists[0]}")


main()
