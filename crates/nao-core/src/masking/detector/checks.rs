//! The shape of each kind of value (a regular expression that finds candidates) and the
//! rules a candidate must pass (check digits, ranges, boundaries).
//!
//! The patterns are simple on purpose: the regex crate runs in time linear in the text
//! whatever the pattern, and candidates are bounded before any check runs, so a long cell
//! costs a few linear passes.

use super::ValueKind;

/// The pattern that finds candidates of `kind`. ASCII classes only: `\d` would also match
/// other scripts' digits.
pub(super) fn pattern(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::Email => r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}",
        ValueKind::Phone => r"\+?\(?[0-9][0-9(). \-]*[0-9]",
        ValueKind::PaymentCard => r"[0-9](?:[ \-]?[0-9]){12,18}",
        ValueKind::Iban => {
            r"[A-Z]{2}[0-9]{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,4})?)"
        }
        ValueKind::UsSsn => r"[0-9]{3}-[0-9]{2}-[0-9]{4}",
        ValueKind::UkNino => r"[A-Z]{2} ?[0-9]{2} ?[0-9]{2} ?[0-9]{2} ?[A-D]",
        ValueKind::FrNir => {
            r"[1-478] ?[0-9]{2} ?[0-9]{2} ?(?:[0-9]{2}|2[AB]) ?[0-9]{3} ?[0-9]{3} ?[0-9]{2}"
        }
        ValueKind::EsDni => r"(?:[0-9]{8}|[XYZ]-?[0-9]{7})-?[A-Z]",
    }
}

/// Where the value of `kind` found at `start..end` of `text` ends, if it is one: `end`, or
/// for kinds written in groups an earlier group boundary when the candidate ran on into
/// the next word or number (`4111 1111 1111 1111 2`).
pub(super) fn accept(kind: ValueKind, text: &str, start: usize, end: usize) -> Option<usize> {
    let candidate = text.get(start..end)?;
    let (check, max_len): (fn(&str) -> bool, usize) = match kind {
        ValueKind::Email => return email(candidate).then_some(end),
        ValueKind::Phone => (phone, 40),
        ValueKind::PaymentCard => (card, 40),
        ValueKind::Iban => (iban, 42),
        ValueKind::UsSsn => (us_ssn, 11),
        ValueKind::UkNino => (uk_nino, 13),
        ValueKind::FrNir => (fr_nir, 21),
        ValueKind::EsDni => (es_dni, 11),
    };
    // The checks are linear and stop early, so the whole candidate is checked whatever its
    // length.
    if check(candidate) && standalone(text, start, end) {
        return Some(end);
    }
    if !matches!(
        kind,
        ValueKind::Phone | ValueKind::PaymentCard | ValueKind::Iban
    ) {
        return None;
    }
    // Shorter candidates, cut before a separator, longest first; only as far as a value of
    // this kind can reach, so a long run of digits is not checked over and over.
    let window = candidate
        .as_bytes()
        .get(..candidate.len().min(max_len + 1))?;
    (1..window.len())
        .rev()
        .filter(|&cut| matches!(window[cut], b' ' | b'-' | b'.' | b'('))
        .filter(|&cut| window[cut - 1].is_ascii_alphanumeric())
        .find(|&cut| {
            candidate.get(..cut).is_some_and(check) && standalone(text, start, start + cut)
        })
        .map(|cut| start + cut)
}

/// Whether `start..end` of `text` stands alone: no letter or digit right before or after,
/// and no number that it continues (`1.4111…`, `…1111-2`, `…1111.5`).
fn standalone(text: &str, start: usize, end: usize) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let joins_number = |c: char| matches!(c, '+' | '-' | '.' | '/' | ',');
    let mut before = text.get(..start).unwrap_or_default().chars().rev();
    match before.next() {
        Some(c) if word(c) => return false,
        Some(c) if joins_number(c) && before.next().is_some_and(|d| d.is_ascii_digit()) => {
            return false;
        }
        _ => {}
    }
    let mut after = text.get(end..).unwrap_or_default().chars();
    match after.next() {
        Some(c) if word(c) => false,
        Some(c) if joins_number(c) && after.next().is_some_and(|d| d.is_ascii_digit()) => false,
        _ => true,
    }
}

fn email(candidate: &str) -> bool {
    let local = candidate.split('@').next().unwrap_or_default();
    !local.starts_with('.') && !local.ends_with('.') && !local.contains("..")
}

/// The phone number rules of [`ValueKind::Phone`].
fn phone(candidate: &str) -> bool {
    let international = candidate.starts_with('+');
    let body = candidate.strip_prefix('+').unwrap_or(candidate);
    let mut groups = [0usize; 16];
    let mut count = 0;
    let mut current = 0usize;
    let mut previous: Option<char> = None;
    let mut open = false;
    let mut parenthesised = false;
    let mut separator: Option<char> = None;
    let mut mixed_separators = false;
    let mut push = |digits: usize, count: &mut usize| {
        if *count < groups.len() {
            groups[*count] = digits;
        }
        *count += 1;
    };
    for c in body.chars() {
        match c {
            '0'..='9' => current += 1,
            ' ' | '-' | '.' => {
                match previous {
                    Some('0'..='9') => {
                        push(current, &mut count);
                        current = 0;
                    }
                    Some(')') => {}
                    _ => return false,
                }
                if separator.is_some_and(|s| s != c) {
                    mixed_separators = true;
                }
                separator = Some(c);
            }
            '(' => {
                if open || parenthesised || current > 0 || !matches!(previous, None | Some(' ')) {
                    return false;
                }
                open = true;
            }
            ')' => {
                if !open || !matches!(previous, Some('0'..='9')) {
                    return false;
                }
                push(current, &mut count);
                current = 0;
                open = false;
                parenthesised = true;
            }
            _ => return false,
        }
        previous = Some(c);
    }
    if open || !matches!(previous, Some('0'..='9')) {
        return false;
    }
    push(current, &mut count);
    if count > groups.len() {
        return false;
    }
    let groups = &groups[..count];
    let digits: usize = groups.iter().sum();
    if digits < 8 {
        return false;
    }
    if digits > 15 {
        // Several numbers in a row, separated: masked as one.
        return (international || candidate.starts_with(['0', '(']))
            && groups.iter().all(|&g| g >= 2);
    }
    if international {
        // E.164: a country code never starts with 0.
        return !body.trim_start_matches('(').starts_with('0');
    }
    if groups.len() < 2 || groups.iter().any(|&g| g < 2) {
        return false;
    }
    if matches!(groups, [2, 2, 4, ..] | [4, 2, 2, ..]) {
        return false; // a date, perhaps with a time after it
    }
    if groups == [3, 2, 4] && separator == Some('-') {
        return false; // the shape of a US Social Security number
    }
    candidate.starts_with('(')
        || candidate.starts_with('0')
        || (groups == [3, 3, 4] && !mixed_separators && !parenthesised)
}

/// The payment card rules of [`ValueKind::PaymentCard`].
fn card(candidate: &str) -> bool {
    let mut digits = [0u8; 19];
    let mut count = 0;
    let mut separator: Option<u8> = None;
    for b in candidate.bytes() {
        match b {
            b'0'..=b'9' => {
                if count == digits.len() {
                    return false;
                }
                digits[count] = b - b'0';
                count += 1;
            }
            b' ' | b'-' => {
                if separator.is_some_and(|s| s != b) {
                    return false;
                }
                separator = Some(b);
            }
            _ => return false,
        }
    }
    count >= 13 && (2..=6).contains(&digits[0]) && luhn(&digits[..count])
}

/// The Luhn check: doubling every second digit from the right, the sum is a multiple of 10.
fn luhn(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            let d = u32::from(d);
            if i % 2 == 1 {
                if d * 2 > 9 { d * 2 - 9 } else { d * 2 }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// IBAN lengths by country (the SWIFT IBAN registry). A country not listed is checked by
/// the general length bound and the mod-97 check only.
const IBAN_LENGTHS: &[(&str, usize)] = &[
    ("AD", 24),
    ("AE", 23),
    ("AL", 28),
    ("AT", 20),
    ("AZ", 28),
    ("BA", 20),
    ("BE", 16),
    ("BG", 22),
    ("BH", 22),
    ("BR", 29),
    ("BY", 28),
    ("CH", 21),
    ("CR", 22),
    ("CY", 28),
    ("CZ", 24),
    ("DE", 22),
    ("DK", 18),
    ("DO", 28),
    ("EE", 20),
    ("EG", 29),
    ("ES", 24),
    ("FI", 18),
    ("FO", 18),
    ("FR", 27),
    ("GB", 22),
    ("GE", 22),
    ("GI", 23),
    ("GL", 18),
    ("GR", 27),
    ("GT", 28),
    ("HR", 21),
    ("HU", 28),
    ("IE", 22),
    ("IL", 23),
    ("IQ", 23),
    ("IS", 26),
    ("IT", 27),
    ("JO", 30),
    ("KW", 30),
    ("KZ", 20),
    ("LB", 28),
    ("LC", 32),
    ("LI", 21),
    ("LT", 20),
    ("LU", 20),
    ("LV", 21),
    ("LY", 25),
    ("MC", 27),
    ("MD", 24),
    ("ME", 22),
    ("MK", 19),
    ("MR", 27),
    ("MT", 31),
    ("MU", 30),
    ("NL", 18),
    ("NO", 15),
    ("PK", 24),
    ("PL", 28),
    ("PS", 29),
    ("PT", 25),
    ("QA", 29),
    ("RO", 24),
    ("RS", 22),
    ("SA", 24),
    ("SC", 31),
    ("SE", 24),
    ("SI", 19),
    ("SK", 24),
    ("SM", 27),
    ("ST", 25),
    ("SV", 28),
    ("TL", 23),
    ("TN", 24),
    ("TR", 26),
    ("UA", 29),
    ("VA", 22),
    ("VG", 24),
    ("XK", 20),
];

/// The IBAN rules of [`ValueKind::Iban`].
fn iban(candidate: &str) -> bool {
    let mut chars = [0u8; 34];
    let mut len = 0;
    for b in candidate.bytes().filter(|&b| b != b' ') {
        if len == chars.len() || !(b.is_ascii_uppercase() || b.is_ascii_digit()) {
            return false;
        }
        chars[len] = b;
        len += 1;
    }
    let chars = &chars[..len];
    if len < 15 {
        return false;
    }
    let country = std::str::from_utf8(&chars[..2]).unwrap_or_default();
    if let Some(&(_, expected)) = IBAN_LENGTHS.iter().find(|(c, _)| *c == country)
        && len != expected
    {
        return false;
    }
    // ISO 7064 mod 97-10: the first four characters moved to the end, letters as 10–35.
    let remainder = chars[4..]
        .iter()
        .chain(&chars[..4])
        .fold(0u32, |rem, &b| match b {
            b'0'..=b'9' => (rem * 10 + u32::from(b - b'0')) % 97,
            _ => (rem * 100 + u32::from(b - b'A') + 10) % 97,
        });
    remainder == 1
}

/// The SSN rules of [`ValueKind::UsSsn`].
fn us_ssn(candidate: &str) -> bool {
    let mut parts = candidate.split('-').map(|p| p.parse::<u32>().ok());
    let (Some(Some(area)), Some(Some(group)), Some(Some(serial))) =
        (parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    // 078-05-1120 and 219-09-9999 were printed in advertisements and are void.
    let advertised = matches!((area, group, serial), (78, 5, 1120) | (219, 9, 9999));
    area != 0 && area != 666 && area < 900 && group != 0 && serial != 0 && !advertised
}

/// The NINO rules of [`ValueKind::UkNino`].
fn uk_nino(candidate: &str) -> bool {
    let compact: Vec<u8> = candidate.bytes().filter(|&b| b != b' ').collect();
    let [first, second, ..] = compact[..] else {
        return false;
    };
    let unallocated = [b"BG", b"GB", b"KN", b"NK", b"NT", b"TN", b"ZZ"];
    compact.len() == 9
        && !b"DFIQUV".contains(&first)
        && !b"DFIOQUV".contains(&second)
        && !unallocated.iter().any(|p| p[..] == compact[..2])
}

/// The NIR rules of [`ValueKind::FrNir`].
fn fr_nir(candidate: &str) -> bool {
    let compact: Vec<u8> = candidate.bytes().filter(|&b| b != b' ').collect();
    if compact.len() != 15 {
        return false;
    }
    let digit = |i: usize| char::from(compact[i]).to_digit(10);
    let two = |i: usize| Some(digit(i)? * 10 + digit(i + 1)?);
    let (Some(month), Some(key)) = (two(3), two(13)) else {
        return false;
    };
    if month == 0 || (13..20).contains(&month) {
        return false;
    }
    // Corsica's departments count as 19 (2A) and 18 (2B) for the key.
    let mut number: u64 = 0;
    for (i, &b) in compact[..13].iter().enumerate() {
        let digit = match (i, b) {
            (5, b'2') if compact[6].is_ascii_uppercase() => 1,
            (6, b'A') => 9,
            (6, b'B') => 8,
            (_, b'0'..=b'9') => b - b'0',
            _ => return false,
        };
        number = number * 10 + u64::from(digit);
    }
    u64::from(key) == 97 - number % 97
}

/// The DNI and NIE rules of [`ValueKind::EsDni`].
fn es_dni(candidate: &str) -> bool {
    const LETTERS: &[u8; 23] = b"TRWAGMYFPDXBNJZSQVHLCKE";
    let compact: Vec<u8> = candidate.bytes().filter(|&b| b != b'-').collect();
    let Some((&letter, body)) = compact.split_last() else {
        return false;
    };
    let mut number: u32 = 0;
    for (i, &b) in body.iter().enumerate() {
        let digit = match (i, b) {
            (0, b'X') => 0,
            (0, b'Y') => 1,
            (0, b'Z') => 2,
            (_, b'0'..=b'9') => b - b'0',
            _ => return false,
        };
        number = number * 10 + u32::from(digit);
    }
    body.len() == 8 && LETTERS[(number % 23) as usize] == letter
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_accepts_test_cards_and_refuses_a_changed_digit() {
        let digits = |s: &str| s.bytes().map(|b| b - b'0').collect::<Vec<u8>>();
        assert!(luhn(&digits("4111111111111111")));
        assert!(luhn(&digits("378282246310005")));
        assert!(!luhn(&digits("4111111111111112")));
    }

    #[test]
    fn iban_checks_length_and_mod_97() {
        assert!(iban("DE89370400440532013000"));
        assert!(iban("GB29 NWBK 6016 1331 9268 19"));
        assert!(iban("FR1420041010050500013M02606"));
        assert!(iban("NO9386011117947"));
        assert!(!iban("DE88370400440532013000"), "wrong check digits");
        assert!(
            !iban("DE8937040044053201300"),
            "one character short for Germany"
        );
    }

    #[test]
    fn national_id_checks() {
        assert!(us_ssn("123-45-6789"));
        assert!(!us_ssn("666-45-6789"));
        assert!(!us_ssn("912-45-6789"));
        assert!(!us_ssn("123-00-6789"));
        assert!(!us_ssn("078-05-1120"));
        assert!(uk_nino("AB 12 34 56 C"));
        assert!(uk_nino("AB123456C"));
        assert!(!uk_nino("QQ123456C"), "Q is never a first letter");
        assert!(!uk_nino("GB123456A"), "GB is not allocated");
        assert!(fr_nir("2 84 12 76 451 089 93"));
        assert!(!fr_nir("2 84 12 76 451 089 94"));
        assert!(es_dni("12345678Z"));
        assert!(es_dni("X-1234567-L"));
        assert!(!es_dni("12345678A"));
    }

    #[test]
    fn corsican_nirs_use_19_and_18() {
        // 1 85 05 2A 004 123 and 1 85 05 2B 004 123 with the keys of 19 and 18.
        let key_a = 97 - 1_850_519_004_123u64 % 97;
        let key_b = 97 - 1_850_518_004_123u64 % 97;
        assert!(fr_nir(&format!("185052A004123{key_a:02}")));
        assert!(fr_nir(&format!("185052B004123{key_b:02}")));
        assert!(!fr_nir(&format!("185052A004123{key_b:02}")));
    }
}
