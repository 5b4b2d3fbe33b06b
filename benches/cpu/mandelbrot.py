# Mandelbrot: escape times over a grid of the complex plane; per-row counts of the
# points that stay bounded, and the total number of iterations.

WIDTH = 320
HEIGHT = 240
MAX_ITER = 100


def escape(cr, ci):
    zr = zi = 0.0
    for n in range(MAX_ITER):
        zr2 = zr * zr
        zi2 = zi * zi
        if zr2 + zi2 > 4.0:
            return n
        zi = 2.0 * zr * zi + ci
        zr = zr2 - zi2 + cr
    return MAX_ITER


def main():
    total = 0
    inside_total = 0
    lines = []
    for y in range(HEIGHT):
        ci = -1.2 + 2.4 * y / HEIGHT
        row = [escape(-2.1 + 3.0 * x / WIDTH, ci) for x in range(WIDTH)]
        inside = sum(1 for n in row if n == MAX_ITER)
        total += sum(row)
        inside_total += inside
        if y % 16 == 0:
            lines.append("".join("#" if n == MAX_ITER else ("+" if n > 10 else ".") for n in row[::8]))
    lines.append(f"inside: {inside_total}")
    lines.append(f"iterations: {total}")
    print("\n".join(lines))


main()
