-- shell runs with pipefail: a failing stage fails the call, though the last succeeds.
def main : String = shell "echo partial; false | cat"
