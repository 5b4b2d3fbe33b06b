# Priority scheduling: a queue of jobs ordered by (priority, id); each job taken from
# the front may schedule a follow-up job. Uses a binary heap (heapq).
import heapq

JOBS = 80000
FOLLOW_UPS = 80000


def main():
    seed = 23
    heap = []
    for i in range(JOBS):
        seed = (seed * 1103515245 + 12345) % 2147483648
        heapq.heappush(heap, (seed // 1024 % 1000, i))
    next_id = JOBS
    spawned = 0
    processed = 0
    checksum = 0
    first = []
    clock = 0
    while heap:
        priority, ident = heapq.heappop(heap)
        processed += 1
        clock = max(clock, priority)
        checksum = (checksum * 31 + ident) % 1000000007
        if len(first) < 8:
            first.append(ident)
        if ident % 3 != 1 and spawned < FOLLOW_UPS:
            heapq.heappush(heap, (priority + 1 + ident % 50, next_id))
            next_id += 1
            spawned += 1
    print(f"processed: {processed}, follow-ups: {spawned}")
    print(f"checksum: {checksum}")
    print(f"last priority: {clock}")
    print(f"first: {first}")


main()
