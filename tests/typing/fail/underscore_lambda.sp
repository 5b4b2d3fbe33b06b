def main = \(x : _) -> x
