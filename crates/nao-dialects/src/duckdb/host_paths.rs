//! Host paths kept out of what the model reads: DuckDB names the database file, its directory
//! and the spill directory in some messages (I/O errors, "failed to offload data block …").

use std::path::Path;

use nao_core::DialectError;

/// Paths of this host with the words that replace them in messages, longest first.
#[derive(Debug, Default)]
pub(super) struct HostPaths(Vec<(String, &'static str)>);

impl HostPaths {
    /// Replaces `path` with `label` wherever a message contains it.
    pub(super) fn add(&mut self, path: &Path, label: &'static str) {
        let text = path.to_string_lossy().into_owned();
        if text.is_empty() || text == "/" {
            return;
        }
        self.0.push((text, label));
        // Longest first, so a file inside a listed directory is named as the file.
        self.0
            .sort_by_key(|(text, _)| std::cmp::Reverse(text.len()));
    }

    /// `message` with every listed path replaced.
    pub(super) fn scrub_text(&self, message: &str) -> String {
        self.0
            .iter()
            .fold(message.to_owned(), |text, (path, label)| {
                text.replace(path.as_str(), label)
            })
    }

    /// `error` with every listed path replaced in its messages. The driver's error
    /// (`source`) keeps the full text for the host's logs; the message the model reads does
    /// not.
    pub(super) fn scrub(&self, error: DialectError) -> DialectError {
        error.map_message(|message| self.scrub_text(message))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_replaced_longest_first() {
        let mut paths = HostPaths::default();
        paths.add(Path::new("/home/me/data"), "<dir>");
        paths.add(Path::new("/home/me/data/shop.duckdb"), "<file>");
        paths.add(Path::new("/"), "<root>");
        let error = DialectError::Engine {
            database: "db".into(),
            message: "IO Error: could not read /home/me/data/shop.duckdb or /home/me/data/x".into(),
            code: None,
            source: None,
        };
        let text = paths.scrub(error).to_string();
        assert_eq!(text, "db: IO Error: could not read <file> or <dir>/x");
    }
}
