//! Stored evaluation states (DESIGN.md section 5): an evaluation stopped after some
//! steps, read back as a term ([`crate::machine::state`]), encoded as a program, decoded
//! and resumed. This lives beside the driver: the codec ([`crate::proto`]) only
//! encodes, decodes and hashes.
//!
//! A snapshot is the evaluated program itself with the root definition's body replaced
//! by the state: the readback term refers to the program's other definitions, data
//! types and externals, so the program carries them along and the bytes stand alone.
//! Resuming decodes the bytes and evaluates the root to normal form and prints it, as
//! `spindle run` does with `main`. The state is not type-checked again: its terms hold
//! holes where the machine keeps no types (erased implicit arguments, anonymous
//! entries), and they are well scoped, which is what decoding checks. A state may take
//! up to [`MAX_STATE_BYTES`], more than a program.
//!
//! ```
//! use spindle::driver;
//! use spindle::proto::prelude_counts;
//! use spindle::snapshot::{evaluate_for, resume, Progress};
//!
//! let loaded = driver::load_text("sum.sp", "def main = sum (map (\\x -> x * x) (range 0 1000))\n");
//! let program = loaded.program.as_ref().unwrap();
//! let prelude = prelude_counts(&loaded.sources, program);
//! let main = program.main.unwrap();
//! let Progress::Paused(snapshot) = evaluate_for(program, prelude, main, 500).unwrap() else {
//!     panic!("500 steps are not enough for this sum")
//! };
//! // `snapshot.bytes` can be written to a file; `spindle decode` prints it as source.
//! assert_eq!(resume(&snapshot).unwrap().unwrap(), "332833500");
//! ```

use crate::core::program::{DeclCounts, Program};
use crate::core::term::DefId;
use crate::machine::Machine;
use crate::machine::error::RuntimeError;
use crate::machine::state::StateError;
use crate::proto::MAX_STATE_BYTES;
use crate::proto::decode;
use crate::proto::encode;
use crate::proto::error::DecodeError;
use std::fmt;

/// An evaluation stopped and stored.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The encoded program whose root definition is the state.
    pub bytes: Vec<u8>,
    /// The definition being evaluated.
    pub root: DefId,
    /// How many steps the machine had taken when it stopped.
    pub steps: u64,
}

/// Where an evaluation got to.
#[derive(Debug, Clone)]
pub enum Progress {
    /// It ended: the printed value, or the runtime error.
    Finished(Result<String, RuntimeError>),
    /// It stopped after the steps it was given.
    Paused(Snapshot),
}

/// Why a state could not be stored or resumed.
#[derive(Debug, Clone)]
pub enum SnapshotError {
    /// Reading the machine state back failed.
    State(StateError),
    /// The stored bytes did not decode.
    Decode(DecodeError),
    /// The state's encoding would exceed [`MAX_STATE_BYTES`].
    TooLarge {
        /// The size of the encoding.
        bytes: usize,
    },
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::State(e) => e.fmt(f),
            SnapshotError::Decode(e) => write!(f, "cannot resume the stored state: {e}"),
            SnapshotError::TooLarge { bytes } => write!(
                f,
                "the state takes {bytes} bytes, more than the {MAX_STATE_BYTES} a stored state may take"
            ),
        }
    }
}

impl std::error::Error for SnapshotError {}

impl From<StateError> for SnapshotError {
    fn from(e: StateError) -> SnapshotError {
        SnapshotError::State(e)
    }
}

impl From<DecodeError> for SnapshotError {
    fn from(e: DecodeError) -> SnapshotError {
        SnapshotError::Decode(e)
    }
}

/// Evaluates definition `root` of `program` to normal form and prints it (what
/// `spindle run` does with `main`), but stops after `steps` machine steps (none when
/// zero) and stores the state. `prelude` says how much of the program is the prelude's
/// (for the encoding).
pub fn evaluate_for(
    program: &Program,
    prelude: DeclCounts,
    root: DefId,
    steps: u64,
) -> Result<Progress, SnapshotError> {
    let mut machine = Machine::new(program);
    crate::sched::Sequential::install_plain(&mut machine);
    machine.set_pause_after(steps);
    match evaluate(&mut machine, root) {
        Ok(out) => Ok(Progress::Finished(Ok(out))),
        Err(e) if !machine.is_paused() => Ok(Progress::Finished(Err(e))),
        Err(_) => {
            let root_val = machine.def_value_pinned(root);
            let state = machine.sight().read_back_state(root_val)?;
            let mut stored = program.clone();
            stored.defs[root.0 as usize].body = state;
            let bytes = encode::program_bytes(&stored, prelude);
            if bytes.len() > MAX_STATE_BYTES {
                return Err(SnapshotError::TooLarge { bytes: bytes.len() });
            }
            Ok(Progress::Paused(Snapshot {
                bytes,
                root,
                steps: machine.sight().stats().steps,
            }))
        }
    }
}

/// Decodes a stored state and evaluates it to the end.
pub fn resume(snapshot: &Snapshot) -> Result<Result<String, RuntimeError>, SnapshotError> {
    let decoded = decode::program_bytes_within(&snapshot.bytes, MAX_STATE_BYTES)?;
    let mut machine = Machine::new(&decoded.program);
    crate::sched::Sequential::install_plain(&mut machine);
    Ok(evaluate(&mut machine, snapshot.root))
}

/// Evaluates a definition to normal form and prints it (a `String` raw), through its
/// shared thunk, so that a pause keeps the work in the definition's value.
fn evaluate(machine: &mut Machine<'_>, root: DefId) -> Result<String, RuntimeError> {
    let v = machine.whnf_def(root)?;
    machine.print_value(v, false)
}

/// Evaluates `root` for `steps` steps, stores the state, decodes it and resumes it to
/// the end: the same result as evaluating without a stop (issue 6's round trip of an
/// intermediate state).
pub fn evaluate_with_stop(
    program: &Program,
    prelude: DeclCounts,
    root: DefId,
    steps: u64,
) -> Result<Result<String, RuntimeError>, SnapshotError> {
    match evaluate_for(program, prelude, root, steps)? {
        Progress::Finished(r) => Ok(r),
        Progress::Paused(snapshot) => resume(&snapshot),
    }
}
