//! Out of file descriptors: the accept loop backs off instead of spinning, logs the failure
//! sparingly, and serves new clients again once connections close.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http;

use http::HttpServer;
use tokio::net::TcpStream;

/// The held-back count of each throttled "accepting a connection failed" line after the first.
fn held_back_counts(log: &str) -> Vec<u64> {
    log.lines()
        .filter(|line| line.contains("accepting a connection failed"))
        .filter_map(|line| {
            let (count, _) = line.split_once(" more since the last line")?;
            count.rsplit('(').next()?.trim().parse().ok()
        })
        .collect()
}

#[tokio::test]
async fn running_out_of_file_descriptors_backs_off_and_recovers() {
    // A low limit, and a connection cap above it, so the process runs out of descriptors
    // before it runs out of connection slots.
    let server = HttpServer::start_with_fd_limit(96, &["--max-connections", "1000"]).await;
    let mut held = Vec::new();
    for _ in 0..160 {
        // The system queues connections the server cannot accept; none of these fail.
        held.push(TcpStream::connect(server.addr).await.unwrap());
    }
    let first = server
        .wait_for_log(&["accepting a connection failed", "retrying in"])
        .await;
    assert!(
        first.contains("open files") || first.contains("EMFILE"),
        "the failure names its cause: {first}"
    );
    // A second line comes a second later at the earliest, with the failures held back since.
    server
        .wait_for_log(&["accepting a connection failed", "more since the last line"])
        .await;
    let counts = held_back_counts(&server.stderr.lock().unwrap());
    assert!(!counts.is_empty());
    // With the backoff (5 ms doubling to 1 s) a second holds about eight failures at first,
    // then one; a loop that retried at once (even on a 1 ms timer) would hold back hundreds.
    assert!(
        counts.iter().all(|&count| count < 50),
        "the accept loop spins: {counts:?} failures held back per line"
    );
    drop(held);
    // With descriptors free again, a new client is served.
    let session = server.open_session().await;
    let reply = server.list_tools(&session).await;
    assert_eq!(reply.status, 200, "{reply:?}");
}
