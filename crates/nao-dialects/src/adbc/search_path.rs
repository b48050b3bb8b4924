//! PostgreSQL's reading of a table name, for the catalogue: the schemas the login may use
//! (`USAGE`), and the order in which an unqualified name is looked up in them (the effective
//! `search_path` with the implicit `pg_catalog` and temporary schemas, which already leaves out
//! schemas the login may not use).
//!
//! The PostgreSQL driver's `GetObjects` lists every table of every schema (pg_class is readable
//! by all), so without this an unqualified `orders` would be described from the first schema
//! listed that has one, which need not be the one the login's queries read, nor one it may read.

use adbc_core::{Connection as _, Statement as _};
use adbc_driver_manager::ManagedConnection;
use arrow_array::RecordBatch;

use super::catalog::{integer, text};

/// The usable schemas with their place in the search path (`None`: usable but not on the path).
const USABLE_SCHEMAS: &str = "\
    SELECT n.nspname::text AS schema, p.position \
    FROM pg_catalog.pg_namespace AS n \
    LEFT JOIN unnest(pg_catalog.current_schemas(true)) WITH ORDINALITY AS p(name, position) \
      ON p.name = n.nspname \
    WHERE pg_catalog.has_schema_privilege(n.oid, 'USAGE')";

/// The schemas a PostgreSQL login may use, and how it resolves unqualified names.
#[derive(Debug, Default)]
pub(super) struct SearchPath {
    /// Every usable schema, with its place on the search path.
    usable: Vec<(String, Option<i64>)>,
}

impl SearchPath {
    /// Reads the connection's search path; `None` when the server does not answer the query
    /// (the catalogue then keeps the driver's listing as it is).
    pub(super) fn read(connection: &mut ManagedConnection) -> Option<SearchPath> {
        let mut statement = connection.new_statement().ok()?;
        statement.set_sql_query(USABLE_SCHEMAS).ok()?;
        let reader = statement.execute().ok()?;
        let mut usable = Vec::new();
        for batch in reader {
            read_rows(&batch.ok()?, &mut usable)?;
        }
        Some(SearchPath { usable })
    }

    /// Whether the login may use `schema` (a listing without schemas is kept).
    pub(super) fn usable(&self, schema: Option<&str>) -> bool {
        schema.is_none_or(|schema| self.usable.iter().any(|(s, _)| s == schema))
    }

    /// Where an unqualified name is looked up in `schema`: its place on the path, or `None`
    /// when unqualified names never resolve there.
    pub(super) fn position(&self, schema: Option<&str>) -> Option<i64> {
        let schema = schema?;
        self.usable
            .iter()
            .find(|(s, _)| s == schema)
            .and_then(|(_, position)| *position)
    }
}

fn read_rows(batch: &RecordBatch, out: &mut Vec<(String, Option<i64>)>) -> Option<()> {
    for row in 0..batch.num_rows() {
        let schema = text(Some(batch.column(0)), row)?;
        out.push((schema, integer(Some(batch.column(1)), row)));
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unqualified_names_resolve_along_the_path_in_usable_schemas_only() {
        let path = SearchPath {
            usable: vec![
                ("public".into(), Some(2)),
                ("sales".into(), Some(1)),
                ("archive".into(), None),
            ],
        };
        assert!(path.usable(Some("archive")));
        assert!(!path.usable(Some("other_team")));
        assert!(path.usable(None));
        assert_eq!(path.position(Some("sales")), Some(1));
        assert_eq!(path.position(Some("public")), Some(2));
        assert_eq!(path.position(Some("archive")), None);
        assert_eq!(path.position(Some("other_team")), None);
    }
}
