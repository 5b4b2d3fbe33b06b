def mean (xs : List Int) : Int = 0
