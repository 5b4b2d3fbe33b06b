//! The by-need stack machine (DESIGN.md section 2). Not yet implemented: see issue 3.
