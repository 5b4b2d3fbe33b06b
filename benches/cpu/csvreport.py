# CSV report: generate a table of sales with decimal prices, parse it, group by
# (region, product) and by month in dictionaries, and print an aligned report.

ROWS = 120000
REGIONS = ["north", "south", "east", "west"]
PRODUCTS = ["widget", "gadget", "doohickey", "gizmo", "sprocket"]


def generate():
    seed = 77
    lines = ["date,region,product,units,unit_price"]
    for _ in range(ROWS):
        seed = (seed * 1103515245 + 12345) % 2147483648
        month = 1 + seed // 8 % 12
        day = 1 + seed // 128 % 28
        region = REGIONS[seed // 4096 % len(REGIONS)]
        product = PRODUCTS[seed // 32768 % len(PRODUCTS)]
        units = 1 + seed // 262144 % 20
        price = f"{1 + seed // 16 % 60}.{seed // 1024 % 100:02d}"
        lines.append(f"2024-{month:02d}-{day:02d},{region},{product},{units},{price}")
    return "\n".join(lines) + "\n"


def main():
    groups = {}
    months = {}
    for line in generate().splitlines()[1:]:
        date, region, product, units, price = line.split(",")
        units = int(units)
        revenue = units * float(price)
        count, total_units, total = groups.get((region, product), (0, 0, 0.0))
        groups[(region, product)] = (count + 1, total_units + units, total + revenue)
        months[date[:7]] = months.get(date[:7], 0.0) + revenue
    print("region".ljust(8) + "product".ljust(11) + "sales".rjust(7) + "units".rjust(8)
          + "revenue".rjust(14) + "per unit".rjust(10))
    for (region, product), (count, units, total) in sorted(groups.items()):
        print(region.ljust(8) + product.ljust(11) + str(count).rjust(7) + str(units).rjust(8)
              + f"{total:.2f}".rjust(14) + f"{total / units:.3f}".rjust(10))
    for month, total in sorted(months.items()):
        print(month + f"{total:.2f}".rjust(16))
    best = max(months.items(), key=lambda mt: mt[1])
    print(f"best month: {best[0]} ({best[1]:.2f})")


main()
