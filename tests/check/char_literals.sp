-- Character literals hold exactly one character (or one escape).
def empty = ''
def two = 'ab'
def badEscape = '\q'
def unclosed = 'a
def fine = ['\'', '"', '\\', '\u{1F600}']
