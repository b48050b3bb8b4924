//! The kinds of personal values the detector recognises.

use std::fmt;

/// A kind of personal value the [`ValueDetector`](super::ValueDetector) recognises. Each has
/// a shape and, where one exists, a check digit or check rule that a look-alike fails; the
/// rules are in the docs of each variant.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValueKind {
    /// An email address: ASCII local part, `@`, a dotted domain ending in a name of two or
    /// more letters (`ada@example.co.uk`). Addresses with non-ASCII characters are not
    /// recognised.
    Email,
    /// A phone number. Either international: `+`, then 8 to 15 digits (E.164) that may be
    /// grouped with single spaces, dashes, dots or one pair of parentheses
    /// (`+33 6 12 34 56 78`, `+1 (555) 010-0199`); or a national format with separators:
    /// starting with a trunk `0` or a parenthesised area code, 8 to 15 digits in groups of at
    /// least two digits (`06 12 34 56 78`, `020 7946 0958`, `(555) 010-0199`), or the North
    /// American `555-010-0199`. Digit runs without `+` or separators (ids, amounts), dates
    /// (`01-03-2024`, `2024.03.01`), times, version numbers and IP addresses are not phone
    /// numbers.
    Phone,
    /// A payment card number: 13 to 19 digits, optionally grouped with single spaces or
    /// dashes (the same one throughout), starting with 2 to 6 (the card networks' ranges)
    /// and passing the Luhn check.
    PaymentCard,
    /// An IBAN: country code, two check digits and 11 to 30 letters or digits, written
    /// together or in groups of four; the length must be the country's (where the country
    /// is known) and the ISO 7064 mod-97 check must hold.
    Iban,
    /// A US Social Security number written `123-45-6789`, without the never-issued ranges
    /// (area 000, 666 or 900–999, group 00, serial 0000).
    UsSsn,
    /// A UK National Insurance number (`QQ 12 34 56 C`): two letters from the allocated
    /// prefixes, six digits, a suffix A–D. No check digit exists.
    UkNino,
    /// A French social security number (NIR, 15 digits, Corsica as `2A`/`2B`), with its
    /// two-digit key: 97 minus the first 13 digits modulo 97.
    FrNir,
    /// A Spanish DNI (`12345678Z`) or NIE (`X1234567L`) with its check letter.
    EsDni,
}

impl ValueKind {
    /// Every kind, in the order the detector tries them.
    pub const ALL: [ValueKind; 8] = [
        ValueKind::Email,
        ValueKind::Iban,
        ValueKind::UsSsn,
        ValueKind::UkNino,
        ValueKind::FrNir,
        ValueKind::EsDni,
        ValueKind::PaymentCard,
        ValueKind::Phone,
    ];

    /// A stable snake_case name: `email`, `phone`, `payment_card`, `iban`, `us_ssn`,
    /// `uk_nino`, `fr_nir`, `es_dni`.
    pub fn name(&self) -> &'static str {
        match self {
            ValueKind::Email => "email",
            ValueKind::Phone => "phone",
            ValueKind::PaymentCard => "payment_card",
            ValueKind::Iban => "iban",
            ValueKind::UsSsn => "us_ssn",
            ValueKind::UkNino => "uk_nino",
            ValueKind::FrNir => "fr_nir",
            ValueKind::EsDni => "es_dni",
        }
    }

    /// What replaces a value of this kind in a text: `[email]`, `[phone]`, `[card number]`,
    /// `[iban]`, `[ssn]`, `[nino]`, `[nir]`, `[dni]`.
    pub fn replacement(&self) -> &'static str {
        match self {
            ValueKind::Email => "[email]",
            ValueKind::Phone => "[phone]",
            ValueKind::PaymentCard => "[card number]",
            ValueKind::Iban => "[iban]",
            ValueKind::UsSsn => "[ssn]",
            ValueKind::UkNino => "[nino]",
            ValueKind::FrNir => "[nir]",
            ValueKind::EsDni => "[dni]",
        }
    }

    /// What values of this kind are, in the plural, for notices: `email addresses`.
    pub fn description(&self) -> &'static str {
        match self {
            ValueKind::Email => "email addresses",
            ValueKind::Phone => "phone numbers",
            ValueKind::PaymentCard => "payment card numbers",
            ValueKind::Iban => "IBANs",
            ValueKind::UsSsn => "US Social Security numbers",
            ValueKind::UkNino => "UK National Insurance numbers",
            ValueKind::FrNir => "French social security numbers",
            ValueKind::EsDni => "Spanish DNI/NIE numbers",
        }
    }

    /// The position of this kind in [`ValueKind::ALL`].
    pub(crate) fn position(&self) -> usize {
        ValueKind::ALL
            .iter()
            .position(|kind| kind == self)
            .unwrap_or(ValueKind::ALL.len())
    }
}

impl fmt::Display for ValueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
