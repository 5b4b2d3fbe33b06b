//! Records (issue 29): values `{ f = e }`, updates `{ r | f = e }`, fields `r.f`.
//!
//! A record is a data type of one constructor whose fields have names
//! ([`CtorDecl::field_names`]); a later field's type may name an earlier field (a
//! dependent record is a Σ type). A field is read by a one-arm match whose type is the
//! field's type with the record's parameters and the earlier fields (read the same way)
//! put in; a value is its constructor applied to the fields in declaration order,
//! whatever order the source gives them in.

use super::*;
use crate::check::patterns::subst_params;
use crate::core::term::{CaseArm, spine};

/// A record type met in checking: the data type and its arguments.
pub(in crate::check) struct RecordType {
    /// The record's data type.
    pub(in crate::check) data: DataId,
    /// The arguments of its parameters, in the scope where the type was met.
    pub(in crate::check) args: Vec<RcTerm>,
}

impl Elab<'_> {
    /// The record type `ty` is, after evaluation.
    pub(in crate::check) fn record_type(
        &mut self,
        cx: &Cx<'_>,
        ty: &RcTerm,
        span: Span,
    ) -> Option<RecordType> {
        let want = self.whnf(cx, ty, span);
        let (head, args) = spine(&want);
        match &**head {
            Term::Data(d) if self.program.data(*d).record => Some(RecordType {
                data: *d,
                args: args.into_iter().map(|(_, a)| a.clone()).collect(),
            }),
            _ => None,
        }
    }

    /// The field names of record `d`.
    pub(in crate::check) fn record_fields(&self, d: DataId) -> Vec<Name> {
        self.program.data(d).ctors[0].field_names.clone()
    }

    /// The records (and interfaces) whose fields include every one of `names` (exactly
    /// those, with `exact`).
    pub(in crate::check) fn records_with(&self, names: &[&str], exact: bool) -> Vec<DataId> {
        let candidates: Vec<DataId> = match names.first() {
            Some(first) => self
                .records_by_field
                .get(*first)
                .cloned()
                .unwrap_or_default(),
            // A record without fields: any record without fields.
            None => (0..self.program.datas.len())
                .map(|i| DataId(i as u32))
                .collect(),
        };
        candidates
            .into_iter()
            .filter(|d| {
                let data = self.program.data(*d);
                if !data.record || data.interface {
                    return false;
                }
                let fields = &data.ctors[0].field_names;
                names.iter().all(|n| fields.iter().any(|f| &**f == *n))
                    && (!exact || fields.len() == names.len())
            })
            .collect()
    }

    /// "several records have these fields: `A`, `B`", for a record that cannot be told.
    pub(in crate::check) fn several_records(&self, found: &[DataId]) -> String {
        let names: Vec<String> = found
            .iter()
            .map(|d| format!("`{}`", self.program.data(*d).name))
            .collect();
        format!("several records have these fields: {}", names.join(", "))
    }

    /// Field `i` of `r : d args`: the term that reads it and its type.
    fn project(&self, rec: &RecordType, r: &RcTerm, i: usize, span: Span) -> (RcTerm, RcTerm) {
        let con = ConId {
            data: rec.data,
            index: 0,
        };
        let ctor = self.program.con(con);
        let n = ctor.fields.len();
        let binders: Vec<Binder> = ctor
            .fields
            .iter()
            .enumerate()
            .map(|(j, f)| Binder {
                name: ctor.field_names[j].clone(),
                plicity: Plicity::Explicit,
                ty: subst_params(f, j as u32, &rec.args),
            })
            .collect();
        let term = Term::Match(Box::new(Match {
            scrut: r.clone(),
            arms: vec![CaseArm {
                pat: CasePat::Con(con, binders),
                body: Term::Var(Ix((n - 1 - i) as u32)).rc(),
            }],
            default: None,
            span,
        }))
        .rc();
        let mut outer: Vec<RcTerm> = rec.args.clone();
        for j in 0..i {
            outer.push(self.project(rec, r, j, span).0);
        }
        let ty = crate::core::subst::instantiate(&ctor.fields[i], &outer);
        (term, ty)
    }

    /// `e.field`.
    pub(in crate::check) fn infer_field<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        expr: &'s Expr<'s>,
        field: crate::syntax::ast::Ident<'s>,
        span: Span,
    ) -> (RcTerm, RcTerm) {
        let (r, ty) = self.infer_value(cx, expr);
        // A record whose type is not known yet (a lambda's parameter): the one record
        // with this field, if there is one.
        let now = self.whnf(cx, &ty, expr.span);
        if self.is_unsolved_meta(&now)
            && let [d] = self.records_with(&[field.name], false).as_slice()
        {
            let con = ConId { data: *d, index: 0 };
            let (t, _) =
                self.insert_implicits(cx, Term::Con(con).rc(), self.program.con_type(con), span);
            let params = spine(&t).1.into_iter().map(|(_, a)| a.clone());
            let rec_ty = Term::apps(Term::Data(*d).rc(), params);
            self.expect(cx, expr.span, &ty, &rec_ty);
        }
        let Some(rec) = self.record_type(cx, &ty, expr.span) else {
            if !self.is_recovery(&ty) {
                let shown = self.show(cx, &ty);
                let msg = if self.is_unsolved_meta(&ty) {
                    format!(
                        "cannot read the field `{}`: the type of this is not known here",
                        field.name
                    )
                } else {
                    format!(
                        "`{shown}` is not a record, so it has no field `{}`",
                        field.name
                    )
                };
                let d = Diagnostic::error(msg)
                    .at(field.span, "this field")
                    .also(expr.span, format!("this has type `{shown}`"));
                let d = if self.is_unsolved_meta(&ty) {
                    d.note("help: annotate the record's type")
                } else {
                    d
                };
                self.errors.push(d);
            }
            let t = self.recovery_type(cx, span);
            return (t, self.recovery_type(cx, span));
        };
        let names = self.record_fields(rec.data);
        let Some(i) = names.iter().position(|n| &**n == field.name) else {
            let record = self.program.data(rec.data).name.clone();
            let mut d = Diagnostic::error(format!(
                "the record `{record}` has no field `{}`",
                field.name
            ))
            .at(field.span, "no such field")
            .note(format!("its fields: {}", join_names(&names)));
            if let Some(s) = crate::check::scope::suggest(field.name, names.iter().map(|n| &**n)) {
                d = d.note(format!("help: did you mean `{s}`?"));
            }
            self.errors.push(d);
            let t = self.recovery_type(cx, span);
            return (t, self.recovery_type(cx, span));
        };
        self.project(&rec, &r, i, field.span)
    }

    /// Matches the fields written in a record value (or update) with the record's:
    /// reports unknown and repeated ones; returns, per declared field, the value given.
    fn field_inits<'s>(
        &mut self,
        d: DataId,
        inits: &'s [FieldInit<'s>],
    ) -> Option<Vec<Option<&'s FieldInit<'s>>>> {
        let names = self.record_fields(d);
        let record = self.program.data(d).name.clone();
        let mut out: Vec<Option<&'s FieldInit<'s>>> = vec![None; names.len()];
        let mut ok = true;
        for f in inits {
            match names.iter().position(|n| &**n == f.name.name) {
                Some(i) => {
                    if let Some(first) = out[i] {
                        self.errors.push(
                            Diagnostic::error(format!(
                                "the field `{}` is given twice",
                                f.name.name
                            ))
                            .at(f.name.span, "given again here")
                            .also(first.name.span, "first given here"),
                        );
                        ok = false;
                    } else {
                        out[i] = Some(f);
                    }
                }
                None => {
                    let (kind, what) = if self.program.data(d).interface {
                        ("interface", "method")
                    } else {
                        ("record", "field")
                    };
                    let mut d = Diagnostic::error(format!(
                        "the {kind} `{record}` has no {what} `{}`",
                        f.name.name
                    ))
                    .at(f.name.span, format!("no such {what}"))
                    .note(format!("its fields: {}", join_names(&names)));
                    if let Some(s) =
                        crate::check::scope::suggest(f.name.name, names.iter().map(|n| &**n))
                    {
                        d = d.note(format!("help: did you mean `{s}`?"));
                    }
                    self.errors.push(d);
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    /// `{ f = e, ... }` against `ty` (or inferred when `ty` is `None`: then the record
    /// is the one whose fields are exactly those written).
    pub(in crate::check) fn record_value<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        inits: &'s [FieldInit<'s>],
        ty: Option<&RcTerm>,
        span: Span,
    ) -> (RcTerm, RcTerm) {
        let known = match ty {
            Some(ty) => self.record_type(cx, ty, span).map(|r| r.data),
            None => None,
        };
        let d = match known {
            Some(d) => d,
            None => {
                let names: Vec<&str> = inits.iter().map(|f| f.name.name).collect();
                let found = self.records_with(&names, true);
                match found.as_slice() {
                    [d] => *d,
                    _ => {
                        let what = if found.is_empty() {
                            "no record has exactly these fields".to_string()
                        } else {
                            self.several_records(&found)
                        };
                        let mut d =
                            Diagnostic::error("cannot tell which record this is").at(span, what);
                        if let Some(ty) = ty
                            && !self.is_recovery(ty)
                            && !self.is_unsolved_meta(ty)
                        {
                            let shown = self.show(cx, ty);
                            d = d.note(format!("expected: {shown}"));
                        }
                        self.errors.push(
                            d.note("help: annotate it, as in `({ name = \"S1\" } : Sample)`"),
                        );
                        for f in inits {
                            self.infer(cx, f.value);
                        }
                        let t = self.recovery_type(cx, span);
                        return (t, self.recovery_type(cx, span));
                    }
                }
            }
        };
        let con = ConId { data: d, index: 0 };
        let (mut t, mut fty) =
            self.insert_implicits(cx, Term::Con(con).rc(), self.program.con_type(con), span);
        // The parameters are the unknowns just applied: the record's type is known
        // before its fields are checked, so the expected type guides them.
        let params: Vec<RcTerm> = spine(&t).1.into_iter().map(|(_, a)| a.clone()).collect();
        let result = Term::apps(Term::Data(d).rc(), params);
        if let Some(ty) = ty {
            self.expect_subtype(cx, span, &result, ty);
        }
        let Some(given) = self.field_inits(d, inits) else {
            for f in inits {
                self.infer(cx, f.value);
            }
            return (self.recovery_type(cx, span), result);
        };
        let names = self.record_fields(d);
        let missing: Vec<String> = names
            .iter()
            .zip(&given)
            .filter(|(_, g)| g.is_none())
            .map(|(n, _)| format!("`{n}`"))
            .collect();
        if !missing.is_empty() {
            let record = self.program.data(d).name.clone();
            let what = if self.program.data(d).interface {
                "every method needs a definition"
            } else {
                "every field needs a value"
            };
            self.errors.push(
                Diagnostic::error(format!("this `{record}` lacks {}", missing.join(", ")))
                    .at(span, what),
            );
            for f in inits {
                self.infer(cx, f.value);
            }
            return (self.recovery_type(cx, span), result);
        }
        for g in given.into_iter().flatten() {
            let want = self.whnf(cx, &fty, span);
            let Term::Pi(b, cod) = &*want else { break };
            let v = self.check(cx, g.value, &b.ty);
            fty = subst_top(cod, &v);
            t = Term::App(t, Plicity::Explicit, v).rc();
        }
        (t, result)
    }

    /// `{ r | f = e, ... }`: a match on `r` that rebuilds it with the fields replaced.
    pub(in crate::check) fn record_update<'s>(
        &mut self,
        cx: &mut Cx<'s>,
        expr: &'s Expr<'s>,
        inits: &'s [FieldInit<'s>],
        span: Span,
    ) -> (RcTerm, RcTerm) {
        let (r, ty) = self.infer_value(cx, expr);
        let Some(rec) = self.record_type(cx, &ty, expr.span) else {
            if !self.is_recovery(&ty) {
                let shown = self.show(cx, &ty);
                self.errors.push(
                    Diagnostic::error(format!("only a record can be updated; this is a `{shown}`"))
                        .at(expr.span, "not a record"),
                );
            }
            for f in inits {
                self.infer(cx, f.value);
            }
            let t = self.recovery_type(cx, span);
            return (t, self.recovery_type(cx, span));
        };
        let Some(given) = self.field_inits(rec.data, inits) else {
            for f in inits {
                self.infer(cx, f.value);
            }
            return (self.recovery_type(cx, span), ty);
        };
        let con = ConId {
            data: rec.data,
            index: 0,
        };
        let fields = self.program.con(con).fields.clone();
        let names = self.record_fields(rec.data);
        let n = fields.len();
        // A field that a later field's type names cannot change alone.
        for (j, g) in given.iter().enumerate() {
            if let Some(g) = g
                && let Some(k) = (j + 1..n).find(|k| has_free_var(&fields[*k], (*k - 1 - j) as u32))
            {
                self.errors.push(
                    Diagnostic::error(format!(
                        "the field `{}` cannot be updated alone: the type of `{}` depends on it",
                        names[j], names[k]
                    ))
                    .at(g.name.span, "updated here")
                    .note("help: build a new record with `{ ... }`"),
                );
                return (self.recovery_type(cx, span), ty);
            }
        }
        let binders: Vec<Binder> = fields
            .iter()
            .enumerate()
            .map(|(j, f)| Binder {
                name: names[j].clone(),
                plicity: Plicity::Explicit,
                ty: subst_params(f, j as u32, &rec.args),
            })
            .collect();
        for b in &binders {
            cx.push_hidden(b.name.clone(), b.ty.clone());
        }
        let k = n as u32;
        let mut built = rec.args.iter().fold(Term::Con(con).rc(), |f, p| {
            Term::App(f, Plicity::Implicit, shift(p, k)).rc()
        });
        for (j, g) in given.iter().enumerate() {
            let v = match g {
                Some(g) => {
                    // The earlier fields it may name are unchanged: read from `r`.
                    let (_, field_ty) = self.project(&rec, &r, j, span);
                    let want = shift(&field_ty, k);
                    self.check(cx, g.value, &want)
                }
                None => Term::Var(Ix(k - 1 - j as u32)).rc(),
            };
            built = Term::App(built, Plicity::Explicit, v).rc();
        }
        for _ in 0..n {
            cx.pop();
        }
        let term = Term::Match(Box::new(Match {
            scrut: r,
            arms: vec![CaseArm {
                pat: CasePat::Con(con, binders),
                body: built,
            }],
            default: None,
            span,
        }))
        .rc();
        (term, ty)
    }
}

/// `a`, `b`, `c` for a message.
fn join_names(names: &[Name]) -> String {
    if names.is_empty() {
        return "none".to_string();
    }
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
