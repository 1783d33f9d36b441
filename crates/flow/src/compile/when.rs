//! Type-checking `when` conditions.

use std::collections::BTreeSet;

use browserflow_contract::JsonType;

use super::typing::{describe_set, type_set, value_type};
use super::{Compiler, Site};
use crate::condition::{Condition, Expr};
use crate::diagnostic::Code;

/// The types an operand may have; `None` for any (or unknown).
type Types = Option<BTreeSet<JsonType>>;

impl Compiler<'_> {
    pub(super) fn check_condition(&mut self, condition: &Condition, site: &Site) {
        // Problems are reported as they are found; the result only stops cascades.
        let _reported = self.need_bool(condition.expr(), site);
    }

    /// Types `expr`; `Err(())` once something is reported.
    fn types(&mut self, expr: &Expr, site: &Site) -> Result<Types, ()> {
        match expr {
            Expr::Literal(v) => Ok(Some([fold(value_type(v))].into())),
            Expr::Ref(r) => match self.type_of(r) {
                Err((code, message)) => {
                    self.out.push(site.diag(code, message));
                    Err(())
                }
                Ok(None) => Ok(None),
                Ok(Some(t)) => {
                    if let Some(carrier) = &t.secret {
                        self.out.push(site.diag(
                            Code::SecretLeak,
                            format!("a condition cannot read `{carrier}`, which carries a secret: whether the step runs would reveal it"),
                        ));
                        return Err(());
                    }
                    Ok(type_set(&t.with_skip()))
                }
            },
            Expr::Not(e) => {
                self.need_bool(e, site)?;
                Ok(Some([JsonType::Boolean].into()))
            }
            Expr::And(a, b) | Expr::Or(a, b) => {
                let left = self.need_bool(a, site);
                let right = self.need_bool(b, site);
                left.and(right)?;
                Ok(Some([JsonType::Boolean].into()))
            }
            Expr::Compare(op, a, b) => {
                let (left, right) = (self.types(a, site), self.types(b, site));
                let (Some(left), Some(right)) = (left?, right?) else {
                    return Ok(Some([JsonType::Boolean].into()));
                };
                let clash = |why: &str| {
                    format!(
                        "`{expr}` compares {} with {}{why}",
                        describe_set(&Some(left.clone())),
                        describe_set(&Some(right.clone()))
                    )
                };
                if op.is_ordering() {
                    let strip = |s: &BTreeSet<JsonType>| -> BTreeSet<JsonType> {
                        s.iter().copied().filter(|t| *t != JsonType::Null).collect()
                    };
                    let (l, r) = (strip(&left), strip(&right));
                    let numbers: BTreeSet<JsonType> = [JsonType::Number].into();
                    let strings: BTreeSet<JsonType> = [JsonType::String].into();
                    if !((l == numbers && r == numbers) || (l == strings && r == strings)) {
                        self.out.push(site.diag(
                            Code::TypeMismatch,
                            clash(&format!(
                                ": `{}` orders two numbers or two strings",
                                op.as_str()
                            )),
                        ));
                        return Err(());
                    }
                } else if left.is_disjoint(&right) {
                    self.out
                        .push(site.diag(Code::TypeMismatch, clash(": they can never be equal")));
                    return Err(());
                }
                Ok(Some([JsonType::Boolean].into()))
            }
        }
    }

    /// Checks that `expr` is a boolean (or `null`, which counts as false).
    fn need_bool(&mut self, expr: &Expr, site: &Site) -> Result<(), ()> {
        let types = self.types(expr, site)?;
        let Some(set) = types else { return Ok(()) };
        if set
            .iter()
            .any(|t| !matches!(t, JsonType::Boolean | JsonType::Null))
            || !set.contains(&JsonType::Boolean)
        {
            self.out.push(site.diag(
                Code::TypeMismatch,
                format!(
                    "`{expr}` is {}, but a condition needs a boolean here (compare it, as in `{expr} == …`)",
                    describe_set(&Some(set))
                ),
            ));
            return Err(());
        }
        Ok(())
    }
}

fn fold(t: JsonType) -> JsonType {
    if t == JsonType::Integer {
        JsonType::Number
    } else {
        t
    }
}
