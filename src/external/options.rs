//! The `spindle run` options of LANGUAGE.md 11 and 12, as one clap group the command
//! line flattens into its own (`#[command(flatten)] calls: CallOptions`), and the
//! [`Config`] they make.

use crate::external::calls::{Config, ProcessExecutor};
use crate::external::exec::Limits;
use crate::external::exec::slurm::SlurmConfig;
use crate::external::progress::ProgressMode;
use crate::external::store;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where processes run (`--executor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ExecutorName {
    /// On this machine.
    #[default]
    Local,
    /// As Slurm batch jobs.
    Slurm,
}

/// Options of `spindle run` for calls: the result store, progress, the trace, retries,
/// timeouts and the executor.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CallOptions {
    /// Reuse recorded results of earlier runs (the result store).
    #[arg(long)]
    pub resume: bool,
    /// With --resume: also reuse a recorded `runResult` that exited with a non-zero
    /// status (by default it runs again).
    #[arg(long)]
    pub resume_failed: bool,
    /// Run the calls this glob matches again even when recorded: matched against the
    /// program name as progress shows it and against the place FILE:LINE (repeatable).
    #[arg(long, value_name = "PATTERN", value_parser = parse_pattern)]
    pub rerun: Vec<glob::Pattern>,
    /// Say on standard error why each call runs instead of being reused.
    #[arg(long)]
    pub explain: bool,
    /// A dry run: perform no `effect` call, list every call that would run and why;
    /// exit status 0 when nothing would run, 3 when something would.
    #[arg(long)]
    pub plan: bool,
    /// The result store (default: SPINDLE_STORE, else .spindle/ beside FILE).
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// Retry a failing call up to N times (waiting 1 s, 2 s, 4 s, ...).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub retries: u32,
    /// Fail a call that runs longer than this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub call_timeout: Option<Duration>,
    /// Progress on standard error: auto (live on a terminal, else plain), plain, none.
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = parse_progress)]
    pub progress: ProgressMode,
    /// Write one tab-separated line per call to FILE.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Where processes run.
    #[arg(long, value_enum, default_value_t = ExecutorName::Local)]
    pub executor: ExecutorName,
    /// Options added to every sbatch (with --executor slurm).
    #[arg(long, value_name = "OPTIONS", allow_hyphen_values = true)]
    pub slurm_options: Option<String>,
    /// The model server's base URL, `/v1` included (default: OPENAI_BASE_URL, else
    /// https://api.openai.com/v1).
    #[arg(long, value_name = "URL")]
    pub llm_base_url: Option<String>,
    /// Requests per minute to each (server, model) pair, paced continuously (default:
    /// none until the server's x-ratelimit headers give one).
    #[arg(long, value_name = "N", value_parser = parse_rate)]
    pub llm_rpm: Option<f64>,
    /// Tokens per minute to each (server, model) pair, paced continuously (default:
    /// likewise from the server's headers).
    #[arg(long, value_name = "N", value_parser = parse_rate)]
    pub llm_tpm: Option<f64>,
    /// Model requests in flight to each (server, model) pair (default: only --io-jobs
    /// bounds them).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub llm_in_flight: Option<u32>,
    /// Retry a model call after 408, 409, 429, 5xx or a lost connection up to N times,
    /// with the server's Retry-After or a backoff with jitter.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub llm_retries: u32,
    /// Let `paid` calls (models) start speculatively, before they are certainly
    /// needed: sooner answers, perhaps paying for calls the run does not use.
    #[arg(long)]
    pub speculate_paid: bool,
    /// Unread lines or chunks held per stream (`runLines`, `readLines`, `llmStream`,
    /// ...), and N x 64 KiB of unread bytes: past that the producer waits.
    #[arg(long, value_name = "N", default_value_t = crate::external::stream::DEFAULT_BUFFER as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub stream_buffer: u32,
}

fn parse_rate(s: &str) -> Result<f64, String> {
    let x: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number per minute"))?;
    if !(x > 0.0 && x.is_finite()) {
        return Err(format!(
            "`{s}`: a rate must be a positive number per minute"
        ));
    }
    Ok(x)
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    let x: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !(x > 0.0 && x.is_finite() && x < 1e9) {
        return Err(format!(
            "`{s}`: the timeout must be a positive number of seconds"
        ));
    }
    Ok(Duration::from_secs_f64(x))
}

fn parse_progress(s: &str) -> Result<ProgressMode, String> {
    s.parse()
}

fn parse_pattern(s: &str) -> Result<glob::Pattern, String> {
    glob::Pattern::new(s).map_err(|e| format!("`{s}` is not a glob pattern: {e}"))
}

impl CallOptions {
    /// The settings of model calls: the environment's, with these options over them.
    pub fn llm_settings(&self) -> crate::external::net::settings::LlmSettings {
        use crate::external::net::settings::{LlmSettings, normalise_base};
        let mut s = LlmSettings::from_env();
        if let Some(b) = &self.llm_base_url {
            s.base_url = normalise_base(b);
        }
        s.rpm = self.llm_rpm;
        s.tpm = self.llm_tpm;
        s.in_flight = self.llm_in_flight.map(|n| n as usize);
        s.retries = self.llm_retries;
        s.speculate_paid = self.speculate_paid;
        s
    }

    /// The configuration for a run of `entry_file` with these limits (`--jobs`,
    /// `--io-jobs`).
    pub fn config(&self, entry_file: &Path, limits: Limits) -> Config {
        Config {
            store: Some(store::store_dir(self.store.as_deref(), entry_file)),
            resume: self.resume,
            explain: self.explain,
            plan: self.plan,
            retries: self.retries,
            call_timeout: self.call_timeout,
            progress: self.progress,
            trace: self.trace.clone(),
            limits,
            executor: match self.executor {
                ExecutorName::Local => ProcessExecutor::Local,
                ExecutorName::Slurm => ProcessExecutor::Slurm(SlurmConfig {
                    options: self.slurm_options.clone().unwrap_or_default(),
                    poll: None,
                }),
            },
            key_env: None,
            resume_failed: self.resume_failed,
            rerun: self.rerun.clone(),
            tracer: Some(crate::external::fstrace::self_exe()),
            batch: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cmd {
        #[command(flatten)]
        calls: CallOptions,
    }

    #[test]
    fn options_parse_into_a_config() {
        let c = Cmd::try_parse_from([
            "x",
            "--resume",
            "--explain",
            "--retries",
            "2",
            "--call-timeout",
            "1.5",
            "--progress",
            "plain",
            "--trace",
            "t.tsv",
            "--executor",
            "slurm",
            "--slurm-options",
            "--partition=debug --time=5",
        ])
        .unwrap();
        let cfg = c.calls.config(Path::new("wf/main.sp"), Limits::default());
        assert!(cfg.resume && cfg.explain && !cfg.plan);
        assert_eq!(cfg.retries, 2);
        assert_eq!(cfg.call_timeout, Some(Duration::from_millis(1500)));
        assert_eq!(cfg.progress, ProgressMode::Plain);
        if std::env::var_os(store::STORE_ENV).is_none() {
            assert_eq!(cfg.store, Some(PathBuf::from("wf/.spindle")));
        }
        assert_eq!(
            cfg.executor,
            ProcessExecutor::Slurm(SlurmConfig {
                options: "--partition=debug --time=5".into(),
                poll: None
            })
        );
        assert!(Cmd::try_parse_from(["x", "--call-timeout", "0"]).is_err());
        assert!(Cmd::try_parse_from(["x", "--progress", "loud"]).is_err());
    }
}
