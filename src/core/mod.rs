//! Core terms and whole programs, and their printing back to Spindle source.

pub mod collections;
pub mod doc;
pub mod equiv;
pub mod graph;
pub mod plain;
pub mod pretty;
pub mod program;
pub mod subst;
pub mod term;
