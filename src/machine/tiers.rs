//! The faster paths the machine may take beside its plain transitions (issue 25), each
//! of which can be switched off, alone or all together, to compare what a program
//! prints and how the heap ends with and without it:
//!
//! - `at_hand`: small calls computed at once on a side stack ([`super::cheap`]);
//! - `numeric`: functions of numbers on a value stack ([`super::numeric`]);
//! - `loops`: counting folds and searches along a range run in place
//!   ([`super::loops`]);
//! - `fusion`: strict folds and producers over ranges rewritten into loops before
//!   compiling ([`super::fuse`]);
//! - `native`: searches, updates and sorts of the prelude's maps and lists done by
//!   the machine where keys compare natively ([`super::collections`]);
//! - `inline`: calls through known interface dictionaries resolved before compiling
//!   ([`super::inline`]);
//! - `trim`: terms in lazy places compiled to capture only the variables they use
//!   ([`super::code::Code::Trim`]), so a thunk keeps no more alive than it needs.
//!
//! None of them may change a result; the tier matrix test (`tests/machine/tiers.rs`)
//! runs every example and library program with each off, and all off. The environment
//! variable [`TIERS_OFF_ENV`] switches tiers off for a whole process (benchmarks,
//! `spindle run`): a comma-separated list of names, or `all`.

/// The environment variable naming the tiers to switch off.
pub const TIERS_OFF_ENV: &str = "SPINDLE_TIERS_OFF";

/// Which tiers are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiers {
    /// Small calls computed at hand.
    pub at_hand: bool,
    /// The numeric tier.
    pub numeric: bool,
    /// Loops in place.
    pub loops: bool,
    /// Fusion of folds and producers.
    pub fusion: bool,
    /// Native map operations and sorts.
    pub native: bool,
    /// Inlining through known dictionaries.
    pub inline: bool,
    /// Thunks that capture only what they use.
    pub trim: bool,
}

impl Tiers {
    /// Every tier on (the default).
    pub const ALL: Tiers = Tiers {
        at_hand: true,
        numeric: true,
        loops: true,
        fusion: true,
        native: true,
        inline: true,
        trim: true,
    };

    /// Every tier off: the plain machine.
    pub const NONE: Tiers = Tiers {
        at_hand: false,
        numeric: false,
        loops: false,
        fusion: false,
        native: false,
        inline: false,
        trim: false,
    };

    /// The tiers' names, as [`TIERS_OFF_ENV`] and [`Tiers::without`] take them.
    pub const NAMES: [&'static str; 7] = [
        "at_hand", "numeric", "loops", "fusion", "native", "inline", "trim",
    ];

    /// These tiers with the one named `name` off; `None` for an unknown name.
    pub fn without(self, name: &str) -> Option<Tiers> {
        let mut t = self;
        match name {
            "at_hand" => t.at_hand = false,
            "numeric" => t.numeric = false,
            "loops" => t.loops = false,
            "fusion" => t.fusion = false,
            "native" => t.native = false,
            "inline" => t.inline = false,
            "trim" => t.trim = false,
            "all" => t = Tiers::NONE,
            _ => return None,
        }
        Some(t)
    }

    /// The tiers [`TIERS_OFF_ENV`] leaves on (unknown names are ignored).
    pub fn from_env() -> Tiers {
        let Ok(off) = std::env::var(TIERS_OFF_ENV) else {
            return Tiers::ALL;
        };
        off.split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .fold(Tiers::ALL, |t, n| t.without(n).unwrap_or(t))
    }
}

impl Default for Tiers {
    fn default() -> Tiers {
        Tiers::ALL
    }
}

/// The tiers' part of a machine: which are on, and the side stacks of those that
/// keep state between calls.
pub struct TierState {
    /// Which faster paths the machine takes (all by default, or as
    /// `SPINDLE_TIERS_OFF` says). Switching any off changes nothing a program prints:
    /// the tier matrix test compares them. Fusion is decided when the machine is made
    /// ([`super::Machine::with_tiers`]).
    pub on: Tiers,
    /// The numeric tier's stacks ([`super::numeric`]).
    pub(crate) numeric: super::numeric::Tier,
    /// The windows of a call computed at hand ([`super::cheap`]).
    pub(crate) cheap: super::cheap::Windows,
}

impl Default for TierState {
    fn default() -> TierState {
        TierState {
            on: Tiers::ALL,
            numeric: Default::default(),
            cheap: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_are_switched_off_by_name() {
        assert!(!Tiers::ALL.without("numeric").unwrap().numeric);
        assert!(Tiers::ALL.without("numeric").unwrap().at_hand);
        assert_eq!(Tiers::ALL.without("all"), Some(Tiers::NONE));
        assert_eq!(Tiers::ALL.without("turbo"), None);
        for n in Tiers::NAMES {
            assert_ne!(Tiers::ALL.without(n), Some(Tiers::ALL), "{n}");
        }
    }
}
