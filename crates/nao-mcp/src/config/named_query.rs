//! Named queries: SQL an operator wrote, with typed parameters, served as a tool of its own.
//!
//! ```toml
//! [tools.orders_by_status]
//! description = "Orders with a given status, newest first."
//! database = "shop"
//! sql = "SELECT id, status, total FROM orders WHERE status = :status ORDER BY id DESC LIMIT :n"
//! parameters.status = { type = "string", description = "pending, shipped, delivered or cancelled" }
//! parameters.n = { type = "integer", description = "How many orders.", default = 20 }
//! ```
//!
//! The model sees a tool `orders_by_status` whose JSON Schema lists `status` (required) and `n`
//! (optional, default 20); a call writes the values into the SQL as literals and runs it as
//! `execute_sql` would: the guard, the policy and the row cap apply, the result is stored under
//! a query id and shown as Markdown.
//!
//! Why the literals are safe, the model's values being untrusted: numbers and booleans are
//! written from typed values (a negative number parenthesized, so `1-:n` cannot become the
//! comment `1--1`), never from the model's text; strings by
//! [`SqlDialect::quote_string_literal`](nao_core::guard::SqlDialect::quote_string_literal),
//! which knows each engine's escapes; each string literal must parse back alone as exactly the
//! value; and the whole statement, parsed again, must equal the template's parse with each
//! placeholder replaced by its literal, so a value that ended its literal early or opened a
//! comment is refused before anything runs.
//!
//! The tool lives in nao-mcp, beside the config file that declares it; a library user who wants
//! one implements [`nao_core::Tool`] with [`Tool::args_schema`] the same way.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use nao_core::tools::{ExecuteSql, ExecuteSqlArgs, ExecuteSqlOutput};
use nao_core::{Dialect, Tool, ToolContext, ToolError};
use serde_json::{Map, Value, json};

use super::template::{Literal, Template};

/// The type of a named query's parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParameterType {
    /// Text, written as a string literal of the database's dialect.
    String,
    /// A whole number (64-bit).
    Integer,
    /// A finite number.
    Number,
    /// `true` or `false`.
    Boolean,
}

impl ParameterType {
    /// The JSON Schema type name (`"string"`, `"integer"`, `"number"`, `"boolean"`).
    pub fn json_type(self) -> &'static str {
        match self {
            ParameterType::String => "string",
            ParameterType::Integer => "integer",
            ParameterType::Number => "number",
            ParameterType::Boolean => "boolean",
        }
    }

    /// A JSON value of this type as a literal, or why it is not one.
    fn literal(self, value: &Value) -> Result<Literal, String> {
        let literal = match (self, value) {
            (ParameterType::String, Value::String(s)) => Literal::String(s.clone()),
            (ParameterType::Integer, Value::Number(n)) => Literal::Integer(
                n.as_i64()
                    .ok_or("must be a whole number between -2^63 and 2^63-1")?,
            ),
            (ParameterType::Number, Value::Number(n)) => match n.as_i64() {
                Some(i) => Literal::Integer(i),
                None => Literal::Number(
                    n.as_f64()
                        .filter(|x| x.is_finite())
                        .ok_or("must be a finite number")?,
                ),
            },
            (ParameterType::Boolean, Value::Bool(b)) => Literal::Boolean(*b),
            _ => return Err(format!("must be {}", self.a())),
        };
        Ok(literal)
    }

    /// The type with its article, for messages.
    fn a(self) -> &'static str {
        match self {
            ParameterType::String => "a string",
            ParameterType::Integer => "an integer",
            ParameterType::Number => "a number",
            ParameterType::Boolean => "a boolean",
        }
    }
}

impl fmt::Display for ParameterType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.json_type())
    }
}

/// One parameter of a named query.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ParameterSpec {
    /// Its name: `:name` in the SQL, the property in the tool's arguments.
    pub name: String,
    /// Its type.
    pub kind: ParameterType,
    /// What it means, for the model.
    pub description: String,
    /// The value used when the model leaves it out.
    pub default: Option<Value>,
    /// Whether the model must give it. A parameter that is neither required nor has a default
    /// is `NULL` when left out (`WHERE (:region IS NULL OR region = :region)`).
    pub required: bool,
}

impl ParameterSpec {
    /// A parameter; required unless [`ParameterSpec::with_default`] or
    /// [`ParameterSpec::optional`] says otherwise.
    pub fn new(
        name: impl Into<String>,
        kind: ParameterType,
        description: impl Into<String>,
    ) -> Self {
        ParameterSpec {
            name: name.into(),
            kind,
            description: description.into(),
            default: None,
            required: true,
        }
    }

    /// The value used when the model leaves the parameter out (making it optional).
    #[must_use]
    pub fn with_default(mut self, default: Value) -> Self {
        self.default = Some(default);
        self.required = false;
        self
    }

    /// Makes the parameter optional: `NULL` when left out.
    #[must_use]
    pub fn optional(mut self) -> Self {
        self.required = false;
        self
    }
}

/// A named query as the config file declares it, before it is checked against its database.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct NamedQuerySpec {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The database it runs on; `None` when only one is served.
    pub database: Option<String>,
    /// The SQL, with `:name` placeholders.
    pub sql: String,
    /// The parameters, in the order declared.
    pub parameters: Vec<ParameterSpec>,
}

impl NamedQuerySpec {
    /// A named query without parameters (add them with [`NamedQuerySpec::with_parameter`]).
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        sql: impl Into<String>,
    ) -> Self {
        NamedQuerySpec {
            name: name.into(),
            description: description.into(),
            database: None,
            sql: sql.into(),
            parameters: Vec::new(),
        }
    }

    /// The database it runs on.
    #[must_use]
    pub fn on_database(mut self, database: impl Into<String>) -> Self {
        self.database = Some(database.into());
        self
    }

    /// Adds a parameter.
    #[must_use]
    pub fn with_parameter(mut self, parameter: ParameterSpec) -> Self {
        self.parameters.push(parameter);
        self
    }
}

/// Why a named query cannot be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedQueryError {
    /// The tool's name.
    pub tool: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for NamedQueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "named query {:?}: {}", self.tool, self.message)
    }
}

impl std::error::Error for NamedQueryError {}

/// A named query served as a tool: a checked template on one database.
#[derive(Debug, Clone)]
pub struct NamedQuery {
    spec: Arc<NamedQuerySpec>,
    database: String,
    template: Arc<Template>,
    description: String,
    schema: Value,
}

impl NamedQuery {
    /// Checks `spec` against `database` (the database it names, as the tools will see it:
    /// governed by the host's policy): its SQL parses in the database's dialect as one
    /// statement, every placeholder is a declared parameter and every parameter is used, each
    /// default has its parameter's type, and the guard and the policy accept the query with
    /// sample values.
    pub fn new(
        spec: NamedQuerySpec,
        database: &dyn Dialect,
    ) -> Result<NamedQuery, NamedQueryError> {
        let error = |message: String| NamedQueryError {
            tool: spec.name.clone(),
            message,
        };
        let dialect = database.sql_dialect();
        let template =
            Template::parse(&spec.sql, dialect).map_err(|why| error(format!("its sql {why}")))?;
        let declared: Vec<&str> = spec.parameters.iter().map(|p| p.name.as_str()).collect();
        if let Some(undeclared) = template.names().into_iter().find(|n| !declared.contains(n)) {
            return Err(error(format!(
                "its sql uses :{undeclared}, which is not among its parameters; declare it \
                 under [tools.{}.parameters]",
                spec.name
            )));
        }
        let used = template.names();
        if let Some(unused) = declared.iter().find(|n| !used.contains(n)) {
            return Err(error(format!(
                "the parameter {unused} is declared but its sql never uses :{unused}"
            )));
        }
        let mut sample = BTreeMap::new();
        for parameter in &spec.parameters {
            let value = match &parameter.default {
                Some(default) => parameter
                    .kind
                    .literal(default)
                    .map_err(|why| error(format!("the default of {}: {why}", parameter.name)))?,
                None => match parameter.kind {
                    ParameterType::String => Literal::String("sample".into()),
                    ParameterType::Integer => Literal::Integer(1),
                    ParameterType::Number => Literal::Number(1.5),
                    ParameterType::Boolean => Literal::Boolean(true),
                },
            };
            sample.insert(parameter.name.clone(), value);
        }
        let sql = template
            .render(&sample)
            .map_err(|why| error(format!("its sql with sample values: {why}")))?;
        database.prepare(&sql, None).map_err(|rejection| {
            error(format!(
                "its sql is refused by the guard or the policy: {rejection}"
            ))
        })?;
        let description = format!(
            "{}\n\nRuns a fixed, read-only query on the database {:?} with the parameters \
             given; the result is stored like execute_sql's (page it with read_query_result).",
            spec.description.trim_end(),
            database.name()
        );
        let schema = schema(&spec.parameters);
        Ok(NamedQuery {
            database: database.name().to_owned(),
            spec: Arc::new(spec),
            template: Arc::new(template),
            description,
            schema,
        })
    }

    /// The spec it was made from.
    pub fn spec(&self) -> &NamedQuerySpec {
        &self.spec
    }

    /// The SQL for these arguments (already validated against the schema), checked.
    fn sql(&self, args: &Map<String, Value>) -> Result<String, ToolError> {
        let invalid = |message: String| ToolError::InvalidArguments {
            tool: self.spec.name.clone(),
            message,
        };
        let mut values = BTreeMap::new();
        for parameter in &self.spec.parameters {
            let value = match args.get(&parameter.name).or(parameter.default.as_ref()) {
                Some(value) => parameter
                    .kind
                    .literal(value)
                    .map_err(|why| invalid(format!("{}: {why}", parameter.name)))?,
                None if parameter.required => {
                    return Err(invalid(format!("{} is required", parameter.name)));
                }
                None => Literal::Null,
            };
            values.insert(parameter.name.clone(), value);
        }
        if let Some(unknown) = args.keys().find(|k| !values.contains_key(*k)) {
            return Err(invalid(format!("there is no parameter {unknown:?}")));
        }
        self.template.render(&values).map_err(invalid)
    }
}

/// The JSON Schema of the parameters.
fn schema(parameters: &[ParameterSpec]) -> Value {
    let mut properties = Map::new();
    for parameter in parameters {
        let mut property = json!({
            "type": parameter.kind.json_type(),
            "description": parameter.description,
        });
        if let (Some(default), Some(object)) = (&parameter.default, property.as_object_mut()) {
            object.insert("default".into(), default.clone());
        }
        properties.insert(parameter.name.clone(), property);
    }
    let required: Vec<&str> = parameters
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name.as_str())
        .collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

#[async_trait]
impl Tool for NamedQuery {
    type Args = Map<String, Value>;
    type Output = ExecuteSqlOutput;

    fn name(&self) -> &str {
        &self.spec.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn args_schema(&self) -> Option<Value> {
        Some(self.schema.clone())
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ExecuteSqlOutput, ToolError> {
        let sql = self.sql(&args)?;
        let args = ExecuteSqlArgs {
            sql_query: sql,
            database_id: Some(self.database.clone()),
        };
        ExecuteSql
            .call(args, ctx)
            .await
            .map_err(|error| match error {
                // The model cannot rewrite this SQL: say so instead of the guard's usual advice.
                ToolError::Rejected(rejection) => ToolError::Failed {
                    message: format!(
                        "the query of {} was refused with these values: {rejection}. Its SQL is \
                     fixed: try other values, or another tool.",
                        self.spec.name
                    ),
                },
                other => other,
            })
    }

    fn render(&self, output: &ExecuteSqlOutput) -> String {
        ExecuteSql.render(output)
    }

    fn row_count(&self, output: &ExecuteSqlOutput) -> Option<u64> {
        Some(output.row_count)
    }
}
