//! [`DataFusionDialect`]: the [`Dialect`] contract over a DataFusion session.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::dataframe::DataFrame;
use datafusion::error::DataFusionError;
use datafusion::execution::SendableRecordBatchStream;
use datafusion::prelude::{SQLOptions, SessionContext};
use futures_util::StreamExt;
use nao_dialects::EngineLimits;
use nao_dialects::core::guard::{ReadOnlySql, SqlDialect};
use nao_dialects::core::{
    BatchStream, Dialect, DialectError, ExecOptions, TableFilter, TableInfo, TableRef, TableSchema,
};
use nao_dialects::pump::{self, Flow, Producer};

use crate::builder::{BuildError, DataFusionDialectBuilder, EngineRuntime, TableComments};
use crate::{catalog, classify};

/// A read-only database over a DataFusion session: the tables a
/// [`DataFusionDialectBuilder`] registered, queried with SQL the guard read as
/// [`SqlDialect::Generic`].
///
/// Cheap to share behind an `Arc`; statements run concurrently, each on the tokio runtime
/// that calls [`execute`](Dialect::execute) (DataFusion runs its partitions as tasks there).
pub struct DataFusionDialect {
    name: String,
    ctx: SessionContext,
    comments: Arc<HashMap<String, TableComments>>,
    /// Gate 2: what DataFusion plans and refuses, before anything runs.
    sql_options: SQLOptions,
    /// The threads statements run on, apart from the host's runtime.
    runtime: EngineRuntime,
}

impl std::fmt::Debug for DataFusionDialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DataFusionDialect")
            .field("name", &self.name)
            .field("session", &self.ctx.session_id())
            .finish_non_exhaustive()
    }
}

impl DataFusionDialect {
    /// A builder for the database `name` (its `database_id`) within the default
    /// [`EngineLimits`] (an eighth of the machine's memory, at most 2 GiB; no spilling).
    pub fn builder(name: impl Into<String>) -> Result<DataFusionDialectBuilder, BuildError> {
        DataFusionDialectBuilder::new(name.into(), &EngineLimits::default())
    }

    /// A builder for the database `name` within `limits` (memory, threads, spill space).
    pub fn builder_with(
        name: impl Into<String>,
        limits: &EngineLimits,
    ) -> Result<DataFusionDialectBuilder, BuildError> {
        DataFusionDialectBuilder::new(name.into(), limits)
    }

    pub(crate) fn new(
        name: String,
        ctx: SessionContext,
        comments: HashMap<String, TableComments>,
        runtime: EngineRuntime,
    ) -> Self {
        DataFusionDialect {
            name,
            ctx,
            comments: Arc::new(comments),
            runtime,
            sql_options: SQLOptions::new()
                .with_allow_ddl(false)
                .with_allow_dml(false)
                .with_allow_statements(false),
        }
    }

    /// Tasks alive on the threads DataFusion runs statements on: the statements' own and their
    /// partitions'. Zero once every statement has ended, been cancelled or been dropped.
    pub fn running_tasks(&self) -> usize {
        self.runtime
            .handle()
            .map_or(0, |handle| handle.metrics().num_alive_tasks())
    }
}

#[async_trait]
impl Dialect for DataFusionDialect {
    fn name(&self) -> &str {
        &self.name
    }

    /// DataFusion's own parser reads `Generic` SQL unless configured otherwise
    /// (`datafusion.sql_parser.dialect`), so the guard reads statements as DataFusion will.
    fn sql_dialect(&self) -> SqlDialect {
        SqlDialect::Generic
    }

    async fn execute(
        &self,
        sql: &ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<BatchStream, DialectError> {
        let (producer, consumer) = pump::channel(&self.name, options);
        // A session state of the statement's own, to honour its batch size; the tables and
        // the memory pool stay shared.
        let mut state = self.ctx.state();
        state.config_mut().options_mut().execution.batch_size = options.batch_size;
        let statement = Statement {
            database: self.name.clone(),
            sql: sql.sql().to_owned(),
            sql_options: self.sql_options,
            state,
        };
        let Some(runtime) = self.runtime.handle() else {
            return Err(DialectError::Connection {
                database: self.name.clone(),
                message: "the threads DataFusion runs statements on have stopped".into(),
                source: None,
            });
        };
        // On DataFusion's own threads: a statement that computes for seconds without yielding
        // holds those, never the caller's.
        runtime.spawn(statement.run(producer));
        consumer.stream().await
    }

    async fn list_tables(&self, filter: &TableFilter) -> Result<Vec<TableInfo>, DialectError> {
        catalog::list_tables(&self.name, &self.ctx, &self.comments, filter).await
    }

    async fn describe_table(&self, table: &TableRef) -> Result<TableSchema, DialectError> {
        catalog::describe_table(&self.name, &self.ctx, &self.comments, table).await
    }

    /// Only `SQLOptions` refusals map to [`DialectError::Permission`] (DataFusion has no
    /// privileges): each is gate 2 refusing what the guard let through.
    fn refused_as_writing(&self, error: &DialectError) -> bool {
        matches!(error, DialectError::Permission { .. })
    }
}

/// One statement on its way through the pump.
struct Statement {
    database: String,
    sql: String,
    sql_options: SQLOptions,
    state: datafusion::execution::SessionState,
}

impl Statement {
    /// Plans the statement, then streams its batches into `producer`. Every wait races the
    /// pump's stop (cancelled, out of time, reader gone): returning drops DataFusion's stream,
    /// which aborts its partitions' tasks.
    async fn run(self, mut producer: Producer) {
        let planned = tokio::select! {
            biased;
            _stopped = producer.stopped() => return,
            planned = self.plan() => planned,
        };
        let mut stream = match planned {
            Ok(stream) => stream,
            Err(error) => return producer.fail(classify(&self.database, &error)).await,
        };
        if producer.schema(stream.schema()).await.is_err() {
            return;
        }
        loop {
            let next = tokio::select! {
                biased;
                _stopped = producer.stopped() => return,
                next = stream.next() => next,
            };
            match next {
                Some(Ok(batch)) => match producer.batch(batch).await {
                    Ok(Flow::Continue) => {}
                    Ok(Flow::Full) => break,
                    Err(_stopped) => return,
                },
                Some(Err(error)) => {
                    return producer.fail(classify(&self.database, &error)).await;
                }
                None => break,
            }
        }
        // The statement's work ends with its stream, before the reader hears the end.
        drop(stream);
        producer.finish();
    }

    /// Parses and plans the statement, refuses what `SQLOptions` refuses (gate 2), and starts
    /// it.
    async fn plan(&self) -> Result<SendableRecordBatchStream, DataFusionError> {
        let plan = self.state.create_logical_plan(&self.sql).await?;
        self.sql_options.verify_plan(&plan)?;
        DataFrame::new(self.state.clone(), plan)
            .execute_stream()
            .await
    }
}
