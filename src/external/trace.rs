//! `--trace FILE` (LANGUAGE.md 11): one tab-separated line per call, written as each
//! call ends (so a run that is killed leaves the lines of the calls that ended).
//!
//! Columns: id, place, external, program and arguments (cut to 200 characters; tabs
//! and line breaks shown as spaces), status (`ok`, `failed`, `reused`, `cancelled`,
//! `planned`), start time (UTC, RFC 3339 with milliseconds), duration in milliseconds,
//! exit code (`-` where there is none), and a note (the attempt, for retried calls:
//! `attempt 2/4`; why a call failed, cut to 200 characters), and for a model call the
//! tokens it was charged for, in and out (`120/45`; `-` for other calls).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The longest call text written.
pub const CALL_CHARS: usize = 200;

/// One trace line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    /// The call's id in this run.
    pub id: u64,
    /// Its place in the program.
    pub place: &'a str,
    /// The external's name.
    pub external: &'a str,
    /// Program and arguments, or the call's description.
    pub call: &'a str,
    /// `ok`, `failed`, `reused`, `cancelled`, `planned`.
    pub status: &'a str,
    /// When it started.
    pub start: SystemTime,
    /// How long it took.
    pub duration: Duration,
    /// Its exit code, for a process that exited.
    pub exit: Option<i64>,
    /// Anything more (attempt, failure).
    pub note: &'a str,
    /// A model call's tokens, in and out.
    pub tokens: Option<(i64, i64)>,
}

/// A trace file being written.
#[derive(Debug)]
pub struct Trace {
    out: BufWriter<File>,
}

/// `s` with tabs and line breaks as spaces, cut to `max` characters (`...` marks a
/// cut).
pub fn field(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .take(max)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if s.chars().nth(max).is_some() {
        out.push_str("...");
    }
    out
}

/// The civil date (year, month, day) `days` days after 1970-01-01, in the proleptic
/// Gregorian calendar (H. Hinnant's algorithm): timestamps written without a date
/// library (the trace, the Jupyter kernel's message headers).
pub fn civil_date(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// A time as `2026-05-01T12:00:00.123Z`.
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_date(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

impl Trace {
    /// Creates (or empties) the trace file.
    pub fn create(path: &Path) -> std::io::Result<Trace> {
        Ok(Trace {
            out: BufWriter::new(File::create(path)?),
        })
    }

    /// Writes one line and hands it to the file system.
    pub fn write(&mut self, l: &Line<'_>) -> std::io::Result<()> {
        let exit = l.exit.map(|c| c.to_string()).unwrap_or_else(|| "-".into());
        writeln!(
            self.out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            l.id,
            field(l.place, CALL_CHARS),
            field(l.external, CALL_CHARS),
            field(l.call, CALL_CHARS),
            l.status,
            rfc3339(l.start),
            l.duration.as_millis(),
            exit,
            field(l.note, CALL_CHARS),
            l.tokens
                .map_or_else(|| "-".to_string(), |(i, o)| format!("{i}/{o}")),
        )?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789);
        assert_eq!(rfc3339(t), "2024-02-29T12:34:56.789Z");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn lines_are_tab_separated_and_cut() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.tsv");
        let mut t = Trace::create(&p).unwrap();
        let long = "x".repeat(300);
        t.write(&Line {
            id: 7,
            place: "wf.sp:3:5",
            external: "run",
            call: &format!("echo\t{long}"),
            status: "ok",
            start: UNIX_EPOCH,
            duration: Duration::from_millis(12),
            exit: Some(0),
            note: "",
            tokens: None,
        })
        .unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let cols: Vec<&str> = text.trim_end_matches('\n').split('\t').collect();
        assert_eq!(cols.len(), 10, "{cols:?}");
        assert_eq!(cols[9], "-");
        assert_eq!(cols[0], "7");
        assert_eq!(cols[3].chars().count(), CALL_CHARS + 3);
        assert!(cols[3].starts_with("echo x"));
        assert_eq!(&cols[4..8], ["ok", "1970-01-01T00:00:00.000Z", "12", "0"]);
    }
}
