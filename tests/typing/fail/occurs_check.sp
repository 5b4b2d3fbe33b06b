def main = \f -> f f
