def main = "ÿş"
