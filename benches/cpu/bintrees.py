# Binary trees: allocate many perfect trees, walk them, count their nodes.

MAX_DEPTH = 14
MIN_DEPTH = 4


def make(depth):
    if depth == 0:
        return (None, None)
    return (make(depth - 1), make(depth - 1))


def check(tree):
    left, right = tree
    if left is None:
        return 1
    return 1 + check(left) + check(right)


def main():
    out = []
    stretch = MAX_DEPTH + 1
    out.append(f"stretch tree of depth {stretch} check: {check(make(stretch))}")
    long_lived = make(MAX_DEPTH)
    for depth in range(MIN_DEPTH, MAX_DEPTH + 1, 2):
        iterations = 2 ** (MAX_DEPTH - depth + MIN_DEPTH)
        total = sum(check(make(depth)) for _ in range(iterations))
        out.append(f"{iterations} trees of depth {depth} check: {total}")
    out.append(f"long lived tree of depth {MAX_DEPTH} check: {check(long_lived)}")
    print("\n".join(out))


main()
