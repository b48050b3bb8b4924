//! A `nao-mcp --demo` child process spoken to over stdio, for the tests that need a real
//! process (robustness, disconnects, shutdown).
#![allow(dead_code)] // Each test file uses part of it.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Generous: only a hang trips it, it is not a performance threshold.
pub(crate) const WAIT: Duration = Duration::from_secs(60);

/// The server process, initialized.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) stdin: Option<ChildStdin>,
    pub(crate) lines: Option<Lines<BufReader<ChildStdout>>>,
}

impl Server {
    /// `nao-mcp --demo EXTRA…`, after the initialize handshake.
    pub(crate) async fn start(extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_nao-mcp"))
            .arg("--demo")
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the binary starts");
        let stdin = child.stdin.take();
        let lines = Some(BufReader::new(child.stdout.take().unwrap()).lines());
        let mut server = Server {
            child,
            stdin,
            lines,
        };
        server
            .send(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "robustness", "version": "0"}}}),
            )
            .await;
        let init = server.response(0).await;
        assert!(init.get("result").is_some(), "{init}");
        server
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        server
    }

    /// Sends one line.
    pub(crate) async fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// How the process ended (it has closed its stdout) and what it wrote to stderr.
    pub(crate) async fn exit_report(&mut self) -> (String, String) {
        let status = match tokio::time::timeout(WAIT, self.child.wait()).await {
            Ok(Ok(status)) => format!("exited: {status}"),
            Ok(Err(e)) => format!("could not be waited for: {e}"),
            Err(_) => "closed its stdout but did not exit".to_owned(),
        };
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            let _ = tokio::time::timeout(WAIT, pipe.read_to_string(&mut stderr)).await;
        }
        (status, stderr)
    }

    /// Sends one message.
    pub(crate) async fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string()).await;
    }

    /// The response with this id, skipping notifications and other ids.
    pub(crate) async fn response(&mut self, id: i64) -> Value {
        loop {
            let lines = self.lines.as_mut().expect("stdout is read");
            let line = tokio::time::timeout(WAIT, lines.next_line())
                .await
                .expect("the server answers")
                .unwrap();
            let Some(line) = line else {
                let (status, stderr) = self.exit_report().await;
                panic!(
                    "stdout closed waiting for answer {id}: the server {status}; its stderr:\n{stderr}"
                );
            };
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout holds only JSON-RPC ({e}): {line}"));
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// A tools/list answered: the server is serving.
    pub(crate) async fn ping(&mut self, id: i64) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}))
            .await;
        let answer = self.response(id).await;
        assert!(answer["result"]["tools"].is_array(), "{answer}");
    }

    /// Closes stdin and checks the process exits with success and without a panic.
    pub(crate) async fn finish(mut self) -> String {
        drop(self.stdin.take());
        let (status, stderr) = self.exit().await;
        assert!(status.success(), "exit {status:?}; stderr:\n{stderr}");
        stderr
    }

    /// Waits for the process to exit (it must, within [`WAIT`]) and returns its status and
    /// its stderr, which must hold no panic.
    pub(crate) async fn exit(&mut self) -> (std::process::ExitStatus, String) {
        let status = tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("the server exits")
            .unwrap();
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            pipe.read_to_string(&mut stderr).await.unwrap();
        }
        assert!(!stderr.contains("panicked"), "{stderr}");
        (status, stderr)
    }

    /// Closes both pipes, as a client that goes away does.
    pub(crate) fn hang_up(&mut self) {
        drop(self.stdin.take());
        drop(self.lines.take());
    }

    /// Sends SIGTERM.
    pub(crate) fn terminate(&self) {
        let pid = self.child.id().expect("running").to_string();
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap();
        assert!(sent.success());
    }
}
