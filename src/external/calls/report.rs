//! How a call is shown: its progress group, its command line, its progress and
//! trace lines, its exit code.

use super::*;

/// What a progress and trace line needs of an entry.
pub(super) struct EntryLine<'a> {
    pub(super) group: Cow<'a, str>,
    pub(super) place: Cow<'a, str>,
    pub(super) shown: Cow<'a, str>,
    pub(super) external: &'static str,
    pub(super) trace_id: u64,
    pub(super) submitted: Instant,
    pub(super) started: Option<(SystemTime, Instant)>,
    pub(super) tokens: Option<(i64, i64)>,
}

impl EntryLine<'_> {
    /// Borrows what it needs of `e`.
    pub(super) fn of(e: &Entry) -> EntryLine<'_> {
        EntryLine {
            group: Cow::Borrowed(&e.group),
            place: Cow::Borrowed(&e.place),
            shown: Cow::Borrowed(&e.shown),
            external: e.external.name,
            trace_id: e.trace_id,
            submitted: e.submitted,
            started: e.started,
            tokens: e.tokens,
        }
    }

    /// A copy that outlives the entry.
    pub(super) fn owned(&self) -> EntryLine<'static> {
        EntryLine {
            group: Cow::Owned(self.group.to_string()),
            place: Cow::Owned(self.place.to_string()),
            shown: Cow::Owned(self.shown.to_string()),
            external: self.external,
            trace_id: self.trace_id,
            submitted: self.submitted,
            started: self.started,
            tokens: self.tokens,
        }
    }
}

/// The name progress groups a call under: the program's file name for a process (for
/// `shell`, the first command's), else the external's name.
pub(super) fn group_of(external: &External, request: &Request) -> String {
    let Request::Process(p) = request else {
        return external.name.to_string();
    };
    let program = if p.shown_as.is_some() {
        key::process_words(p)
            .into_iter()
            .find(|(_, command)| *command)
            .map(|(w, _)| w)
            .unwrap_or_else(|| external.name.to_string())
    } else {
        p.program.clone()
    };
    Path::new(&program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or(program)
}

/// How a call is shown: program and arguments for a process, else its description.
pub(super) fn shown_of(request: &Request) -> String {
    match request {
        Request::Process(p) => p.shown(),
        other => other.describe(),
    }
}

/// The exit code a result shows in the trace.
pub(super) fn exit_code(r: &Result<Reply, CallError>) -> Option<i64> {
    match r {
        Ok(Reply::Exit { code, .. }) => Some(*code),
        Ok(_) => None,
        Err(e) => match e.kind {
            CallErrorKind::Exited(c) => Some(c as i64),
            CallErrorKind::Signalled(s) => Some(128 + s as i64),
            _ => None,
        },
    }
}

impl Calls {
    /// The progress line and trace line of a call that is over.
    pub(super) fn end_line(&mut self, e: &Entry, status: Status, exit: Option<i64>, detail: &str) {
        let line = EntryLine::of(e);
        self.write_line(&line, status, exit, detail);
    }

    pub(super) fn write_line(
        &mut self,
        e: &EntryLine,
        status: Status,
        exit: Option<i64>,
        detail: &str,
    ) {
        let (start, took) = match e.started {
            Some((at, i)) => (at, i.elapsed()),
            None => (
                SystemTime::now() - e.submitted.elapsed(),
                if status == Status::Reused {
                    e.submitted.elapsed()
                } else {
                    Duration::ZERO
                },
            ),
        };
        self.progress.finished(
            &e.group,
            status,
            e.started.is_some(),
            &e.place,
            &e.shown,
            took,
            detail,
        );
        if let Some(t) = &mut self.trace {
            let _ = t.write(&trace::Line {
                id: e.trace_id,
                place: &e.place,
                external: e.external,
                call: &e.shown,
                status: status.word(),
                start,
                duration: took,
                exit,
                note: detail,
                tokens: e.tokens,
            });
        }
    }

    /// The plan as lines for standard error: a line per call that would run
    /// (`wf.sp:3:5  sort -u data.txt  (new call)`), their count by external, and what
    /// the plan could not see past; or a line saying nothing would run.
    pub fn render_plan(&self) -> String {
        if self.plan.is_empty() {
            return "plan: nothing to run: every call is recorded\n".to_string();
        }
        let n = self.plan.len();
        let mut out = format!(
            "plan: {n} call{} would run:\n",
            if n == 1 { "" } else { "s" }
        );
        for p in &self.plan {
            out.push_str(&format!(
                "  {}  {}  ({})\n",
                p.place,
                crate::external::progress::one_line(&p.shown),
                p.why
            ));
        }
        let mut by: Vec<(String, usize)> = Vec::new();
        for p in &self.plan {
            match by.iter_mut().find(|(e, _)| *e == p.external) {
                Some((_, c)) => *c += 1,
                None => by.push((p.external.clone(), 1)),
            }
        }
        let counts: Vec<String> = by.iter().map(|(e, c)| format!("{c} {e}")).collect();
        out.push_str(&format!("plan: by external: {}\n", counts.join(", ")));
        out.push_str(&match self.plan_blocked {
            0 => "plan: nothing else would run after these\n".to_string(),
            1 => "plan: and more after this one finishes (its result is needed to see further)\n"
                .to_string(),
            k => format!(
                "plan: and more after these {k} finish (their results are needed to see further)\n"
            ),
        });
        out
    }
}
