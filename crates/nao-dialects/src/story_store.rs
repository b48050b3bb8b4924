//! A durable [`StoryStore`] in a SQLite file: WAL journal, `synchronous=FULL`, and each version
//! one INSERT in its own transaction, so a version whose write returned `Ok` survives a crash
//! (even `kill -9`) of the process.

use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use nao_core::story::{Story, StoryError, StoryStore, StoryVersion, check_slug};
use rusqlite::{Connection, TransactionBehavior, params};

/// Stories in a SQLite file, one row per version (append-only).
#[derive(Debug)]
pub struct SqliteStoryStore {
    conn: Mutex<Connection>,
}

fn storage(what: &str, e: rusqlite::Error) -> StoryError {
    StoryError::Storage {
        message: format!("{what}: {e}"),
        source: Some(Box::new(e)),
    }
}

fn now_millis() -> Option<u64> {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|d| u64::try_from(d.as_millis()).ok())
}

impl SqliteStoryStore {
    /// Opens (or creates) the store at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoryError> {
        let conn = Connection::open(path).map_err(|e| storage("opening the story store", e))?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL;
             PRAGMA synchronous=FULL;
             PRAGMA busy_timeout=5000;
             CREATE TABLE IF NOT EXISTS story_versions (
                 story_id TEXT NOT NULL,
                 number INTEGER NOT NULL,
                 title TEXT NOT NULL,
                 code TEXT NOT NULL,
                 created_at INTEGER,
                 PRIMARY KEY (story_id, number)
             ) WITHOUT ROWID;",
        )
        .map_err(|e| storage("setting up the story store", e))?;
        Ok(SqliteStoryStore {
            conn: Mutex::new(conn),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Appends version `latest + 1`; `expect_new` says whether the story must not exist yet.
    fn append(
        &self,
        id: &str,
        title: &str,
        code: &str,
        expect_new: bool,
    ) -> Result<StoryVersion, StoryError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| storage("starting a transaction", e))?;
        let latest: Option<u32> = tx
            .query_row(
                "SELECT MAX(number) FROM story_versions WHERE story_id = ?1",
                params![id],
                |row| row.get(0),
            )
            .map_err(|e| storage("reading the latest version", e))?;
        match (latest, expect_new) {
            (Some(latest), true) => {
                return Err(StoryError::AlreadyExists {
                    id: id.to_owned(),
                    latest,
                });
            }
            (None, false) => return Err(StoryError::NotFound { id: id.to_owned() }),
            _ => {}
        }
        let number = latest.map_or(1, |n| n.saturating_add(1));
        let created_at = now_millis();
        tx.execute(
            "INSERT INTO story_versions (story_id, number, title, code, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, number, title, code, created_at.map(|t| t as i64)],
        )
        .map_err(|e| storage("saving the version", e))?;
        tx.commit()
            .map_err(|e| storage("committing the version", e))?;
        Ok(StoryVersion::new(number, title, code, created_at))
    }

    fn read(&self, id: &str, latest_only: bool) -> Result<Vec<StoryVersion>, StoryError> {
        let conn = self.lock();
        let sql = if latest_only {
            "SELECT number, title, code, created_at FROM story_versions WHERE story_id = ?1 \
             ORDER BY number DESC LIMIT 1"
        } else {
            "SELECT number, title, code, created_at FROM story_versions WHERE story_id = ?1 \
             ORDER BY number"
        };
        let mut stmt = conn
            .prepare_cached(sql)
            .map_err(|e| storage("reading versions", e))?;
        let rows = stmt
            .query_map(params![id], |row| {
                let created_at: Option<i64> = row.get(3)?;
                Ok(StoryVersion::new(
                    row.get(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    created_at.and_then(|t| u64::try_from(t).ok()),
                ))
            })
            .map_err(|e| storage("reading versions", e))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(|e| storage("reading versions", e))
    }
}

impl StoryStore for SqliteStoryStore {
    fn create(&self, id: &str, title: &str, code: &str) -> Result<StoryVersion, StoryError> {
        check_slug(id)?;
        self.append(id, title, code, true)
    }

    fn get(&self, id: &str) -> Result<Option<Story>, StoryError> {
        let versions = self.read(id, false)?;
        Ok((!versions.is_empty()).then(|| Story::new(id, versions)))
    }

    fn latest(&self, id: &str) -> Result<Option<StoryVersion>, StoryError> {
        Ok(self.read(id, true)?.pop())
    }

    fn versions(&self, id: &str) -> Result<Vec<StoryVersion>, StoryError> {
        self.read(id, false)
    }

    fn save_version(&self, id: &str, title: &str, code: &str) -> Result<StoryVersion, StoryError> {
        self.append(id, title, code, false)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    use super::*;

    const CHILD_ENV: &str = "NAO_STORY_STORE_CHILD_DB";

    fn code_of(n: u32) -> String {
        format!(
            "# version {n}\n{}",
            "lorem ipsum ".repeat(200 + (n as usize % 50))
        )
    }

    fn temp_path(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "nao-story-{name}-{}-{}",
            std::process::id(),
            now_millis().unwrap_or(0)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("stories.db")
    }

    #[test]
    fn versions_round_trip() {
        let path = temp_path("round-trip");
        let store = SqliteStoryStore::open(&path).unwrap();
        assert_eq!(store.create("s", "S", "one").unwrap().number, 1);
        assert!(matches!(
            store.create("s", "S", "again"),
            Err(StoryError::AlreadyExists { latest: 1, .. })
        ));
        assert!(matches!(
            store.save_version("nope", "N", "x"),
            Err(StoryError::NotFound { .. })
        ));
        assert_eq!(store.save_version("s", "S2", "two").unwrap().number, 2);
        drop(store);
        let store = SqliteStoryStore::open(&path).unwrap();
        let story = store.get("s").unwrap().unwrap();
        assert_eq!(story.title, "S2");
        let codes: Vec<&str> = story.versions.iter().map(|v| v.code.as_str()).collect();
        assert_eq!(codes, ["one", "two"]);
        assert_eq!(store.latest("s").unwrap().unwrap().number, 2);
        assert!(store.get("nope").unwrap().is_none());
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
    }

    /// Runs only as the child of `acknowledged_versions_survive_kill_9`: writes versions until
    /// killed, printing each number once its write returned.
    #[test]
    fn durability_child_writer() {
        let Ok(path) = std::env::var(CHILD_ENV) else {
            return;
        };
        let store = SqliteStoryStore::open(&path).unwrap();
        store.create("durable", "Durable", &code_of(1)).unwrap();
        let mut out = std::io::stdout();
        writeln!(out, "ack 1").unwrap();
        out.flush().unwrap();
        for n in 2..1_000_000u32 {
            let v = store
                .save_version("durable", "Durable", &code_of(n))
                .unwrap();
            assert_eq!(v.number, n);
            writeln!(out, "ack {n}").unwrap();
            out.flush().unwrap();
        }
    }

    #[test]
    fn acknowledged_versions_survive_kill_9() {
        if std::env::var(CHILD_ENV).is_ok() {
            return;
        }
        let path = temp_path("durability");
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "story_store::tests::durability_child_writer",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, &path)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut acked = Vec::new();
        for line in lines.by_ref() {
            let line = line.unwrap();
            if let Some(n) = line.strip_prefix("ack ") {
                acked.push(n.parse::<u32>().unwrap());
                if acked.len() == 40 {
                    child.kill().unwrap(); // SIGKILL on Unix
                    break;
                }
            }
        }
        // Lines printed before the kill are acknowledged versions too.
        for line in lines.map_while(Result::ok) {
            if let Some(n) = line.strip_prefix("ack ") {
                acked.push(n.parse::<u32>().unwrap());
            }
        }
        child.wait().unwrap();
        assert!(acked.len() >= 40, "the child acknowledged {acked:?}");
        let store = SqliteStoryStore::open(&path).unwrap();
        let versions = store.versions("durable").unwrap();
        for n in &acked {
            let v = versions
                .iter()
                .find(|v| v.number == *n)
                .unwrap_or_else(|| panic!("acknowledged version {n} was lost"));
            assert_eq!(v.code, code_of(*n), "version {n} is not intact");
        }
        // Numbering has no holes.
        for (i, v) in versions.iter().enumerate() {
            assert_eq!(v.number as usize, i + 1);
        }
        drop(store);
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
    }
}
