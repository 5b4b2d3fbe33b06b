# Validation: parse generated sign-up forms into users, collecting the first problem
# of each invalid form; count problems by kind and summarise the valid users.

FORMS = 100000
NAMES = ["ada", "grace", "alan", "edsger", "barbara", "", "ken", "dennis"]
DOMAINS = ["example.org", "mail.net", "", "uni.edu"]


class Invalid(Exception):
    pass


def generate():
    seed = 3
    forms = []
    for i in range(FORMS):
        seed = (seed * 1103515245 + 12345) % 2147483648
        name = NAMES[seed // 8 % len(NAMES)]
        age = str(seed // 64 % 130 - 10) if seed // 4 % 17 != 0 else "unknown"
        domain = DOMAINS[seed // 8192 % len(DOMAINS)]
        email = f"{name}{i}@{domain}" if seed // 65536 % 9 != 0 else f"{name}{i}"
        forms.append(f"{name};{age};{email}")
    return forms


def parse_age(text):
    try:
        age = int(text)
    except ValueError:
        raise Invalid("age is not a number")
    if age < 0:
        raise Invalid("age is negative")
    if age > 110:
        raise Invalid("age is too large")
    return age


def parse_email(text):
    if "@" not in text:
        raise Invalid("email has no @")
    user, domain = text.split("@", 1)
    if domain == "":
        raise Invalid("email has no domain")
    return user, domain


def parse_form(line):
    fields = line.split(";")
    if len(fields) != 3:
        raise Invalid("wrong number of fields")
    name, age, email = fields
    if name == "":
        raise Invalid("name is empty")
    return {"name": name, "age": parse_age(age), "email": parse_email(email)}


def main():
    users, problems = [], {}
    for line in generate():
        try:
            users.append(parse_form(line))
        except Invalid as e:
            problems[str(e)] = problems.get(str(e), 0) + 1
    print(f"valid: {len(users)}, invalid: {sum(problems.values())}")
    for kind in sorted(problems):
        print(f"  {kind}: {problems[kind]}")
    ages = [u["age"] for u in users]
    print(f"mean age: {sum(ages) // len(ages)}, oldest: {max(ages)}")
    by_domain = {}
    for u in users:
        by_domain[u["email"][1]] = by_domain.get(u["email"][1], 0) + 1
    print("domains: " + ", ".join(f"{d} {n}" for d, n in sorted(by_domain.items())))
    print(f"first: {users[0]['name']} {users[0]['age']} {users[0]['email'][0]}")


main()
