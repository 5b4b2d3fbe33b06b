-- id's implicit argument lives in Type; Type itself does not.
def main = id {Type} Int
