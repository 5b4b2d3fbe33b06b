"""Writes a Spindle program of about N lines (default 2,000) to standard output: data
types, records and definitions that call each other, for the language server's
benchmark (benches/lsp/bench.sh)."""
import sys

def generate(lines=2000):
    out = ["-- Generated for the language server's benchmark.", ""]
    i = 0
    while len(out) < lines - 12:
        out += [
            f"-- The shape number {i}.",
            f"data Shape{i} = Circle{i} Int | Square{i} Int Int | Dot{i}",
            "",
            f"record Box{i} = {{ width : Int, height : Int, label : String }}",
            "",
            f"-- The area of a shape number {i}.",
            f"def area{i} (s : Shape{i}) : Int =",
            f"  match s with",
            f"  | Circle{i} r -> 3 * r * r",
            f"  | Square{i} w h -> w * h",
            f"  | Dot{i} -> 0",
            "",
            f"def boxArea{i} (b : Box{i}) : Int = b.width * b.height",
            "",
            f"def describe{i} (b : Box{i}) : String =",
            f"  let a = boxArea{i} b in",
            f"  b.label ++ \": \" ++ showInt a",
            "",
            f"def total{i} (xs : List Int) : Int = foldl (\\acc x -> acc + x) {i} xs",
            "",
            f"def step{i} : Int = area{i} (Square{i} {i} 2) + total{i} [1, 2, 3]" + (f" + step{i-1}" if i > 0 else ""),
            "",
        ]
        i += 1
    out += [f"def main : Int = step{i-1}", ""]
    return "\n".join(out)

if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    sys.stdout.write(generate(n))
