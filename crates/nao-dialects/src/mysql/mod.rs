//! The MySQL/MariaDB adapter (being written; the `mysql` feature does not build yet).
