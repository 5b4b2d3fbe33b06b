data A = Red | Green

data B = Blue | Red
