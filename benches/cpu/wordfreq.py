# Word frequencies: generate a text from a skewed vocabulary, count its words in a
# dictionary, and print the most frequent ones and the counts by word length.

WORDS = 500000
PER_LINE = 12
SYLLABLES = ["ka", "lo", "mi", "ra", "zu", "te", "no", "shi", "an", "vo", "e", "qua"]


def vocabulary():
    out = []
    for i in range(1500):
        k, parts = i, []
        while True:
            parts.append(SYLLABLES[k % len(SYLLABLES)])
            k //= len(SYLLABLES)
            if k == 0:
                break
        out.append("".join(parts))
    return out


def generate():
    vocab = vocabulary()
    seed = 31
    lines, line = [], []
    for _ in range(WORDS):
        seed = (seed * 1103515245 + 12345) % 2147483648
        a = seed // 256 % 1500
        seed = (seed * 1103515245 + 12345) % 2147483648
        b = seed // 256 % 1500
        line.append(vocab[a * b // 1500])
        if len(line) == PER_LINE:
            lines.append(" ".join(line))
            line = []
    lines.append(" ".join(line))
    return "\n".join(lines)


def main():
    text = generate()
    counts = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    print(f"words: {sum(counts.values())}, distinct: {len(counts)}")
    print(f"once only: {sum(1 for c in counts.values() if c == 1)}")
    for word, c in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))[:15]:
        print(word.ljust(12) + str(c).rjust(7))
    by_length = {}
    for word, c in counts.items():
        by_length[len(word)] = by_length.get(len(word), 0) + c
    for length, c in sorted(by_length.items()):
        print(str(length).rjust(3) + str(c).rjust(8))


main()
