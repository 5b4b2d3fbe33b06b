//! Index arenas: slabs of fixed-size records addressed by `u32` handles, with free
//! lists, and a slab of words for variable-length storage (constructor fields, record
//! slots, the arguments of partial applications).
//!
//! The machine allocates here instead of behind `Rc<RefCell<_>>`: a handle is four
//! bytes, a freed slot is reused at once, and the arena counts what it hands out (for
//! `--stats` and for the tests that assert memory stays bounded). Freeing is explicit:
//! the heap's reference counts decide when. Nothing here traces.

use super::value::{NIL, Ref, Val};

/// A slab of `T` with a free list and allocation statistics.
#[derive(Debug)]
pub struct Arena<T> {
    slots: Vec<T>,
    used: Vec<bool>,
    free: Vec<u32>,
    live: usize,
    peak: usize,
    allocated: u64,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            slots: Vec::new(),
            used: Vec::new(),
            free: Vec::new(),
            live: 0,
            peak: 0,
            allocated: 0,
        }
    }
}

impl<T> Arena<T> {
    /// Stores `value` in a free slot (or a new one) and returns its handle.
    #[inline(always)]
    pub fn alloc(&mut self, value: T) -> Ref {
        self.live += 1;
        self.allocated += 1;
        if self.live > self.peak {
            self.peak = self.live;
        }
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = value;
                self.used[i as usize] = true;
                i
            }
            None => self.grow(value),
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, value: T) -> Ref {
        let i = self.slots.len();
        assert!(i < NIL as usize, "arena exhausted");
        self.slots.push(value);
        self.used.push(true);
        i as Ref
    }

    /// Returns a slot to the free list. The caller has taken out (or reset) whatever
    /// the slot owned.
    #[inline]
    pub fn free(&mut self, handle: Ref) {
        debug_assert!(self.used[handle as usize], "double free");
        self.used[handle as usize] = false;
        self.live -= 1;
        self.free.push(handle);
    }

    /// The record behind a handle.
    #[inline(always)]
    pub fn get(&self, handle: Ref) -> &T {
        &self.slots[handle as usize]
    }

    /// The record behind a handle, mutably.
    #[inline(always)]
    pub fn get_mut(&mut self, handle: Ref) -> &mut T {
        &mut self.slots[handle as usize]
    }

    /// How many records are live now.
    pub fn live(&self) -> usize {
        self.live
    }

    /// The most records ever live at once.
    pub fn peak(&self) -> usize {
        self.peak
    }

    /// How many records were ever allocated.
    pub fn allocated(&self) -> u64 {
        self.allocated
    }

    /// Whether a handle names a live record.
    pub fn is_live(&self, handle: Ref) -> bool {
        self.used.get(handle as usize).copied().unwrap_or(false)
    }

    /// The handles of every live record (for the audits and the cycle collector).
    pub fn live_handles(&self) -> impl Iterator<Item = Ref> + '_ {
        self.used
            .iter()
            .enumerate()
            .filter(|(_, u)| **u)
            .map(|(i, _)| i as Ref)
    }
}

/// A run of words in the [`Words`] slab: where it starts and how long it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Run {
    /// Index of the first word.
    pub start: u32,
    /// How many words.
    pub len: u32,
}

impl Run {
    /// The empty run.
    pub const EMPTY: Run = Run { start: 0, len: 0 };
}

/// Variable-length storage: one vector of words with a free list per run length, so
/// that constructor fields and record slots need no allocation of their own.
#[derive(Debug, Default)]
pub struct Words {
    words: Vec<Val>,
    free: Vec<Vec<u32>>,
    live: usize,
    peak: usize,
}

impl Words {
    /// A run of `len` words, each `Val::Erased`.
    #[inline(always)]
    pub fn alloc(&mut self, len: u32) -> Run {
        if len == 0 {
            return Run::EMPTY;
        }
        self.live += len as usize;
        if self.live > self.peak {
            self.peak = self.live;
        }
        if let Some(list) = self.free.get_mut(len as usize)
            && let Some(start) = list.pop()
        {
            return Run { start, len };
        }
        self.grow(len)
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, len: u32) -> Run {
        let start = self.words.len();
        assert!(
            start + (len as usize) < u32::MAX as usize,
            "word slab exhausted"
        );
        self.words.resize(start + len as usize, Val::Erased);
        Run {
            start: start as u32,
            len,
        }
    }

    /// Returns a run to its free list; the caller has released what it held.
    #[inline]
    pub fn free(&mut self, run: Run) {
        if run.len == 0 {
            return;
        }
        self.live -= run.len as usize;
        let l = run.len as usize;
        if self.free.len() <= l {
            self.free.resize_with(l + 1, Vec::new);
        }
        for w in &mut self.words[run.start as usize..(run.start + run.len) as usize] {
            *w = Val::Erased;
        }
        self.free[l].push(run.start);
    }

    /// The words of a run.
    #[inline(always)]
    pub fn get(&self, run: Run) -> &[Val] {
        &self.words[run.start as usize..(run.start + run.len) as usize]
    }

    /// The words of a run, mutably.
    #[inline(always)]
    pub fn get_mut(&mut self, run: Run) -> &mut [Val] {
        &mut self.words[run.start as usize..(run.start + run.len) as usize]
    }

    /// One word of a run.
    #[inline(always)]
    pub fn at(&self, run: Run, i: u32) -> Val {
        debug_assert!(i < run.len);
        self.words[(run.start + i) as usize]
    }

    /// Writes one word of a run (the caller counts references).
    #[inline(always)]
    pub fn set(&mut self, run: Run, i: u32, v: Val) {
        debug_assert!(i < run.len);
        self.words[(run.start + i) as usize] = v;
    }

    /// Words in live runs now.
    pub fn live(&self) -> usize {
        self.live
    }

    /// The most words ever live at once.
    pub fn peak(&self) -> usize {
        self.peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_and_counted() {
        let mut a: Arena<u64> = Arena::default();
        let x = a.alloc(1);
        let y = a.alloc(2);
        assert_eq!(a.live(), 2);
        a.free(x);
        assert!(!a.is_live(x));
        let z = a.alloc(3);
        assert_eq!(z, x);
        assert_eq!(*a.get(y), 2);
        assert_eq!(a.peak(), 2);
        assert_eq!(a.allocated(), 3);
        assert_eq!(a.live_handles().count(), 2);
    }

    #[test]
    fn runs_are_reused_by_length() {
        let mut w = Words::default();
        let a = w.alloc(3);
        w.set(a, 1, Val::Int(7));
        assert_eq!(w.at(a, 1), Val::Int(7));
        let b = w.alloc(2);
        w.free(a);
        let c = w.alloc(3);
        assert_eq!(c.start, a.start);
        assert_eq!(w.at(c, 1), Val::Erased);
        assert_ne!(b.start, c.start);
        assert_eq!(w.live(), 5);
    }
}

/// The words of an object (a record's slots, a constructor's fields): up to `N` in
/// place, so that the common small object is one allocation; more in a run of the
/// slab. The length lives in the run (whose start means nothing while the words are
/// in place), so the whole is `16 * N + 8` bytes.
#[derive(Debug, Clone, Copy)]
pub struct Slots<const N: usize> {
    inline: [Val; N],
    spill: Run,
}

impl<const N: usize> Slots<N> {
    /// `len` words, all `Erased`.
    #[inline(always)]
    pub fn new(words: &mut Words, len: u32) -> Self {
        let spill = if len as usize > N {
            words.alloc(len)
        } else {
            Run { start: 0, len }
        };
        Slots {
            inline: [Val::Erased; N],
            spill,
        }
    }

    /// The given words (the caller's references move in).
    #[inline(always)]
    pub fn from_slice(words: &mut Words, vals: &[Val]) -> Self {
        let mut s = Self::new(words, vals.len() as u32);
        if vals.len() <= N {
            s.inline[..vals.len()].copy_from_slice(vals);
        } else {
            words.get_mut(s.spill).copy_from_slice(vals);
        }
        s
    }

    /// How many words.
    #[inline(always)]
    pub fn len(&self) -> u32 {
        self.spill.len
    }

    /// Whether there are none.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.spill.len == 0
    }

    #[inline(always)]
    fn in_place(&self) -> bool {
        self.spill.len as usize <= N
    }

    /// All the words.
    #[inline(always)]
    pub fn get<'a>(&'a self, words: &'a Words) -> &'a [Val] {
        if self.in_place() {
            &self.inline[..self.spill.len as usize]
        } else {
            words.get(self.spill)
        }
    }

    /// Word `i`.
    #[inline(always)]
    pub fn at(&self, words: &Words, i: u32) -> Val {
        if self.in_place() {
            self.inline[i as usize]
        } else {
            words.at(self.spill, i)
        }
    }

    /// Writes word `i` (the caller counts references).
    #[inline(always)]
    pub fn set(&mut self, words: &mut Words, i: u32, v: Val) {
        if self.in_place() {
            self.inline[i as usize] = v;
        } else {
            words.set(self.spill, i, v);
        }
    }

    /// Gives back what the slab holds (the caller has released the words).
    #[inline(always)]
    pub fn free(self, words: &mut Words) {
        if !self.in_place() {
            words.free(self.spill);
        }
    }
}
