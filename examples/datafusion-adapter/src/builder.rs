//! [`DataFusionDialectBuilder`]: a DataFusion session within limits, its tables and their
//! comments, sealed into a [`DataFusionDialect`].

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::Schema;
use datafusion::arrow::error::ArrowError;
use datafusion::catalog::MemTable;
use datafusion::common::TableReference;
use datafusion::error::DataFusionError;
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{CsvReadOptions, ParquetReadOptions, SessionConfig, SessionContext};
use nao_dialects::demo::DemoScale;
use nao_dialects::{EngineLimits, Spill};

use crate::DataFusionDialect;

/// Comments on one table and its columns, which DataFusion's catalogue does not keep.
#[derive(Debug, Clone, Default)]
pub(crate) struct TableComments {
    pub(crate) table: Option<String>,
    pub(crate) columns: HashMap<String, String>,
}

/// Why a [`DataFusionDialectBuilder`] could not set up the session or register a table.
#[non_exhaustive]
#[derive(Debug)]
pub enum BuildError {
    /// DataFusion's runtime (memory pool, spill directory) could not be made.
    Runtime {
        /// The database.
        database: String,
        /// DataFusion's error.
        source: DataFusionError,
    },
    /// A table could not be registered (a missing file, a file of another format, a name
    /// already taken, batches of different schemas).
    Register {
        /// The database.
        database: String,
        /// The table.
        table: String,
        /// DataFusion's error.
        source: DataFusionError,
    },
    /// The threads DataFusion runs statements on could not be started.
    Threads {
        /// The database.
        database: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The demo shop could not be generated (a bug in nao-dialects).
    Demo {
        /// The database.
        database: String,
        /// The generator's error.
        source: ArrowError,
    },
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Runtime { database, source } => write!(
                f,
                "{database}: could not set up DataFusion's runtime (memory pool, spill \
                 directory): {source}"
            ),
            BuildError::Register {
                database,
                table,
                source,
            } => write!(
                f,
                "{database}: could not register the table {table}: {source}"
            ),
            BuildError::Threads { database, source } => write!(
                f,
                "{database}: could not start the threads DataFusion runs statements on: {source}"
            ),
            BuildError::Demo { database, source } => {
                write!(f, "{database}: could not generate the demo shop: {source}")
            }
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Runtime { source, .. } | BuildError::Register { source, .. } => {
                Some(source)
            }
            BuildError::Threads { source, .. } => Some(source),
            BuildError::Demo { source, .. } => Some(source),
        }
    }
}

/// Registers the tables of one DataFusion database, then [`build`](Self::build)s the
/// read-only [`DataFusionDialect`] over them: once built, nothing registers tables any more
/// (the dialect refuses DDL, and keeps its session to itself).
///
/// Table names are taken as they are (not parsed as SQL: `Orders` stays `Orders`, and a
/// query names it `"Orders"`), in DataFusion's default catalogue and schema
/// (`datafusion.public`).
pub struct DataFusionDialectBuilder {
    name: String,
    ctx: SessionContext,
    comments: HashMap<String, TableComments>,
    runtime: EngineRuntime,
}

impl std::fmt::Debug for DataFusionDialectBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataFusionDialectBuilder")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl DataFusionDialectBuilder {
    /// A session for the database `name` within `limits`: DataFusion's memory pool gets
    /// `limits`' memory (a statement that needs more fails with a resource-limit error, or
    /// spills where `limits` allow it), its partitions and its threads `limits`' threads.
    pub(crate) fn new(name: String, limits: &EngineLimits) -> Result<Self, BuildError> {
        let threads = limits.thread_count().max(1);
        let runtime = EngineRuntime::start(threads).map_err(|source| BuildError::Threads {
            database: name.clone(),
            source,
        })?;
        let memory = usize::try_from(limits.memory_limit_bytes()).unwrap_or(usize::MAX);
        let disk = match limits.spill_policy() {
            Spill::Under { parent, max_bytes } => DiskManagerBuilder::default()
                .with_mode(DiskManagerMode::Directories(vec![parent.clone()]))
                .with_max_temp_directory_size(*max_bytes),
            // `Spill` is non-exhaustive: anything else spills nowhere, like `Spill::Off`.
            _ => DiskManagerBuilder::default().with_mode(DiskManagerMode::Disabled),
        };
        let runtime_env = RuntimeEnvBuilder::new()
            .with_memory_limit(memory, 1.0)
            .with_disk_manager_builder(disk)
            .build_arc()
            .map_err(|source| BuildError::Runtime {
                database: name.clone(),
                source,
            })?;
        let config = SessionConfig::new()
            .with_target_partitions(threads)
            // `SHOW TABLES`, `SHOW COLUMNS` and information_schema views: read-only, and what
            // analysts type.
            .with_information_schema(true);
        Ok(DataFusionDialectBuilder {
            name,
            ctx: SessionContext::new_with_config_rt(config, runtime_env),
            comments: HashMap::new(),
            runtime,
        })
    }

    /// Registers `batches` (all of `schema`) as the in-memory table `table`.
    pub fn batches(
        self,
        table: &str,
        schema: Arc<Schema>,
        batches: Vec<RecordBatch>,
    ) -> Result<Self, BuildError> {
        let registered = MemTable::try_new(schema, vec![batches]).and_then(|memory| {
            self.ctx
                .register_table(TableReference::bare(table), Arc::new(memory))
        });
        self.registered(table, registered.map(drop))
    }

    /// Registers the Parquet file (or directory of Parquet files) at `path` as `table`.
    pub async fn parquet(self, table: &str, path: impl AsRef<Path>) -> Result<Self, BuildError> {
        let path = path.as_ref().to_string_lossy().into_owned();
        let registered = self
            .ctx
            .register_parquet(
                TableReference::bare(table),
                &path,
                ParquetReadOptions::default(),
            )
            .await;
        self.registered(table, registered)
    }

    /// Registers the CSV file (with a header row) at `path` as `table`, with the column types
    /// of `schema`: without one DataFusion infers them from the first rows, and reads
    /// `10.50` as a float.
    pub async fn csv(
        self,
        table: &str,
        path: impl AsRef<Path>,
        schema: Option<&Schema>,
    ) -> Result<Self, BuildError> {
        let path = path.as_ref().to_string_lossy().into_owned();
        let mut options = CsvReadOptions::new().has_header(true);
        if let Some(schema) = schema {
            options = options.schema(schema);
        }
        let registered = self
            .ctx
            .register_csv(TableReference::bare(table), &path, options)
            .await;
        self.registered(table, registered)
    }

    /// Registers the six tables of nao's demo shop at `scale`, with their comments.
    pub fn demo_shop(mut self, scale: DemoScale) -> Result<Self, BuildError> {
        let tables = nao_dialects::demo::generate(scale).map_err(|source| BuildError::Demo {
            database: self.name.clone(),
            source,
        })?;
        for table in tables {
            let Some(schema) = table.batches.first().map(RecordBatch::schema) else {
                continue;
            };
            self = self
                .batches(table.name, schema, table.batches)?
                .comment(table.name, table.comment);
            for (column, comment) in table.column_comments {
                self = self.column_comment(table.name, column, comment);
            }
        }
        Ok(self)
    }

    /// Gives `table` a comment, which `list_tables` and `describe_table` report.
    #[must_use]
    pub fn comment(mut self, table: &str, comment: &str) -> Self {
        self.comments.entry(table.to_owned()).or_default().table = Some(comment.to_owned());
        self
    }

    /// Gives the column `column` of `table` a comment, which `describe_table` reports.
    #[must_use]
    pub fn column_comment(mut self, table: &str, column: &str, comment: &str) -> Self {
        self.comments
            .entry(table.to_owned())
            .or_default()
            .columns
            .insert(column.to_owned(), comment.to_owned());
        self
    }

    /// Seals the session into the dialect.
    pub fn build(self) -> DataFusionDialect {
        DataFusionDialect::new(self.name, self.ctx, self.comments, self.runtime)
    }

    fn registered(
        self,
        table: &str,
        outcome: Result<(), DataFusionError>,
    ) -> Result<Self, BuildError> {
        match outcome {
            Ok(()) => Ok(self),
            Err(source) => Err(BuildError::Register {
                database: self.name,
                table: table.to_owned(),
                source,
            }),
        }
    }
}

/// The tokio runtime DataFusion runs statements on, apart from the host's: DataFusion's
/// operators are CPU-bound and yield only now and then (a cross join may not for seconds), so
/// on the host's runtime a heavy statement would hold its worker threads, and with them the
/// host's timers, cancellations and other requests. Here, the host's runtime stays free: the
/// pump tells the caller of a cancellation or a time limit at once, and DataFusion stops at its
/// next yield.
pub(crate) struct EngineRuntime(Option<tokio::runtime::Runtime>);

impl EngineRuntime {
    fn start(threads: usize) -> std::io::Result<Self> {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name("nao-datafusion")
            .enable_all()
            .build()
            .map(|runtime| EngineRuntime(Some(runtime)))
    }

    /// The handle to spawn statements with.
    pub(crate) fn handle(&self) -> Option<&tokio::runtime::Handle> {
        self.0.as_ref().map(tokio::runtime::Runtime::handle)
    }
}

impl Drop for EngineRuntime {
    /// Stops the threads without waiting for them: a dialect may be dropped inside the host's
    /// async code, where waiting is not allowed.
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}
