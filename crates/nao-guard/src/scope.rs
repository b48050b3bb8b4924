//! Which names are common table expressions at each point of a query.
//!
//! A name that a CTE defines is not a table, but only where that CTE is visible: inside its own
//! body only when `WITH RECURSIVE`, in later CTEs of the same `WITH`, in the query body, and in
//! nested subqueries. `WITH orders AS (SELECT * FROM orders) …` reads the real table `orders`.

use sqlparser::ast::{Ident, ObjectName, Query};

/// The CTE scopes of the query being walked, built as the walker enters and leaves queries.
#[derive(Debug, Default)]
pub(crate) struct CteScopes {
    /// Every CTE name seen, in order; frames refer to ranges of it.
    names: Vec<Ident>,
    frames: Vec<Frame>,
    /// The frame in force in each query being walked, innermost last (`None`: no CTE visible).
    active: Vec<Option<usize>>,
    /// CTE bodies not entered yet: (address of the body, the frame in force inside it).
    pending: Vec<(usize, Option<usize>)>,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    start: usize,
    len: usize,
    parent: Option<usize>,
}

impl CteScopes {
    /// Enters `query`: its CTEs become visible in its body, and each CTE body gets the frame
    /// that the SQL scoping rules give it.
    ///
    /// `implicitly_recursive`: the dialect makes every CTE visible in its own body, with or
    /// without `RECURSIVE` (T-SQL, Snowflake).
    pub(crate) fn enter_query(&mut self, query: &Query, implicitly_recursive: bool) {
        let here = std::ptr::from_ref(query) as usize;
        let parent = match self.pending.iter().position(|&(body, _)| body == here) {
            Some(i) => self.pending.swap_remove(i).1,
            None => self.active.last().copied().flatten(),
        };
        let Some(with) = &query.with else {
            self.active.push(parent);
            return;
        };
        let start = self.names.len();
        self.names
            .extend(with.cte_tables.iter().map(|cte| cte.alias.name.clone()));
        let count = with.cte_tables.len();
        let full = self.push_frame(start, count, parent);
        for (i, cte) in with.cte_tables.iter().enumerate() {
            let frame = if with.recursive || implicitly_recursive {
                full
            } else if i == 0 {
                parent
            } else {
                self.push_frame(start, i, parent)
            };
            self.pending
                .push((std::ptr::from_ref(cte.query.as_ref()) as usize, frame));
        }
        self.active.push(full);
    }

    /// Leaves the query entered last.
    pub(crate) fn leave_query(&mut self) {
        self.active.pop();
    }

    /// Whether `name`, where the walk is now, refers to a CTE rather than a table.
    pub(crate) fn is_cte(&self, name: &ObjectName) -> bool {
        let [part] = name.0.as_slice() else {
            return false;
        };
        let Some(ident) = part.as_ident() else {
            return false;
        };
        let mut frame = self.active.last().copied().flatten();
        while let Some(i) = frame {
            let Frame { start, len, parent } = self.frames[i];
            if self.names[start..start + len]
                .iter()
                .any(|cte| same_name(cte, ident))
            {
                return true;
            }
            frame = parent;
        }
        false
    }

    fn push_frame(&mut self, start: usize, len: usize, parent: Option<usize>) -> Option<usize> {
        self.frames.push(Frame { start, len, parent });
        Some(self.frames.len() - 1)
    }
}

/// Whether two identifiers surely name the same thing. When quoting differs the engine's case
/// folding decides, so the answer is "no": the reference is then treated as a table, which can
/// only make the guard stricter.
fn same_name(a: &Ident, b: &Ident) -> bool {
    match (a.quote_style, b.quote_style) {
        (None, None) => a.value.eq_ignore_ascii_case(&b.value),
        (Some(_), Some(_)) => a.value == b.value,
        _ => false,
    }
}
