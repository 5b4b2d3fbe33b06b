//! The call layer's side of batch mode ([`crate::external::batch`]): model calls that
//! are not recorded go to the frontier instead of running, and every other call of a
//! batch run is written to the run's journal (and answered from it in later rounds),
//! so that a round never performs again what an earlier round of the same run did.

use super::helpers::{Decision, Keyed};
use super::{Answer, Calls, Entry};
use crate::external::batch::{self, FrontierCall};
use crate::external::exec::Priority;
use crate::external::progress::Status;
use crate::external::request::{Reply, Request};
use crate::external::store::key::Hash;
use crate::external::store::record::{RECORD_VERSION, StoredReply};
use crate::external::store::recording::{self, Facts};
use rustc_hash::FxHashSet as HashSet;
use std::path::Path;

/// `--llm-batch`: what the call layer needs to know of the batch run.
#[derive(Debug, Clone, Default)]
pub struct BatchConfig {
    /// The run's session: its journal is kept under it.
    pub session: Hash,
    /// Whether an earlier round of this run ran: calls are looked up in the journal.
    pub replay: bool,
    /// Model calls (by record key) to make live instead (`--batch-fallback live`, for
    /// calls a batch failed to answer).
    pub live: HashSet<Hash>,
}

/// Whether a model call whose lookup says it must run goes to the frontier.
pub(super) fn goes_to_frontier(config: &super::Config, e: &Entry, pre: &Hash) -> bool {
    match (&config.batch, &e.request) {
        (Some(b), Request::Llm(_)) => !b.live.contains(pre),
        _ => false,
    }
}

impl Calls {
    /// Tokens (in, out) of the model calls that ran in this run, by model.
    pub fn tokens_by_model(&self) -> &std::collections::BTreeMap<String, (u64, u64)> {
        &self.tokens_by_model
    }

    /// The open result store, if any (a batch's replies are recorded into it).
    pub fn store(&self) -> Option<&crate::external::store::Store> {
        self.shared.store.as_deref()
    }

    /// Makes this a batch run's call layer (before any call is submitted).
    pub fn set_batch(&mut self, batch: BatchConfig) {
        self.config.batch = Some(batch);
    }

    /// `--plan`: how many planned calls other work waits for.
    pub fn plan_blocked_count(&self) -> usize {
        self.plan_blocked
    }

    /// The frontier met so far: model calls not made, in the order they were met.
    pub fn frontier(&self) -> &[FrontierCall] {
        &self.frontier
    }

    /// Puts a model call on the frontier: it is answered "planned" (its fibers wait
    /// for good this round) and listed for the batch.
    pub(super) fn put_on_frontier(&mut self, ticket: crate::external::exec::Ticket, pre: Hash) {
        let Some(e) = self.entries.remove(&ticket) else {
            return;
        };
        let Request::Llm(call) = &e.request else {
            return;
        };
        self.stats.planned += 1;
        if !self.frontier.iter().any(|f| f.key == pre) {
            self.frontier.push(FrontierCall {
                key: pre,
                external: e.external.name.to_string(),
                call: call.clone(),
                place: e.place.clone(),
                certain: e.priority == Priority::Certain,
            });
        }
        self.end_line(&e, Status::Planned, None, "batched");
        self.ready.push((ticket, Answer::Planned));
    }

    /// The journal key of a call of a batch run (`None`: not a batch run, or a call
    /// the journal does not keep: model calls, which the store records anyway, and a
    /// stream's next items).
    pub(super) fn journal_key_of(
        &self,
        external: &str,
        args: &[crate::core::plain::Plain],
        request: &Request,
    ) -> Option<Hash> {
        let b = self.config.batch.as_ref()?;
        self.shared.store.as_ref()?;
        if matches!(request, Request::Llm(_) | Request::StreamNext(_)) {
            return None;
        }
        Some(batch::journal_key(&b.session, external, args))
    }

    /// In a later round of a batch run, answers the call from the journal if an
    /// earlier round made it: whether it did.
    pub(super) fn replayed(&mut self, ticket: crate::external::exec::Ticket, jkey: Hash) -> bool {
        if !self.config.batch.as_ref().is_some_and(|b| b.replay) {
            return false;
        }
        let Some(store) = self.shared.store.clone() else {
            return false;
        };
        let Some(reply) = store
            .get(&jkey)
            .ok()
            .flatten()
            .filter(|r| r.version == RECORD_VERSION)
            .and_then(|r| r.reply.as_ref().and_then(StoredReply::to_reply))
        else {
            return false;
        };
        if let Reply::Stream { spool, .. } = &reply
            && !Path::new(spool).is_file()
        {
            return false;
        }
        self.stats.replayed += 1;
        self.prepared(ticket, 0, Keyed { pre: jkey }, Decision::Reuse(reply, jkey));
        true
    }

    /// Writes a call's reply to the journal (a stream only if its items were kept).
    pub(super) fn journal(&mut self, e: &Entry, jkey: Hash, reply: &Reply) {
        if let Reply::Stream { spool, .. } = reply
            && spool.is_empty()
        {
            return;
        }
        let facts = Facts {
            external: e.external.name,
            reply,
            took: e.started.map(|(_, i)| i.elapsed()).unwrap_or_default(),
            place: &e.place,
            shown: &e.shown,
        };
        let made = recording::plain(&jkey, &facts);
        self.batch.records.push((made.key, jkey, made.record));
    }
}
