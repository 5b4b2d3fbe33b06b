//! The prelude's collection types as the machine, the printer and `--format json` see
//! them: `Map` (a weight-balanced search tree, `Map'Tip | Map'Bin size key value left
//! right`), `Set` (`Set'Of` a map to `()`) and `Array` (`Array'Of` a map from
//! positions). They are ordinary data types of `prelude/map.sp`; knowing their
//! constructors lets the machine search and rebuild a tree natively, print a map as
//! `mapFromList [...]` and compare two maps by their entries rather than their shapes.
//!
//! Also here: which data types are *structurally ordered*, whose `Ord` instance is
//! written by `deriving` (constructors in declaration order, then the fields from the
//! first). Values built from numbers, strings and such types only compare natively
//! exactly as `compare` would compare them; any other value is left to `compare`.

use super::program::Program;
use super::term::{ConId, DataId, Plicity, Term};

/// The constructors of the prelude's collection types, and the structurally ordered
/// data types.
#[derive(Debug, Clone)]
pub struct Collections {
    /// `Map'Tip`, the empty map.
    pub tip: ConId,
    /// `Map'Bin size key value left right`.
    pub bin: ConId,
    /// `Set'Of map`.
    pub set_of: ConId,
    /// `Array'Of map`.
    pub array_of: ConId,
    /// `Left` and `Right` of the prelude's `Either`: how native operations answer.
    pub either: [ConId; 2],
    /// `LT`, `EQ` and `GT` of the prelude's `Ordering`, if it has them.
    pub ordering: Option<[ConId; 3]>,
    /// Per data type: whether its `Ord` instance is derived.
    ordered: Vec<bool>,
}

impl Collections {
    /// The collection types of `prog`'s prelude, or `None` when it has none (a test's
    /// own prelude).
    pub fn find(prog: &Program) -> Option<Collections> {
        let data = |name: &str| prog.datas.iter().position(|d| &*d.name == name);
        let con = |d: usize, name: &str| -> Option<ConId> {
            let i = prog.datas[d].ctors.iter().position(|c| &*c.name == name)?;
            Some(ConId {
                data: DataId(d as u32),
                index: i as u32,
            })
        };
        let map = data("Map")?;
        let set = data("Set")?;
        let array = data("Array")?;
        let mut ordered = vec![false; prog.datas.len()];
        if let Some(ord) = prog
            .datas
            .iter()
            .position(|d| d.interface && &*d.name == "Ord")
        {
            for def in &prog.defs {
                if def.role == crate::syntax::ast::DefRole::Derived
                    && let Some(t) = instance_head(&def.ty, DataId(ord as u32))
                {
                    ordered[t.0 as usize] = true;
                }
            }
        }
        let ordering =
            data("Ordering").and_then(|d| Some([con(d, "LT")?, con(d, "EQ")?, con(d, "GT")?]));
        let either = data("Either")?;
        Some(Collections {
            either: [con(either, "Left")?, con(either, "Right")?],
            ordering,
            tip: con(map, "Map'Tip")?,
            bin: con(map, "Map'Bin")?,
            set_of: con(set, "Set'Of")?,
            array_of: con(array, "Array'Of")?,
            ordered,
        })
    }

    /// Whether values of data type `d` compare structurally (a derived `Ord`).
    pub fn ordered(&self, d: DataId) -> bool {
        self.ordered.get(d.0 as usize).copied().unwrap_or(false)
    }
}

/// The data type `T` of an instance of interface `class` whose type ends in
/// `class (T ...)`.
fn instance_head(ty: &Term, class: DataId) -> Option<DataId> {
    let mut t = ty;
    while let Term::Pi(_, body) = t {
        t = body;
    }
    let Term::App(f, Plicity::Explicit, arg) = t else {
        return None;
    };
    if !matches!(&**f, Term::Data(c) if *c == class) {
        return None;
    }
    let mut head: &Term = arg;
    while let Term::App(f, _, _) = head {
        head = f;
    }
    match head {
        Term::Data(d) => Some(*d),
        _ => None,
    }
}
