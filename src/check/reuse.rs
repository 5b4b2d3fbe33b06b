//! Checking a file again after an edit without checking again what the edit cannot
//! change: the language server's incremental check.
//!
//! The checker elaborates declarations group by group (strongly connected components
//! of their references, dependencies first). A group of definitions of the edited
//! file is a function of (a) its own source text, (b) what it refers to, and (c) the
//! table of every declaration (ids are positions in it) and the other files. So each
//! such group gets a key: a hash of its members' text (relative to their place), of
//! the keys of the groups it refers to (a Merkle hash over the reference graph, so an
//! edit changes the key of the edited group and of every group that depends on it,
//! directly or not), of the layout of the declaration tables, of the file's instances
//! (found by type, not by reference) and of the text of every other file.
//!
//! A group whose key was seen in the previous check takes its results from then: the
//! final types and bodies of its definitions, its diagnostics and what was recorded
//! of its places for the editor ([`crate::check::record`]), every place moved by how
//! far the group moved in the file. Only groups without unknowns left in their
//! signatures when they were checked are kept (an unknown in a signature could be
//! solved by a later group, whose change would then change this one), only groups
//! without a typed hole (the names that fit a hole depend on every global in scope),
//! and only groups of definitions (data types and externals are always checked; they
//! are cheap).
//!
//! The session is per thread and off unless [`begin`] starts it; nothing else pays
//! for it.

use crate::check::record::{self, GroupRecords, HoleAt, LocalAt, NameAt, ScopeAt, TypeAt};
use crate::core::program::Program;
use crate::core::term::{Binder, CaseArm, CasePat, DefId, HoleKind, Match, RcTerm, Term};
use crate::diagnostic::Diagnostic;
use crate::syntax::span::{FileId, Span};
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// The results of one group of definitions, kept for the next check.
struct Entry {
    /// Where the group's first declaration started.
    base: u32,
    /// Its definitions' final types and bodies.
    defs: Vec<(DefId, RcTerm, RcTerm)>,
    /// Its diagnostics.
    diagnostics: Vec<Diagnostic>,
    /// What was recorded of its places: types, names, holes, scopes.
    records: GroupRecords,
}

/// The results kept from one check of a file for the next, by group key.
#[derive(Default)]
pub struct Cache {
    /// The groups' results, by key.
    entries: HashMap<u64, Entry>,
}

/// How much a check re-checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// The definitions of the edited file.
    pub definitions: usize,
    /// How many of them were checked.
    pub checked: usize,
    /// How many took their results from the previous check.
    pub reused: usize,
}

/// A group checked in this check, to be kept if it can be.
struct Fresh {
    /// Its key.
    key: u64,
    /// Where its first declaration starts.
    base: u32,
    /// The members' places.
    ranges: Vec<(u32, u32)>,
    defs: Vec<DefId>,
    /// Whether a diagnostic of it spans several groups (it is then not kept).
    open: bool,
    /// Its index among the check's groups.
    group: usize,
}

/// A group reused in this check, whose diagnostics and records are replayed.
struct Reused {
    /// Its key.
    key: u64,
    /// How far it moved since the check that kept it (bytes).
    delta: i64,
}

/// The session of one check.
struct Session {
    /// The file edited.
    file: FileId,
    /// Its text.
    text: String,
    /// A hash of every other file's text.
    env: u64,
    /// What the previous check kept.
    old: Cache,
    /// What this check keeps: the groups reused, then those checked that can be.
    new: Cache,
    /// The groups checked in this check.
    fresh: Vec<Fresh>,
    /// The groups reused in this check.
    reused: Vec<Reused>,
    /// How much was checked.
    stats: Stats,
    /// The groups each group depends on (by index, groups in dependency order).
    deps: Vec<Vec<usize>>,
    /// Whether each group left unknowns open when it was checked.
    open: Vec<bool>,
    /// The group being checked.
    current: usize,
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

/// Starts an incremental check of `file` (whose text is `text`) on this thread, with
/// the results of the previous check in `cache`.
pub fn begin(cache: Cache, file: FileId, text: &str) {
    SESSION.with(|s| {
        *s.borrow_mut() = Some(Session {
            file,
            text: text.to_string(),
            env: 0,
            old: cache,
            new: Cache::default(),
            fresh: Vec::new(),
            reused: Vec::new(),
            stats: Stats::default(),
            deps: Vec::new(),
            open: Vec::new(),
            current: 0,
        })
    });
}

/// Ends the session: the results to keep for the next check, and how much this one
/// re-checked. (A check that never got to elaboration keeps the previous results.)
pub fn end() -> (Cache, Stats) {
    SESSION
        .with(|s| s.borrow_mut().take())
        .map(|s| {
            if s.stats.definitions == 0
                && s.stats.checked == 0
                && s.fresh.is_empty()
                && s.reused.is_empty()
            {
                (s.old, s.stats)
            } else {
                (s.new, s.stats)
            }
        })
        .unwrap_or_default()
}

/// Whether a session is on.
pub(crate) fn active() -> bool {
    SESSION.with(|s| s.borrow().is_some())
}

/// Sets the hash of the other files' text (the driver knows them).
pub fn set_environment(env: u64) {
    SESSION.with(|s| {
        if let Some(s) = s.borrow_mut().as_mut() {
            s.env = env;
        }
    });
}

/// A hash of some text.
pub fn hash_text(parts: &[&str]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for p in parts {
        p.hash(&mut h);
    }
    h.finish()
}

/// What the checker tells about one declaration, for the keys.
pub(crate) struct NodeInfo {
    /// Its place.
    pub span: Span,
    /// Whether it is a definition.
    pub is_def: bool,
    /// What it is and the names it declares, for the layout.
    pub layout: String,
    /// Whether it is an instance (found by type).
    pub instance: bool,
}

/// The key of each group (`None` for a group that cannot be reused: not only
/// definitions of the edited file), groups in dependency order.
pub(crate) fn keys(
    nodes: &[NodeInfo],
    edges: &[Vec<usize>],
    groups: &[Vec<usize>],
) -> Vec<Option<u64>> {
    SESSION.with(|s| {
        let mut s = s.borrow_mut();
        let Some(s) = s.as_mut() else {
            return vec![None; groups.len()];
        };
        let text_of = |span: Span| {
            s.text
                .get(span.start as usize..span.end as usize)
                .unwrap_or("")
        };
        let mut layout = std::collections::hash_map::DefaultHasher::new();
        s.env.hash(&mut layout);
        for n in nodes {
            (n.span.file == s.file).hash(&mut layout);
            n.layout.hash(&mut layout);
            if n.instance && n.span.file == s.file {
                text_of(n.span).hash(&mut layout);
            }
        }
        let layout = layout.finish();
        let mut group_of = vec![0usize; nodes.len()];
        for (g, members) in groups.iter().enumerate() {
            for &m in members {
                group_of[m] = g;
            }
        }
        let mut all: Vec<u64> = Vec::with_capacity(groups.len());
        let mut out = Vec::with_capacity(groups.len());
        s.deps = vec![Vec::new(); groups.len()];
        s.open = vec![false; groups.len()];
        for (g, members) in groups.iter().enumerate() {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            layout.hash(&mut h);
            let mut sorted = members.clone();
            sorted.sort_unstable();
            for &m in &sorted {
                m.hash(&mut h);
                if nodes[m].span.file == s.file {
                    text_of(nodes[m].span).hash(&mut h);
                }
                let mut deps: Vec<usize> = edges[m]
                    .iter()
                    .map(|&t| group_of[t])
                    .filter(|&t| t != g)
                    .collect();
                deps.sort_unstable();
                deps.dedup();
                s.deps[g].extend(deps.iter().copied());
                for d in deps {
                    // Dependencies come first, so their keys are known.
                    all.get(d).copied().unwrap_or(d as u64).hash(&mut h);
                }
            }
            let key = h.finish();
            all.push(key);
            let reusable = sorted
                .iter()
                .all(|&m| nodes[m].is_def && nodes[m].span.file == s.file);
            if !reusable {
                // Checked whatever happens: its definitions of the file count as checked.
                let n = sorted
                    .iter()
                    .filter(|&&m| nodes[m].is_def && nodes[m].span.file == s.file)
                    .count();
                s.stats.definitions += n;
                s.stats.checked += n;
            }
            out.push(reusable.then_some(key));
        }
        out
    })
}

/// If the group of key `key` (its members at `ranges`) was kept by the previous check,
/// puts its definitions' results into `program` and returns its diagnostics (moved to
/// where the group is now), to be reported where a check of the group would report
/// them; otherwise notes the group to be kept after this check and returns `None`.
pub(crate) fn reuse_or_note(
    key: u64,
    ranges: Vec<(u32, u32)>,
    defs: Vec<DefId>,
    program: &mut Program,
) -> Option<Vec<Diagnostic>> {
    SESSION.with(|s| {
        let mut s = s.borrow_mut();
        let s = s.as_mut()?;
        let base = ranges.iter().map(|r| r.0).min().unwrap_or(0);
        let n = defs.len();
        s.stats.definitions += n;
        if let Some(entry) = s.old.entries.remove(&key)
            && entry.defs.iter().map(|d| d.0).eq(defs.iter().copied())
        {
            let delta = base as i64 - entry.base as i64;
            let file = s.file;
            for (id, ty, body) in &entry.defs {
                if let Some(d) = program.defs.get_mut(id.0 as usize) {
                    d.ty = shift_term(ty, file, delta);
                    d.body = shift_term(body, file, delta);
                }
            }
            let diagnostics = entry
                .diagnostics
                .iter()
                .map(|d| {
                    let mut d = d.clone();
                    for l in &mut d.labels {
                        l.span = shift_span(l.span, file, delta);
                    }
                    d
                })
                .collect();
            s.stats.reused += n;
            s.reused.push(Reused { key, delta });
            s.new.entries.insert(key, entry);
            return Some(diagnostics);
        }
        s.stats.checked += n;
        s.fresh.push(Fresh {
            key,
            base,
            ranges,
            defs,
            open: false,
            group: s.current,
        });
        None
    })
}

/// Notes that the group being checked is the `g`-th.
pub(crate) fn entering(g: usize) {
    SESSION.with(|s| {
        if let Some(s) = s.borrow_mut().as_mut() {
            s.current = g;
        }
    });
}

/// Notes that the group being checked left unknowns open: neither it nor the groups
/// that depend on it are kept.
pub(crate) fn note_open() {
    SESSION.with(|s| {
        if let Some(s) = s.borrow_mut().as_mut() {
            let g = s.current;
            if let Some(o) = s.open.get_mut(g) {
                *o = true;
            }
        }
    });
}

/// After elaboration: what was recorded of the places of the groups reused, moved to
/// their places now, goes to the recording.
pub(crate) fn replay_records() {
    if !record::on() {
        return;
    }
    SESSION.with(|s| {
        let s = s.borrow();
        let Some(s) = s.as_ref() else {
            return;
        };
        let file = s.file;
        for r in &s.reused {
            let Some(entry) = s.new.entries.get(&r.key) else {
                continue;
            };
            let mv = |span: Span| shift_span(span, file, r.delta);
            record::extend(moved(&entry.records, &mv));
        }
    })
}

/// Records of a group, each place moved by `mv`.
fn moved(records: &GroupRecords, mv: &dyn Fn(Span) -> Span) -> GroupRecords {
    GroupRecords {
        types: records
            .types
            .iter()
            .map(|t| TypeAt {
                span: mv(t.span),
                ty: t.ty.clone(),
                names: t.names.clone(),
            })
            .collect(),
        names: records
            .names
            .iter()
            .map(|n| NameAt {
                span: mv(n.span),
                global: n.global,
            })
            .collect(),
        locals: records
            .locals
            .iter()
            .map(|l| LocalAt {
                span: mv(l.span),
                binder: mv(l.binder),
            })
            .collect(),
        holes: records
            .holes
            .iter()
            .map(|h| HoleAt {
                span: mv(h.span),
                ..h.clone()
            })
            .collect(),
        scopes: records
            .scopes
            .iter()
            .map(|x| ScopeAt {
                name: x.name.clone(),
                binder: mv(x.binder),
                extent: mv(x.extent),
            })
            .collect(),
    }
}

/// After the check: keeps the results of the groups checked afresh that can be
/// reused (their definitions closed when their group was checked), with their
/// diagnostics among `diagnostics` but those of `recomputed` (the totality report,
/// made again at every check over the whole program).
pub(crate) fn store(program: &Program, diagnostics: &[Diagnostic], recomputed: &[Diagnostic]) {
    SESSION.with(|s| {
        let mut s = s.borrow_mut();
        let Some(s) = s.as_mut() else {
            return;
        };
        let file = s.file;
        let mut fresh = std::mem::take(&mut s.fresh);
        // Which group (fresh, by index) each diagnostic belongs to: the one holding
        // all its places in the file. A diagnostic with places in several groups was
        // made by the last of them (a group's check sees only itself and what it
        // depends on, which comes before it): that group is not kept, so that its
        // next check makes the diagnostic again.
        // The groups' places, sorted (declarations do not overlap).
        let mut places: Vec<(u32, u32, usize)> = fresh
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.ranges.iter().map(move |(a, b)| (*a, *b, i)))
            .collect();
        places.sort_unstable();
        let fresh_group = |span: Span| -> Option<usize> {
            if span.file != file {
                return None;
            }
            let k = places.partition_point(|(a, _, _)| *a <= span.start);
            let (_, end, i) = *places.get(k.checked_sub(1)?)?;
            (span.end <= end).then_some(i)
        };
        // Which group a place is in: `None` outside the file, `Some(None)` in a
        // group reused or in no group (a data type, an external).
        let group_of = |span: Span| -> Option<Option<usize>> {
            if span.file != file {
                return None;
            }
            Some(fresh_group(span))
        };
        let mut owned: Vec<Vec<Diagnostic>> = vec![Vec::new(); fresh.len()];
        let mut not_kept = Vec::new();
        for d in diagnostics {
            if recomputed.contains(d) {
                continue;
            }
            let places: Vec<Option<usize>> =
                d.labels.iter().filter_map(|l| group_of(l.span)).collect();
            match places.as_slice() {
                [] => {}
                [first, rest @ ..] if rest.iter().all(|p| p == first) => {
                    if let Some(i) = first {
                        owned[*i].push(d.clone());
                    }
                }
                _ => {
                    if let Some(last) = places.iter().flatten().max() {
                        not_kept.push(*last);
                    }
                }
            }
        }
        for i in not_kept {
            fresh[i].open = true;
        }
        let none = std::collections::HashSet::new();
        // A group is kept only if neither it nor any group it depends on, directly or
        // not, left unknowns open when checked (a group may solve the unknowns of one
        // it depends on, as the check of a definition may fix what a type-level
        // function it unfolds left unknown).
        let mut tainted = vec![false; s.open.len()];
        for g in 0..s.open.len() {
            let inherited = s
                .deps
                .get(g)
                .is_some_and(|d| d.iter().any(|&x| tainted.get(x).copied().unwrap_or(true)));
            tainted[g] = s.open[g] || inherited;
        }
        let mut records = record::select(&fresh_group, fresh.len()).into_iter();
        for (f, diagnostics) in fresh.into_iter().zip(owned) {
            let group_records = records.next().unwrap_or_default();
            // A group with a typed hole is checked every time: the names that fit
            // the hole depend on every global in scope, not only on those the group
            // refers to.
            if f.open
                || tainted.get(f.group).copied().unwrap_or(true)
                || !group_records.holes.is_empty()
            {
                continue;
            }
            let mut defs = Vec::new();
            let mut closed = true;
            for id in &f.defs {
                let Some(d) = program.defs.get(id.0 as usize) else {
                    closed = false;
                    break;
                };
                closed &= !has_unknowns(&d.ty, &none) && !has_unknowns(&d.body, &none);
                defs.push((*id, d.ty.clone(), d.body.clone()));
            }
            if !closed {
                continue;
            }
            s.new.entries.insert(
                f.key,
                Entry {
                    base: f.base,
                    defs,
                    diagnostics,
                    records: group_records,
                },
            );
        }
    })
}

/// Whether a term still has unknowns of the checker in it (it then belongs to one
/// check only).
pub(crate) fn has_unknowns(t: &RcTerm, except: &std::collections::HashSet<u32>) -> bool {
    // Terms share subterms (a type mentions its parts once however often they
    // occur): each node is looked at once, so the cost is the size of the graph.
    let mut seen: std::collections::HashSet<*const Term> = std::collections::HashSet::new();
    let mut stack = vec![t];
    while let Some(t) = stack.pop() {
        if !seen.insert(std::rc::Rc::as_ptr(t)) {
            continue;
        }
        if let Term::Hole(HoleKind::Meta(id) | HoleKind::MetaCtx(id, ..), _) = &**t
            && !except.contains(id)
        {
            return true;
        }
        t.for_each_child(|c, _| stack.push(c));
    }
    false
}

/// A span moved by `delta` bytes if it is in `file`.
fn shift_span(span: Span, file: FileId, delta: i64) -> Span {
    if span.file != file || delta == 0 {
        return span;
    }
    let mv = |x: u32| (x as i64 + delta).clamp(0, u32::MAX as i64) as u32;
    Span::new(file, mv(span.start), mv(span.end))
}

/// A term with every place in `file` moved by `delta` bytes.
fn shift_term(t: &RcTerm, file: FileId, delta: i64) -> RcTerm {
    if delta == 0 {
        return t.clone();
    }
    stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || {
        crate::core::subst::rewrite(t, &mut |node, _| {
            let mv = |s: Span| shift_span(s, file, delta);
            let binder = |b: &Binder| Binder {
                name: b.name.clone(),
                plicity: b.plicity,
                ty: shift_term(&b.ty, file, delta),
            };
            match &**node {
                Term::Extern(id, s) => Some(Term::Extern(*id, mv(*s)).rc()),
                Term::Prim(p, s) => Some(Term::Prim(*p, mv(*s)).rc()),
                Term::Hole(k, s) => Some(Term::Hole(k.clone(), mv(*s)).rc()),
                Term::Match(m) => Some(
                    Term::Match(Box::new(Match {
                        scrut: shift_term(&m.scrut, file, delta),
                        arms: m
                            .arms
                            .iter()
                            .map(|a| CaseArm {
                                pat: match &a.pat {
                                    CasePat::Con(c, bs) => {
                                        CasePat::Con(*c, bs.iter().map(binder).collect())
                                    }
                                    CasePat::Lit(l) => CasePat::Lit(l.clone()),
                                },
                                body: shift_term(&a.body, file, delta),
                            })
                            .collect(),
                        default: m
                            .default
                            .as_ref()
                            .map(|(b, body)| (binder(b), shift_term(body, file, delta))),
                        span: mv(m.span),
                    }))
                    .rc(),
                ),
                _ => None,
            }
        })
    })
}
