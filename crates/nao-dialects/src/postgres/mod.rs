//! The PostgreSQL adapter (being written; the `postgres` feature does not build yet).
