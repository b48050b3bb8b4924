//! The story store trait and the in-memory store.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Story, StoryError, StoryVersion, check_slug};

/// Where stories and their versions live. Object-safe: share one as `Arc<dyn StoryStore>`.
///
/// Calls are synchronous and short (one small read or one append); a store that must wait on
/// the network should keep its own runtime or cache. Versions are append-only: every write
/// makes a new one, numbered one more than the latest, and an acknowledged version (a write
/// that returned `Ok`) must be readable afterwards.
pub trait StoryStore: Send + Sync + fmt::Debug {
    /// Creates story `id` with its first version. Fails with [`StoryError::AlreadyExists`] if
    /// the id is taken.
    fn create(&self, id: &str, title: &str, code: &str) -> Result<StoryVersion, StoryError>;

    /// The story with every version, or `None`.
    fn get(&self, id: &str) -> Result<Option<Story>, StoryError>;

    /// The latest version of story `id`, or `None` if there is no such story.
    fn latest(&self, id: &str) -> Result<Option<StoryVersion>, StoryError>;

    /// Every version of story `id`, oldest first; empty if there is no such story.
    fn versions(&self, id: &str) -> Result<Vec<StoryVersion>, StoryError>;

    /// Appends a version to an existing story and returns it. Fails with
    /// [`StoryError::NotFound`] if there is no such story.
    fn save_version(&self, id: &str, title: &str, code: &str) -> Result<StoryVersion, StoryError>;
}

/// The current time in milliseconds since the Unix epoch (for `created_at`).
pub(crate) fn now_millis() -> Option<u64> {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|d| u64::try_from(d.as_millis()).ok())
}

/// Stories in memory, lost when the process ends: the default of a
/// [`ToolContext`](crate::ToolContext), and the store for tests.
#[derive(Debug, Default)]
pub struct MemoryStoryStore {
    stories: Mutex<BTreeMap<String, Vec<StoryVersion>>>,
}

impl MemoryStoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStoryStore::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Vec<StoryVersion>>> {
        self.stories
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl StoryStore for MemoryStoryStore {
    fn create(&self, id: &str, title: &str, code: &str) -> Result<StoryVersion, StoryError> {
        check_slug(id)?;
        let mut stories = self.lock();
        if let Some(versions) = stories.get(id) {
            return Err(StoryError::AlreadyExists {
                id: id.to_owned(),
                latest: versions.last().map_or(0, |v| v.number),
            });
        }
        let version = StoryVersion::new(1, title, code, now_millis());
        stories.insert(id.to_owned(), vec![version.clone()]);
        Ok(version)
    }

    fn get(&self, id: &str) -> Result<Option<Story>, StoryError> {
        Ok(self
            .lock()
            .get(id)
            .map(|versions| Story::new(id, versions.clone())))
    }

    fn latest(&self, id: &str) -> Result<Option<StoryVersion>, StoryError> {
        Ok(self.lock().get(id).and_then(|v| v.last().cloned()))
    }

    fn versions(&self, id: &str) -> Result<Vec<StoryVersion>, StoryError> {
        Ok(self.lock().get(id).cloned().unwrap_or_default())
    }

    fn save_version(&self, id: &str, title: &str, code: &str) -> Result<StoryVersion, StoryError> {
        let mut stories = self.lock();
        let versions = stories
            .get_mut(id)
            .ok_or_else(|| StoryError::NotFound { id: id.to_owned() })?;
        let number = versions.last().map_or(1, |v| v.number.saturating_add(1));
        let version = StoryVersion::new(number, title, code, now_millis());
        versions.push(version.clone());
        Ok(version)
    }
}
