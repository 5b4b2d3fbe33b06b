# Fannkuch: for every permutation of 1..n (in lexicographic order), count the pancake
# flips until 1 is in front; the maximum, and a checksum alternating in sign.
from itertools import permutations

N = 9


def flips(perm):
    p = list(perm)
    count = 0
    while p[0] != 1:
        k = p[0]
        p[:k] = p[:k][::-1]
        count += 1
    return count


def main():
    checksum = 0
    most = 0
    for i, perm in enumerate(permutations(range(1, N + 1))):
        f = flips(perm)
        most = max(most, f)
        checksum += f if i % 2 == 0 else -f
    print(checksum)
    print(f"Pfannkuchen({N}) = {most}")


main()
