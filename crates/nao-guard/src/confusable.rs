//! Look-alike characters that could make an engine read a keyword the parser did not see.
//!
//! Fullwidth forms (`ＤＥＬＥＴＥ`) and Cyrillic or Greek letters that look Latin (`SЕLECT` with a
//! Cyrillic `Е`) tokenize as identifiers here, yet a human, a log reviewer or a normalising
//! engine reads them as keywords. The guard refuses an unquoted word that becomes an SQL keyword
//! once such characters are replaced by the ASCII letters they imitate.

/// The ASCII character `c` imitates, if it is a known look-alike.
pub(crate) fn ascii_lookalike(c: char) -> Option<char> {
    let code = u32::from(c);
    // Fullwidth ASCII variants U+FF01..=U+FF5E map one to one onto U+0021..=U+007E.
    if (0xFF01..=0xFF5E).contains(&code) {
        return char::from_u32(code - 0xFF01 + 0x21);
    }
    let ascii = match c {
        // Cyrillic capitals and small letters that look Latin.
        'А' | 'а' => 'a',
        'В' | 'в' => 'b',
        'С' | 'с' => 'c',
        'Е' | 'е' | 'Ё' | 'ё' => 'e',
        'Н' | 'н' => 'h',
        'І' | 'і' | 'Ї' | 'ї' => 'i',
        'Ј' | 'ј' => 'j',
        'К' | 'к' => 'k',
        'М' | 'м' => 'm',
        'О' | 'о' => 'o',
        'Р' | 'р' => 'p',
        'Ѕ' | 'ѕ' => 's',
        'Т' | 'т' => 't',
        'Х' | 'х' => 'x',
        'У' | 'у' => 'y',
        'ԁ' => 'd',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'ӏ' => 'l',
        // Greek capitals and small letters that look Latin.
        'Α' | 'α' => 'a',
        'Β' | 'β' => 'b',
        'Ε' | 'ε' => 'e',
        'Ζ' => 'z',
        'Η' => 'h',
        'Ι' | 'ι' => 'i',
        'Κ' | 'κ' => 'k',
        'Μ' => 'm',
        'Ν' | 'ν' => 'v',
        'Ο' | 'ο' => 'o',
        'Ρ' | 'ρ' => 'p',
        'Τ' | 'τ' => 't',
        'Υ' | 'υ' => 'y',
        'Χ' | 'χ' => 'x',
        // Latin letters from other blocks.
        'ı' => 'i',
        'ſ' => 's',
        'ℓ' => 'l',
        _ => return None,
    };
    Some(ascii)
}

/// If `word` holds look-alike characters and reads as an SQL keyword once they are replaced,
/// returns the keyword it imitates (upper case).
#[inline]
pub(crate) fn imitated_keyword(word: &str) -> Option<String> {
    // Every word of most statements: the test is inlined, the spelling out is not.
    if word.is_ascii() {
        return None;
    }
    spelled_keyword(word)
}

/// The keyword a word with non-ASCII letters spells with their look-alikes, if any.
fn spelled_keyword(word: &str) -> Option<String> {
    let mut ascii = String::with_capacity(word.len());
    for c in word.chars() {
        let plain = if c.is_ascii() { c } else { ascii_lookalike(c)? };
        ascii.push(plain.to_ascii_uppercase());
    }
    sqlparser::keywords::ALL_KEYWORDS
        .binary_search(&ascii.as_str())
        .is_ok()
        .then_some(ascii)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fullwidth_and_cyrillic_keywords_are_found() {
        assert_eq!(imitated_keyword("ＤＥＬＥＴＥ").as_deref(), Some("DELETE"));
        assert_eq!(imitated_keyword("SЕLECT").as_deref(), Some("SELECT"));
        assert_eq!(imitated_keyword("drορ").as_deref(), Some("DROP"));
    }

    #[test]
    fn ordinary_words_pass() {
        assert_eq!(imitated_keyword("SELECT"), None);
        assert_eq!(imitated_keyword("prénom"), None);
        assert_eq!(imitated_keyword("клиенты"), None);
        assert_eq!(imitated_keyword("usеrs"), None);
    }

    #[test]
    fn the_keyword_list_is_sorted_for_binary_search() {
        let keywords = sqlparser::keywords::ALL_KEYWORDS;
        assert!(keywords.windows(2).all(|w| w[0] < w[1]));
    }
}
