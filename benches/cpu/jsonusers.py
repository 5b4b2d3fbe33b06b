# JSON: build a list of user records, render it as JSON text, parse the text back,
# decode it and aggregate.
import json

USERS = 40000
TAGS = ["admin", "dev", "ops", "sales", "support", "research"]


def generate():
    seed = 7
    users = []
    for i in range(USERS):
        seed = (seed * 1103515245 + 12345) % 2147483648
        tags = [TAGS[(seed // (7 ** k)) % len(TAGS)] for k in range(seed // 1024 % 4)]
        users.append({
            "id": i,
            "name": f"user{i}",
            "score": seed // 128 % 1000,
            "active": seed // 32 % 3 != 0,
            "tags": tags,
            "location": {"x": seed // 8 % 500, "y": seed // 2048 % 500},
        })
    return users


def main():
    text = json.dumps(generate(), separators=(",", ":"))
    users = json.loads(text)
    active = [u for u in users if u["active"]]
    score = sum(u["score"] for u in active)
    tag_counts = {t: 0 for t in TAGS}
    for u in users:
        for t in u["tags"]:
            tag_counts[t] += 1
    far = [u["name"] for u in users if u["location"]["x"] + u["location"]["y"] > 980]
    print(f"characters: {len(text)}")
    print(f"active: {len(active)}, score {score}")
    print("tags: " + ", ".join(f"{t} {tag_counts[t]}" for t in TAGS))
    print(f"far: {far[:4]}".replace("'", '"'))
    summary = {"users": len(users), "active": len(active), "top": max(u["score"] for u in users)}
    print(json.dumps(summary, separators=(",", ":")))
    print(json.dumps(users[1], separators=(",", ":")))


main()
