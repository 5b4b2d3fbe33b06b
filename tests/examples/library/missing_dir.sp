-- Listing a folder that does not exist is an error at the call.
def main : List String = listDir "no-such-folder"
