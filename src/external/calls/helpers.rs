//! The store work of a call, done on helper threads so the calls' thread never
//! waits for a file: the lookup before a call runs (its pre-key, the newest record that
//! still holds, or why it runs) and the record after it ran (from its tracer's report),
//! or, when it failed, the files it created.

use super::*;

/// A call's identity in the store.
#[derive(Debug, Clone)]
pub(super) struct Keyed {
    pub(super) pre: Hash,
}

/// How a finished process call is recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Recording {
    /// From its tracer's report.
    Traced(TraceSpec),
    /// Untraced, from its declared outputs and guessed inputs.
    Declared,
    /// Not at all (untraced, outputs not declared).
    Not,
}

/// Work for a helper thread.
#[allow(clippy::large_enum_variant)] // one per call in flight, moved once
pub(super) enum Job {
    Prepare {
        ticket: Ticket,
        generation: u64,
        external: &'static External,
        args: Vec<Plain>,
        reading: Vec<String>,
        writing: Vec<String>,
        rerun: bool,
    },
    Finish {
        ticket: Ticket,
        generation: u64,
        external: &'static str,
        request: Request,
        keyed: Option<Keyed>,
        recording: Option<Recording>,
        reading: Vec<String>,
        writing: Vec<String>,
        result: Result<Reply, CallError>,
        duration: Duration,
        place: String,
        shown: String,
    },
}

/// What a helper found.
#[allow(clippy::large_enum_variant)] // one per call in flight, moved once
pub(super) enum HelperDone {
    Prepared {
        ticket: Ticket,
        generation: u64,
        keyed: Keyed,
        decision: Decision,
    },
    Finished {
        ticket: Ticket,
        generation: u64,
        result: Result<Reply, CallError>,
        record: Option<(Hash, Made)>,
        /// A failed call: its pre-key, and the files it created (to move aside).
        failure: Option<(Hash, Vec<PathBuf>)>,
        /// Every path the call was seen to change (from its tracer's report).
        writes: Vec<PathBuf>,
        note: String,
    },
}

pub(super) enum Decision {
    /// Reuse this reply, of the record with this key.
    Reuse(Reply, Hash),
    Run(Why),
}

/// What helpers share.
pub(super) struct Shared {
    pub(super) store: Option<Arc<Store>>,
    pub(super) fps: Arc<Fingerprints>,
    /// Shared input sets found to hold this run.
    pub(super) sets_held: SetCache,
    pub(super) env_names: Vec<String>,
    pub(super) reuse: bool,
    pub(super) plan: bool,
    pub(super) explain: bool,
    pub(super) resume_failed: bool,
}

/// A helper's work.
pub(super) fn run_job(shared: &Shared, job: Job) -> HelperDone {
    match job {
        Job::Prepare {
            ticket,
            generation,
            external,
            args,
            reading,
            writing,
            rerun,
        } => {
            let context = external
                .is_process()
                .then(|| Context::now(&shared.env_names, &reading, &writing));
            let pre = key::pre_key(external.name, &args, context.as_ref());
            let decision = lookup(shared, &pre, rerun);
            HelperDone::Prepared {
                ticket,
                generation,
                keyed: Keyed { pre },
                decision,
            }
        }
        Job::Finish {
            ticket,
            generation,
            external,
            request,
            keyed,
            recording,
            reading,
            writing,
            result,
            duration,
            place,
            shown,
        } => {
            let observed = match &recording {
                Some(Recording::Traced(spec)) => {
                    let text = std::fs::read_to_string(&spec.report).ok();
                    let _ = std::fs::remove_file(&spec.report);
                    text.as_deref().and_then(Observed::parse)
                }
                _ => None,
            };
            let lookup_fp = |p: &Path| shared.store.as_ref().and_then(|s| s.fingerprint(p));
            let mut note = String::new();
            let writes: Vec<PathBuf> = observed
                .iter()
                .flat_map(|o| o.writes.keys().map(PathBuf::from))
                .collect();
            let Some(k) = keyed else {
                return HelperDone::Finished {
                    ticket,
                    generation,
                    result,
                    record: None,
                    failure: None,
                    writes,
                    note,
                };
            };
            match &result {
                Ok(reply) => {
                    let facts = Facts {
                        external,
                        reply,
                        took: duration,
                        place: &place,
                        shown: &shown,
                    };
                    let made =
                        match (&request, &recording) {
                            (Request::WriteFile { path, .. }, _) => Ok(
                                recording::from_written_file(&k.pre, &facts, path, &shared.fps),
                            ),
                            (_, Some(Recording::Traced(_))) => match &observed {
                                Some(o) => {
                                    let cwd = std::env::current_dir().unwrap_or_default();
                                    let has_set = |h: &Hash| {
                                        shared.store.as_ref().is_some_and(|s| s.has_set(h))
                                    };
                                    recording::from_observed(
                                        &k.pre,
                                        &facts,
                                        o,
                                        &reading,
                                        &writing,
                                        &cwd,
                                        &shared.fps,
                                        &lookup_fp,
                                        &has_set,
                                    )
                                }
                                None => Err("not recorded: the tracer left no report".to_string()),
                            },
                            (_, Some(Recording::Declared)) => Ok(recording::from_declarations(
                                &k.pre,
                                &facts,
                                &request,
                                &reading,
                                &writing,
                                &shared.fps,
                                &lookup_fp,
                            )),
                            _ => Err(String::new()),
                        };
                    let record = match made {
                        Ok(m) => Some((k.pre, m)),
                        Err(why) => {
                            note = why;
                            None
                        }
                    };
                    HelperDone::Finished {
                        ticket,
                        generation,
                        result,
                        record,
                        failure: None,
                        writes,
                        note,
                    }
                }
                Err(_) => {
                    // Only what this call created is moved aside (by the calls' thread,
                    // once the calls beside it have ended: [`PendingMove`]): never a
                    // file that was there before, never another call's.
                    let created = observed
                        .as_ref()
                        .map(recording::created_files)
                        .unwrap_or_default();
                    HelperDone::Finished {
                        ticket,
                        generation,
                        result,
                        record: None,
                        failure: Some((k.pre, created)),
                        writes,
                        note,
                    }
                }
            }
        }
    }
}

/// Looks a call up by its pre-key: the newest of its records that still holds is
/// reused (see the module docs), or why it runs.
pub(super) fn lookup(shared: &Shared, pre: &Hash, rerun: bool) -> Decision {
    let Some(store) = &shared.store else {
        return Decision::Run(Why::New);
    };
    if rerun {
        return Decision::Run(Why::Rerun);
    }
    if !(shared.reuse || shared.explain || shared.plan) {
        // Nothing would be reused and nobody asks why: no need to look.
        return Decision::Run(Why::NotResuming);
    }
    let variants = store.variants(pre);
    let lookup_fp = |p: &Path| store.fingerprint(p);
    let sets = |k: &Hash| store.set(k);
    let checker = Checker {
        fps: &shared.fps,
        lookup: &lookup_fp,
        sets: &sets,
        cache: &shared.sets_held,
    };
    let mut first_why = None;
    for key in variants {
        let rec = match store.get(&key) {
            Ok(Some(r)) if r.version == RECORD_VERSION => r,
            _ => {
                first_why.get_or_insert(Why::Unreadable);
                continue;
            }
        };
        match checker.check(&rec) {
            Ok(()) => {
                let Some(reply) = rec.reply.as_ref().and_then(StoredReply::to_reply) else {
                    first_why.get_or_insert(Why::Unreadable);
                    continue;
                };
                if let Reply::Stream { spool, .. } = &reply
                    && !spool.is_empty()
                    && !Path::new(spool).is_file()
                {
                    // Its items are gone from the store: it runs again.
                    first_why.get_or_insert(Why::Unreadable);
                    continue;
                }
                if let Reply::Exit { code, .. } = reply
                    && code != 0
                    && !shared.resume_failed
                {
                    // The state it holds for made it fail: it runs again.
                    return Decision::Run(Why::Exited(code));
                }
                return if shared.reuse {
                    Decision::Reuse(reply, key)
                } else {
                    Decision::Run(Why::NotResuming)
                };
            }
            Err(why) => {
                first_why.get_or_insert(why);
                // It runs again and may make its outputs that are gone now again:
                // another record's output that only has to exist there (a file it
                // appended to) would then seem to be there, though what it wrote is
                // not.
                for o in &rec.outputs {
                    if std::fs::symlink_metadata(&o.path).is_err() {
                        shared.sets_held.note_rewritten(&o.path);
                    }
                }
            }
        }
    }
    if store.failed_before(pre) {
        return Decision::Run(Why::PreviousFailed);
    }
    Decision::Run(first_why.unwrap_or(Why::New))
}

impl Calls {
    pub(super) fn send_job(&mut self, job: Job) {
        self.helpers_busy += 1;
        if self.helpers < HELPERS && self.helpers < self.helpers_busy {
            let tx = self.done_tx.clone();
            let shared = Arc::clone(&self.shared);
            let waker = self.waker.clone();
            let spawned = spawn_worker("spindle-store", Arc::clone(&self.jobs_rx), move |job| {
                if tx.send(run_job(&shared, job)).is_err() {
                    return false;
                }
                waker.wake();
                true
            });
            if let Ok(h) = spawned {
                self.helpers += 1;
                self.helper_threads.push(h);
            }
        }
        let job = match &self.jobs_tx {
            Some(tx) if self.helpers > 0 => match tx.send(job) {
                Ok(()) => return,
                Err(e) => e.0,
            },
            _ => job,
        };
        // No helper could start: do the work here.
        let done = run_job(&self.shared, job);
        let _ = self.done_tx.send(done);
    }

    /// How a process call of this run is recorded: traced where tracing works, else
    /// from its `writing` declarations if it has any, else not at all (said once per
    /// run).
    pub(super) fn recording_mode(&mut self, declares_writing: bool) -> Recording {
        let recording_store = self
            .shared
            .store
            .as_ref()
            .filter(|s| !s.is_read_only() && !self.shared.plan);
        let Some(store) = recording_store.cloned() else {
            return Recording::Not;
        };
        let tracing = match &self.tracing {
            Some(t) => t.clone(),
            None => {
                let t = match &self.config.tracer {
                    Some(_) => fstrace::availability(),
                    None => Err("no tracer given".to_string()),
                };
                if let Err(why) = &t {
                    self.tracing_refused(why);
                }
                self.tracing = Some(t.clone());
                t
            }
        };
        match (tracing, declares_writing) {
            (Ok(()), _) => {
                let runs = store.dir().join(store::RUNS_DIR);
                let _ = std::fs::create_dir_all(&runs);
                self.reports += 1;
                let report = store::files::absolute(&runs).join(format!(
                    "trace-{}-{}.txt",
                    std::process::id(),
                    self.reports
                ));
                let store_dir = std::fs::canonicalize(store.dir())
                    .unwrap_or_else(|_| store::files::absolute(store.dir()));
                Recording::Traced(TraceSpec {
                    tracer: self.config.tracer.clone().unwrap_or_default(),
                    report,
                    exclude: vec![store_dir],
                })
            }
            (Err(_), true) => Recording::Declared,
            (Err(_), false) => Recording::Not,
        }
    }

    /// Processes cannot be traced in this run: said once, and the calls from now on
    /// are recorded as where tracing is not available.
    pub(super) fn tracing_refused(&mut self, why: &str) {
        if matches!(self.tracing, Some(Err(_))) {
            return;
        }
        self.tracing = Some(Err(why.to_string()));
        self.progress.println(&format!(
            "warning: cannot observe what processes read and write here ({why}): process \
             calls run again on --resume unless their outputs are all declared with `writing`"
        ));
    }
}
