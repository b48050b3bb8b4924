//! The facts the second reading compares, gathered from PostgreSQL's whole parse tree.
//!
//! pg_query's own helpers (`tables()`, `functions()`) follow only some fields of some nodes:
//! they skip `VALUES` lists, `LIMIT`, `FILTER`, `OVER`, window clauses, array subscripts and
//! more, so a call hidden there would go unseen. The tree's protobuf types all derive
//! `serde::Serialize`, which visits every field of every node; the [`Collector`] is a
//! serializer that writes nothing and notes what the comparison needs on the way: each
//! statement node, `INTO` and locking clauses, relations, CTE names and function calls.

use std::fmt;

use serde::Serialize;
use serde::ser::{self, Impossible};

/// pg_query's `CoercionForm::CoerceSqlSyntax`: a call the grammar made of SQL syntax
/// (`EXTRACT(… FROM …)`, `x AT TIME ZONE z`, `TRIM(…)`), of a fixed `pg_catalog` function.
const COERCE_SQL_SYNTAX: i32 = 4;

/// Calls the grammar makes of operators, with the `COERCE_EXPLICIT_CALL` form of a written
/// call: `LIKE … ESCAPE` and `SIMILAR TO` call these `pg_catalog` functions.
const OPERATOR_CALLS: &[&str] = &["like_escape", "similar_to_escape"];

/// What PostgreSQL's parser read in a text.
#[derive(Debug, Default)]
pub(crate) struct PostgresReading {
    /// The statements' node types, in order (`SelectStmt`, `ExplainStmt`, …).
    pub(crate) statements: Vec<&'static str>,
    /// Statement nodes inside the statements (a subquery is a `SelectStmt`; a
    /// data-modifying CTE a `DeleteStmt`).
    pub(crate) nested: Vec<&'static str>,
    /// `IntoClause` and `LockingClause` nodes.
    pub(crate) clauses: Vec<&'static str>,
    /// The relations named, each as its non-empty parts (`[catalog,] [schema,] name`), minus
    /// references to a CTE of the same statement.
    pub(crate) relations: Vec<Vec<String>>,
    /// The functions called by name, each as its parts (`[schema,] name`), minus the calls the
    /// grammar makes of SQL syntax.
    pub(crate) calls: Vec<Vec<String>>,
}

impl PostgresReading {
    /// Reads the facts from a parse tree.
    pub(crate) fn from_tree(tree: &pg_query::protobuf::ParseResult) -> Result<Self, String> {
        let mut collector = Collector::default();
        tree.serialize(&mut collector)
            .map_err(|e| format!("its parse tree could not be read ({e})"))?;
        let Collector {
            mut reading, ctes, ..
        } = collector;
        // A CTE is named by its bare name; a schema-qualified name is always a relation.
        // Matching CTE names anywhere in the statement, not by scope, only leaves relations
        // out, so it never makes the readings disagree.
        reading
            .relations
            .retain(|parts| !(parts.len() == 1 && ctes.contains(&parts[0])));
        Ok(reading)
    }
}

/// An open `FuncCall` node.
#[derive(Default)]
struct Call {
    name: Vec<String>,
    format: i32,
}

/// A serializer that notes the facts of a parse tree and writes nothing.
#[derive(Default)]
struct Collector {
    reading: PostgresReading,
    /// The struct nodes being serialized, innermost last, with the field being written.
    frames: Vec<(&'static str, &'static str)>,
    /// The `FuncCall` nodes being serialized, innermost last.
    calls: Vec<Call>,
    /// The `RangeVar` nodes being serialized: catalog, schema and relation names.
    relations: Vec<[String; 3]>,
    ctes: Vec<String>,
    /// A `RawStmt` was opened and its statement node not seen yet.
    top_level: bool,
}

impl Collector {
    fn field(&self, back: usize) -> Option<(&'static str, &'static str)> {
        self.frames
            .len()
            .checked_sub(back + 1)
            .map(|i| self.frames[i])
    }

    fn open(&mut self, name: &'static str) {
        match name {
            "RawStmt" => self.top_level = true,
            "FuncCall" => self.calls.push(Call::default()),
            "RangeVar" => self.relations.push(Default::default()),
            "IntoClause" | "LockingClause" => self.reading.clauses.push(name),
            _ if name.ends_with("Stmt") => {
                if std::mem::take(&mut self.top_level) {
                    self.reading.statements.push(name);
                } else {
                    self.reading.nested.push(name);
                }
            }
            _ => {}
        }
        self.frames.push((name, ""));
    }

    fn close(&mut self) {
        match self.frames.pop() {
            Some(("FuncCall", _)) => {
                if let Some(call) = self.calls.pop() {
                    let made_by_grammar = call.format == COERCE_SQL_SYNTAX
                        || matches!(call.name.as_slice(), [schema, name]
                            if schema == "pg_catalog" && OPERATOR_CALLS.contains(&name.as_str()));
                    if !made_by_grammar {
                        self.reading.calls.push(call.name);
                    }
                }
            }
            Some(("RangeVar", _)) => {
                if let Some(parts) = self.relations.pop() {
                    let parts = parts.into_iter().filter(|p| !p.is_empty()).collect();
                    self.reading.relations.push(parts);
                }
            }
            _ => {}
        }
    }

    fn text(&mut self, value: &str) {
        match self.field(0) {
            Some(("RangeVar", field)) => {
                let slot = match field {
                    "catalogname" => 0,
                    "schemaname" => 1,
                    "relname" => 2,
                    _ => return,
                };
                if let Some(relation) = self.relations.last_mut() {
                    relation[slot] = value.to_owned();
                }
            }
            Some(("CommonTableExpr", "ctename")) => self.ctes.push(value.to_owned()),
            // A function's name is a list of `String` nodes: FuncCall.funcname[i].node.sval.
            Some(("String", "sval"))
                if self.field(1) == Some(("Node", "node"))
                    && self.field(2) == Some(("FuncCall", "funcname")) =>
            {
                if let Some(call) = self.calls.last_mut() {
                    call.name.push(value.to_owned());
                }
            }
            _ => {}
        }
    }
}

/// The collector never fails; serde's trait asks for an error type all the same.
#[derive(Debug)]
pub(crate) struct Unreadable(String);

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unreadable {}

impl ser::Error for Unreadable {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Unreadable(message.to_string())
    }
}

type Done = Result<(), Unreadable>;

impl ser::Serializer for &mut Collector {
    type Ok = ();
    type Error = Unreadable;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Impossible<(), Unreadable>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, _: bool) -> Done {
        Ok(())
    }
    fn serialize_i8(self, _: i8) -> Done {
        Ok(())
    }
    fn serialize_i16(self, _: i16) -> Done {
        Ok(())
    }
    fn serialize_i32(self, value: i32) -> Done {
        if self.field(0) == Some(("FuncCall", "funcformat"))
            && let Some(call) = self.calls.last_mut()
        {
            call.format = value;
        }
        Ok(())
    }
    fn serialize_i64(self, _: i64) -> Done {
        Ok(())
    }
    fn serialize_u8(self, _: u8) -> Done {
        Ok(())
    }
    fn serialize_u16(self, _: u16) -> Done {
        Ok(())
    }
    fn serialize_u32(self, _: u32) -> Done {
        Ok(())
    }
    fn serialize_u64(self, _: u64) -> Done {
        Ok(())
    }
    fn serialize_f32(self, _: f32) -> Done {
        Ok(())
    }
    fn serialize_f64(self, _: f64) -> Done {
        Ok(())
    }
    fn serialize_char(self, _: char) -> Done {
        Ok(())
    }
    fn serialize_str(self, value: &str) -> Done {
        self.text(value);
        Ok(())
    }
    fn serialize_bytes(self, _: &[u8]) -> Done {
        Ok(())
    }
    fn serialize_none(self) -> Done {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Done {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Done {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Done {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Done {
        // A node's variant (`Node::FuncCall(…)`) wraps the struct of the same name.
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Unreadable> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Unreadable> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Unreadable> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, Unreadable> {
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unreadable> {
        Err(ser::Error::custom(
            "a map, which the parse tree does not hold",
        ))
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Self, Unreadable> {
        self.open(name);
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Unreadable> {
        self.open(variant);
        Ok(self)
    }
}

impl ser::SerializeSeq for &mut Collector {
    type Ok = ();
    type Error = Unreadable;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(&mut **self)
    }
    fn end(self) -> Done {
        Ok(())
    }
}

impl ser::SerializeTuple for &mut Collector {
    type Ok = ();
    type Error = Unreadable;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(&mut **self)
    }
    fn end(self) -> Done {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for &mut Collector {
    type Ok = ();
    type Error = Unreadable;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(&mut **self)
    }
    fn end(self) -> Done {
        Ok(())
    }
}

impl ser::SerializeTupleVariant for &mut Collector {
    type Ok = ();
    type Error = Unreadable;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(&mut **self)
    }
    fn end(self) -> Done {
        Ok(())
    }
}

impl ser::SerializeStruct for &mut Collector {
    type Ok = ();
    type Error = Unreadable;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Done {
        if let Some(frame) = self.frames.last_mut() {
            frame.1 = key;
        }
        value.serialize(&mut **self)
    }
    fn end(self) -> Done {
        self.close();
        Ok(())
    }
}

impl ser::SerializeStructVariant for &mut Collector {
    type Ok = ();
    type Error = Unreadable;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Done {
        if let Some(frame) = self.frames.last_mut() {
            frame.1 = key;
        }
        value.serialize(&mut **self)
    }
    fn end(self) -> Done {
        self.close();
        Ok(())
    }
}
