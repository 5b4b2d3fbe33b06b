//! Definition hashes (DESIGN.md section 5): a hash for each definition, data type and
//! external of a [`Program`] that names *what it is*, not where it sits in the tables.
//!
//! A declaration's hash is blake3 over its canonical encoding (the one
//! [`hash`](super::hash) digests: [`Names::Drop`], no spans) in which every reference to
//! another declaration (`Def`, `Data`, a constructor's data type, `External`) is
//! replaced by *that* declaration's hash: a Merkle tree, as Unison does. So a hash
//! changes when the declaration's body changes or when anything it uses changes, and
//! never when an unrelated declaration changes or when declarations are reordered.
//!
//! - A definition is hashed by its **body** (its value; the type only guides checking).
//! - A data type by its parameters' types and its constructors (names and field types).
//! - An external by its host name and its declared type.
//!
//! **Cycles.** Declarations that refer to each other (a recursive definition, mutually
//! recursive definitions, a recursive data type) are hashed together as one group, as
//! Unison does: the strongly connected components of the reference graph are found
//! (Tarjan, without recursion) and hashed in dependency order. Inside a group a
//! reference to a member is written as that member's position in the group, where the
//! members are sorted by their hash with every in-group reference blanked out (ties,
//! which only structurally identical members can have, are broken by name, then by
//! kind). The group's hash covers every member's encoding; a member's hash is the
//! group's hash and its position. Each step depends only on the group's contents, never
//! on table order.
//!
//! **Places.** A call's place (DESIGN.md 5) is its definition's hash and its position
//! inside the definition: [`position`] gives the preorder index of a node of a
//! definition's body, which depends only on the body.
//!
//! ```
//! use spindle::driver;
//! use spindle::proto::defhash;
//! # let dir = tempfile::tempdir().unwrap();
//! # let a = dir.path().join("a.sp");
//! # let b = dir.path().join("b.sp");
//! std::fs::write(&a, "def one = 1\ndef two = one + one\ndef main = two\n").unwrap();
//! std::fs::write(&b, "def main = two\ndef two = one + one\ndef one = 1\n").unwrap();
//! let pa = driver::load(&a).program.unwrap();
//! let pb = driver::load(&b).program.unwrap();
//! let (ha, hb) = (defhash::compute(&pa), defhash::compute(&pb));
//! let two = |p: &spindle::core::program::Program| {
//!     p.defs.iter().position(|d| &*d.name == "two").unwrap()
//! };
//! assert_eq!(ha.defs[two(&pa)], hb.defs[two(&pb)]);
//! ```

use super::encode::{Names, term_with};
use super::hash::ContentHash;
use super::pb;
use crate::core::graph::components;
use crate::core::program::Program;
use crate::core::term::{DefId, Term};
use prost::Message;

/// The version of this hashing scheme, hashed first: a later scheme cannot give the
/// same hashes by accident.
pub const DEFHASH_VERSION: u32 = 1;

/// The hashes of every declaration of a program, indexed like its tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefHashes {
    /// One per [`Program::defs`] entry.
    pub defs: Vec<ContentHash>,
    /// One per [`Program::datas`] entry.
    pub datas: Vec<ContentHash>,
    /// One per [`Program::externs`] entry.
    pub externs: Vec<ContentHash>,
}

impl DefHashes {
    /// The hash of definition `id` (`None` for an id outside the table).
    pub fn def(&self, id: DefId) -> Option<ContentHash> {
        self.defs.get(id.0 as usize).copied()
    }
}

/// A declaration: a node of the reference graph.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Decl {
    Def(u32),
    Data(u32),
    Extern(u32),
}

impl Decl {
    fn tag(self) -> u8 {
        match self {
            Decl::Def(_) => 1,
            Decl::Data(_) => 2,
            Decl::Extern(_) => 3,
        }
    }
}

/// A declaration's canonical encoding with its references taken out: the bytes with
/// every reference zeroed, and the references in the order they occur.
struct Shape {
    bytes: Vec<u8>,
    refs: Vec<Decl>,
}

/// Computes the hashes of every declaration of `p`.
pub fn compute(p: &Program) -> DefHashes {
    let n_defs = p.defs.len();
    let n_datas = p.datas.len();
    let n_externs = p.externs.len();
    let index = |d: Decl| -> usize {
        match d {
            Decl::Def(i) => i as usize,
            Decl::Data(i) => n_defs + i as usize,
            Decl::Extern(i) => n_defs + n_datas + i as usize,
        }
    };
    let total = n_defs + n_datas + n_externs;
    let mut decls = Vec::with_capacity(total);
    decls.extend((0..n_defs as u32).map(Decl::Def));
    decls.extend((0..n_datas as u32).map(Decl::Data));
    decls.extend((0..n_externs as u32).map(Decl::Extern));
    let shapes: Vec<Shape> = decls.iter().map(|&d| shape(p, d)).collect();
    // References to declarations outside the tables (only a malformed program has
    // them) are kept as they are: they cannot be followed.
    let valid = |d: Decl| index(d) < total && decls[index(d)] == d;
    let edges: Vec<Vec<usize>> = shapes
        .iter()
        .map(|s| {
            let mut e: Vec<usize> = s
                .refs
                .iter()
                .filter(|&&d| valid(d))
                .map(|&d| index(d))
                .collect();
            e.sort_unstable();
            e.dedup();
            e
        })
        .collect();
    let mut hashes: Vec<Option<ContentHash>> = vec![None; total];
    // Tarjan gives the components in reverse topological order: every component comes
    // after those it refers to, so their hashes are known.
    for group in components(&edges) {
        hash_group(
            &group,
            &decls,
            &shapes,
            &edges,
            &mut hashes,
            &index,
            &valid,
            p,
        );
    }
    let mut out = hashes
        .into_iter()
        .map(|h| h.unwrap_or(ContentHash([0; 32])));
    DefHashes {
        defs: out.by_ref().take(n_defs).collect(),
        datas: out.by_ref().take(n_datas).collect(),
        externs: out.take(n_externs).collect(),
    }
}

/// The preorder position of `node` inside the body of definition `def` (the body's
/// root is 0; children in the order [`Term::for_each_child`] gives them), or `None` when
/// the node is not in that body. The node is found by identity (the same allocation),
/// so it must come from `p` itself.
pub fn position(p: &Program, def: DefId, node: &Term) -> Option<u32> {
    position_in(&p.defs.get(def.0 as usize)?.body, node)
}

/// The preorder index of `node` inside `body` ([`position`] for a body of one's own).
pub fn position_in(body: &Term, node: &Term) -> Option<u32> {
    let mut work: Vec<&Term> = vec![body];
    let mut count: u32 = 0;
    while let Some(t) = work.pop() {
        if std::ptr::eq(t, node) {
            return Some(count);
        }
        count = count.saturating_add(1);
        let start = work.len();
        t.for_each_child(|c, _| work.push(c));
        work[start..].reverse();
    }
    None
}

/// Tag bytes of a reference in a member's encoding.
const REF_OUTSIDE: u8 = 0;
const REF_MEMBER: u8 = 1;
const REF_BLANK: u8 = 2;

#[allow(clippy::too_many_arguments)]
fn hash_group(
    group: &[usize],
    decls: &[Decl],
    shapes: &[Shape],
    edges: &[Vec<usize>],
    hashes: &mut [Option<ContentHash>],
    index: &dyn Fn(Decl) -> usize,
    valid: &dyn Fn(Decl) -> bool,
    p: &Program,
) {
    let member_of = |i: usize| group.contains(&i);
    let cyclic = group.len() > 1 || edges[group[0]].contains(&group[0]);
    // One member's encoding: its shape's bytes, then each reference.
    let encode = |i: usize, position: &dyn Fn(usize) -> Option<u32>| -> Vec<u8> {
        let s = &shapes[i];
        let mut out = Vec::with_capacity(s.bytes.len() + 33 * s.refs.len() + 16);
        out.push(decls[i].tag());
        out.extend_from_slice(&(s.bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(&s.bytes);
        for &r in &s.refs {
            if !valid(r) {
                // A dangling reference: keep what it says.
                out.push(0xff);
                out.push(r.tag());
                let raw = match r {
                    Decl::Def(x) | Decl::Data(x) | Decl::Extern(x) => x,
                };
                out.extend_from_slice(&raw.to_le_bytes());
                continue;
            }
            let j = index(r);
            if cyclic && member_of(j) {
                match position(j) {
                    Some(pos) => {
                        out.push(REF_MEMBER);
                        out.extend_from_slice(&pos.to_le_bytes());
                    }
                    None => out.push(REF_BLANK),
                }
            } else {
                out.push(REF_OUTSIDE);
                let h = hashes[j].unwrap_or(ContentHash([0; 32]));
                out.extend_from_slice(&h.0);
            }
        }
        out
    };
    let digest = |parts: &[&[u8]]| -> ContentHash {
        let mut h = blake3::Hasher::new();
        h.update(b"spindle-defhash");
        h.update(&DEFHASH_VERSION.to_le_bytes());
        for part in parts {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
        ContentHash(*h.finalize().as_bytes())
    };
    if !cyclic {
        let i = group[0];
        hashes[i] = Some(digest(&[b"one", &encode(i, &|_| None)]));
        return;
    }
    // Order the members by their hash with in-group references blanked out.
    let name = |i: usize| -> String {
        match decls[i] {
            Decl::Def(x) => p.defs[x as usize].name.to_string(),
            Decl::Data(x) => p.datas[x as usize].name.to_string(),
            Decl::Extern(x) => p.externs[x as usize].name.to_string(),
        }
    };
    let mut order: Vec<(ContentHash, String, u8, usize)> = group
        .iter()
        .map(|&i| {
            let blank = digest(&[b"blank", &encode(i, &|_| None)]);
            (blank, name(i), decls[i].tag(), i)
        })
        .collect();
    order.sort_by(|a, b| (a.0.0, &a.1, a.2).cmp(&(b.0.0, &b.1, b.2)));
    let sorted: Vec<usize> = order.iter().map(|o| o.3).collect();
    let position = |j: usize| sorted.iter().position(|&m| m == j).map(|x| x as u32);
    let encodings: Vec<Vec<u8>> = sorted.iter().map(|&i| encode(i, &position)).collect();
    let mut parts: Vec<&[u8]> = vec![b"group"];
    parts.extend(encodings.iter().map(|e| e.as_slice()));
    let group_hash = digest(&parts);
    for (pos, &i) in sorted.iter().enumerate() {
        hashes[i] = Some(digest(&[
            b"member",
            &group_hash.0,
            &(pos as u32).to_le_bytes(),
        ]));
    }
}

/// A declaration's encoding with its references zeroed and listed.
fn shape(p: &Program, d: Decl) -> Shape {
    let mut s = Shape {
        bytes: Vec::new(),
        refs: Vec::new(),
    };
    match d {
        Decl::Def(i) => add_term(&mut s, &p.defs[i as usize].body),
        Decl::Data(i) => {
            let data = &p.datas[i as usize];
            s.bytes
                .extend_from_slice(&(data.params.len() as u64).to_le_bytes());
            for b in &data.params {
                s.bytes.push(super::encode::plicity(b.plicity) as u8);
                add_term(&mut s, &b.ty);
            }
            s.bytes
                .extend_from_slice(&(data.ctors.len() as u64).to_le_bytes());
            for c in &data.ctors {
                add_str(&mut s, &c.name);
                s.bytes
                    .extend_from_slice(&(c.fields.len() as u64).to_le_bytes());
                for f in &c.fields {
                    add_term(&mut s, f);
                }
            }
        }
        Decl::Extern(i) => {
            let e = &p.externs[i as usize];
            add_str(&mut s, &e.name);
            add_term(&mut s, &e.ty);
        }
    }
    s
}

fn add_str(s: &mut Shape, text: &str) {
    s.bytes
        .extend_from_slice(&(text.len() as u64).to_le_bytes());
    s.bytes.extend_from_slice(text.as_bytes());
}

/// Appends a term's canonical encoding, its references zeroed and listed in preorder.
fn add_term(s: &mut Shape, t: &Term) {
    use pb::node::Kind;
    let mut enc = term_with(t, Names::Drop);
    for node in &mut enc.nodes {
        match &mut node.kind {
            Some(Kind::Def(i)) => {
                s.refs.push(Decl::Def(*i));
                *i = 0;
            }
            Some(Kind::Data(i)) => {
                s.refs.push(Decl::Data(*i));
                *i = 0;
            }
            Some(Kind::External(i)) => {
                s.refs.push(Decl::Extern(*i));
                *i = 0;
            }
            Some(Kind::Con(c)) => {
                s.refs.push(Decl::Data(c.data));
                c.data = 0;
            }
            _ => {}
        }
    }
    let bytes = enc.encode_to_vec();
    s.bytes
        .extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    s.bytes.extend_from_slice(&bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver;

    fn load(src: &str) -> Program {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("t.sp");
        std::fs::write(&f, src).unwrap();
        let loaded = driver::load(&f);
        assert!(!loaded.has_errors(), "{}", loaded.render_errors());
        loaded.program.unwrap()
    }

    fn hash_of(p: &Program, name: &str) -> ContentHash {
        let h = compute(p);
        let i = p
            .defs
            .iter()
            .rposition(|d| &*d.name == name)
            .unwrap_or_else(|| panic!("no {name}"));
        h.defs[i]
    }

    fn data_hash(p: &Program, name: &str) -> ContentHash {
        let h = compute(p);
        let i = p.datas.iter().rposition(|d| &*d.name == name).unwrap();
        h.datas[i]
    }

    const BASE: &str = "\
def helper (x : Int) : Int = x * 2
def unrelated : Int = 7
def step (f : String) : String = run \"sort\" [f, showInt (helper 3)]
def main = step \"data.csv\"
";

    #[test]
    fn reordering_definitions_keeps_every_hash() {
        let a = load(BASE);
        let b = load(
            "\
def main = step \"data.csv\"
def unrelated : Int = 7
def step (f : String) : String = run \"sort\" [f, showInt (helper 3)]
def helper (x : Int) : Int = x * 2
",
        );
        for name in ["helper", "unrelated", "step", "main"] {
            assert_eq!(hash_of(&a, name), hash_of(&b, name), "{name}");
        }
    }

    #[test]
    fn editing_an_unrelated_definition_keeps_a_hash() {
        let a = load(BASE);
        let b = load(&BASE.replace("unrelated : Int = 7", "unrelated : Int = 8"));
        assert_ne!(hash_of(&a, "unrelated"), hash_of(&b, "unrelated"));
        for name in ["helper", "step", "main"] {
            assert_eq!(hash_of(&a, name), hash_of(&b, name), "{name}");
        }
        // Adding a definition does not move anything either.
        let c = load(&format!("def extra : Int = 1\n{BASE}"));
        for name in ["helper", "step", "main", "unrelated"] {
            assert_eq!(hash_of(&a, name), hash_of(&c, name), "{name}");
        }
    }

    #[test]
    fn editing_a_used_definition_changes_its_users() {
        let a = load(BASE);
        let b = load(&BASE.replace("x * 2", "x * 3"));
        for name in ["helper", "step", "main"] {
            assert_ne!(hash_of(&a, name), hash_of(&b, name), "{name}");
        }
        assert_eq!(hash_of(&a, "unrelated"), hash_of(&b, "unrelated"));
    }

    #[test]
    fn names_of_binders_and_definitions_do_not_count() {
        let a = load("def f (x : Int) : Int = x + 1\ndef main = f 2\n");
        let b = load("def g (y : Int) : Int = y + 1\ndef main = g 2\n");
        assert_eq!(hash_of(&a, "f"), hash_of(&b, "g"));
        assert_eq!(hash_of(&a, "main"), hash_of(&b, "main"));
    }

    #[test]
    fn mutually_recursive_definitions_are_hashed_as_a_group() {
        let src = "\
def isEven (n : Int) : Bool = if n == 0 then True else isOdd (n - 1)
def isOdd (n : Int) : Bool = if n == 0 then False else isEven (n - 1)
def main = isEven 10
";
        let a = load(src);
        let b = load(
            "\
def main = isEven 10
def isOdd (n : Int) : Bool = if n == 0 then False else isEven (n - 1)
def isEven (n : Int) : Bool = if n == 0 then True else isOdd (n - 1)
",
        );
        for name in ["isEven", "isOdd", "main"] {
            assert_eq!(hash_of(&a, name), hash_of(&b, name), "{name}");
        }
        assert_ne!(hash_of(&a, "isEven"), hash_of(&a, "isOdd"));
        // Editing one member changes both.
        let c = load(&src.replace("then False", "then True"));
        assert_ne!(hash_of(&a, "isEven"), hash_of(&c, "isEven"));
        assert_ne!(hash_of(&a, "isOdd"), hash_of(&c, "isOdd"));
    }

    #[test]
    fn data_types_are_hashed_by_content_not_position() {
        let a = load("data T = A | B Int\ndata U = C\ndef main = B 1\n");
        let b = load("data U = C\ndata T = A | B Int\ndef main = B 1\n");
        assert_eq!(data_hash(&a, "T"), data_hash(&b, "T"));
        assert_eq!(hash_of(&a, "main"), hash_of(&b, "main"));
        let c = load("data T = A | B Int | D\ndata U = C\ndef main = B 1\n");
        assert_ne!(data_hash(&a, "T"), data_hash(&c, "T"));
        assert_ne!(hash_of(&a, "main"), hash_of(&c, "main"));
        // A recursive data type has a hash too, and every hash is distinct here.
        let h = compute(&a);
        let mut all: Vec<_> = h.datas.iter().chain(&h.externs).collect();
        let n = all.len();
        all.sort_by_key(|h| h.0);
        all.dedup();
        assert_eq!(all.len(), n);
    }

    #[test]
    fn positions_are_preorder_indices_in_the_body() {
        let p = load(BASE);
        let i = p.defs.iter().rposition(|d| &*d.name == "step").unwrap();
        let body = &p.defs[i].body;
        assert_eq!(position(&p, DefId(i as u32), body), Some(0));
        // Every node of the body has a distinct position.
        let mut seen = std::collections::HashSet::new();
        let mut work: Vec<&Term> = vec![body];
        while let Some(t) = work.pop() {
            let pos = position(&p, DefId(i as u32), t).unwrap();
            // Shared subterms report their first position.
            seen.insert(pos);
            t.for_each_child(|c, _| work.push(c));
        }
        assert!(seen.len() > 5);
        let other = &p.defs[0].body;
        assert_eq!(position(&p, DefId(i as u32), other), None);
    }

    #[test]
    fn components_are_in_dependency_order() {
        // 0 -> 1 -> 2 -> 1, 3 alone, 4 -> 0
        let edges = vec![vec![1], vec![2], vec![1], vec![], vec![0]];
        let c = components(&edges);
        let pos = |x: usize| c.iter().position(|g| g.contains(&x)).unwrap();
        assert_eq!(c.iter().find(|g| g.contains(&1)).unwrap(), &vec![1, 2]);
        assert!(pos(1) < pos(0));
        assert!(pos(0) < pos(4));
        assert_eq!(c.len(), 4);
        // A long chain does not overflow the stack.
        let chain: Vec<Vec<usize>> = (0..200_000).map(|i| vec![i + 1]).chain([vec![]]).collect();
        assert_eq!(components(&chain).len(), 200_001);
    }
}
