//! Data types: the universe each lives in, and strict positivity.
//!
//! Both are what keeps the checker sound (LANGUAGE.md section 3):
//!
//! - **Universes.** A data type lives in the smallest universe that holds its fields'
//!   types: `data Box = MkBox Type` is in `Type 1`, since `Type : Type 1`, so `Box`
//!   cannot stand where a `Type` is wanted (that would make `Type : Type`, from which
//!   any type can be inhabited). Parameters do not raise the level (`List : Type ->
//!   Type`), as in Agda and Lean. Mutually recursive data types share one level, the
//!   largest any of them needs.
//! - **Strict positivity.** A data type may occur in its constructors' fields only as
//!   the result of a function type (never to the left of an arrow), possibly as the
//!   argument of another data type whose parameter occurs strictly positively in turn
//!   (`data Rose = Node (List Rose)` is fine). `data Bad = MkBad (Bad -> Int)` would let
//!   a program loop without recursion and so prove anything. Field types are evaluated
//!   (a type alias is seen through). A data type that hands its parameter to another
//!   parameter (`data Wrap (f : Type -> Type) (a : Type) = W (f a)`) is checked with
//!   the arguments it is given (`Wrap List T` holds `List T`), as Lean checks nested
//!   types; a definition that does not unfold (a `match` on a variable) is looked
//!   into, as Agda does: how its body uses its parameters, and the group if it is of
//!   the group (its body is elaborated first: the check runs after the group's
//!   definitions). What no rule sees through, such as a type parameter applied to the
//!   type itself (`data Fix (f : Type -> Type) = In (f (Fix f))`), is rejected, as
//!   both of them reject it.

use super::order::Node;
use super::*;
use crate::core::equiv::alpha_eq;
use std::collections::HashMap;

/// How deep instances of data types (`Wrap List T`, see
/// [`Elab::instance_positive`]) may nest in one check.
const MAX_INSTANCES: usize = 64;

/// How many instances one check may look into in all (their answers are remembered,
/// so only distinct ones count): a bound on the work for hostile input.
const MAX_INSTANCE_CHECKS: usize = 10_000;

/// Answers of one positivity check: which parameters of data types and definitions
/// are used strictly positively, and the instances of data types being checked.
#[derive(Default)]
struct Memo {
    params: HashMap<(DataId, usize), bool>,
    defs: HashMap<(DefId, Option<usize>), bool>,
    instances: Vec<Instance>,
    /// Instances checked, with the answer.
    done: Vec<(Instance, Result<(), &'static str>)>,
}

/// An instance of a data type checked for a target: the target (see
/// [`Target::key`]), the type, the context depth its arguments are in, and the
/// arguments.
type Instance = (u32, DataId, u32, Vec<RcTerm>);

/// A term's head and its arguments (implicit ones too), first first.
fn spine(t: &RcTerm) -> (RcTerm, Vec<RcTerm>) {
    let (head, args) = crate::core::term::spine(t);
    (
        head.clone(),
        args.into_iter().map(|(_, a)| a.clone()).collect(),
    )
}

/// What a positivity check looks for.
#[derive(Clone, Copy)]
enum Target<'g> {
    /// The data types (and definitions) of one group of mutually recursive
    /// declarations.
    Group(&'g [Node]),
    /// A data type's parameter: the variable at this level of the context.
    Param(u32),
}

impl Target<'_> {
    /// Tells targets apart within one check (which has one group).
    fn key(self) -> u32 {
        match self {
            Target::Group(_) => 0,
            Target::Param(level) => level.saturating_add(1),
        }
    }
}

impl Elab<'_> {
    /// Elaborates the fields of a group of mutually recursive data types (their
    /// parameters are done) and gives them their universe level.
    pub(in crate::check) fn data_fields_and_level(&mut self, datas: &[(DataId, usize, &Decl<'_>)]) {
        // While the fields are checked, the group's types count as level 0: a field
        // whose type is one of them raises nothing the other fields do not.
        for (id, _, _) in datas {
            self.data_levels[id.0 as usize] = 0;
        }
        let mut level = 0;
        for (id, unit, decl) in datas {
            if let Decl::Data { params, ctors, .. } = decl {
                level = level.max(self.data_fields(*unit, *id, params, ctors));
            }
        }
        if level > MAX_UNIVERSE_LEVEL {
            let (id, _, _) = datas[0];
            let span = self.program.data(id).span;
            self.too_large(
                span,
                "this data type holds a type too large to live in any universe",
                level,
            );
            level = MAX_UNIVERSE_LEVEL;
        }
        for (id, _, _) in datas {
            self.data_levels[id.0 as usize] = level;
            let d = &self.program.datas[id.0 as usize];
            let params: Vec<RcTerm> = d.params.iter().map(|b| self.metas.zonk(&b.ty)).collect();
            let fields: Vec<Vec<RcTerm>> = d
                .ctors
                .iter()
                .map(|c| c.fields.iter().map(|f| self.metas.zonk(f)).collect())
                .collect();
            let d = &mut self.program.datas[id.0 as usize];
            for (b, t) in d.params.iter_mut().zip(params) {
                b.ty = t;
            }
            for (c, fs) in d.ctors.iter_mut().zip(fields) {
                c.fields = fs;
            }
        }
    }

    /// Checks that the data types of a group (`members` is the whole group of
    /// declarations) occur strictly positively in their constructors' fields.
    pub(in crate::check) fn data_positivity(
        &mut self,
        datas: &[(DataId, usize, &Decl<'_>)],
        members: &[(Node, usize, &Decl<'_>)],
    ) {
        let group: Vec<Node> = members.iter().map(|(n, _, _)| *n).collect();
        for (id, unit, decl) in datas {
            let Decl::Data { ctors, .. } = decl else {
                continue;
            };
            for (c, ctor) in ctors.iter().enumerate() {
                for (j, field) in ctor.fields.iter().enumerate() {
                    self.field_positivity(*unit, *id, c, j, field.span, &group);
                }
            }
        }
    }

    /// Checks that each definition of the group whose type is a universe or a family
    /// of types (`def Bad : Type = Bad -> Void`, `def Vec (n : Nat) (a : Type) : Type
    /// = ...`) holds the group only strictly positively in its body, as a data type's
    /// fields must (issue 31): a type defined through itself to the left of an arrow
    /// would let a program loop without recursion and so prove anything. Recursion
    /// under a match on a parameter (LANGUAGE.md 5's `Vec`) is looked into arm by arm.
    pub(in crate::check) fn def_type_positivity(
        &mut self,
        defs: &[(DefId, usize, &Decl<'_>)],
        members: &[(Node, usize, &Decl<'_>)],
    ) {
        let group: Vec<Node> = members.iter().map(|(n, _, _)| *n).collect();
        for (id, unit, decl) in defs {
            let Decl::Def { body: written, .. } = decl else {
                continue;
            };
            if !super::program::ends_in_universe(&self.program.def(*id).ty) {
                continue;
            }
            let mut cx = Cx::new(*unit);
            let mut body = self.program.def(*id).body.clone();
            while let Term::Lam(b, inner) = &*body.clone() {
                cx.push_hidden(b.name.clone(), b.ty.clone());
                body = inner.clone();
            }
            if !self.occurs(cx.depth(), &body, Target::Group(&group)) {
                continue;
            }
            let mut memo = Memo::default();
            // Met again inside its own body: the answer being worked out.
            memo.defs.insert((*id, None), true);
            if let Err(what) = self.strictly_positive(
                &mut cx,
                &body,
                Target::Group(&group),
                written.span,
                &mut memo,
            ) {
                let name = self.program.def(*id).name.clone();
                self.errors.push(
                    Diagnostic::error(format!(
                        "the type `{name}` is defined through itself {what}"
                    ))
                    .at(written.span, "not strictly positive")
                    .note("a type defined by recursion may occur in its own definition only strictly positively, as a data type in its fields: as the result of a function type, never to the left of an arrow"),
                );
            }
        }
    }

    /// Checks that the group occurs strictly positively in field `j` of constructor
    /// `c` of `id`.
    fn field_positivity(
        &mut self,
        unit: usize,
        id: DataId,
        c: usize,
        j: usize,
        span: Span,
        group: &[Node],
    ) {
        let mut cx = Cx::new(unit);
        let data = self.program.data(id).clone();
        for b in &data.params {
            cx.push_hidden(b.name.clone(), b.ty.clone());
        }
        let fields = &data.ctors[c].fields;
        for f in &fields[..j] {
            cx.push_hidden(name_of("_"), f.clone());
        }
        let mut memo = Memo::default();
        if let Err(what) =
            self.strictly_positive(&mut cx, &fields[j], Target::Group(group), span, &mut memo)
        {
            let names: Vec<String> = group
                .iter()
                .filter_map(|n| match n {
                    Node::Data(d) => Some(format!("`{}`", self.program.data(*d).name)),
                    _ => None,
                })
                .collect();
            let who = match names.as_slice() {
                [one] => format!("{one} occurs in a field of its constructor"),
                _ => format!(
                    "the data types {} occur in a field of the constructor",
                    names.join(", ")
                ),
            };
            self.errors.push(
                Diagnostic::error(format!("{who} `{}` {what}", data.ctors[c].name))
                .at(span, "not strictly positive")
                .note("a data type may occur in its own constructors' fields only strictly positively: as the result of a function type, never to the left of an arrow"),
            );
        }
    }

    /// Whether `target` occurs in `t` (at binder depth `d` inside it, in a context of
    /// `depth` variables).
    fn occurs(&self, depth: u32, t: &RcTerm, target: Target<'_>) -> bool {
        let mut found = false;
        crate::core::subst::rewrite(t, &mut |node, d| {
            if found {
                return Some(node.clone());
            }
            found = match (&**node, target) {
                (Term::Data(id), Target::Group(g)) => g.contains(&Node::Data(*id)),
                (Term::Def(id), Target::Group(g)) => g.contains(&Node::Def(*id)),
                (Term::Var(Ix(i)), Target::Param(level)) => {
                    *i >= d && (i - d) < depth && depth - 1 - (i - d) == level
                }
                _ => false,
            };
            None
        });
        found
    }

    /// Checks that `target` occurs only strictly positively in the type `ty` (in `cx`);
    /// the error says where it occurs otherwise.
    fn strictly_positive(
        &mut self,
        cx: &mut Cx<'_>,
        ty: &RcTerm,
        target: Target<'_>,
        span: Span,
        memo: &mut Memo,
    ) -> Result<(), &'static str> {
        stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || {
            self.strictly_positive_inner(cx, ty, target, span, memo)
        })
    }

    fn strictly_positive_inner(
        &mut self,
        cx: &mut Cx<'_>,
        ty: &RcTerm,
        target: Target<'_>,
        span: Span,
        memo: &mut Memo,
    ) -> Result<(), &'static str> {
        let mut pushed = 0;
        let mut ty = ty.clone();
        let result = loop {
            // A definition of the group itself, applied: its body is looked into once
            // (remembered), not unfolded here, where it would unfold again inside
            // (`def Lazy : Type = Maybe (Unit -> Lazy)`).
            if let Target::Group(g) = target
                && let (head, args) = spine(&ty)
                && let Term::Def(f) = &*head
                && g.contains(&Node::Def(*f))
            {
                let depth = cx.depth();
                if args.iter().any(|a| self.occurs(depth, a, target)) {
                    break Err("in an argument of itself");
                }
                if !self.def_body_positive(*f, None, target, span, memo) {
                    break Err("in a definition of its group that uses it negatively");
                }
                break Ok(());
            }
            let t = self.whnf(cx, &ty, span);
            if !self.occurs(cx.depth(), &t, target) {
                break Ok(());
            }
            if let Term::Pi(b, cod) = &*t {
                if self.occurs(cx.depth(), &b.ty, target) {
                    break Err("to the left of an arrow");
                }
                cx.push_hidden(b.name.clone(), b.ty.clone());
                pushed += 1;
                ty = cod.clone();
                continue;
            }
            // A definition that does not unfold (its body matches on a variable): how
            // its body uses its parameters, and the group, says.
            let stuck = match &*t {
                Term::Match(_) | Term::Let(..) => spine(&ty),
                _ => spine(&t),
            };
            if let (Term::Def(f), args) = (&*stuck.0, &stuck.1) {
                break self.def_positive(cx, *f, args, target, span, memo);
            }
            if let Term::Match(m) = &*t {
                break self.arms_positive(cx, m, target, span, memo);
            }
            let (head, args) = spine(&t);
            let depth = cx.depth();
            let is_target = match (&*head, target) {
                (Term::Data(id), Target::Group(g)) => g.contains(&Node::Data(*id)),
                (Term::Var(Ix(i)), Target::Param(level)) => *i < depth && depth - 1 - i == level,
                _ => false,
            };
            if is_target {
                if args.iter().any(|a| self.occurs(depth, a, target)) {
                    break Err("in an argument of itself");
                }
                break Ok(());
            }
            let Term::Data(other) = &*head else {
                break Err("where the check cannot see that it is positive");
            };
            break self.data_args_positive(cx, *other, &args, target, span, memo);
        };
        for _ in 0..pushed {
            cx.pop();
        }
        result
    }

    /// The arguments `args` of the data type `d` hold `target` strictly positively:
    /// each argument that mentions it does so strictly positively, at a parameter
    /// that `d` uses strictly positively. Where `d` cannot be seen to (it passes the
    /// parameter to another parameter: `data Wrap (f : Type -> Type) (a : Type) = W
    /// (f a)`), its fields are checked with these very arguments (`Wrap List T` holds
    /// `List T`), as Lean does for nested types.
    fn data_args_positive(
        &mut self,
        cx: &mut Cx<'_>,
        d: DataId,
        args: &[RcTerm],
        target: Target<'_>,
        span: Span,
        memo: &mut Memo,
    ) -> Result<(), &'static str> {
        let depth = cx.depth();
        let mut generic = true;
        for (i, a) in args.iter().enumerate() {
            if !self.occurs(depth, a, target) {
                continue;
            }
            self.strictly_positive(cx, a, target, span, memo)?;
            generic &= self.param_positive(d, i, span, memo);
        }
        if generic {
            return Ok(());
        }
        self.instance_positive(cx, d, args, target, span, memo)
    }

    /// The fields of `d`'s constructors, with `args` for its parameters, hold
    /// `target` strictly positively. An instance met again while it is being checked
    /// counts as positive (as a parameter does in [`Elab::param_positive`]); nesting
    /// deeper than [`MAX_INSTANCES`] counts as not positive.
    fn instance_positive(
        &mut self,
        cx: &mut Cx<'_>,
        d: DataId,
        args: &[RcTerm],
        target: Target<'_>,
        span: Span,
        memo: &mut Memo,
    ) -> Result<(), &'static str> {
        const NEGATIVE: &str = "as the argument of a data type that uses it negatively";
        let data = self.program.data(d).clone();
        let n = data.params.len();
        if args.len() != n {
            return Err(NEGATIVE);
        }
        let depth = cx.depth();
        let key = target.key();
        let same = |(k, other, at, held): &Instance| {
            *k == key
                && *other == d
                && *at == depth
                && held.iter().zip(args).all(|(x, y)| alpha_eq(x, y))
        };
        if memo.instances.iter().any(same) {
            return Ok(());
        }
        if let Some((_, known)) = memo.done.iter().find(|(i, _)| same(i)) {
            return *known;
        }
        if memo.instances.len() >= MAX_INSTANCES || memo.done.len() >= MAX_INSTANCE_CHECKS {
            return Err("where the check cannot see that it is positive");
        }
        memo.instances.push((key, d, depth, args.to_vec()));
        let mut result = Ok(());
        'ctors: for ctor in &data.ctors {
            let mut pushed = 0;
            for (j, field) in ctor.fields.iter().enumerate() {
                // The field is under the parameters and the `j` fields before it; the
                // earlier fields are pushed, the parameters replaced by `args`.
                let j = j as u32;
                let field = crate::core::subst::map_free_vars(field, &mut |ix, under| {
                    (ix >= j && ix < j + n as u32).then(|| {
                        let p = n - 1 - (ix - j) as usize;
                        shift(&args[p], j + under)
                    })
                });
                if let Err(e) = self.strictly_positive(cx, &field, target, span, memo) {
                    result = Err(if e == "to the left of an arrow" {
                        NEGATIVE
                    } else {
                        e
                    });
                    for _ in 0..pushed {
                        cx.pop();
                    }
                    break 'ctors;
                }
                cx.push_hidden(name_of("_"), field);
                pushed += 1;
            }
            for _ in 0..pushed {
                cx.pop();
            }
        }
        memo.instances.pop();
        memo.done.push(((key, d, depth, args.to_vec()), result));
        result
    }

    /// `f args`, a definition that does not unfold, holds `target` strictly
    /// positively: each argument that mentions it does so strictly positively, at a
    /// parameter that `f`'s body uses strictly positively, and if `f` is of the
    /// group being checked, its body holds the group strictly positively (as Agda
    /// looks into definitions).
    fn def_positive(
        &mut self,
        cx: &mut Cx<'_>,
        f: DefId,
        args: &[RcTerm],
        target: Target<'_>,
        span: Span,
        memo: &mut Memo,
    ) -> Result<(), &'static str> {
        let depth = cx.depth();
        for (i, a) in args.iter().enumerate() {
            if !self.occurs(depth, a, target) {
                continue;
            }
            self.strictly_positive(cx, a, target, span, memo)?;
            if !self.def_body_positive(f, Some(i), target, span, memo) {
                return Err("as the argument of a definition that uses it negatively");
            }
        }
        if let Target::Group(g) = target
            && g.contains(&Node::Def(f))
            && !self.def_body_positive(f, None, target, span, memo)
        {
            return Err("in a definition of its group that uses it negatively");
        }
        Ok(())
    }

    /// Whether the body of `f`, under its parameters, holds its parameter `param`
    /// (or, with `None`, the group `target`) strictly positively. A question met again
    /// while it is being answered counts as yes.
    fn def_body_positive(
        &mut self,
        f: DefId,
        param: Option<usize>,
        target: Target<'_>,
        span: Span,
        memo: &mut Memo,
    ) -> bool {
        let key = (f, param);
        if let Some(known) = memo.defs.get(&key) {
            return *known;
        }
        memo.defs.insert(key, true);
        let mut cx = Cx::new(PRELUDE_UNIT);
        let mut body = self.program.def(f).body.clone();
        while let Term::Lam(b, inner) = &*body.clone() {
            cx.push_hidden(b.name.clone(), b.ty.clone());
            body = inner.clone();
        }
        let ok = match param {
            Some(i) if i >= cx.depth() as usize => false,
            Some(i) => self
                .strictly_positive(&mut cx, &body, Target::Param(i as u32), span, memo)
                .is_ok(),
            None => self
                .strictly_positive(&mut cx, &body, target, span, memo)
                .is_ok(),
        };
        memo.defs.insert(key, ok);
        ok
    }

    /// A `match` stuck on a variable holds `target` strictly positively in every arm
    /// (the value matched on must not mention it).
    fn arms_positive(
        &mut self,
        cx: &mut Cx<'_>,
        m: &Match,
        target: Target<'_>,
        span: Span,
        memo: &mut Memo,
    ) -> Result<(), &'static str> {
        if self.occurs(cx.depth(), &m.scrut, target) {
            return Err("where the check cannot see that it is positive");
        }
        for arm in &m.arms {
            let fields: &[Binder] = match &arm.pat {
                CasePat::Con(_, fields) => fields,
                CasePat::Lit(_) => &[],
            };
            for b in fields {
                cx.push_hidden(b.name.clone(), b.ty.clone());
            }
            let r = self.strictly_positive(cx, &arm.body, target, span, memo);
            for _ in fields {
                cx.pop();
            }
            r?;
        }
        if let Some((b, body)) = &m.default {
            cx.push_hidden(b.name.clone(), b.ty.clone());
            let r = self.strictly_positive(cx, body, target, span, memo);
            cx.pop();
            r?;
        }
        Ok(())
    }

    /// Whether parameter `i` of the data type `d` occurs strictly positively in its
    /// constructors' fields (then `d`'s argument there may hold the type being
    /// checked). A question met again while it is being answered counts as yes.
    fn param_positive(&mut self, d: DataId, i: usize, span: Span, memo: &mut Memo) -> bool {
        if let Some(known) = memo.params.get(&(d, i)) {
            return *known;
        }
        memo.params.insert((d, i), true);
        let data = self.program.data(d).clone();
        let mut ok = i < data.params.len();
        'ctors: for ctor in &data.ctors {
            let mut cx = Cx::new(PRELUDE_UNIT);
            for b in &data.params {
                cx.push_hidden(b.name.clone(), b.ty.clone());
            }
            for f in &ctor.fields {
                if self
                    .strictly_positive(&mut cx, f, Target::Param(i as u32), span, memo)
                    .is_err()
                {
                    ok = false;
                    break 'ctors;
                }
                cx.push_hidden(name_of("_"), f.clone());
            }
        }
        memo.params.insert((d, i), ok);
        ok
    }
}
