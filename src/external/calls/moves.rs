//! A failed call's files, moved aside once the calls beside it have ended.

use super::*;

/// The files a failed call created, to be moved into the store's `failed/` folder once
/// every call that ran beside it has ended: a file another call of the run also wrote
/// (a shared log) is not the failed call's alone, and stays.
pub(super) struct PendingMove {
    pub(super) ticket: Ticket,
    pub(super) pre: Hash,
    pub(super) place: String,
    pub(super) files: Vec<PathBuf>,
    /// Calls running when it failed that have not ended yet.
    pub(super) waiting: HashSet<Ticket>,
}

impl Calls {
    /// Moves aside the files of failed calls whose neighbours have all ended (`all`:
    /// every pending one, the run is over), except files another call of the run
    /// also changed. Returns a note per call that had files moved.
    pub(super) fn settle_moves(&mut self, all: bool) -> Vec<(Ticket, String)> {
        let mut notes = Vec::new();
        let Some(store) = self.shared.store.clone() else {
            self.pending_moves.clear();
            return notes;
        };
        let (ready, waiting): (Vec<PendingMove>, Vec<PendingMove>) =
            std::mem::take(&mut self.pending_moves)
                .into_iter()
                .partition(|m| all || m.waiting.is_empty());
        self.pending_moves = waiting;
        for m in ready {
            let own: Vec<PathBuf> = m
                .files
                .into_iter()
                .filter(|f| {
                    self.writers
                        .get(f)
                        .is_none_or(|ts| ts.iter().all(|t| *t == m.ticket))
                })
                .collect();
            if own.is_empty() || store.is_read_only() {
                continue;
            }
            let folder = store.failed_folder(&m.pre);
            let left = store::files::move_aside(&own, &folder);
            let moved = own.len() - left.len();
            let mut note = String::new();
            if moved > 0 {
                note = format!(
                    "{moved} output{} of the failed call at {} moved to {}",
                    if moved == 1 { "" } else { "s" },
                    m.place,
                    folder.display()
                );
            }
            for (f, why) in left {
                note.push_str(&format!("; could not move {}: {why}", f.display()));
            }
            if !note.is_empty() {
                notes.push((m.ticket, note));
            }
        }
        notes
    }
}
