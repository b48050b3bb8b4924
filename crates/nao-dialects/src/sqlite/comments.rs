//! Table and column comments, read from (and written into) a table's `CREATE TABLE` text:
//! SQLite has no `COMMENT ON`, but keeps each statement verbatim in `sqlite_schema.sql`,
//! comments included.
//!
//! The convention, common in hand-written SQLite schemas:
//! ```sql
//! CREATE TABLE orders ( -- One row per order.
//!   id INTEGER PRIMARY KEY, -- the order number
//!   -- what the customer paid, after discount
//!   total DECIMAL(12, 2)
//! )
//! ```
//! A comment on the line of the opening parenthesis, before any column, describes the table;
//! one on the line of a column's definition (before or after its comma) describes that column;
//! comment lines of their own describe the column that follows them. `--` and `/* */` are both
//! read; table constraints (`PRIMARY KEY (…)`, `CHECK`, …) take no comment.

/// The comments found in one `CREATE TABLE` text.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Comments {
    /// The table's comment.
    pub(crate) table: Option<String>,
    /// Column comments, by column name as written (unquoted), in definition order.
    pub(crate) columns: Vec<(String, String)>,
}

impl Comments {
    /// The comment of column `name` (compared case-insensitively, as SQLite does).
    pub(crate) fn column(&self, name: &str) -> Option<&str> {
        self.columns
            .iter()
            .find(|(column, _)| column.eq_ignore_ascii_case(name))
            .map(|(_, comment)| comment.as_str())
    }
}

/// Where a comment goes.
enum Target {
    Table,
    Definition(usize),
    /// The next definition that has text.
    Next,
}

/// Reads the comments of a `CREATE TABLE` text. Never fails: text it does not understand
/// yields fewer comments.
pub(crate) fn parse(sql: &str) -> Comments {
    let mut scanner = Scanner::default();
    let chars: Vec<char> = sql.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '-' if next == Some('-') => {
                let end = chars[i..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(chars.len(), |p| i + p);
                scanner.comment(chars[i + 2..end].iter().collect());
                i = end;
                continue;
            }
            '/' if next == Some('*') => {
                let end = find(&chars, i + 2, &['*', '/']).unwrap_or(chars.len());
                scanner.comment(chars[i + 2..end].iter().collect());
                // A block comment spanning lines ends on a later line.
                if chars[i..end].contains(&'\n') {
                    scanner.newline();
                }
                i = (end + 2).min(chars.len());
                continue;
            }
            '\'' | '"' | '`' | '[' => {
                let close = if c == '[' { ']' } else { c };
                let end = find(&chars, i + 1, &[close]).unwrap_or(chars.len());
                scanner.text(&chars[i..(end + 1).min(chars.len())]);
                if chars[i..end.min(chars.len())].contains(&'\n') {
                    scanner.newline();
                }
                // A doubled quote is an escaped quote: the scan goes on inside the same
                // literal, which the next match reads as a new one; names stay whole either
                // way for a column's first token.
                i = end + 1;
                continue;
            }
            '\n' => {
                scanner.space();
                scanner.newline();
            }
            '(' => scanner.open(),
            ')' => scanner.close(),
            ',' => scanner.comma(),
            c if c.is_whitespace() => scanner.space(),
            _ => scanner.text(&[c]),
        }
        i += 1;
    }
    scanner.finish()
}

/// The index where `pattern` starts at or after `from`.
fn find(chars: &[char], from: usize, pattern: &[char]) -> Option<usize> {
    (from..chars.len()).find(|&i| chars[i..].starts_with(pattern))
}

#[derive(Default)]
struct Scanner {
    depth: usize,
    /// Whether the column list has been entered (and not left).
    in_columns: bool,
    /// Whether this line holds the opening parenthesis of the column list.
    opening_line: bool,
    /// The definition with text on this line, if any.
    line_definition: Option<usize>,
    /// Each definition's text so far (enough to read its name), and its comments.
    definitions: Vec<(String, Vec<String>)>,
    /// Comment lines waiting for the next definition.
    pending: Vec<String>,
    table: Vec<String>,
}

impl Scanner {
    fn columns_open(&self) -> bool {
        self.in_columns && self.depth >= 1
    }

    fn newline(&mut self) {
        self.opening_line = false;
        self.line_definition = None;
    }

    fn open(&mut self) {
        self.depth += 1;
        if self.depth == 1 && !self.in_columns && self.definitions.is_empty() {
            self.in_columns = true;
            self.opening_line = true;
            self.definitions.push(Default::default());
        } else if self.columns_open() {
            self.text(&['(']);
        }
    }

    fn close(&mut self) {
        if self.columns_open() && self.depth > 1 {
            self.text(&[')']);
        }
        self.depth = self.depth.saturating_sub(1);
        if self.depth == 0 {
            self.in_columns = false;
        }
    }

    fn comma(&mut self) {
        if self.columns_open() && self.depth == 1 {
            self.definitions.push(Default::default());
        } else {
            self.text(&[',']);
        }
    }

    fn text(&mut self, text: &[char]) {
        if !self.columns_open() {
            return;
        }
        let index = self.definitions.len() - 1;
        let (definition, comments) = &mut self.definitions[index];
        if definition.is_empty() {
            comments.append(&mut self.pending);
        }
        definition.extend(text);
        self.line_definition = Some(index);
    }

    /// Separates words of the current definition (so its first token ends).
    fn space(&mut self) {
        let open = self.columns_open();
        if let Some((definition, _)) = self.definitions.last_mut()
            && open
            && !definition.is_empty()
            && !definition.ends_with(' ')
        {
            definition.push(' ');
        }
    }

    fn comment(&mut self, text: String) {
        if !self.columns_open() {
            return;
        }
        let text = text.trim().trim_end_matches("*/").trim().to_owned();
        if text.is_empty() {
            return;
        }
        let target = match (self.line_definition, self.opening_line) {
            (Some(index), _) => Target::Definition(index),
            (None, true) => Target::Table,
            (None, false) => Target::Next,
        };
        match target {
            Target::Table => self.table.push(text),
            Target::Definition(index) => self.definitions[index].1.push(text),
            Target::Next => self.pending.push(text),
        }
    }

    fn finish(self) -> Comments {
        let columns = self
            .definitions
            .into_iter()
            .filter(|(_, comments)| !comments.is_empty())
            .filter_map(|(definition, comments)| {
                column_name(&definition).map(|name| (name, comments.join(" ")))
            })
            .collect();
        Comments {
            table: (!self.table.is_empty()).then(|| self.table.join(" ")),
            columns,
        }
    }
}

/// The column a definition names: its first token, unquoted; `None` for table constraints.
fn column_name(definition: &str) -> Option<String> {
    let definition = definition.trim_start();
    let first = definition.chars().next()?;
    let (open, close) = match first {
        '"' => ('"', '"'),
        '`' => ('`', '`'),
        '[' => ('[', ']'),
        '\'' => ('\'', '\''),
        _ => {
            let word: String = definition
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            let constraint = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]
                .iter()
                .any(|k| k.eq_ignore_ascii_case(&word));
            return (!word.is_empty() && !constraint).then_some(word);
        }
    };
    let inner = &definition[open.len_utf8()..];
    let mut name = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == close {
            // A doubled closing quote is one quote character in the name.
            if close != ']' && chars.next_if_eq(&close).is_some() {
                name.push(close);
                continue;
            }
            return Some(name);
        }
        name.push(c);
    }
    None
}

/// The `CREATE TABLE` text for `columns` (each `"name" TYPE …` as SQL), with `table_comment`
/// and `column_comments` written the way [`parse`] reads them. Line breaks in comments become
/// spaces.
pub(crate) fn create_table_sql(
    quoted_table: &str,
    columns: &[(&str, String)],
    table_comment: Option<&str>,
    column_comments: &[(&str, &str)],
) -> String {
    let one_line = |text: &str| text.replace(['\n', '\r'], " ");
    let mut sql = format!("CREATE TABLE {quoted_table} (");
    if let Some(comment) = table_comment {
        sql.push_str(&format!(" -- {}", one_line(comment)));
    }
    for (i, (name, definition)) in columns.iter().enumerate() {
        let comma = if i + 1 < columns.len() { "," } else { "" };
        sql.push_str(&format!("\n  {definition}{comma}"));
        if let Some((_, comment)) = column_comments.iter().find(|(c, _)| c == name) {
            sql.push_str(&format!(" -- {}", one_line(comment)));
        }
    }
    sql.push_str("\n)");
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_convention_reads_back() {
        let comments = parse(
            "CREATE TABLE orders ( -- One row per order.\n\
               id INTEGER PRIMARY KEY, -- the order number\n\
               -- what the customer paid,\n\
               -- after discount\n\
               total DECIMAL(12, 2) CHECK (total >= 0),\n\
               \"note, with \"\"quotes\"\"\" TEXT DEFAULT 'a -- b, c' /* free text */\n\
               , PRIMARY KEY (id) -- constraints take none\n\
             )",
        );
        assert_eq!(
            comments.table.as_deref(),
            Some("One row per order."),
            "{comments:?}"
        );
        assert_eq!(
            comments.column("ID"),
            Some("the order number"),
            "{comments:?}"
        );
        assert_eq!(
            comments.column("total"),
            Some("what the customer paid, after discount")
        );
        assert_eq!(comments.column("note, with \"quotes\""), Some("free text"));
        assert_eq!(comments.columns.len(), 3);
    }

    #[test]
    fn schemas_without_comments_or_odd_ones_give_none() {
        assert_eq!(parse("CREATE TABLE t (a, b)"), Comments::default());
        assert_eq!(parse(""), Comments::default());
        assert_eq!(
            parse("CREATE TABLE t (a -- no end").column("a"),
            Some("no end")
        );
        for odd in ["((((", "))))", "'", "/*", "CREATE TABLE [t (", "--\n--"] {
            let _ = parse(odd);
        }
    }

    /// Random texts of the characters that steer the scanner: no panic, and every comment
    /// read is text the input holds.
    #[test]
    fn any_text_is_read_without_panicking() {
        let alphabet: Vec<char> = "()[]\"'`,-/* \nabcT\u{e9}\u{1F600}".chars().collect();
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        let mut read = 0;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 40) as usize;
            let text: String = (0..len)
                .map(|i| alphabet[((state >> (i % 48)) as usize + i * 7) % alphabet.len()])
                .collect();
            let sql = format!("CREATE TABLE t ({text}");
            let comments = parse(&sql);
            let table = comments.table.iter();
            for comment in table.chain(comments.columns.iter().map(|(_, c)| c)) {
                assert!(!comment.is_empty(), "{sql:?}");
                read += 1;
                for word in comment.split(' ') {
                    assert!(sql.contains(word), "{sql:?} does not hold {word:?}");
                }
            }
        }
        assert!(
            read > 200,
            "only {read} comments read: the texts are too tame"
        );
    }

    #[test]
    fn what_is_written_is_read() {
        let sql = create_table_sql(
            "\"orders\"",
            &[
                ("id", "\"id\" INTEGER NOT NULL".into()),
                ("total", "\"total\" DECIMAL(12,2)".into()),
                ("status", "\"status\" TEXT".into()),
            ],
            Some("One row per order;\nsee payments."),
            &[
                ("total", "paid, after discount"),
                ("status", "placed -- or shipped"),
            ],
        );
        let comments = parse(&sql);
        assert_eq!(
            comments.table.as_deref(),
            Some("One row per order; see payments.")
        );
        assert_eq!(comments.column("id"), None);
        assert_eq!(comments.column("total"), Some("paid, after discount"));
        assert_eq!(comments.column("status"), Some("placed -- or shipped"));
    }
}
