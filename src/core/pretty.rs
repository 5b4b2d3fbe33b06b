//! Printing core terms back to Spindle source. (Being written.)
