//! A server that listens beyond loopback: a bearer token every request must present
//! (`--auth-token-file`; 401 without it, before anything else), and the `Host` names it is
//! reached by (`--allow-host`; any other gets 403).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http;

use http::HttpServer;

const TOKEN: &str = "n4o-test-token-7f3a";

async fn with_token() -> (HttpServer, tempfile_path::TempFile) {
    let file = tempfile_path::TempFile::with(&format!("{TOKEN}\n"));
    let server = HttpServer::start(&["--auth-token-file", file.path()]).await;
    (server, file)
}

#[tokio::test]
async fn requests_without_the_token_get_401_and_with_it_are_served() {
    let (server, _file) = with_token().await;
    let missing = server.initialize_with(1, &[]).await;
    assert_eq!(missing.status, 401, "{missing:?}");
    assert_eq!(
        missing.header("www-authenticate"),
        Some("Bearer realm=\"nao-mcp\""),
        "{missing:?}"
    );
    assert!(missing.header("mcp-session-id").is_none(), "{missing:?}");
    for wrong in [
        "Bearer n4o-test-token-7f3",
        "Bearer n4o-test-token-7f3aa",
        "Basic n4o-test-token-7f3a",
        "n4o-test-token-7f3a",
    ] {
        let reply = server.initialize_with(1, &[("Authorization", wrong)]).await;
        assert_eq!(reply.status, 401, "{wrong}: {reply:?}");
    }
    // Every method and path is behind the token, not only initialize.
    let delete = server.request("DELETE", &[], "").await;
    assert_eq!(delete.status, 401, "{delete:?}");
    let bearer = format!("Bearer {TOKEN}");
    let served = server
        .initialize_with(1, &[("Authorization", bearer.as_str())])
        .await;
    assert_eq!(served.status, 200, "{served:?}");
    assert!(served.header("mcp-session-id").is_some(), "{served:?}");
    // The token never reaches the logs.
    let logs = server.stderr.lock().unwrap().clone();
    assert!(logs.contains("serving streamable HTTP"), "{logs}");
    assert!(!logs.contains(TOKEN), "{logs}");
}

#[tokio::test]
async fn the_token_does_not_lift_the_host_check() {
    let (server, _file) = with_token().await;
    let bearer = format!("Bearer {TOKEN}");
    let reply = server
        .initialize_with(
            1,
            &[("Authorization", bearer.as_str()), ("Host", "evil.example")],
        )
        .await;
    assert_eq!(reply.status, 403, "{reply:?}");
}

#[tokio::test]
async fn allow_host_adds_host_names() {
    let server = HttpServer::start(&["--allow-host", "mcp.example.com"]).await;
    for host in ["mcp.example.com", "mcp.example.com:8080", "MCP.example.com"] {
        let reply = server.initialize_with(1, &[("Host", host)]).await;
        assert_eq!(reply.status, 200, "{host}: {reply:?}");
    }
    for host in ["other.example.com", "mcp.example.com.evil.example"] {
        let reply = server.initialize_with(1, &[("Host", host)]).await;
        assert_eq!(reply.status, 403, "{host}: {reply:?}");
    }
    let loopback = server.initialize_with(1, &[("Host", "localhost")]).await;
    assert_eq!(loopback.status, 200, "{loopback:?}");
}

#[tokio::test]
async fn an_empty_token_file_stops_the_server_with_a_clear_error() {
    let file = tempfile_path::TempFile::with("  \n");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_nao-mcp"))
        .args([
            "--demo",
            "--http",
            "127.0.0.1:0",
            "--auth-token-file",
            file.path(),
        ])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bearer token file"), "{stderr}");
    assert!(stderr.contains("no usable token"), "{stderr}");
}

/// A file in the system's temp dir, removed on drop.
mod tempfile_path {
    use std::path::PathBuf;

    pub(crate) struct TempFile(PathBuf);

    impl TempFile {
        pub(crate) fn with(contents: &str) -> Self {
            let unique = format!(
                "nao-mcp-token-{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos()
            );
            let path = std::env::temp_dir().join(unique);
            std::fs::write(&path, contents).unwrap();
            TempFile(path)
        }

        pub(crate) fn path(&self) -> &str {
            self.0.to_str().unwrap()
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}
