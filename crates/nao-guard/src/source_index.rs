//! Byte offsets of sqlparser's locations (1-based line and column, counted in characters).
//!
//! [`crate::lexical::byte_offset`] walks the text for each look-up; the steps that look up every
//! token or every literal use this index instead, so that they stay linear in the text.

use sqlparser::tokenizer::Location;

/// Line starts of a text and, when it is not all ASCII, the byte offset of every character.
pub(crate) struct SourceIndex<'a> {
    sql: &'a str,
    /// The byte offset where each line starts (lines end at `\n`, as sqlparser counts them).
    line_starts: Vec<usize>,
    /// For text that is not all ASCII: per line, the index in `char_offsets` of its first
    /// character; and the byte offset of every character, plus one past the last.
    chars: Option<(Vec<usize>, Vec<usize>)>,
}

impl<'a> SourceIndex<'a> {
    /// Indexes `sql` in one pass.
    pub(crate) fn new(sql: &'a str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(sql.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let chars = (!sql.is_ascii()).then(|| {
            let mut line_first_char = vec![0];
            let mut char_offsets = Vec::with_capacity(sql.len() + 1);
            for (i, (offset, ch)) in sql.char_indices().enumerate() {
                char_offsets.push(offset);
                if ch == '\n' {
                    line_first_char.push(i + 1);
                }
            }
            char_offsets.push(sql.len());
            (line_first_char, char_offsets)
        });
        SourceIndex {
            sql,
            line_starts,
            chars,
        }
    }

    /// The text this index was built for.
    pub(crate) fn sql(&self) -> &'a str {
        self.sql
    }

    /// The byte offset of `at`, or `None` when it lies outside the text (an empty span's
    /// location is line 0).
    pub(crate) fn offset(&self, at: Location) -> Option<usize> {
        let line = usize::try_from(at.line).ok()?.checked_sub(1)?;
        let column = usize::try_from(at.column).ok()?.checked_sub(1)?;
        let line_start = *self.line_starts.get(line)?;
        let line_end = self
            .line_starts
            .get(line + 1)
            .map_or(self.sql.len(), |next| next - 1);
        let offset = match &self.chars {
            None => line_start.checked_add(column)?,
            Some((line_first_char, char_offsets)) => {
                *char_offsets.get(line_first_char.get(line)?.checked_add(column)?)?
            }
        };
        // The line's end (its `\n`, or the end of the text) is a location too: where a token ends.
        (offset <= line_end).then_some(offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u64, column: u64) -> Location {
        Location { line, column }
    }

    #[test]
    fn ascii_and_unicode_texts_give_the_same_offsets_as_a_walk() {
        for sql in [
            "SELECT 1\nFROM t\r\nWHERE x",
            "SELECT 'é'\nFROM 日本\n\nx",
            "",
        ] {
            let index = SourceIndex::new(sql);
            let mut line = 1;
            let mut column = 1;
            for (offset, ch) in sql.char_indices() {
                assert_eq!(index.offset(at(line, column)), Some(offset), "{sql:?}");
                assert_eq!(crate::lexical::byte_offset(sql, at(line, column)), offset);
                if ch == '\n' {
                    line += 1;
                    column = 1;
                } else {
                    column += 1;
                }
            }
            assert_eq!(index.offset(at(line, column)), Some(sql.len()));
        }
    }

    #[test]
    fn locations_outside_the_text_have_no_offset() {
        let index = SourceIndex::new("ab\ncd");
        assert_eq!(index.offset(at(0, 0)), None);
        assert_eq!(index.offset(at(3, 1)), None);
        assert_eq!(index.offset(at(2, 9)), None);
        assert_eq!(index.offset(at(1, 3)), Some(2));
        let index = SourceIndex::new("é\nx");
        assert_eq!(index.offset(at(1, 9)), None);
        assert_eq!(index.offset(at(2, 2)), Some(4));
    }
}
