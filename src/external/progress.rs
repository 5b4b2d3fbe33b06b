//! Progress on standard error while a run works (LANGUAGE.md 11). Never on standard
//! output.
//!
//! - **Live** (standard error is a terminal, `--progress auto`): one line per external
//!   name (for processes, per program name), redrawn at most every 200 ms by
//!   [`indicatif`], like `sort     [ 12/40] running 4, reused 10, failed 0`; at most
//!   [`MAX_LINES`] lines, then `... and N more`; a final summary line.
//! - **Plain** (not a terminal, or `--progress plain`): one line per finished call,
//!   like `ok       wf.sp:3:5  sort -u data.txt  (120 ms)`, and the summary line.
//! - **None** (`--progress none`): nothing.
//!
//! Colour only on a terminal and never when `NO_COLOR` is set (to anything but the
//! empty string, as <https://no-color.org> asks).
//!
//! Other writers to standard error (a tool's standard error, `trace`, failure reports)
//! go through [`eprint_lines`], which lifts the live lines out of the way first.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// At most this many live lines; the rest are summed up in one more.
pub const MAX_LINES: usize = 10;

/// How progress is shown (`--progress`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProgressMode {
    /// Live lines on a terminal, plain lines otherwise.
    #[default]
    Auto,
    /// Live lines (even when standard error is not a terminal: for tests).
    Live,
    /// One line per finished call.
    Plain,
    /// Nothing.
    None,
}

impl std::str::FromStr for ProgressMode {
    type Err = String;
    fn from_str(s: &str) -> Result<ProgressMode, String> {
        match s {
            "auto" => Ok(ProgressMode::Auto),
            "live" => Ok(ProgressMode::Live),
            "plain" => Ok(ProgressMode::Plain),
            "none" => Ok(ProgressMode::None),
            other => Err(format!(
                "unknown progress mode `{other}` (auto, plain, none)"
            )),
        }
    }
}

/// How a call ended, as progress and the trace show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// It ran and succeeded.
    Ok,
    /// It ran and failed.
    Failed,
    /// Its recorded result was used.
    Reused,
    /// It was stopped or dropped before it finished.
    Cancelled,
    /// `--plan`: it would run.
    Planned,
}

impl Status {
    /// The word for it.
    pub fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Failed => "failed",
            Status::Reused => "reused",
            Status::Cancelled => "cancelled",
            Status::Planned => "planned",
        }
    }
}

/// Whether colours may be used on standard error.
pub fn color_allowed() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal()
}

/// A text for a one-line report: line breaks shown as `\n` (a `shell` command line, or
/// a failure's message that quotes one, may hold several lines).
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(['\n', '\r']) {
        text.replace('\n', "\\n").replace('\r', "\\r").into()
    } else {
        text.into()
    }
}

/// The live display, when there is one: other writers lift it out of the way.
static LIVE: Mutex<Option<MultiProgress>> = Mutex::new(None);

/// Writes `text` to standard error in one piece (a newline added if missing), lifting
/// the live progress lines out of the way while it does.
pub fn eprint_lines(text: &[u8]) {
    let write = || {
        let mut e = std::io::stderr().lock();
        let _ = e.write_all(text);
        if !text.ends_with(b"\n") {
            let _ = e.write_all(b"\n");
        }
        let _ = e.flush();
    };
    let live = LIVE.lock().ok().and_then(|l| l.clone());
    match live {
        Some(m) => m.suspend(write),
        None => write(),
    }
}

#[derive(Debug, Default)]
struct Group {
    total: u64,
    running: u64,
    done: u64,
    reused: u64,
    failed: u64,
    /// Model tokens in and out of its calls (ran or reused).
    tokens: (i64, i64),
    bar: Option<ProgressBar>,
}

/// Counts of a whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Calls that ran and succeeded.
    pub ok: u64,
    /// Calls whose record was used.
    pub reused: u64,
    /// Calls that failed (each attempt counts).
    pub failed: u64,
    /// Calls stopped or dropped.
    pub cancelled: u64,
    /// Model tokens in (prompt) of calls that ran.
    pub tokens_in: i64,
    /// Model tokens out (completion) of calls that ran.
    pub tokens_out: i64,
    /// Model tokens (in and out) of calls whose record was used: not paid again.
    pub tokens_reused: i64,
    /// Calls that would run (`--plan`).
    pub planned: u64,
}

/// The progress display of one run.
pub struct Progress {
    mode: ProgressMode,
    color: bool,
    groups: BTreeMap<String, Group>,
    multi: Option<MultiProgress>,
    more: Option<ProgressBar>,
    width: usize,
    totals: Totals,
    started: Instant,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("mode", &self.mode)
            .field("totals", &self.totals)
            .finish_non_exhaustive()
    }
}

impl Progress {
    /// A display in this mode (`Auto` decides now, from standard error).
    pub fn new(mode: ProgressMode) -> Progress {
        let mode = match mode {
            ProgressMode::Auto if std::io::stderr().is_terminal() => ProgressMode::Live,
            ProgressMode::Auto => ProgressMode::Plain,
            m => m,
        };
        let multi = (mode == ProgressMode::Live).then(|| {
            // At most five redraws a second: every 200 ms.
            MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(5))
        });
        if let Some(m) = &multi
            && let Ok(mut live) = LIVE.lock()
        {
            *live = Some(m.clone());
        }
        Progress {
            mode,
            color: color_allowed(),
            groups: BTreeMap::new(),
            multi,
            more: None,
            width: 8,
            totals: Totals::default(),
            started: Instant::now(),
        }
    }

    /// The mode in use (never `Auto`).
    pub fn mode(&self) -> ProgressMode {
        self.mode
    }

    /// The counts so far.
    pub fn totals(&self) -> Totals {
        self.totals
    }

    /// A call of `group` was asked for.
    pub fn submitted(&mut self, group: &str) {
        self.group(group).total += 1;
        self.redraw(group);
    }

    /// A call of `group` started running.
    pub fn started(&mut self, group: &str) {
        self.group(group).running += 1;
        self.redraw(group);
    }

    /// A call of `group` ended (`was_running`: it had started). In plain mode, one
    /// line: its status, place, the call, and its time or what went wrong.
    #[allow(clippy::too_many_arguments)]
    pub fn finished(
        &mut self,
        group: &str,
        status: Status,
        was_running: bool,
        place: &str,
        shown: &str,
        took: Duration,
        detail: &str,
    ) {
        {
            let g = self.group(group);
            if was_running {
                g.running = g.running.saturating_sub(1);
            }
            match status {
                Status::Ok => g.done += 1,
                Status::Reused => {
                    g.done += 1;
                    g.reused += 1;
                }
                Status::Failed => {
                    g.done += 1;
                    g.failed += 1;
                }
                Status::Cancelled | Status::Planned => g.total = g.total.saturating_sub(1),
            }
        }
        match status {
            Status::Ok => self.totals.ok += 1,
            Status::Reused => self.totals.reused += 1,
            Status::Failed => self.totals.failed += 1,
            Status::Cancelled => self.totals.cancelled += 1,
            Status::Planned => self.totals.planned += 1,
        }
        if self.mode == ProgressMode::Plain && status != Status::Planned {
            let word = format!("{:<9}", status.word());
            let word = if self.color && status == Status::Failed {
                format!("\x1b[31m{word}\x1b[0m")
            } else {
                word
            };
            let tail = if detail.is_empty() {
                format!("({} ms)", took.as_millis())
            } else {
                format!("({} ms: {})", took.as_millis(), one_line(detail))
            };
            let shown = one_line(shown);
            let place = if place.is_empty() {
                String::new()
            } else {
                format!("{place}  ")
            };
            eprint_lines(format!("{word}{place}{shown}  {tail}\n").as_bytes());
        }
        self.redraw(group);
    }

    /// A model call of `group` that ran (or was `reused`) counted these tokens.
    pub fn tokens(&mut self, group: &str, reused: bool, (tin, tout): (i64, i64)) {
        if tin == 0 && tout == 0 {
            return;
        }
        let g = self.group(group);
        g.tokens.0 += tin;
        g.tokens.1 += tout;
        if reused {
            self.totals.tokens_reused += tin + tout;
        } else {
            self.totals.tokens_in += tin;
            self.totals.tokens_out += tout;
        }
        self.redraw(group);
    }

    /// A line for standard error that does not garble the live display.
    pub fn println(&self, line: &str) {
        if self.mode != ProgressMode::None || !line.is_empty() {
            eprint_lines(line.as_bytes());
        }
    }

    /// Ends the display: the live lines stay as they last were, and one summary line
    /// follows (not in `none` mode, and not when nothing was called).
    pub fn finish(&mut self) {
        if let Some(m) = self.multi.take() {
            for g in self.groups.values_mut() {
                if let Some(b) = g.bar.take() {
                    b.abandon();
                }
            }
            if let Some(b) = self.more.take() {
                b.abandon();
            }
            let _ = m.clear();
            if let Ok(mut live) = LIVE.lock() {
                *live = None;
            }
            // The final state of each line, once, without redraws.
            let lines: Vec<String> = self
                .groups
                .iter()
                .take(MAX_LINES)
                .map(|(n, g)| self.line(n, g))
                .collect();
            let mut text = lines.join("\n");
            if self.groups.len() > MAX_LINES {
                text.push_str(&format!("\n... and {} more", self.groups.len() - MAX_LINES));
            }
            if !text.is_empty() {
                eprint_lines(text.as_bytes());
            }
        }
        if self.mode == ProgressMode::None || self.groups.is_empty() {
            return;
        }
        eprint_lines(self.summary().as_bytes());
    }

    /// `done: 40 calls (12 ran, 28 reused, 0 failed) in 3.2 s`.
    pub fn summary(&self) -> String {
        let t = &self.totals;
        let mut s = format!(
            "done: {} calls ({} ran, {} reused, {} failed",
            t.ok + t.reused + t.failed,
            t.ok + t.failed,
            t.reused,
            t.failed
        );
        if t.cancelled > 0 {
            s.push_str(&format!(", {} cancelled", t.cancelled));
        }
        if t.planned > 0 {
            s.push_str(&format!(", {} planned", t.planned));
        }
        if t.tokens_in + t.tokens_out + t.tokens_reused > 0 {
            s.push_str(&format!(
                "; tokens {} in, {} out, {} reused",
                t.tokens_in, t.tokens_out, t.tokens_reused
            ));
        }
        s.push_str(&format!(
            ") in {:.1} s",
            self.started.elapsed().as_secs_f64()
        ));
        s
    }

    fn group(&mut self, name: &str) -> &mut Group {
        if !self.groups.contains_key(name) {
            self.width = self.width.max(name.chars().count().min(24));
            self.groups.insert(name.to_string(), Group::default());
        }
        self.groups
            .get_mut(name)
            .expect("the group exists: it was made above")
    }

    fn line(&self, name: &str, g: &Group) -> String {
        let w = g.total.to_string().len().max(3);
        let failed = if g.failed > 0 && self.color {
            format!("\x1b[31mfailed {}\x1b[0m", g.failed)
        } else {
            format!("failed {}", g.failed)
        };
        let tokens = if g.tokens != (0, 0) {
            format!(", tokens {} in, {} out", g.tokens.0, g.tokens.1)
        } else {
            String::new()
        };
        format!(
            "{name:<width$} [{done:>w$}/{total}] running {r}, reused {u}, {failed}{tokens}",
            width = self.width,
            done = g.done,
            total = g.total,
            r = g.running,
            u = g.reused,
        )
    }

    fn redraw(&mut self, name: &str) {
        let Some(multi) = &self.multi else { return };
        let index = self.groups.keys().position(|k| k == name).unwrap_or(0);
        if index >= MAX_LINES {
            let more = self.groups.len() - MAX_LINES;
            let bar = self.more.get_or_insert_with(|| {
                let b = multi.add(ProgressBar::new_spinner());
                b.set_style(
                    ProgressStyle::with_template("{msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                b
            });
            bar.set_message(format!("... and {more} more"));
            return;
        }
        let Some(g) = self.groups.get(name) else {
            return;
        };
        let text = self.line(name, g);
        let multi = multi.clone();
        let more = self.more.clone();
        let Some(g) = self.groups.get_mut(name) else {
            return;
        };
        let bar = g.bar.get_or_insert_with(|| {
            let b = ProgressBar::new_spinner();
            let b = match &more {
                Some(m) => multi.insert_before(m, b),
                None => multi.add(b),
            };
            b.set_style(
                ProgressStyle::with_template("{msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b
        });
        bar.set_message(text);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.multi.is_some() {
            if let Ok(mut live) = LIVE.lock() {
                *live = None;
            }
            if let Some(m) = self.multi.take() {
                let _ = m.clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_line_is_one_line() {
        assert_eq!(one_line("a\nb\r"), "a\\nb\\r");
        assert_eq!(one_line("plain"), "plain");
    }

    #[test]
    fn modes_parse() {
        assert_eq!("plain".parse::<ProgressMode>(), Ok(ProgressMode::Plain));
        assert!("loud".parse::<ProgressMode>().is_err());
    }

    #[test]
    fn lines_and_summary() {
        let mut p = Progress::new(ProgressMode::None);
        for _ in 0..40 {
            p.submitted("sort");
        }
        for _ in 0..4 {
            p.started("sort");
        }
        for _ in 0..10 {
            p.finished("sort", Status::Reused, false, "", "", Duration::ZERO, "");
        }
        p.started("sort");
        p.finished("sort", Status::Ok, true, "", "", Duration::ZERO, "");
        p.finished("sort", Status::Ok, false, "", "", Duration::ZERO, "");
        let g = &p.groups["sort"];
        p.color = false;
        assert_eq!(
            p.line("sort", g),
            "sort     [ 12/40] running 4, reused 10, failed 0"
        );
        assert!(
            p.summary()
                .starts_with("done: 12 calls (2 ran, 10 reused, 0 failed) in ")
        );
    }
}
