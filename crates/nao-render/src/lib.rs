//! Model-ready Markdown from Arrow results (being written).
