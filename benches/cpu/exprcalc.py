# Expression parser: generate arithmetic expressions as text, tokenize and parse them
# by recursive descent into trees, and evaluate them modulo a prime.

COUNT = 6000
DEPTH = 6
P = 1000003


class Rng:
    def __init__(self, seed):
        self.seed = seed

    def next(self):
        self.seed = (self.seed * 1103515245 + 12345) % 2147483648
        return self.seed


def gen(rng, depth):
    r = rng.next()
    if depth == 0 or r % 5 == 0:
        return [str(r // 7 % 100)]
    op = "+-*"[r // 7 % 3]
    left = gen(rng, depth - 1)
    right = gen(rng, depth - 1)
    tokens = left + [op] + right
    if r // 21 % 2 == 0:
        tokens = ["("] + tokens + [")"]
    return tokens


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def expr(self):
        node = self.term()
        while self.peek() in ("+", "-"):
            op = self.tokens[self.pos]
            self.pos += 1
            node = (op, node, self.term())
        return node

    def term(self):
        node = self.factor()
        while self.peek() == "*":
            self.pos += 1
            node = ("*", node, self.factor())
        return node

    def factor(self):
        tok = self.tokens[self.pos]
        self.pos += 1
        if tok == "(":
            node = self.expr()
            self.pos += 1  # the ")"
            return node
        return ("num", int(tok))


def evaluate(node):
    if node[0] == "num":
        return node[1]
    a, b = evaluate(node[1]), evaluate(node[2])
    if node[0] == "+":
        return (a + b) % P
    if node[0] == "-":
        return (a - b) % P
    return a * b % P


def size(node):
    if node[0] == "num":
        return 1
    return 1 + size(node[1]) + size(node[2])


def main():
    rng = Rng(99)
    texts = [" ".join(gen(rng, DEPTH)) for _ in range(COUNT)]
    trees = [Parser(text.split()).expr() for text in texts]
    values = [evaluate(t) for t in trees]
    print(f"expressions: {len(texts)}, tokens: {sum(len(t.split()) for t in texts)}")
    print(f"nodes: {sum(size(t) for t in trees)}")
    print(f"checksum: {sum(values) % P}")
    short = [(text, value) for text, value in zip(texts, values) if 5 <= len(text.split()) < 20]
    for text, value in short[:3]:
        print(f"{text} = {value}")


main()
