//! The tracer's report: what a traced process tree did to the file system, one line
//! per fact, written by the tracer when the tree has ended and read by the caller.
//!
//! ```text
//! R<TAB>/abs/path     read (a regular file opened for reading, first touched so)
//! X<TAB>/abs/path     executed
//! L<TAB>/abs/dir      listed
//! S<TAB>/abs/path     looked up and there (a file or directory)
//! M<TAB>/abs/path     looked up and missing
//! W<TAB>/abs/path     changed, created again or removed; it existed before
//! C<TAB>/abs/path     created; it did not exist before
//! A<TAB>/abs/path     (besides W or C) only ever appended to (`O_APPEND`)
//! U<TAB>reason        something the tracer could not see (the call is not recorded)
//! F<TAB>message       the program could not be started
//! END
//! ```
//!
//! Paths are UTF-8 with `\\`, newline, tab and carriage return escaped as `\\\\`,
//! `\\n`, `\\t`, `\\r`. A report without its `END` line (the tracer was killed while
//! writing) is not a report.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// How a path was used as an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Input {
    /// Its content was read.
    Read,
    /// It was executed.
    Exec,
    /// Its names were listed (a directory).
    Listed,
    /// It was looked up and was there.
    Exists,
    /// It was looked up and was not there.
    Missing,
}

impl Input {
    fn tag(self) -> char {
        match self {
            Input::Read => 'R',
            Input::Exec => 'X',
            Input::Listed => 'L',
            Input::Exists => 'S',
            Input::Missing => 'M',
        }
    }

    fn of_tag(c: char) -> Option<Input> {
        Some(match c {
            'R' => Input::Read,
            'X' => Input::Exec,
            'L' => Input::Listed,
            'S' => Input::Exists,
            'M' => Input::Missing,
            _ => return None,
        })
    }
}

/// What a traced process tree did, as the report says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    /// Paths used before the tree changed them, with how (a path may be read and
    /// listed, never both read and missing: see [`Observed::add_input`]).
    pub inputs: BTreeMap<String, Vec<Input>>,
    /// Paths the tree changed, created or removed: whether each existed before.
    pub writes: BTreeMap<String, bool>,
    /// Those of [`Observed::writes`] the tree only ever appended to (opened with
    /// `O_APPEND`, never truncated, renamed or removed): a log that other calls may
    /// append to as well.
    pub appended: BTreeSet<String>,
    /// What the tracer could not see, if anything: the call must not be recorded.
    pub untraceable: Option<String>,
    /// Why the program could not be started, if it could not.
    pub cannot_start: Option<String>,
}

impl Observed {
    /// Notes an input use of `path`, unless the tree changed it before (reading one's
    /// own output is not an input). A missing lookup is dropped once the path is seen
    /// there (it was created meanwhile by someone else, and its content or existence
    /// is the dependency).
    pub fn add_input(&mut self, path: &str, how: Input) {
        if self.writes.contains_key(path) {
            return;
        }
        let uses = self.inputs.entry(path.to_string()).or_default();
        if uses.contains(&how) {
            return;
        }
        if how == Input::Missing && !uses.is_empty() {
            return;
        }
        if how != Input::Missing {
            uses.retain(|u| *u != Input::Missing);
        }
        if how == Input::Exists && uses.iter().any(|u| *u != Input::Missing) {
            return;
        }
        if how != Input::Exists {
            uses.retain(|u| *u != Input::Exists);
        }
        uses.push(how);
        uses.sort();
    }

    /// Notes that the tree is about to change `path`, which exists now or not; only the
    /// first change counts (what existed before the tree touched it).
    pub fn add_write(&mut self, path: &str, existed: bool) {
        self.writes.entry(path.to_string()).or_insert(existed);
        self.appended.remove(path);
    }

    /// Notes that the tree opens `path` to append to it (`O_APPEND`, no truncation):
    /// a change like [`Observed::add_write`], which stays "appended only" as long as
    /// every change to the path is one.
    pub fn add_append(&mut self, path: &str, existed: bool) {
        if !self.writes.contains_key(path) {
            self.writes.insert(path.to_string(), existed);
            self.appended.insert(path.to_string());
        }
    }

    /// Notes something the tracer cannot see (the first reason is kept).
    pub fn mark_untraceable(&mut self, why: &str) {
        if self.untraceable.is_none() {
            self.untraceable = Some(why.to_string());
        }
    }

    /// The report's text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Some(why) = &self.cannot_start {
            let _ = writeln!(out, "F\t{}", escape(why));
        }
        if let Some(why) = &self.untraceable {
            let _ = writeln!(out, "U\t{}", escape(why));
        }
        for (path, uses) in &self.inputs {
            for u in uses {
                let _ = writeln!(out, "{}\t{}", u.tag(), escape(path));
            }
        }
        for (path, existed) in &self.writes {
            let tag = if *existed { 'W' } else { 'C' };
            let _ = writeln!(out, "{tag}\t{}", escape(path));
        }
        for path in &self.appended {
            let _ = writeln!(out, "A\t{}", escape(path));
        }
        out.push_str("END\n");
        out
    }

    /// Reads a report; `None` when it is not a whole one.
    pub fn parse(text: &str) -> Option<Observed> {
        let mut o = Observed::default();
        let mut ended = false;
        for line in text.lines() {
            if ended {
                return None;
            }
            if line == "END" {
                ended = true;
                continue;
            }
            let (tag, rest) = line.split_once('\t')?;
            let mut chars = tag.chars();
            let c = chars.next()?;
            if chars.next().is_some() {
                return None;
            }
            let value = unescape(rest)?;
            match c {
                'W' => {
                    o.writes.insert(value, true);
                }
                'C' => {
                    o.writes.insert(value, false);
                }
                'A' => {
                    o.appended.insert(value);
                }
                'U' => o.untraceable = Some(value),
                'F' => o.cannot_start = Some(value),
                c => {
                    let how = Input::of_tag(c)?;
                    let uses = o.inputs.entry(value).or_default();
                    if !uses.contains(&how) {
                        uses.push(how);
                        uses.sort();
                    }
                }
            }
        }
        ended.then_some(o)
    }
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_round_trips_and_a_cut_one_is_refused() {
        let mut o = Observed::default();
        o.add_input("/a/in put.txt", Input::Read);
        o.add_input("/a/dir", Input::Listed);
        o.add_input("/bin/sh", Input::Exec);
        o.add_input("/odd\npath\\x\t", Input::Missing);
        o.add_write("/a/out.txt", false);
        o.add_write("/a/old.txt", true);
        o.add_append("/a/log", true);
        o.mark_untraceable("io_uring");
        let text = o.render();
        assert_eq!(Observed::parse(&text), Some(o.clone()));
        let cut = &text[..text.len() - 4];
        assert_eq!(Observed::parse(cut), None);
        assert_eq!(Observed::parse("R\t/x\nEND\nR\t/y\n"), None);
        assert_eq!(Observed::parse("Q\t/x\nEND\n"), None);
        assert_eq!(Observed::parse("R\t/x\\q\nEND\n"), None);
    }

    #[test]
    fn inputs_keep_the_most_telling_use_and_never_ones_own_output() {
        let mut o = Observed::default();
        o.add_input("/f", Input::Missing);
        o.add_input("/f", Input::Exists);
        o.add_input("/f", Input::Read);
        o.add_input("/f", Input::Exists);
        o.add_input("/f", Input::Missing);
        assert_eq!(o.inputs["/f"], [Input::Read]);
        o.add_input("/d", Input::Exists);
        o.add_input("/d", Input::Listed);
        assert_eq!(o.inputs["/d"], [Input::Listed]);
        o.add_write("/new", false);
        o.add_input("/new", Input::Read);
        assert!(!o.inputs.contains_key("/new"));
        o.add_write("/new", true);
        assert!(!o.writes["/new"]);
        // Appended only, until something else changes it.
        o.add_append("/log", false);
        o.add_append("/log", true);
        assert!(o.appended.contains("/log") && !o.writes["/log"]);
        o.add_write("/log", true);
        assert!(!o.appended.contains("/log"));
        o.add_append("/log", true);
        assert!(
            !o.appended.contains("/log"),
            "once rewritten, never only appended"
        );
    }
}
