# CSV: generate a sales table as text, parse it back, and aggregate by region and by
# product.

ROWS = 150000
REGIONS = ["north", "south", "east", "west", "central"]
PRODUCTS = ["apples", "pears", "plums", "cherries", "grapes", "melons", "kiwis"]


def generate():
    seed = 2024
    lines = ["id,region,product,quantity,price_cents"]
    for i in range(ROWS):
        seed = (seed * 1103515245 + 12345) % 2147483648
        region = REGIONS[seed // 16 % len(REGIONS)]
        product = PRODUCTS[seed // 256 % len(PRODUCTS)]
        quantity = 1 + seed // 4096 % 40
        price = 50 + seed // 65536 % 950
        lines.append(f"{i},{region},{product},{quantity},{price}")
    return "\n".join(lines) + "\n"


def main():
    text = generate()
    rows = []
    for line in text.splitlines()[1:]:
        ident, region, product, quantity, price = line.split(",")
        rows.append({"id": int(ident), "region": region, "product": product,
                     "quantity": int(quantity), "price": int(price)})
    by_region = {}
    for row in rows:
        revenue = row["quantity"] * row["price"]
        count, units, total, best = by_region.get(row["region"], (0, 0, 0, None))
        if best is None or revenue > best[0]:
            best = (revenue, row["id"])
        by_region[row["region"]] = (count + 1, units + row["quantity"], total + revenue, best)
    out = []
    for region in REGIONS:
        count, units, total, best = by_region[region]
        out.append(f"{region}: {count} sales, {units} units, {total} cents, best sale {best[1]} ({best[0]})")
    by_product = {p: 0 for p in PRODUCTS}
    for row in rows:
        by_product[row["product"]] += row["quantity"] * row["price"]
    for product, total in sorted(by_product.items(), key=lambda kv: -kv[1]):
        out.append(f"{product}: {total}")
    big = [row for row in rows if row["quantity"] >= 35 and row["price"] >= 900]
    out.append(f"big sales: {len(big)}, first {[r['id'] for r in big[:5]]}")
    print("\n".join(out))


main()
