-- The program's arguments (LANGUAGE.md sections 8 and 10).
def main = (length args, args)
