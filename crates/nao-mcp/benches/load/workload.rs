//! What the simulated clients do: N sessions at once, each calling tools one after another
//! from a fixed mix until the run's end, every latency and error kept.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::sync::Barrier;

use crate::mcp::{CallError, McpSession};

/// One kind of call in the mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Op {
    /// One order by primary key (sub-millisecond in SQLite).
    Point,
    /// Orders grouped by status and channel (a scan of 60,000 rows).
    Aggregate,
    /// Revenue by country: orders joined to customers, grouped and sorted.
    Join,
    /// `SELECT * FROM reviews`, cut at the row cap and stored (texts: the biggest results).
    SelectStar,
    /// A page of this session's last stored result (read_query_result).
    Page,
}

impl Op {
    /// Every op, in table order.
    pub(crate) const ALL: [Op; 5] = [Op::Point, Op::Aggregate, Op::Join, Op::SelectStar, Op::Page];

    /// The op's column name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::Point => "point",
            Op::Aggregate => "aggregate",
            Op::Join => "join",
            Op::SelectStar => "select_*",
            Op::Page => "page",
        }
    }
}

/// Which calls the sessions make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mix {
    /// Of ten calls: four point lookups, two aggregates, one join, one capped `SELECT *`, two
    /// pages of the last stored result (point lookups until there is one).
    Mixed,
    /// Point lookups only (the latency line).
    PointOnly,
}

/// What one run measured.
#[derive(Debug, Default)]
pub(crate) struct RunOutcome {
    /// Latency of every answered call (a tool result, error or not), by op.
    pub(crate) latencies: BTreeMap<Op, Vec<Duration>>,
    /// Calls that got no tool result, or a tool error, by kind.
    pub(crate) errors: BTreeMap<String, u64>,
    /// From the first call to the last answer.
    pub(crate) elapsed: Duration,
    /// Sessions that could not be opened.
    pub(crate) failed_sessions: u64,
    /// Connections opened beyond one per session.
    pub(crate) reconnects: u64,
    /// One example message per error kind, for the report.
    pub(crate) examples: BTreeMap<String, String>,
    /// When each answered call got its answer (to count those answered after a moment).
    pub(crate) answered_at: Vec<Instant>,
}

impl RunOutcome {
    /// Answered calls.
    pub(crate) fn answered(&self) -> usize {
        self.latencies.values().map(Vec::len).sum()
    }

    /// Calls that failed, tool errors included.
    pub(crate) fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }

    fn merge(&mut self, other: SessionOutcome) {
        for (op, latency) in other.latencies {
            self.latencies.entry(op).or_default().push(latency);
        }
        self.answered_at.extend(other.answered_at);
        for (kind, message) in other.errors {
            *self.errors.entry(kind.clone()).or_default() += 1;
            self.examples.entry(kind).or_insert(message);
        }
        self.reconnects += other.reconnects;
        self.failed_sessions += u64::from(other.failed);
    }
}

#[derive(Debug, Default)]
struct SessionOutcome {
    latencies: Vec<(Op, Duration)>,
    answered_at: Vec<Instant>,
    errors: Vec<(String, String)>,
    reconnects: u64,
    failed: bool,
}

/// How one run goes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunPlan {
    /// Concurrent sessions.
    pub(crate) sessions: usize,
    /// How long the sessions keep calling.
    pub(crate) duration: Duration,
    /// Stop after this many calls per session, if sooner.
    pub(crate) max_calls: Option<u64>,
    /// The bound on every request.
    pub(crate) deadline: Duration,
    /// The calls made.
    pub(crate) mix: Mix,
    /// Whether each session ends with DELETE; otherwise it is left to the server's idle
    /// timeout, as by a client that vanished.
    pub(crate) close: bool,
}

/// Opens `plan.sessions` sessions, then (all at once, after `started` is called with the
/// moment the calls begin) lets each call tools until the plan's end, then closes them all
/// (unless the plan says not to).
pub(crate) async fn run(addr: SocketAddr, plan: RunPlan, started: impl FnOnce()) -> RunOutcome {
    let barrier = Arc::new(Barrier::new(plan.sessions + 1));
    let mut tasks = tokio::task::JoinSet::new();
    for index in 0..plan.sessions {
        let barrier = barrier.clone();
        tasks.spawn(session(addr, plan, index, barrier));
    }
    barrier.wait().await;
    let begin = Instant::now();
    started();
    let mut outcome = RunOutcome::default();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(session) => outcome.merge(session),
            Err(error) => {
                outcome.failed_sessions += 1;
                outcome
                    .examples
                    .entry("client_panic".into())
                    .or_insert_with(|| error.to_string());
            }
        }
    }
    outcome.elapsed = begin.elapsed();
    outcome
}

/// One client: initialize, wait for the others, call until the end, DELETE (if asked).
async fn session(
    addr: SocketAddr,
    plan: RunPlan,
    index: usize,
    barrier: Arc<Barrier>,
) -> SessionOutcome {
    let mut outcome = SessionOutcome::default();
    let mut client = McpSession::new(addr, plan.deadline);
    let opened = client.initialize().await;
    barrier.wait().await;
    if let Err(error) = opened {
        outcome.failed = true;
        outcome
            .errors
            .push((format!("initialize_{}", error.kind()), error.to_string()));
        return outcome;
    }
    let end = Instant::now() + plan.duration;
    let mut rng = Rng::new(index as u64);
    let mut last_result: Option<String> = None;
    let mut calls = 0;
    while Instant::now() < end && plan.max_calls.is_none_or(|max| calls < max) {
        calls += 1;
        let op = match plan.mix {
            Mix::PointOnly => Op::Point,
            Mix::Mixed => match rng.below(10) {
                0..=3 => Op::Point,
                4 | 5 => Op::Aggregate,
                6 => Op::Join,
                7 => Op::SelectStar,
                _ if last_result.is_some() => Op::Page,
                _ => Op::Point,
            },
        };
        let (tool, arguments) = match op {
            Op::Page => (
                "read_query_result",
                json!({
                    "query_id": last_result.clone().unwrap_or_default(),
                    "offset": rng.below(200) * 50,
                    "limit": 50,
                }),
            ),
            _ => ("execute_sql", json!({"sql_query": sql(op, &mut rng)})),
        };
        let sent = Instant::now();
        match client.call_tool(tool, arguments).await {
            Ok(reply) => {
                let now = Instant::now();
                outcome.latencies.push((op, now - sent));
                outcome.answered_at.push(now);
                if let Some(kind) = reply.error_kind {
                    outcome
                        .errors
                        .push((format!("tool_{kind}"), format!("{} ({})", op.name(), kind)));
                }
                if op == Op::SelectStar && reply.query_id.is_some() {
                    last_result = reply.query_id;
                }
            }
            Err(error) => record_failure(&mut outcome, op, &error),
        }
    }
    if plan.close
        && let Err(error) = client.close().await
    {
        outcome
            .errors
            .push((format!("delete_{}", error.kind()), error.to_string()));
    }
    outcome.reconnects = client.reconnects.saturating_sub(1);
    outcome
}

fn record_failure(outcome: &mut SessionOutcome, op: Op, error: &CallError) {
    outcome
        .errors
        .push((error.kind(), format!("{}: {error}", op.name())));
}

/// The SQL of an `execute_sql` op.
fn sql(op: Op, rng: &mut Rng) -> String {
    match op {
        Op::Point => format!(
            "SELECT id, customer_id, status, total FROM orders WHERE id = {}",
            1 + rng.below(60_000)
        ),
        Op::Aggregate => "SELECT status, channel, count(*) AS orders, sum(total) AS revenue \
                          FROM orders GROUP BY status, channel ORDER BY status, channel"
            .into(),
        Op::Join => "SELECT c.country, count(*) AS orders, sum(o.total) AS revenue \
                     FROM orders o JOIN customers c ON c.id = o.customer_id \
                     GROUP BY c.country ORDER BY revenue DESC LIMIT 10"
            .into(),
        Op::SelectStar | Op::Page => "SELECT * FROM reviews".into(),
    }
}

/// xorshift64*: a different fixed sequence per session, no dependency.
#[derive(Debug)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}
