-- chr outside the Unicode scalar values is a runtime error naming the value.
def main = map chr [65, 55296]
