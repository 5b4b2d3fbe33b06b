def mean (xs : List Int) : Int = sum xs / length xs
