//! Scope resolution. (Being written.)
