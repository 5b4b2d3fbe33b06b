# BFS on a grid: a generated maze of open cells and walls; breadth-first search from
# the top-left corner gives every reachable cell's distance.
from collections import deque

SIZE = 500


def grid():
    seed = 41
    cells = []
    for _ in range(SIZE * SIZE):
        seed = (seed * 1103515245 + 12345) % 2147483648
        cells.append(seed // 1024 % 100 >= 28)
    cells[0] = True
    return cells


def bfs(cells):
    dist = {0: 0}
    queue = deque([0])
    while queue:
        cell = queue.popleft()
        x, y = cell % SIZE, cell // SIZE
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < SIZE and 0 <= ny < SIZE:
                n = ny * SIZE + nx
                if cells[n] and n not in dist:
                    dist[n] = dist[cell] + 1
                    queue.append(n)
    return dist


def main():
    cells = grid()
    dist = bfs(cells)
    print(f"open cells: {sum(cells)}")
    print(f"reachable: {len(dist)}")
    print(f"farthest: {max(dist.values())}")
    print(f"sum of distances: {sum(dist.values())}")
    corner = SIZE * SIZE - 1
    print(f"corner: {dist.get(corner, -1)}")
    levels = {}
    for d in dist.values():
        levels[d // 100] = levels.get(d // 100, 0) + 1
    print("by hundreds: " + " ".join(f"{k}:{v}" for k, v in sorted(levels.items())))


main()
