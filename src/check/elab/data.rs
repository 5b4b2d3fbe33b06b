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
//!   (a type alias is seen through); an occurrence the check cannot see through (under
//!   an unevaluated definition of the same group, or as the argument of a type
//!   parameter) is rejected.

use super::order::Node;
use super::*;
use std::collections::HashMap;

/// What a positivity check looks for.
#[derive(Clone, Copy)]
enum Target<'g> {
    /// The data types (and definitions) of one group of mutually recursive
    /// declarations.
    Group(&'g [Node]),
    /// A data type's parameter: the variable at this level of the context.
    Param(u32),
}

impl Elab<'_> {
    /// Elaborates a group of mutually recursive data types (`members` is the whole group
    /// of declarations): their parameters and fields, their universe level, and the
    /// strict positivity of their occurrences in their fields.
    pub(in crate::check) fn data_group(
        &mut self,
        datas: &[(DataId, usize, &Decl<'_>)],
        members: &[(Node, usize, &Decl<'_>)],
    ) {
        // While the fields are checked, the group's types count as level 0: a field
        // whose type is one of them raises nothing the other fields do not.
        for (id, _, _) in datas {
            self.data_levels[id.0 as usize] = 0;
        }
        let mut level = 0;
        for (id, unit, decl) in datas {
            if let Decl::Data { params, ctors, .. } = decl {
                level = level.max(self.data_decl(*unit, *id, params, ctors));
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
        let mut memo = HashMap::new();
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
        memo: &mut HashMap<(DataId, usize), bool>,
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
        memo: &mut HashMap<(DataId, usize), bool>,
    ) -> Result<(), &'static str> {
        let mut pushed = 0;
        let mut ty = ty.clone();
        let result = loop {
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
            let mut args = Vec::new();
            let mut head = &t;
            while let Term::App(f, _, a) = &**head {
                args.push(a.clone());
                head = f;
            }
            args.reverse();
            let depth = cx.depth();
            let is_target = match (&**head, target) {
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
            let Term::Data(other) = &**head else {
                break Err("where the check cannot see that it is positive");
            };
            let mut outcome = Ok(());
            for (i, a) in args.iter().enumerate() {
                if !self.occurs(depth, a, target) {
                    continue;
                }
                if !self.param_positive(*other, i, span, memo) {
                    outcome = Err("as the argument of a data type that uses it negatively");
                    break;
                }
                if let Err(e) = self.strictly_positive(cx, a, target, span, memo) {
                    outcome = Err(e);
                    break;
                }
            }
            break outcome;
        };
        for _ in 0..pushed {
            cx.pop();
        }
        result
    }

    /// Whether parameter `i` of the data type `d` occurs strictly positively in its
    /// constructors' fields (then `d`'s argument there may hold the type being
    /// checked). A question met again while it is being answered counts as yes.
    fn param_positive(
        &mut self,
        d: DataId,
        i: usize,
        span: Span,
        memo: &mut HashMap<(DataId, usize), bool>,
    ) -> bool {
        if let Some(known) = memo.get(&(d, i)) {
            return *known;
        }
        memo.insert((d, i), true);
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
        memo.insert((d, i), ok);
        ok
    }
}
