//! Native operations on the prelude's ordered maps and on sorting
//! ([`crate::core::collections`]): searching, inserting into and deleting from a
//! weight-balanced tree (`prim_mapLookup`, `prim_mapInsert`, `prim_mapDelete`), and a
//! stable sort of evaluated values (`prim_sortOrdered`, `prim_sortOnFirst`).
//!
//! They apply only where comparing natively is comparing with `compare`: keys that are
//! numbers, strings, or data of structurally ordered types built from them
//! (`Data::native_cmp`). Each answers `Right` what it computed, `Left (Just
//! parts)` where a comparison needs parts of keys not evaluated yet (the prelude
//! evaluates them and asks again), or `Left Nothing` where it cannot order the keys (a
//! function, a type whose `Ord` is written by hand, a `NaN`): the prelude then runs its
//! own definition, which builds the same trees. Natively, the work of a step is a few
//! comparisons and one new node per level, where the prelude's definitions take tens
//! of machine steps per level.

use super::data::Data;
use super::value::Val;
use crate::core::collections::Collections;
use std::cmp::Ordering;

/// How much larger one subtree may be than its sibling (`delta` of the prelude's
/// `map'balance`), and the ratio that chooses a single or a double rotation.
const DELTA: i64 = 3;
const RATIO: i64 = 2;

/// What a native comparison found.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Decided {
    /// The order.
    Order(Ordering),
    /// A part not evaluated yet that the comparison needs.
    Need(Val),
    /// Values it cannot order (a function, a type whose `Ord` is written by hand, a
    /// `NaN`).
    No,
}

impl<'a, 'p> Data<'a, 'p> {
    /// How two values compare under their `Ord` instances, where that is structural:
    /// numbers (`Float` as the prelude's `compare` orders it, with no `NaN`), strings
    /// by code point, constructors of structurally ordered types by position and then
    /// field by field. Where it cannot say: the part not evaluated yet that the
    /// comparison needs (`Need`: the same part `compare` would evaluate next), or
    /// `No` (a function, a type whose `Ord` is written by hand, a `NaN`).
    pub(crate) fn native_cmp(&self, cols: &Collections, a: Val, b: Val) -> Decided {
        match (self.heap.forced(a), self.heap.forced(b)) {
            (Val::Int(m), Val::Int(n)) => return Decided::Order(m.cmp(&n)),
            (Val::Str(m), Val::Str(n)) => {
                return Decided::Order(
                    self.heap
                        .text(m)
                        .as_bytes()
                        .cmp(self.heap.text(n).as_bytes()),
                );
            }
            _ => {}
        }
        let mut work = vec![(a, b)];
        while let Some((x, y)) = work.pop() {
            let (x, y) = (self.heap.forced(x), self.heap.forced(y));
            let o = match (x, y) {
                (Val::Thunk(_), _) => return Decided::Need(x),
                (_, Val::Thunk(_)) => return Decided::Need(y),
                (Val::Int(m), Val::Int(n)) => m.cmp(&n),
                (Val::Char(m), Val::Char(n)) => m.cmp(&n),
                (Val::Float(m), Val::Float(n)) => match m.partial_cmp(&n) {
                    Some(o) => o,
                    None => return Decided::No,
                },
                (Val::Str(m), Val::Str(n)) => self
                    .heap
                    .text(m)
                    .as_bytes()
                    .cmp(self.heap.text(n).as_bytes()),
                (Val::Erased, Val::Erased) => Ordering::Equal,
                (Val::Atom(_) | Val::Con(_), Val::Atom(_) | Val::Con(_)) => {
                    let kx = self.con_of(x);
                    let ky = self.con_of(y);
                    if kx.data != ky.data || !cols.ordered(kx.data) {
                        return Decided::No;
                    }
                    match kx.index.cmp(&ky.index) {
                        Ordering::Equal => {
                            if let (Val::Con(r), Val::Con(s)) = (x, y) {
                                let (fx, fy) = (self.heap.fields(r), self.heap.fields(s));
                                if fx.len() != fy.len() {
                                    return Decided::No;
                                }
                                for i in (0..fx.len()).rev() {
                                    work.push((fx[i], fy[i]));
                                }
                            }
                            continue;
                        }
                        o => o,
                    }
                }
                _ => return Decided::No,
            };
            if o != Ordering::Equal {
                return Decided::Order(o);
            }
        }
        Decided::Order(Ordering::Equal)
    }

    // ----- the tree ---------------------------------------------------------------

    /// A subtree as a node's fields hold it, evaluated: `None` for a tip, the node's
    /// fields for a node; `Err` where it is not evaluated (or not a map).
    fn map_node(&self, cols: &Collections, t: Val) -> Result<Option<[Val; 5]>, ()> {
        match self.heap.forced(t) {
            Val::Atom(k) if k == cols.tip => Ok(None),
            Val::Con(r) if self.heap.cons.get(r).con == cols.bin => {
                let f = self.heap.fields(r);
                if f.len() != 5 {
                    return Err(());
                }
                Ok(Some([f[0], f[1], f[2], f[3], f[4]]))
            }
            _ => Err(()),
        }
    }

    fn map_size(&self, cols: &Collections, t: Val) -> i64 {
        match self.map_node(cols, t) {
            Ok(Some([s, ..])) => match self.heap.forced(s) {
                Val::Int(n) => n,
                _ => 0,
            },
            _ => 0,
        }
    }

    /// A new node (the four references move in).
    fn map_bin(&mut self, cols: &Collections, k: Val, x: Val, l: Val, r: Val) -> Val {
        let n = self.map_size(cols, l) + self.map_size(cols, r) + 1;
        self.heap.con(cols.bin, &[Val::Int(n), k, x, l, r])
    }

    /// The fields of an owned node, counted, with the node let go.
    fn map_open(&mut self, cols: &Collections, t: Val) -> [Val; 4] {
        let Ok(Some([_, k, x, l, r])) = self.map_node(cols, t) else {
            unreachable!("map_open() on a tip")
        };
        for v in [k, x, l, r] {
            self.heap.retain(v);
        }
        self.heap.release(t);
        [k, x, l, r]
    }

    /// A node whose subtrees were balanced before one insertion or deletion (all
    /// references move in): the prelude's `map'balance`.
    fn map_balance(&mut self, cols: &Collections, k: Val, x: Val, l: Val, r: Val) -> Val {
        let (sl, sr) = (self.map_size(cols, l), self.map_size(cols, r));
        if sl + sr <= 1 {
            return self.map_bin(cols, k, x, l, r);
        }
        if sr > DELTA * sl {
            let [k2, x2, rl, rr] = self.map_open(cols, r);
            if self.map_size(cols, rl) < RATIO * self.map_size(cols, rr) {
                let left = self.map_bin(cols, k, x, l, rl);
                return self.map_bin(cols, k2, x2, left, rr);
            }
            let [k3, x3, rll, rlr] = self.map_open(cols, rl);
            let left = self.map_bin(cols, k, x, l, rll);
            let right = self.map_bin(cols, k2, x2, rlr, rr);
            return self.map_bin(cols, k3, x3, left, right);
        }
        if sl > DELTA * sr {
            let [k2, x2, ll, lr] = self.map_open(cols, l);
            if self.map_size(cols, lr) < RATIO * self.map_size(cols, ll) {
                let right = self.map_bin(cols, k, x, lr, r);
                return self.map_bin(cols, k2, x2, ll, right);
            }
            let [k3, x3, lrl, lrr] = self.map_open(cols, lr);
            let left = self.map_bin(cols, k2, x2, ll, lrl);
            let right = self.map_bin(cols, k, x, lrr, r);
            return self.map_bin(cols, k3, x3, left, right);
        }
        self.map_bin(cols, k, x, l, r)
    }

    /// The nodes from the root of `m` down to where `key` is or would be, each with
    /// the side taken (`Less`: left), and how the search ended: `Some` node fields
    /// where `key` was found. `Err` where a comparison cannot be decided natively: it
    /// needs a part not evaluated yet (the same part the prelude's search would
    /// evaluate: the comparisons are the same), or cannot order the keys at all.
    #[allow(clippy::type_complexity)]
    fn map_path(
        &self,
        cols: &Collections,
        key: Val,
        m: Val,
    ) -> Result<(Vec<([Val; 5], Ordering)>, Option<[Val; 5]>), Decided> {
        let mut path = Vec::new();
        let mut t = m;
        loop {
            match self.map_node(cols, t).map_err(|_| Decided::No)? {
                None => return Ok((path, None)),
                Some(node) => match self.native_cmp(cols, key, node[1]) {
                    Decided::Order(Ordering::Equal) => return Ok((path, Some(node))),
                    Decided::Order(o) => {
                        t = if o == Ordering::Less {
                            node[3]
                        } else {
                            node[4]
                        };
                        path.push((node, o));
                    }
                    other => return Err(other),
                },
            }
        }
    }

    /// What a native map operation answers where it could not decide: `Left (Just
    /// part)` (evaluate `part`, then ask again) or `Left Nothing` (the prelude's
    /// definitions must do it); `Right r` where it did.
    fn undecided(&mut self, d: Decided) -> Val {
        let cols = self.prog.collections().expect("collections");
        let inner = match d {
            Decided::Need(part) => {
                self.heap.retain(part);
                self.maybe(Some(part))
            }
            _ => self.maybe(None),
        };
        self.heap.con(cols.either[0], &[inner])
    }

    fn decided(&mut self, r: Val) -> Val {
        let cols = self.prog.collections().expect("collections");
        self.heap.con(cols.either[1], &[r])
    }

    /// Rebuilds the path of [`Machine::map_path`] above a new subtree (owned),
    /// rebalancing each node.
    fn map_rebuild(
        &mut self,
        cols: &Collections,
        path: &[([Val; 5], Ordering)],
        mut t: Val,
    ) -> Val {
        for &(node, side) in path.iter().rev() {
            let [_, k, x, l, r] = node;
            for v in [k, x] {
                self.heap.retain(v);
            }
            t = if side == Ordering::Less {
                self.heap.retain(r);
                self.map_balance(cols, k, x, t, r)
            } else {
                self.heap.retain(l);
                self.map_balance(cols, k, x, l, t)
            };
        }
        t
    }

    /// `prim_mapLookup key m`: `Right` the key's value (`Just v` or `Nothing`), or
    /// `Left` ([`Machine::undecided`]) (arguments borrowed).
    pub(crate) fn map_lookup_native(&mut self, key: Val, m: Val) -> Val {
        let Some(cols) = self.prog.collections().filter(|_| self.native) else {
            return self.undecided(Decided::No);
        };
        match self.map_path(cols, key, m) {
            Err(d) => self.undecided(d),
            Ok((_, found)) => {
                let inner = match found {
                    Some(node) => {
                        self.heap.retain(node[2]);
                        self.maybe(Some(node[2]))
                    }
                    None => self.maybe(None),
                };
                self.decided(inner)
            }
        }
    }

    /// `prim_mapInsert key x m`: `Right` the new map, or `Left` (arguments borrowed).
    pub(crate) fn map_insert_native(&mut self, key: Val, x: Val, m: Val) -> Val {
        let Some(cols) = self.prog.collections().filter(|_| self.native) else {
            return self.undecided(Decided::No);
        };
        let (path, found) = match self.map_path(cols, key, m) {
            Ok(p) => p,
            Err(d) => return self.undecided(d),
        };
        self.heap.retain(key);
        self.heap.retain(x);
        let t = match found {
            Some([s, _, _, l, r]) => {
                self.heap.retain(l);
                self.heap.retain(r);
                self.heap.con(cols.bin, &[s, key, x, l, r])
            }
            None => self.heap.con(
                cols.bin,
                &[
                    Val::Int(1),
                    key,
                    x,
                    Val::Atom(cols.tip),
                    Val::Atom(cols.tip),
                ],
            ),
        };
        let t = self.map_rebuild(cols, &path, t);
        self.decided(t)
    }

    /// `prim_mapDelete key m`: `Right` the map without `key`, or `Left` (arguments
    /// borrowed).
    pub(crate) fn map_delete_native(&mut self, key: Val, m: Val) -> Val {
        let Some(cols) = self.prog.collections().filter(|_| self.native) else {
            return self.undecided(Decided::No);
        };
        let (path, found) = match self.map_path(cols, key, m) {
            Ok(p) => p,
            Err(d) => return self.undecided(d),
        };
        let Some([_, _, _, l, r]) = found else {
            // Not there: the same map.
            self.heap.retain(m);
            return self.decided(m);
        };
        self.heap.retain(l);
        self.heap.retain(r);
        let t = self.map_glue(cols, l, r);
        let t = self.map_rebuild(cols, &path, t);
        self.decided(t)
    }

    /// Two trees (owned), every key of `l` below every key of `r`, as one: the
    /// prelude's `map'glue`.
    fn map_glue(&mut self, cols: &Collections, l: Val, r: Val) -> Val {
        let (sl, sr) = (self.map_size(cols, l), self.map_size(cols, r));
        if sl == 0 {
            self.heap.release(l);
            return r;
        }
        if sr == 0 {
            self.heap.release(r);
            return l;
        }
        if sl > sr {
            let ([km, xm], rest) = self.map_view(cols, l, false);
            self.map_balance(cols, km, xm, rest, r)
        } else {
            let ([km, xm], rest) = self.map_view(cols, r, true);
            self.map_balance(cols, km, xm, l, rest)
        }
    }

    /// The least (`min`) or greatest entry of a non-empty tree (owned), and the rest.
    fn map_view(&mut self, cols: &Collections, t: Val, min: bool) -> ([Val; 2], Val) {
        let [k, x, l, r] = self.map_open(cols, t);
        let inner = if min { l } else { r };
        if self.map_size(cols, inner) == 0 {
            self.heap.release(inner);
            return ([k, x], if min { r } else { l });
        }
        let (entry, rest) = self.map_view(cols, inner, min);
        let t = if min {
            self.map_balance(cols, k, x, rest, r)
        } else {
            self.map_balance(cols, k, x, l, rest)
        };
        (entry, t)
    }

    /// The entries of an evaluated map in ascending order of keys (not counted), or
    /// `None` where a subtree is not evaluated.
    pub(crate) fn map_entries(&self, m: Val) -> Option<Vec<(Val, Val)>> {
        let cols = self.prog.collections()?;
        let mut out = Vec::new();
        let mut stack = Vec::new();
        let mut t = m;
        loop {
            while let Some(node) = self.map_node(cols, t).ok()? {
                stack.push(node);
                t = node[3];
            }
            let Some(node) = stack.pop() else {
                return Some(out);
            };
            out.push((node[1], node[2]));
            t = node[4];
        }
    }

    /// Whether `v` is a node of a map (`Map'Bin`).
    pub(crate) fn is_map_node(&self, v: Val) -> bool {
        matches!((v, self.prog.collections()), (Val::Con(r), Some(cols)) if self.heap.cons.get(r).con == cols.bin)
    }

    // ----- sorting ----------------------------------------------------------------

    /// `prim_sortOrdered xs` (`first`: false) and `prim_sortOnFirst ps` (`first`:
    /// pairs, ordered by their first components): `Right` the list sorted, stable;
    /// `Left (Just parts)` where comparing needs parts of the keys not evaluated yet
    /// (evaluated by the prelude, which then asks again: the parts that break ties);
    /// `Left Nothing` where the keys cannot be ordered natively (borrowed).
    pub(crate) fn sort_native(&mut self, list: Val, first: bool) -> Val {
        match self.sorted_elements(list, first) {
            Ok(xs) => {
                let sorted = self.list_of(&xs);
                self.decided(sorted)
            }
            Err(parts) if !parts.is_empty() => {
                for &p in &parts {
                    self.heap.retain(p);
                }
                let l = self.list_of(&parts);
                let cols = self.prog.collections().expect("collections");
                let j = self.maybe(Some(l));
                self.heap.con(cols.either[0], &[j])
            }
            Err(_) => self.undecided(Decided::No),
        }
    }

    /// The elements of an evaluated list sorted (each counted once more), by
    /// themselves or (`first`) by the first components of pairs. `Err` with the parts
    /// of keys not evaluated yet that comparisons met (each met where a comparison
    /// needed it; the sort went on as if they were equal), or with none where the
    /// keys cannot be ordered natively (borrowed).
    pub(crate) fn sorted_elements(&mut self, list: Val, first: bool) -> Result<Vec<Val>, Vec<Val>> {
        let Some(cols) = self.prog.collections().filter(|_| self.native) else {
            return Err(Vec::new());
        };
        let Some(xs) = self.spine_of(list) else {
            return Err(Vec::new());
        };
        if !first {
            // Numbers alone: equal ones cannot be told apart, so any order of them is
            // the stable one.
            let ints: Option<Vec<i64>> = xs
                .iter()
                .map(|&x| match self.heap.forced(x) {
                    Val::Int(n) => Some(n),
                    _ => None,
                })
                .collect();
            if let Some(mut ints) = ints {
                ints.sort_unstable();
                return Ok(ints.into_iter().map(Val::Int).collect());
            }
        }
        let mut keyed = Vec::with_capacity(xs.len());
        for &x in &xs {
            let k = if first {
                match self.heap.forced(x) {
                    Val::Con(r) if self.heap.cons.get(r).con == self.prog.builtins.mk_pair => {
                        self.heap.fields(r)[0]
                    }
                    _ => return Err(Vec::new()),
                }
            } else {
                x
            };
            keyed.push((k, x));
        }
        let forced: Vec<Val> = keyed.iter().map(|(k, _)| self.heap.forced(*k)).collect();
        if forced.iter().all(|k| matches!(k, Val::Int(_))) {
            // Numbers sorted by their own keys; stable (the index breaks ties).
            let mut idx: Vec<(i64, usize)> = forced
                .iter()
                .enumerate()
                .map(|(i, k)| match k {
                    Val::Int(n) => (*n, i),
                    _ => unreachable!(),
                })
                .collect();
            idx.sort_unstable();
            keyed = idx.into_iter().map(|(_, i)| keyed[i]).collect();
        } else {
            let mut parts = Vec::new();
            let mut cannot = false;
            let order = merge_sort(keyed.len(), |i, j| {
                match self.native_cmp(cols, keyed[i].0, keyed[j].0) {
                    Decided::Order(o) => o,
                    Decided::Need(p) => {
                        parts.push(p);
                        Ordering::Equal
                    }
                    Decided::No => {
                        cannot = true;
                        Ordering::Equal
                    }
                }
            });
            if cannot {
                return Err(Vec::new());
            }
            if !parts.is_empty() {
                return Err(parts);
            }
            keyed = order.into_iter().map(|i| keyed[i]).collect();
        }
        let out: Vec<Val> = keyed.into_iter().map(|(_, x)| x).collect();
        for &x in &out {
            self.heap.retain(x);
        }
        Ok(out)
    }
}

/// The positions `0..n` in the stable order `cmp` gives (a bottom-up merge sort). It
/// never panics, whatever `cmp` answers: native comparisons that could not decide
/// answer `Equal`, which need not be consistent.
fn merge_sort(n: usize, mut cmp: impl FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut a: Vec<usize> = (0..n).collect();
    let mut b = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j, mut k) = (lo, mid, lo);
            while i < mid && j < hi {
                if cmp(a[j], a[i]) == Ordering::Less {
                    b[k] = a[j];
                    j += 1;
                } else {
                    b[k] = a[i];
                    i += 1;
                }
                k += 1;
            }
            b[k..k + (mid - i)].copy_from_slice(&a[i..mid]);
            k += mid - i;
            b[k..k + (hi - j)].copy_from_slice(&a[j..hi]);
            lo = hi;
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merge_sort_is_stable_and_sorts() {
        let keys = [5, 3, 5, 1, 3, 9, 0, 5];
        let order = merge_sort(keys.len(), |i, j| keys[i].cmp(&keys[j]));
        let sorted: Vec<i32> = order.iter().map(|&i| keys[i]).collect();
        assert_eq!(sorted, [0, 1, 3, 3, 5, 5, 5, 9]);
        // Equal keys keep their order.
        assert_eq!(order, [6, 3, 1, 4, 0, 2, 7, 5]);
        assert_eq!(merge_sort(0, |_, _| Ordering::Equal), Vec::<usize>::new());
        // An inconsistent comparison neither panics nor loses an element.
        let mut flip = false;
        let mut order = merge_sort(100, |_, _| {
            flip = !flip;
            if flip {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        });
        order.sort_unstable();
        assert_eq!(order, (0..100).collect::<Vec<_>>());
    }
}
