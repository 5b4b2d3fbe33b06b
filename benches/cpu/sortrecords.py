# Sorting records: generate employees, sort them by several keys (stable sorts, ties
# by name), and report ranks, medians and the top earner of each department.

EMPLOYEES = 80000
SYLLABLES = ["ka", "lo", "mi", "ra", "zu", "te", "no", "shi", "an", "vo"]
DEPARTMENTS = ["engineering", "sales", "support", "finance", "legal", "research"]


def generate():
    seed = 17
    people = []
    for i in range(EMPLOYEES):
        seed = (seed * 1103515245 + 12345) % 2147483648
        name = "".join(SYLLABLES[seed // (10 ** k) % 10] for k in range(1, 4))
        people.append({
            "id": i,
            "name": name,
            "dept": DEPARTMENTS[seed // 4096 % len(DEPARTMENTS)],
            "salary": 30000 + seed // 128 % 90000,
            "age": 20 + seed // 65536 % 45,
        })
    return people


def show(p):
    return f"{p['name']} ({p['dept']}, {p['age']}): {p['salary']}"


def main():
    people = generate()
    by_salary = sorted(people, key=lambda p: (-p["salary"], p["name"]))
    print("top: " + "; ".join(show(p) for p in by_salary[:3]))
    print("bottom: " + "; ".join(show(p) for p in by_salary[-3:]))
    salaries = sorted(p["salary"] for p in people)
    print(f"median salary: {salaries[len(salaries) // 2]}")
    by_dept = sorted(people, key=lambda p: (p["dept"], -p["salary"]))
    seen = set()
    for p in by_dept:
        if p["dept"] not in seen:
            seen.add(p["dept"])
            print(f"  {p['dept']}: {show(p)}")
    names = sorted(p["name"] for p in people)
    print(f"names: first {names[0]}, last {names[-1]}, distinct {len(set(names))}")
    by_age = sorted(people, key=lambda p: p["age"])
    print(f"youngest ids: {[p['id'] for p in by_age[:6]]}")


main()
