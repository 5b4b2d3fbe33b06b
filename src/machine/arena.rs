//! Index-based arenas: slabs of records addressed by `u32` handles, with a free list.
//!
//! The machine allocates its context entries and its wound stacks here instead of
//! behind `Rc<RefCell<_>>`: a handle is four bytes, a slot is reused as soon as it is
//! freed, and the arena counts what it hands out (for `--stats` and for the tests that
//! assert memory stays bounded). Freeing is explicit (the machine's reference counts
//! decide when); the arena never traces anything.

/// The handle that means "none" (the end of a context chain, no stack).
pub const NIL: u32 = u32::MAX;

/// A slab of `T` with a free list and allocation statistics.
#[derive(Debug)]
pub struct Arena<T> {
    slots: Vec<T>,
    free: Vec<u32>,
    live: usize,
    peak: usize,
    allocated: u64,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            slots: Vec::new(),
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
    pub fn alloc(&mut self, value: T) -> u32 {
        self.live += 1;
        self.allocated += 1;
        if self.live > self.peak {
            self.peak = self.live;
        }
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = value;
                i
            }
            None => self.grow(value),
        }
    }

    /// Appends a new slot (the slow path of [`Arena::alloc`]).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, value: T) -> u32 {
        let i = self.slots.len();
        assert!(i < NIL as usize, "arena exhausted");
        self.slots.push(value);
        i as u32
    }

    /// Returns a slot to the free list. The caller has already taken out (or reset)
    /// whatever the slot owned.
    #[inline]
    pub fn release(&mut self, handle: u32) {
        debug_assert!((handle as usize) < self.slots.len());
        self.live -= 1;
        self.free.push(handle);
    }

    /// The record behind a handle.
    #[inline]
    pub fn get(&self, handle: u32) -> &T {
        &self.slots[handle as usize]
    }

    /// The record behind a handle, mutably.
    #[inline]
    pub fn get_mut(&mut self, handle: u32) -> &mut T {
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

    /// Every slot index ever used (live or free), for checkers that scan the heap.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Whether a handle is currently on the free list (slow: for checkers only).
    pub fn is_free(&self, handle: u32) -> bool {
        self.free.contains(&handle)
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
        a.release(x);
        let z = a.alloc(3);
        assert_eq!(z, x);
        assert_eq!(*a.get(y), 2);
        assert_eq!(a.peak(), 2);
        assert_eq!(a.allocated(), 3);
    }
}
