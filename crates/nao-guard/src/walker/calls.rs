//! Calls that are not written as calls: PostgreSQL's attribute notation (`t.f`, `(x).f`),
//! Redshift SUPER navigation, user-defined operators and casts, and `current_setting` and
//! `getvariable`, whose verdict depends on their argument; and DuckDB's method calls where the
//! engine does not parse them. The walk's other checks are in the parent module.

use std::ops::ControlFlow;

use sqlparser::ast::{
    AccessExpr, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, JsonPath,
    JsonPathElem, Spanned,
};

use super::{Walker, position};
use crate::attributes::Resolved;
use crate::functions::{self, Catalogued};
use crate::rejection::Position;
use crate::{FunctionClass, RejectKind};

impl Walker<'_> {
    /// Whether `name`, used as an attribute, needs proof that it is a column: `None` when it is
    /// harmless either way (a side-effect-free built-in, or a function the policy allows),
    /// `Some(class)` when a call of it would be refused for `class`.
    fn attribute_call_class(&self, name: &Ident) -> Option<FunctionClass> {
        if reads_a_setting(name) {
            // Its argument decides (`check_setting_read`), and here the argument is a value the
            // guard cannot read: `('ssl_passphrase_command'::text).current_setting`.
            return Some(FunctionClass::Secrets);
        }
        let folded = || name.value.to_ascii_lowercase();
        if !self.policy.denied_functions.is_empty()
            && self.policy.function_denied_by_name(&folded())
        {
            return Some(FunctionClass::DeniedByPolicy);
        }
        match functions::classify_ident(self.dialect, name) {
            Catalogued::Denied(class) => Some(class),
            Catalogued::Allowed => None,
            Catalogued::Unknown
                if self.policy.allow_unknown_functions
                    || (!self.policy.allowed_functions.is_empty()
                        && self.policy.function_allowed_by_name(&[folded()])) =>
            {
                None
            }
            Catalogued::Unknown => Some(FunctionClass::Unknown),
        }
    }

    /// `q.name`, `s.t.name`: refused at once when `name` is a denied function, else resolved
    /// once the statement's FROM clauses are known.
    pub(super) fn check_qualified_attribute(&mut self, parts: &[Ident]) -> ControlFlow<()> {
        let [.., qualifier, name] = parts else {
            return ControlFlow::Continue(());
        };
        let at = parts.first().and_then(|i| position(i.span));
        match self.attribute_call_class(name) {
            None => ControlFlow::Continue(()),
            Some(FunctionClass::Unknown) => {
                self.attributes.qualified(parts, at);
                ControlFlow::Continue(())
            }
            Some(class) => {
                let written = join_idents(parts);
                let call = format!("{name}({qualifier}) when {qualifier} has no column {name}");
                self.reject(
                    RejectKind::ImplicitCall {
                        written,
                        call,
                        class,
                    },
                    at,
                )
            }
        }
    }

    /// `(expr).name` and longer chains: each name is a field of the value before it, or a call
    /// of that name on it.
    pub(super) fn check_field_access(
        &mut self,
        root: &Expr,
        chain: &[AccessExpr],
    ) -> ControlFlow<()> {
        for (i, access) in chain.iter().enumerate() {
            let AccessExpr::Dot(Expr::Identifier(name)) = access else {
                continue;
            };
            let at = position(name.span);
            match self.attribute_call_class(name) {
                None => {}
                Some(FunctionClass::Unknown) => {
                    // Only the first field can be proven, against the relation `root` names.
                    let value = if i == 0 { Some(root) } else { None };
                    self.attributes.field(value, name, at);
                }
                Some(class) => {
                    let written = format!("{root}.{name}");
                    self.reject_field_call(written, root, name, class, at)?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Redshift's navigation into SUPER values (`t.doc[1].name`) reads fields, but a key named
    /// like a denied function is refused as if it were attribute notation: nothing is lost by
    /// that, and the engine's reading of it is not worth betting on.
    pub(super) fn check_json_path(&mut self, value: &Expr, path: &JsonPath) -> ControlFlow<()> {
        for element in &path.path {
            let JsonPathElem::Dot { key, quoted } = element else {
                continue;
            };
            let name = match quoted {
                true => Ident::with_quote('"', key.as_str()),
                false => Ident::new(key.as_str()),
            };
            if let Some(class) = self.attribute_call_class(&name)
                && class != FunctionClass::Unknown
            {
                let written = format!("{value}{path}");
                self.reject_field_call(written, value, &name, class, position(value.span()))?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Refuses `written`, a field selection `name` on `value` that the engine would run as
    /// the call `name(value)`.
    fn reject_field_call(
        &mut self,
        written: String,
        value: &Expr,
        name: &Ident,
        class: FunctionClass,
        at: Option<Position>,
    ) -> ControlFlow<()> {
        let call = format!("{name}({value}) when the value has no field {name}");
        let kind = RejectKind::ImplicitCall {
            written,
            call,
            class,
        };
        self.reject(kind, at)
    }

    /// A user-defined operator or type: refused unless the policy allows it by name.
    pub(super) fn check_implicit(
        &mut self,
        expr: &Expr,
        name: &str,
        runs: &str,
    ) -> ControlFlow<()> {
        let folded = name.to_ascii_lowercase();
        if self.policy.allow_unknown_functions || self.policy.function_allowed_by_name(&[folded]) {
            return ControlFlow::Continue(());
        }
        let kind = RejectKind::ImplicitCall {
            written: expr.to_string(),
            call: format!("{runs} {name}"),
            class: FunctionClass::Unknown,
        };
        self.reject(kind, position(expr.span()))
    }

    /// Resolves the attribute references collected during the walk.
    pub(super) fn resolve_attributes(&mut self) {
        for resolved in self.attributes.resolve() {
            match resolved {
                Resolved::Column => {}
                Resolved::Report(reference) => {
                    if !self.attribute_refs.contains(&reference) {
                        self.attribute_refs.push(reference);
                    }
                }
                Resolved::Call { written, call, at } => {
                    let class = FunctionClass::Unknown;
                    let kind = RejectKind::ImplicitCall {
                        written,
                        call,
                        class,
                    };
                    if self.reject(kind, at).is_break() {
                        return;
                    }
                }
            }
        }
    }

    /// `current_setting('name')` reads a setting, DuckDB's `getvariable('name')` a variable:
    /// refused when the name is one where deployments keep secrets, paths or host facts (the
    /// rules of `SHOW name`), or when the name is computed.
    pub(super) fn check_setting_read(
        &mut self,
        function: &sqlparser::ast::Function,
    ) -> ControlFlow<()> {
        let is_setting_read = matches!(function.name.0.as_slice(), [.., last]
            if last.as_ident().is_some_and(reads_a_setting));
        if !is_setting_read {
            return ControlFlow::Continue(());
        }
        let at = position(function.name.span());
        let written = function.to_string();
        let name = match &function.args {
            FunctionArguments::List(list) => match list.args.first() {
                Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(value)))) => {
                    value.value.clone().into_string()
                }
                _ => None,
            },
            _ => None,
        };
        let Some(name) = name else {
            let kind = RejectKind::Function {
                name: written,
                class: FunctionClass::Secrets,
            };
            return self.reject(kind, at);
        };
        match crate::sensitive::refused_setting(self.policy, &name) {
            Some(entry) => self.reject(
                RejectKind::Sensitive {
                    name: written,
                    entry,
                },
                at,
            ),
            None => ControlFlow::Continue(()),
        }
    }
}

impl Walker<'_> {
    /// A DuckDB method call (`x.f()`) on a receiver DuckDB does not parse one after
    /// ([`SqlDialect::restricts_method_call_receivers`](crate::SqlDialect)): refused as the
    /// syntax error the engine would report, with the two forms that do parse, rather than
    /// approved and sent to fail there, with or without a row cap.
    pub(super) fn check_method_receiver(
        &mut self,
        root: &Expr,
        chain: &[AccessExpr],
    ) -> ControlFlow<()> {
        let Some(first_call) = chain
            .iter()
            .position(|a| matches!(a, AccessExpr::Dot(Expr::Function(_))))
        else {
            return ControlFlow::Continue(());
        };
        let before = &chain[..first_call];
        if let Some(qualified) = qualified_head_call(root, before, &chain[first_call]) {
            // DuckDB reads `x.f()` at the head of a chain (`x.f().g()`) as the function `f` of a
            // schema `x` when there is one, as it reads `x.f()` alone: judged as that name.
            self.check_function(&qualified)?;
        }
        let subscripted = before.iter().any(|a| matches!(a, AccessExpr::Subscript(_)));
        let receives = match root {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => !subscripted,
            Expr::Function(f) => !super::is_columns_expression(&f.name),
            Expr::Nested(_)
            | Expr::Cast { .. }
            | Expr::Case { .. }
            | Expr::Array(_)
            | Expr::Dictionary(_)
            | Expr::Map(_) => true,
            Expr::Value(v) => matches!(v.value, sqlparser::ast::Value::Placeholder(_)),
            _ => false,
        };
        if receives {
            return ControlFlow::Continue(());
        }
        let AccessExpr::Dot(Expr::Function(call)) = &chain[first_call] else {
            return ControlFlow::Continue(());
        };
        let receiver = CompoundFieldAccessText(root, before);
        let message = format!(
            "DuckDB does not parse the method call .{name}() after {receiver}; write \
             {name}({receiver}) or put the value in parentheses: ({receiver}).{name}()",
            name = call.name,
        );
        self.reject(RejectKind::Parse { message }, position(root.span()))
    }
}

/// The qualified name `x.f` (`s.x.f`) of a chain that starts with names and a call
/// (`x.f().g()`), which sqlparser splits into the column `x` and the method `f`.
fn qualified_head_call(
    root: &Expr,
    before: &[AccessExpr],
    call: &AccessExpr,
) -> Option<sqlparser::ast::ObjectName> {
    let AccessExpr::Dot(Expr::Function(call)) = call else {
        return None;
    };
    let mut parts: Vec<Ident> = match root {
        Expr::Identifier(ident) => vec![ident.clone()],
        Expr::CompoundIdentifier(idents) => idents.clone(),
        _ => return None,
    };
    for access in before {
        let AccessExpr::Dot(Expr::Identifier(ident)) = access else {
            return None;
        };
        parts.push(ident.clone());
    }
    let name = call.name.0.last()?.as_ident()?.clone();
    parts.push(name);
    Some(sqlparser::ast::ObjectName::from(parts))
}

/// `root` followed by the accesses `chain`, printed as sqlparser prints them.
struct CompoundFieldAccessText<'a>(&'a Expr, &'a [AccessExpr]);

impl std::fmt::Display for CompoundFieldAccessText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        for access in self.1 {
            match access {
                AccessExpr::Dot(expr) => write!(f, ".{expr}")?,
                AccessExpr::Subscript(subscript) => write!(f, "[{subscript}]")?,
            }
        }
        Ok(())
    }
}

fn join_idents(parts: &[Ident]) -> String {
    parts
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(".")
}

/// `current_setting` and `getvariable`: built-ins whose verdict depends on their argument (the
/// setting or variable they read).
fn reads_a_setting(name: &Ident) -> bool {
    ["current_setting", "getvariable"]
        .iter()
        .any(|f| name.value.eq_ignore_ascii_case(f))
}
