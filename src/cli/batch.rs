//! `spindle run --llm-batch openai` (issue 33): the rounds of a batch run, seen from
//! the command line. Before a round is evaluated, the run's record in the store
//! ([`pending`]) says whether a batch is out: it is polled and, once over, its
//! replies are recorded ([`results`]); after the round, the frontier the call layer
//! collected is submitted as the next batch ([`api`]) and the run exits with status
//! 75, or (`--wait`) waits for it and goes on in the same process.

use clap::ValueEnum;
use spindle::external::batch::api::{self, BatchInfo, Client};
use spindle::external::batch::pending::{self, BatchRun, CallNote, Stage, Submitted};
use spindle::external::batch::price::{self, Prices};
use spindle::external::batch::results::{self, Outcome};
use spindle::external::batch::{FrontierCall, hex, unhex};
use spindle::external::calls::BatchConfig;
use spindle::external::store::{Batch, Store};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The providers a batch can go to.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    /// An OpenAI-compatible Batch API (`/v1/files`, `/v1/batches`) at the model
    /// server's base URL.
    Openai,
}

/// What becomes of calls a batch did not answer.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Fallback {
    /// Submitted again in the next round.
    #[default]
    Resubmit,
    /// Made live in the next round.
    Live,
}

/// The options of batch mode.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct BatchOptions {
    /// Send model calls to the provider's Batch API at half the price: the run stops
    /// (exit status 75) whenever every path waits on model calls, and `spindle run
    /// --resume FILE` goes on once the batch is done.
    #[arg(long, value_enum, value_name = "PROVIDER")]
    pub llm_batch: Option<Provider>,
    /// With a batch out: wait for it (polling after 5 s, then twice as long each
    /// time, up to 5 minutes) and go on, instead of exiting with status 75.
    #[arg(long)]
    pub wait: bool,
    /// What becomes of calls a batch failed to answer (failed, expired, cancelled):
    /// submitted again in the next round, or made live.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = Fallback::Resubmit)]
    pub batch_fallback: Fallback,
    /// In a batch run, submit only the model calls certainly needed, never those
    /// speculation meets: no call the program may not use is paid for, at the cost of
    /// more rounds (under `sortBy`, one or two calls a round).
    #[arg(long)]
    pub batch_certain_only: bool,
    /// A model's price in dollars per million tokens in and out (repeatable): the
    /// summary and --stats then show what the run cost (a batch's tokens at half).
    #[arg(long, value_name = "MODEL=IN,OUT", value_parser = price::parse)]
    pub llm_price: Vec<(String, (f64, f64))>,
}

/// How many times a call may come back unanswered before the run gives up on it.
const MAX_FAILURES: u32 = 3;

/// The first wait of `--wait`, and the longest.
const FIRST_POLL: Duration = Duration::from_secs(5);
const LONGEST_POLL: Duration = Duration::from_secs(300);

/// The environment variable that shortens `--wait`'s first poll (milliseconds): for
/// tests, and servers known to be quick.
pub const POLL_ENV: &str = "SPINDLE_BATCH_POLL_MS";

/// A test hook: when set, the process exits (status 70) right after a batch is
/// created and before its id is written down, as if it had been killed there.
pub const CRASH_ENV: &str = "SPINDLE_TEST_CRASH_AFTER_BATCH_CREATE";

/// A batch run of one program: its record and where it is.
pub struct Session {
    dir: PathBuf,
    run: BatchRun,
    /// Whether the record is in the store (else this is the run's first round).
    stored: bool,
    /// Whether the round to evaluate may replay the journal of earlier rounds.
    replay: bool,
    /// Calls to make live this round (`--batch-fallback live`).
    live: Vec<[u8; 32]>,
    fallback: Fallback,
    client: Client,
}

/// Where a session is before a round.
pub enum Ready {
    /// The round may be evaluated.
    Evaluate,
    /// A batch is still out: what the server says of it.
    Waiting(String),
}

/// The program's identity, as a batch run records it.
pub struct Program<'a> {
    /// The file name (the record's name in the store).
    pub name: String,
    /// The checked program's hash (hex).
    pub hash: String,
    /// Its arguments.
    pub args: &'a [String],
}

impl Session {
    /// The batch run of `program` in store `dir`, if this is one: `--llm-batch` was
    /// given, or the store has a run of this program under way (then only `--resume`
    /// goes on with it: without, the message says so).
    pub fn start(
        opts: &BatchOptions,
        dir: &Path,
        program: &Program<'_>,
        resume: bool,
    ) -> Result<Option<Session>, (String, u8)> {
        let found = pending::load(dir, &program.name).map_err(|e| (e, 1))?;
        let client = Client::configured();
        let Some(mut run) = found else {
            if opts.llm_batch.is_none() {
                return Ok(None);
            }
            let session = blake3::hash(
                format!(
                    "{}:{}:{}:{:?}",
                    program.hash,
                    std::process::id(),
                    pending::now_secs(),
                    std::time::Instant::now()
                )
                .as_bytes(),
            );
            return Ok(Some(Session {
                dir: dir.to_path_buf(),
                run: BatchRun {
                    version: pending::VERSION,
                    program: program.name.clone(),
                    program_hash: program.hash.clone(),
                    args: program.args.to_vec(),
                    session: hex(session.as_bytes()),
                    round: 0,
                    stage: Stage::Collected,
                    tag: String::new(),
                    base_url: client.base.clone(),
                    submitted_at: 0,
                    batches: Vec::new(),
                    calls: Vec::new(),
                    failures: BTreeMap::new(),
                    submitted_calls: 0,
                    tokens: (0, 0),
                    tokens_by_model: BTreeMap::new(),
                    live_tokens_by_model: BTreeMap::new(),
                },
                stored: false,
                replay: false,
                live: Vec::new(),
                fallback: opts.batch_fallback,
                client,
            }));
        };
        if !resume {
            let what = match run.stage {
                Stage::Collected => "its last batch was collected".to_string(),
                _ => format!(
                    "batch {} of round {} is out",
                    run.batches
                        .iter()
                        .map(|b| if b.id.is_empty() {
                            "(being submitted)"
                        } else {
                            b.id.as_str()
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                    run.round
                ),
            };
            return Err((
                format!(
                    "a batch run of {} is under way ({what}): `spindle run --resume {}` goes on \
                     with it (nothing was submitted again); to start over instead, remove {}",
                    run.program,
                    run.program,
                    pending::path(dir, &run.program).display()
                ),
                spindle::external::batch::EXIT_BATCH_PENDING,
            ));
        }
        let same = run.program_hash == program.hash && run.args == program.args;
        if !same {
            eprintln!(
                "note: {} or its arguments changed since round {} was submitted: the batch's \
                 results are recorded, and the program is evaluated from the start, reusing \
                 recorded results",
                run.program, run.round
            );
            run.program_hash = program.hash.clone();
            run.args = program.args.to_vec();
            // A new journal: what the old program did is reused only as `--resume`
            // reuses it (checked against the files as they are now).
            let session = blake3::hash(format!("{}:{}", run.session, program.hash).as_bytes());
            run.session = hex(session.as_bytes());
        }
        // The base URL the batch went to, unless `--llm-base-url` or
        // `OPENAI_BASE_URL` names another.
        let configured = client.base
            != spindle::external::net::settings::normalise_base(
                spindle::external::net::settings::DEFAULT_BASE_URL,
            );
        let client = if !configured {
            Client {
                base: run.base_url.clone(),
                ..client
            }
        } else {
            client
        };
        Ok(Some(Session {
            dir: dir.to_path_buf(),
            replay: same && run.round > 0,
            run,
            stored: true,
            live: Vec::new(),
            fallback: opts.batch_fallback,
            client,
        }))
    }

    /// The call layer's part: the journal's session, whether to replay it, the
    /// calls to make live.
    pub fn config(&self) -> BatchConfig {
        BatchConfig {
            session: unhex(&self.run.session).unwrap_or_default(),
            replay: self.replay,
            live: self.live.iter().copied().collect(),
        }
    }

    /// The rounds submitted so far.
    pub fn round(&self) -> u32 {
        self.run.round
    }

    /// Counts the tokens of model calls a round made live (`--batch-fallback live`).
    pub fn add_live_tokens(&mut self, tokens: &BTreeMap<String, (u64, u64)>) {
        for (m, (i, o)) in tokens {
            let t = self.run.live_tokens_by_model.entry(m.clone()).or_default();
            t.0 += i;
            t.1 += o;
        }
    }

    /// Tokens (in, out) of every reply collected from batches so far.
    pub fn batch_tokens_total(&self) -> (u64, u64) {
        self.run.tokens
    }

    /// Tokens (in, out) by model of the replies collected from batches.
    pub fn batch_tokens(&self) -> &BTreeMap<String, (u64, u64)> {
        &self.run.tokens_by_model
    }

    /// Polls the batch that is out, if any; once it is over, records its replies in
    /// `store` and readies the next round.
    pub fn collect(&mut self, store: Option<&Store>) -> Result<Ready, String> {
        match self.run.stage {
            Stage::Collected => return Ok(Ready::Evaluate),
            Stage::Submitting => self.recover()?,
            Stage::Submitted => {}
        }
        if self.run.stage == Stage::Collected {
            return Ok(Ready::Evaluate);
        }
        let mut infos = Vec::new();
        for b in &self.run.batches {
            infos.push(self.client.get(&b.id)?);
        }
        if let Some(out) = infos.iter().find(|i| !i.is_over()) {
            let (total, done, failed) = out.counts;
            return Ok(Ready::Waiting(format!(
                "batch {} (round {}) is {}: {done} of {total} done, {failed} failed",
                out.id, self.run.round, out.status
            )));
        }
        let store = store.ok_or("batch mode needs the result store, and it is not open")?;
        self.record(store, &infos)?;
        self.run.stage = Stage::Collected;
        self.replay = true;
        pending::save(&self.dir, &self.run)?;
        Ok(Ready::Evaluate)
    }

    /// A record left `submitting` (the process ended before it wrote the batch ids):
    /// each batch is looked for by its tag; one that is not found was never made, and
    /// its calls go to this round's frontier again.
    fn recover(&mut self) -> Result<(), String> {
        let mut kept = Vec::new();
        for mut b in std::mem::take(&mut self.run.batches) {
            if b.id.is_empty() {
                match self.client.find(&self.run.tag, &b.endpoint)? {
                    Some(info) => {
                        eprintln!(
                            "note: batch {} of round {} was submitted before the last run \
                             stopped: it is waited for, not submitted again",
                            info.id, self.run.round
                        );
                        b.id = info.id;
                    }
                    None => continue,
                }
            }
            kept.push(b);
        }
        self.run.batches = kept;
        self.run.stage = if self.run.batches.is_empty() {
            Stage::Collected
        } else {
            Stage::Submitted
        };
        pending::save(&self.dir, &self.run)
    }

    /// Records the replies of batches that are over; counts the calls they did not
    /// answer (an error once one has failed [`MAX_FAILURES`] times).
    fn record(&mut self, store: &Store, infos: &[BatchInfo]) -> Result<(), String> {
        let notes: HashMap<String, CallNote> = self
            .run
            .calls
            .iter()
            .map(|c| (c.custom_id.clone(), c.clone()))
            .collect();
        let mut batch = Batch::default();
        let mut answered: HashMap<String, Option<String>> = HashMap::new();
        for (info, sub) in infos.iter().zip(self.run.batches.clone()) {
            if info.status == "failed" {
                return Err(self.refused(info, &sub, &notes));
            }
            for file in [&info.output_file_id, &info.error_file_id]
                .into_iter()
                .flatten()
            {
                let text = self.client.content(file)?;
                for (id, outcome) in results::read(&text, &notes)? {
                    let Some(note) = notes.get(&id) else { continue };
                    match outcome {
                        Outcome::Reply(reply) => {
                            let (i, o) = reply.tokens();
                            let (i, o) = (i.max(0) as u64, o.max(0) as u64);
                            self.run.tokens.0 += i;
                            self.run.tokens.1 += o;
                            let t = self
                                .run
                                .tokens_by_model
                                .entry(note.model.clone())
                                .or_default();
                            t.0 += i;
                            t.1 += o;
                            let key = unhex(&id).ok_or("a custom id is not a key")?;
                            results::record(store.dir(), note, &key, reply, &mut batch)?;
                            answered.insert(id, None);
                        }
                        Outcome::Failed(why) => {
                            answered.entry(id).or_insert(Some(why));
                        }
                    }
                }
            }
            for id in &sub.custom_ids {
                answered
                    .entry(id.clone())
                    .or_insert_with(|| Some(format!("no result (the batch is {})", info.status)));
            }
        }
        store
            .commit(&mut batch, true)
            .map_err(|e| format!("the batch's replies cannot be recorded: {e}"))?;
        self.live.clear();
        let mut failed = 0;
        for (id, why) in &answered {
            let Some(why) = why else { continue };
            failed += 1;
            let n = self.run.failures.entry(id.clone()).or_default();
            *n += 1;
            let Some(note) = notes.get(id) else { continue };
            if self.fallback == Fallback::Live {
                if let Some(k) = unhex(id) {
                    self.live.push(k);
                }
            } else if *n >= MAX_FAILURES {
                return Err(format!(
                    "{}: `{}` (model {}) was not answered by {} batches in a row: {why}",
                    note.place, note.shown, note.model, n
                ));
            }
        }
        if failed > 0 {
            eprintln!(
                "note: {failed} of the batch's calls were not answered: {}",
                match self.fallback {
                    Fallback::Resubmit => "they are submitted again",
                    Fallback::Live => "they are made live",
                }
            );
        }
        Ok(())
    }

    /// The message for a batch the server refused: the lines it names, and the calls
    /// on them. The batch is forgotten, so that a corrected program submits anew.
    fn refused(
        &mut self,
        info: &BatchInfo,
        sub: &Submitted,
        notes: &HashMap<String, CallNote>,
    ) -> String {
        let mut lines = Vec::new();
        for (line, msg) in &info.errors {
            let call = line
                .and_then(|l| sub.custom_ids.get((l as usize).wrapping_sub(1)))
                .and_then(|id| notes.get(id))
                .map(|n| format!(" ({}: `{}`)", n.place, n.shown))
                .unwrap_or_default();
            match line {
                Some(l) => lines.push(format!("line {l}: {msg}{call}")),
                None => lines.push(msg.clone()),
            }
        }
        if lines.is_empty() {
            lines.push("no reason given".into());
        }
        self.run.stage = Stage::Collected;
        self.run.batches.clear();
        let _ = pending::save(&self.dir, &self.run);
        format!(
            "the provider refused batch {} of round {}: {}",
            info.id,
            self.run.round,
            lines.join("; ")
        )
    }

    /// Submits the frontier as the next round's batches (one per endpoint) and
    /// writes the record; the lines that say what was submitted.
    pub fn submit(&mut self, frontier: &[FrontierCall], file: &str) -> Result<String, String> {
        let mut calls: Vec<&FrontierCall> = Vec::new();
        for f in frontier {
            if !calls.iter().any(|c| c.key == f.key) {
                calls.push(f);
            }
        }
        let ids: Vec<String> = calls.iter().map(|c| c.custom_id()).collect();
        let mut by_endpoint: BTreeMap<&str, Vec<&FrontierCall>> = BTreeMap::new();
        for c in &calls {
            by_endpoint.entry(c.endpoint()).or_default().push(c);
        }
        self.run.round += 1;
        self.run.tag = pending::tag(&self.run.program_hash, &ids);
        self.run.stage = Stage::Submitting;
        self.run.submitted_at = pending::now_secs();
        self.run.base_url = self.client.base.clone();
        self.run.batches = by_endpoint
            .iter()
            .map(|(e, cs)| Submitted {
                endpoint: e.to_string(),
                id: String::new(),
                custom_ids: cs.iter().map(|c| c.custom_id()).collect(),
            })
            .collect();
        self.run.calls = calls
            .iter()
            .map(|c| CallNote {
                custom_id: c.custom_id(),
                external: c.external.clone(),
                place: c.place.clone(),
                shown: c.call.shown.clone(),
                model: c.call.model.clone(),
                endpoint: c.endpoint().to_string(),
                estimated_tokens: c.call.estimated_tokens,
            })
            .collect();
        // Written down before anything is sent: a run that dies from here on looks for
        // the tagged batch before submitting again.
        let was_stored = self.stored;
        pending::save(&self.dir, &self.run)?;
        self.stored = true;
        let mut created_tried = false;
        if let Err(e) = self.send(&by_endpoint, &mut created_tried) {
            if !created_tried {
                // Nothing can have been made on the server: the round never happened.
                self.run.round -= 1;
                self.run.stage = Stage::Collected;
                self.run.batches.clear();
                self.run.calls.clear();
                if was_stored {
                    pending::save(&self.dir, &self.run)?;
                } else {
                    pending::remove(&self.dir, &self.run.program)?;
                    self.stored = false;
                }
            }
            return Err(e);
        }
        self.run.stage = Stage::Submitted;
        self.run.submitted_calls += calls.len() as u64;
        pending::save(&self.dir, &self.run)?;
        let certain = calls.iter().filter(|c| c.certain).count();
        let tokens: u64 = calls.iter().map(|c| c.call.estimated_tokens).sum();
        let speculative = calls.len() - certain;
        let spec = if speculative > 0 {
            format!(" ({certain} certainly needed, {speculative} met by speculation)")
        } else {
            String::new()
        };
        Ok(format!(
            "batch: round {} submitted: {} model calls{spec}, about {tokens} tokens in; batch {}\n\
             batch: `spindle run --resume {file}` goes on once it is done (exit status 75: waiting on a batch)\n",
            self.run.round,
            calls.len(),
            self.run
                .batches
                .iter()
                .map(|b| b.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }

    /// Uploads and creates the round's batches, writing each id down as it comes;
    /// `created_tried` says whether a batch may exist on the server.
    fn send(
        &mut self,
        by_endpoint: &BTreeMap<&str, Vec<&FrontierCall>>,
        created_tried: &mut bool,
    ) -> Result<(), String> {
        for (i, (endpoint, cs)) in by_endpoint.iter().enumerate() {
            let jsonl: String = cs
                .iter()
                .map(|c| {
                    serde_json::json!({
                        "custom_id": c.custom_id(),
                        "method": "POST",
                        "url": endpoint,
                        "body": c.body(),
                    })
                    .to_string()
                        + "\n"
                })
                .collect();
            let name = format!(
                "spindle-{}-round{}-{i}.jsonl",
                self.run.program, self.run.round
            );
            let file_id = self.client.upload(&name, &jsonl)?;
            *created_tried = true;
            let info = self.client.create(
                &file_id,
                endpoint,
                serde_json::json!({
                    api::TAG_KEY: self.run.tag,
                    api::ENDPOINT_KEY: endpoint,
                    "spindle_program": self.run.program,
                }),
            )?;
            if std::env::var_os(CRASH_ENV).is_some() {
                std::process::exit(70);
            }
            self.run.batches[i].id = info.id;
            pending::save(&self.dir, &self.run)?;
        }
        Ok(())
    }

    /// The run is over: its record goes.
    pub fn finish(&self) {
        if self.stored
            && let Err(e) = pending::remove(&self.dir, &self.run.program)
        {
            eprintln!("warning: the batch record cannot be removed: {e}");
        }
    }

    /// The summary line of a finished batch run.
    pub fn summary(&self, prices: &Prices, last: &BTreeMap<String, (u64, u64)>) -> String {
        let (i, o) = self.run.tokens;
        let mut live = self.run.live_tokens_by_model.clone();
        for (m, (a, b)) in last {
            let t = live.entry(m.clone()).or_default();
            t.0 += a;
            t.1 += b;
        }
        let live = &live;
        let cost = match (
            prices.cost(&self.run.tokens_by_model, 0.5),
            prices.cost(live, 1.0),
        ) {
            (Some(b), Some(l)) if !prices.is_empty() => format!("; cost {}", price::dollars(b + l)),
            _ => String::new(),
        };
        let rounds = match self.run.round {
            1 => "1 round".to_string(),
            n => format!("{n} rounds"),
        };
        format!(
            "batch: done in {rounds}: {} model calls submitted, tokens {i} in, {o} out{cost}\n",
            self.run.submitted_calls
        )
    }
}

/// `--plan --llm-batch`: how many rounds the program needs at least, as far as the
/// plan sees: one if a model call would run, two if work waits on a planned call and
/// may make more calls once it has its value (the plan cannot see past that).
pub fn plan_rounds(plan: &[spindle::external::calls::PlannedCall], blocked: usize) -> String {
    const MODEL: [&str; 4] = ["llm", "llmChat", "embed", "llmStream"];
    let model_calls = plan
        .iter()
        .filter(|c| MODEL.contains(&c.external.as_str()))
        .count();
    match (model_calls, blocked) {
        (0, _) => "batch: no model call would run: no round is needed\n".to_string(),
        (n, 0) => {
            format!("batch: at least 1 round ({n} model calls, none waited on by more calls)\n")
        }
        (n, _) => format!(
            "batch: at least 2 rounds ({n} model calls in the first; later calls wait on answers \
             the plan cannot see)\n"
        ),
    }
}

/// How long `--wait` sleeps before its `n`th poll (0-based).
pub fn poll_delay(n: u32) -> Duration {
    let first = std::env::var(POLL_ENV)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(Duration::from_millis)
        .unwrap_or(FIRST_POLL);
    first
        .saturating_mul(1u32 << n.min(16))
        .min(LONGEST_POLL.max(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_five_minutes() {
        if std::env::var_os(POLL_ENV).is_some() {
            return;
        }
        assert_eq!(poll_delay(0), Duration::from_secs(5));
        assert_eq!(poll_delay(1), Duration::from_secs(10));
        assert_eq!(poll_delay(5), Duration::from_secs(160));
        assert_eq!(poll_delay(6), Duration::from_secs(300));
        assert_eq!(poll_delay(40), Duration::from_secs(300));
    }
}
