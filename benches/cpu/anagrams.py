# Anagrams: generate words over a small alphabet, group the distinct ones by their
# sorted letters, and report the largest classes; letter counts and a Caesar shift.

WORDS = 120000
LETTERS = "aeilnrst"


def generate():
    seed = 59
    words = []
    for _ in range(WORDS):
        seed = (seed * 1103515245 + 12345) % 2147483648
        length = 4 + seed // 64 % 4
        word = []
        for _ in range(length):
            seed = (seed * 1103515245 + 12345) % 2147483648
            word.append(LETTERS[seed // 65536 % len(LETTERS)])
        words.append("".join(word))
    return words


def caesar(word, k):
    return "".join(chr((ord(c) - ord("a") + k) % 26 + ord("a")) for c in word)


def main():
    words = generate()
    distinct = sorted(set(words))
    classes = {}
    for w in distinct:
        classes.setdefault("".join(sorted(w)), []).append(w)
    print(f"words: {len(words)}, distinct: {len(distinct)}, classes: {len(classes)}")
    largest = sorted(classes.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:6]
    for key, members in largest:
        print(f"{key.upper()} {len(members)}: {' '.join(members[:4])}")
    letters = {}
    for w in words:
        for c in w:
            letters[c] = letters.get(c, 0) + 1
    print(" ".join(f"{c}={n}" for c, n in sorted(letters.items())))
    print(" ".join(caesar(w, 3) for w in words[:6]))
    print(sum(1 for w in words if w[0] in "aei" and w[-1] not in "aei"))


main()
