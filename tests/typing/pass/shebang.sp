#!/usr/bin/env spindle run
-- A first line starting with #! is ignored, so a script can be executable.
def main = "hello from a script"
