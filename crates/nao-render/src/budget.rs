//! How much of a result the renderer may show.

/// Limits on what one rendering shows, so output stays small for the model's context window
/// whatever the result holds.
///
/// Build one from [`RenderBudget::default`] and the `with_*` methods:
///
/// ```
/// use nao_render::RenderBudget;
///
/// let budget = RenderBudget::default().with_max_rows(10).with_max_bytes(4 * 1024);
/// assert_eq!((budget.max_rows, budget.max_cell_chars), (10, 255));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RenderBudget {
    /// Most rows shown in one table (default 40).
    pub max_rows: usize,
    /// Most bytes for the summary line and the table (default 8 KiB). Rows stop before the one
    /// that would pass it; the column header is always shown, and a first row wider than the
    /// whole budget has its cells shortened so that something of it shows. The notices after
    /// the table are not counted: each is short and bounded (the longest, naming hidden
    /// columns, stops at about 1 KiB).
    pub max_bytes: usize,
    /// Most characters of one text, nested or other value (default 255); longer values are cut
    /// in the middle and marked with `…` (nested values that run past it while being written
    /// are cut at the end). Counted in Unicode scalar values, before escaping. Numbers, dates,
    /// times and binary summaries are never cut: they are short, and a cut would misstate them.
    pub max_cell_chars: usize,
    /// Most result columns shown (default 32); the rest are named in a notice.
    pub max_columns: usize,
}

impl RenderBudget {
    /// Default [`max_rows`](Self::max_rows).
    pub const DEFAULT_MAX_ROWS: usize = 40;
    /// Default [`max_bytes`](Self::max_bytes).
    pub const DEFAULT_MAX_BYTES: usize = 8 * 1024;
    /// Default [`max_cell_chars`](Self::max_cell_chars).
    pub const DEFAULT_MAX_CELL_CHARS: usize = 255;
    /// Default [`max_columns`](Self::max_columns).
    pub const DEFAULT_MAX_COLUMNS: usize = 32;

    /// Sets [`max_rows`](Self::max_rows).
    #[must_use]
    pub fn with_max_rows(mut self, max_rows: usize) -> Self {
        self.max_rows = max_rows;
        self
    }

    /// Sets [`max_bytes`](Self::max_bytes).
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// Sets [`max_cell_chars`](Self::max_cell_chars) (at least 1 is used).
    #[must_use]
    pub fn with_max_cell_chars(mut self, max_cell_chars: usize) -> Self {
        self.max_cell_chars = max_cell_chars;
        self
    }

    /// Sets [`max_columns`](Self::max_columns).
    #[must_use]
    pub fn with_max_columns(mut self, max_columns: usize) -> Self {
        self.max_columns = max_columns;
        self
    }
}

impl Default for RenderBudget {
    fn default() -> Self {
        RenderBudget {
            max_rows: Self::DEFAULT_MAX_ROWS,
            max_bytes: Self::DEFAULT_MAX_BYTES,
            max_cell_chars: Self::DEFAULT_MAX_CELL_CHARS,
            max_columns: Self::DEFAULT_MAX_COLUMNS,
        }
    }
}
