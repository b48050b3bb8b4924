//! The story types and their errors.

use serde::Serialize;

use crate::BoxError;

/// The longest story id, in characters.
pub const MAX_SLUG_CHARS: usize = 64;
/// The longest story title, in characters.
pub const MAX_TITLE_CHARS: usize = 200;

/// A story: its id, its current title and its versions, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Story {
    /// The slug that names it (`q3-revenue-review`).
    pub id: String,
    /// The title of its latest version.
    pub title: String,
    /// Every version, numbered from 1, oldest first.
    pub versions: Vec<StoryVersion>,
}

impl Story {
    /// A story from its versions (the title is the latest version's).
    pub fn new(id: impl Into<String>, versions: Vec<StoryVersion>) -> Self {
        let title = versions.last().map(|v| v.title.clone()).unwrap_or_default();
        Story {
            id: id.into(),
            title,
            versions,
        }
    }

    /// The latest version.
    pub fn latest(&self) -> Option<&StoryVersion> {
        self.versions.last()
    }
}

/// One saved version of a story. Versions are never changed once saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct StoryVersion {
    /// Its number: 1 for the first, then one more for each write.
    pub number: u32,
    /// The story's title as of this version.
    pub title: String,
    /// The Markdown, with its tags.
    pub code: String,
    /// When it was saved, in milliseconds since the Unix epoch, when the store keeps it.
    pub created_at: Option<u64>,
}

impl StoryVersion {
    /// A version.
    pub fn new(
        number: u32,
        title: impl Into<String>,
        code: impl Into<String>,
        created_at: Option<u64>,
    ) -> Self {
        StoryVersion {
            number,
            title: title.into(),
            code: code.into(),
            created_at,
        }
    }
}

/// What went wrong in a [`StoryStore`](super::StoryStore).
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum StoryError {
    /// No story has this id.
    #[error("there is no story {id:?}; create it with action \"create\"")]
    NotFound {
        /// The id.
        id: String,
    },
    /// `create` was called for an id that exists.
    #[error(
        "a story {id:?} already exists (version {latest}); use action \"update\" or \"replace\" \
         to change it, or pick another id"
    )]
    AlreadyExists {
        /// The id.
        id: String,
        /// Its latest version number.
        latest: u32,
    },
    /// The id is not a slug.
    #[error("{message}")]
    InvalidId {
        /// What is wrong and what to use instead.
        message: String,
    },
    /// The storage failed.
    #[error("story storage failed: {message}")]
    Storage {
        /// What failed.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<BoxError>,
    },
}

/// Checks that `id` is a slug: 1 to [`MAX_SLUG_CHARS`] lowercase ASCII letters, digits and
/// single hyphens, starting and ending with a letter or digit.
pub fn check_slug(id: &str) -> Result<(), StoryError> {
    let bad = |why: &str| StoryError::InvalidId {
        message: format!(
            "story id {} is not a slug: {why}. Use lowercase letters, digits and single \
             hyphens, such as \"q3-revenue-review\"",
            nao_render::quoted(id, 80)
        ),
    };
    if id.is_empty() {
        return Err(bad("it is empty"));
    }
    if id.chars().count() > MAX_SLUG_CHARS {
        return Err(bad(&format!(
            "it is longer than {MAX_SLUG_CHARS} characters"
        )));
    }
    if let Some(c) = id
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Err(bad(&format!(
            "it contains {}",
            nao_render::quoted(c.encode_utf8(&mut [0; 4]), 1)
        )));
    }
    if id.starts_with('-') || id.ends_with('-') || id.contains("--") {
        return Err(bad("hyphens must be single and between letters or digits"));
    }
    Ok(())
}
