//! What the layer does to the batches of a result: masks, the value detector, and the key
//! hashes are made with.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use arrow_array::RecordBatch;

use crate::DialectError;
use crate::masking::{BatchMasker, Detections, MaskError, MaskKey, ValueDetector};

/// What the layer does to each batch: the masks, then the value detector over the rest.
pub(super) struct Protect {
    pub(super) database: String,
    pub(super) masker: Option<BatchMasker>,
    pub(super) detector: Option<Arc<ValueDetector>>,
    pub(super) found: Arc<Mutex<Detections>>,
}

impl Protect {
    /// One batch, masked and then scanned.
    pub(super) fn batch(&self, batch: RecordBatch) -> Result<RecordBatch, DialectError> {
        let withheld = |e: MaskError| withheld(&self.database, &e);
        let batch = match &self.masker {
            Some(masker) => masker.mask_batch(&batch).map_err(withheld)?,
            None => batch,
        };
        let Some(detector) = &self.detector else {
            return Ok(batch);
        };
        let (batch, found) = detector.scan_batch(&batch).map_err(withheld)?;
        if !found.is_empty() {
            self.found
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .merge(found);
        }
        Ok(batch)
    }
}

/// A masking failure: the result is withheld rather than shown unmasked.
pub(super) fn withheld(database: &str, error: &MaskError) -> DialectError {
    DialectError::Engine {
        database: database.to_owned(),
        message: format!("the result was withheld because it could not be masked: {error}"),
        code: None,
        source: None,
    }
}

/// This process's random masking key, made once: hashes agree across every result and
/// context of the process, and nowhere else.
pub(super) fn process_key() -> Result<MaskKey, MaskError> {
    static KEY: OnceLock<Result<MaskKey, String>> = OnceLock::new();
    match KEY.get_or_init(|| MaskKey::random().map_err(|e| e.to_string())) {
        Ok(key) => Ok(key.clone()),
        Err(message) => Err(MaskError::Randomness {
            message: message.clone(),
        }),
    }
}
