//! Stories: versioned Markdown documents that cite stored results through `<chart …/>`,
//! `<table …/>` and `<grid cols=N>…</grid>` tags.
//!
//! - [`Story`] and [`StoryVersion`]: a document and its append-only history.
//! - [`StoryStore`]: where stories live; [`MemoryStoryStore`] here, a durable SQLite store in
//!   `nao-dialects` (`story_store`, feature `sqlite`).
//! - [`scan_tags`] reads the tags of a story with a small bounded scanner (no regex, no panics,
//!   at most [`MAX_STORY_BYTES`]); [`validate_story`] also checks every cited query id against a
//!   [`ResultStore`](crate::ResultStore). Errors carry `line:column` and what to fix.

mod model;
mod store;
mod tags;
mod validate;

pub use model::{MAX_SLUG_CHARS, MAX_TITLE_CHARS, Story, StoryError, StoryVersion, check_slug};
pub use store::{MemoryStoryStore, StoryStore};
pub use tags::{
    ChartTag, MAX_STORY_BYTES, MAX_TAG_ERRORS, StoryTag, TableTag, TagError, TagKind,
    decode_entities, scan_tags,
};
pub use validate::{TagErrors, validate_story};
