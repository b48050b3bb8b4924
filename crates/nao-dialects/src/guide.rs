//! The guide to writing a database adapter of your own (no items: the text below).
#![doc = include_str!("guide.md")]
// The guide links to the conformance suite, which is documented with its feature (docs.rs and
// CI turn it on); without it those links have no target, and say nothing worse.
#![cfg_attr(not(feature = "conformance"), allow(rustdoc::broken_intra_doc_links))]
