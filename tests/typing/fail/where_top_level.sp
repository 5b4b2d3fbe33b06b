-- A `where` that belongs to no `def`.
data Color = Red | Green
where shade = 1
