//! Column masking of Arrow results, and the opt-in value detector (PII).
//!
//! The guard decides which output columns of a statement carry a masked column's values
//! ([`ReadOnlySql::masked_outputs`](nao_guard::ReadOnlySql::masked_outputs)); the policy
//! layer applies the [`MaskRule`] of each to the Arrow batches with a [`BatchMasker`] before
//! anyone sees them, and marks the masked fields with
//! [`MASKED_FIELD_METADATA`](nao_render::MASKED_FIELD_METADATA) so the renderer tells the
//! reader why. The [`ValueDetector`] looks for personal values in the other text columns.
//!
//! ```
//! use std::sync::Arc;
//! use nao_core::arrow::array::{Array, ArrayRef, Int64Array, StringArray};
//! use nao_core::guard::MaskRule;
//! use nao_core::masking::{MaskKey, mask_array};
//!
//! let key = MaskKey::random()?;
//! let cards: ArrayRef = Arc::new(StringArray::from(vec![Some("4242424242424242"), None]));
//! let shown = mask_array(&cards, MaskRule::Partial { keep_last: 4 }, &key)?;
//! let shown = shown.as_any().downcast_ref::<StringArray>().unwrap();
//! assert_eq!(shown.value(0), "****4242");
//! assert!(shown.is_null(1));
//!
//! // Hashes are by value: the same number gives the same token whatever its integer type.
//! let ids: ArrayRef = Arc::new(Int64Array::from(vec![5, 5, 6]));
//! let hashed = mask_array(&ids, MaskRule::Hash, &key)?;
//! let hashed = hashed.as_any().downcast_ref::<StringArray>().unwrap();
//! assert_eq!(hashed.value(0), hashed.value(1));
//! assert_ne!(hashed.value(0), hashed.value(2));
//! # Ok::<(), nao_core::masking::MaskError>(())
//! ```
//!
//! # Rules
//! - `redact`: every non-NULL value becomes [`REDACTED`] (`[masked]`); NULL stays NULL, as
//!   under every other rule. Whether a value is present is not hidden (the guard allows
//!   `count(column)` and `IS NULL` anyway); a NULL shown as `[masked]` would tell the reader
//!   something false. A host that must hide presence uses `null`.
//! - `hash`: `h:` and 16 hexadecimal digits, the keyed SipHash-2-4 (64-bit output) of the
//!   value's canonical bytes. SipHash-2-4 rather than 1-3: 2-4 is the variant its authors
//!   claim as a pseudorandom function, which is what stops a reader without the
//!   [`MaskKey`] from testing guesses; it hashes a short value in tens of nanoseconds. 64
//!   bits: two different values collide with probability about n²/2⁶⁵ among n distinct
//!   values (below 10⁻⁹ for 100 000), so `GROUP BY` and `COUNT(DISTINCT …)` over masked
//!   values keep their counts. The canonical bytes are by value: the same text hashes the
//!   same in every string type and encoding, integers of every width by value, decimals
//!   normalised, and so on (see the `canonical` module's docs in the source).
//! - `partial`: [`PARTIAL_PREFIX`] (`****`, always four stars, so the length is hidden) and
//!   the last characters ([`partial_text`]: never more than half the value). Non-text
//!   values are written as text by Arrow's display first.
//! - `null`: NULLs of the column's own type.
//!
//! # Untrusted input
//! Values come from databases; nothing here panics on any value of any Arrow type. Work is
//! linear in the size of the values; nested types are followed to at most
//! `MAX_TYPE_DEPTH` (64) levels of type nesting, deeper types are refused with an error.
//! A failure to mask is an error, never the values unmasked.
//!
//! # Performance
//! Hashing writes each value's bytes straight into the hasher and each token into one
//! reused buffer: no allocation per value. Columns that are not masked, and columns where
//! the detector finds nothing, are passed on as the same arrays.

mod array;
mod batch;
mod canonical;
mod detector;
mod error;
mod hash;
mod key;
mod partial;
mod text;

pub use array::{REDACTED, mask_array, masked_type};
pub use batch::{BatchMasker, MaskedColumn};
pub use detector::{Detection, Detections, ValueDetector, ValueKind};
pub use error::MaskError;
pub use hash::HASH_PREFIX;
pub use key::{MIN_PASSPHRASE_BYTES, MaskKey};
pub use nao_guard::MaskRule;
pub use partial::{PARTIAL_PREFIX, partial_text};
