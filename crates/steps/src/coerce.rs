//! Turning extracted page text into typed output values: `"$1,299.00"` → `1299.0` (and `USD`),
//! `"1.299,00 €"` → `1299.0` (and `EUR`), `"12 items"` → `12`, `"Yes"` → `true`.

use serde_json::{Number, Value};

use crate::OutputKind;

/// Why a text could not be coerced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read {text:?} as {expected}")]
pub struct CoerceError {
    /// The text that was read from the page.
    pub text: String,
    /// The type that was expected.
    pub expected: &'static str,
}

/// Coerces `text` to `kind`.
pub fn coerce(text: &str, kind: OutputKind) -> Result<Value, CoerceError> {
    let fail = |expected| CoerceError {
        text: text.to_string(),
        expected,
    };
    match kind {
        OutputKind::String => Ok(Value::String(text.to_string())),
        OutputKind::Number => parse_number(text)
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| fail("a number")),
        OutputKind::Integer => {
            let n = parse_number(text).ok_or_else(|| fail("an integer"))?;
            if n.fract() != 0.0 || n.abs() > 9.007_199_254_740_992e15 {
                return Err(fail("an integer"));
            }
            Ok(Value::Number(Number::from(n as i64)))
        }
        OutputKind::Boolean => parse_bool(text)
            .map(Value::Bool)
            .ok_or_else(|| fail("a boolean (true/false, yes/no, on/off, 1/0)")),
    }
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_lowercase().as_str() {
        "true" | "yes" | "on" | "1" | "checked" | "y" => Some(true),
        "false" | "no" | "off" | "0" | "unchecked" | "n" => Some(false),
        _ => None,
    }
}

/// Parses the first number in `text`, whatever the thousands and decimal separators.
///
/// The rule: the last `.` or `,` is the decimal separator if it is followed by other than
/// exactly three digits, or if both separators occur; otherwise separators group thousands.
pub fn parse_number(text: &str) -> Option<f64> {
    let chars: Vec<char> = text.chars().collect();
    let start = chars.iter().position(|c| c.is_ascii_digit())?;
    let negative = chars[..start]
        .iter()
        .rev()
        .find(|c| !c.is_whitespace() && !is_currency_symbol(**c))
        .is_some_and(|c| *c == '-' || *c == '\u{2212}');
    // The number: digits plus separators (`.`, `,`, thin/normal/apostrophe grouping spaces).
    let mut raw = String::new();
    for &c in &chars[start..] {
        let grouping = matches!(c, '.' | ',' | '\'' | ' ' | '\u{202f}' | '\u{a0}');
        if c.is_ascii_digit() || grouping {
            raw.push(c);
        } else {
            break;
        }
    }
    // A trailing space or separator is not part of the number ("12, 13" or "5. Item").
    let raw = raw.trim_end_matches([' ', '.', ',', '\'', '\u{202f}', '\u{a0}']);
    // Spaces group thousands only when followed by exactly three digits.
    let mut cleaned = String::new();
    let groups: Vec<&str> = raw.split([' ', '\'', '\u{202f}', '\u{a0}']).collect();
    for (i, group) in groups.iter().enumerate() {
        if i > 0 && group.chars().take_while(|c| c.is_ascii_digit()).count() != 3 {
            break;
        }
        cleaned.push_str(group);
    }
    let last_dot = cleaned.rfind('.');
    let last_comma = cleaned.rfind(',');
    let decimal = match (last_dot, last_comma) {
        (Some(d), Some(c)) => Some(d.max(c)),
        (Some(p), None) | (None, Some(p)) => {
            let after = &cleaned[p + 1..];
            let separators = cleaned.matches(['.', ',']).count();
            if after.len() == 3
                && after.chars().all(|c| c.is_ascii_digit())
                && (separators > 1 || p <= 3)
            {
                // "1,299" or "1.299.000": grouping; "12.345" is ambiguous and read as grouping
                // too, as price-like texts with three decimals are rare.
                None
            } else if separators > 1 {
                // "1,299,00"?? several of one separator and not groups of three: malformed.
                return None;
            } else {
                Some(p)
            }
        }
        (None, None) => None,
    };
    let mut normalized = String::new();
    for (i, c) in cleaned.char_indices() {
        if c.is_ascii_digit() {
            normalized.push(c);
        } else if Some(i) == decimal {
            normalized.push('.');
        }
    }
    let value: f64 = normalized.parse().ok()?;
    Some(if negative { -value } else { value })
}

fn is_currency_symbol(c: char) -> bool {
    matches!(
        c,
        '$' | '€'
            | '£'
            | '¥'
            | '₹'
            | '₩'
            | '₽'
            | '₺'
            | '₪'
            | '₫'
            | '฿'
            | '₴'
            | '₦'
            | '₱'
    )
}

/// The ISO 4217 code of the currency written in `text`, from a code (`EUR`, `usd`) or a symbol.
/// A bare `$` is read as USD; prefixed dollars (`CA$`, `A$`, `NZ$`, `HK$`, `S$`, `R$`) are told
/// apart.
pub fn currency_code(text: &str) -> Option<&'static str> {
    const CODES: &[&str] = &[
        "USD", "EUR", "GBP", "JPY", "CNY", "INR", "KRW", "RUB", "TRY", "ILS", "VND", "THB", "UAH",
        "NGN", "PHP", "CAD", "AUD", "NZD", "HKD", "SGD", "BRL", "CHF", "SEK", "NOK", "DKK", "PLN",
        "CZK", "HUF", "MXN", "ZAR",
    ];
    let upper = text.to_uppercase();
    for word in upper.split(|c: char| !c.is_ascii_alphabetic()) {
        if let Some(code) = CODES.iter().find(|c| **c == word) {
            return Some(code);
        }
    }
    const PREFIXED_DOLLARS: &[(&str, &str)] = &[
        ("CA$", "CAD"),
        ("C$", "CAD"),
        ("A$", "AUD"),
        ("AU$", "AUD"),
        ("NZ$", "NZD"),
        ("HK$", "HKD"),
        ("S$", "SGD"),
        ("R$", "BRL"),
        ("MX$", "MXN"),
        ("US$", "USD"),
    ];
    for (prefix, code) in PREFIXED_DOLLARS {
        if upper.contains(prefix) {
            return Some(code);
        }
    }
    const SYMBOLS: &[(char, &str)] = &[
        ('$', "USD"),
        ('€', "EUR"),
        ('£', "GBP"),
        ('¥', "JPY"),
        ('₹', "INR"),
        ('₩', "KRW"),
        ('₽', "RUB"),
        ('₺', "TRY"),
        ('₪', "ILS"),
        ('₫', "VND"),
        ('฿', "THB"),
        ('₴', "UAH"),
        ('₦', "NGN"),
        ('₱', "PHP"),
    ];
    text.chars()
        .find_map(|c| SYMBOLS.iter().find(|(s, _)| *s == c).map(|(_, code)| *code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prices_in_both_separator_conventions() {
        assert_eq!(parse_number("$89.99"), Some(89.99));
        assert_eq!(parse_number("$1,299.00"), Some(1299.0));
        assert_eq!(parse_number("1.299,00 €"), Some(1299.0));
        assert_eq!(parse_number("€ 12,50"), Some(12.5));
        assert_eq!(parse_number("1 299,00 €"), Some(1299.0));
        assert_eq!(parse_number("CHF 1'299.50"), Some(1299.5));
        assert_eq!(parse_number("1,299"), Some(1299.0));
        assert_eq!(parse_number("1.234.567"), Some(1_234_567.0));
        assert_eq!(parse_number("Price: 42"), Some(42.0));
        assert_eq!(parse_number("-$5.25"), Some(-5.25));
        assert_eq!(parse_number("12 items"), Some(12.0));
        assert_eq!(parse_number("no digits"), None);
    }

    #[test]
    fn currencies_from_symbols_and_codes() {
        assert_eq!(currency_code("$89.99"), Some("USD"));
        assert_eq!(currency_code("1.299,00 €"), Some("EUR"));
        assert_eq!(currency_code("£5"), Some("GBP"));
        assert_eq!(currency_code("CA$12.00"), Some("CAD"));
        assert_eq!(currency_code("12.00 chf"), Some("CHF"));
        assert_eq!(currency_code("42"), None);
    }

    #[test]
    fn coercion_by_kind() {
        assert_eq!(coerce("$89.99", OutputKind::Number), Ok(json!(89.99)));
        assert_eq!(coerce("In cart: 3", OutputKind::Integer), Ok(json!(3)));
        assert_eq!(coerce(" Yes ", OutputKind::Boolean), Ok(json!(true)));
        assert_eq!(coerce("$89.99", OutputKind::String), Ok(json!("$89.99")));
        let err = coerce("n/a", OutputKind::Number).unwrap_err();
        assert_eq!(err.to_string(), "cannot read \"n/a\" as a number");
        assert!(coerce("2.5", OutputKind::Integer).is_err());
        assert!(coerce("maybe", OutputKind::Boolean).is_err());
    }
}
