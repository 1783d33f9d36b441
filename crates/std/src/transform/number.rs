//! `std/transform.parse-number` and `std/transform.parse-price`: locale-aware number reading
//! (`$1,299.00`, `1.299,00 €`, `1 299,50`, `CHF 1'299.95`).

use browserflow_contract::Kind;
use browserflow_rider::{DefineError, Tool, ToolDef, ToolError, define_tool};

/// The input of `parse-number`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParseNumberInput {
    /// Text holding one number, possibly with a currency, grouping and a sign.
    pub text: String,
    /// The decimal separator, `.` or `,`; when absent it comes from `locale`, or is guessed.
    #[serde(default)]
    pub decimal: Option<String>,
    /// A BCP 47 locale (`en-US`, `de-DE`, `fr`) whose decimal separator to use.
    #[serde(default)]
    pub locale: Option<String>,
}

/// A price read from text.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct ParsedPrice {
    /// The amount.
    pub amount: f64,
    /// ISO 4217 code, when the text names a currency (by symbol or code).
    pub currency: Option<String>,
}

/// Languages that write decimals with a comma.
const COMMA_DECIMAL_LANGUAGES: &[&str] = &[
    "de", "fr", "es", "it", "pt", "nl", "ru", "pl", "sv", "da", "nb", "nn", "no", "fi", "cs", "sk",
    "tr", "el", "hu", "ro", "bg", "uk", "hr", "sl", "sr", "lt", "lv", "et", "id", "vi",
];

/// Regions of comma languages that write decimals with a point.
const POINT_DECIMAL_REGIONS: &[&str] = &["de-ch", "de-li", "it-ch", "fr-ch"];

/// The decimal separator chosen by `decimal`, else `locale`, else `None` (guess).
fn decimal_separator(decimal: Option<&str>, locale: Option<&str>) -> Result<Option<char>, String> {
    if let Some(d) = decimal {
        return match d {
            "." => Ok(Some('.')),
            "," => Ok(Some(',')),
            other => Err(format!("`decimal` must be \".\" or \",\", found {other:?}")),
        };
    }
    let Some(locale) = locale else {
        return Ok(None);
    };
    let lower = locale.to_ascii_lowercase().replace('_', "-");
    let language = lower.split('-').next().unwrap_or_default();
    if language.is_empty() || !language.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(format!(
            "`locale` {locale:?} is not a locale such as \"en-US\" or \"de\""
        ));
    }
    if POINT_DECIMAL_REGIONS.iter().any(|r| lower.starts_with(r)) {
        return Ok(Some('.'));
    }
    Ok(Some(if COMMA_DECIMAL_LANGUAGES.contains(&language) {
        ','
    } else {
        '.'
    }))
}

fn is_grouping_only(c: char) -> bool {
    matches!(c, '\'' | '’' | ' ' | '\u{a0}' | '\u{202f}' | '_')
}

/// Reads the one number in `text`. `decimal` forces the decimal separator; without it, the
/// last of `.` and `,` is the decimal point when both appear, a separator that repeats groups
/// thousands, and a single separator followed by exactly three digits groups thousands.
pub fn parse_number_text(text: &str, decimal: Option<char>) -> Result<f64, String> {
    let first = text
        .find(|c: char| c.is_ascii_digit())
        .ok_or_else(|| format!("no number in {text:?}"))?;
    let last = text.rfind(|c: char| c.is_ascii_digit()).unwrap_or(first);
    let core = &text[first..=last];
    if let Some(bad) = core
        .chars()
        .find(|&c| !(c.is_ascii_digit() || c == '.' || c == ',' || is_grouping_only(c)))
    {
        return Err(format!(
            "{text:?} holds more than one number, or {bad:?} inside a number"
        ));
    }
    let before = &text[..first];
    let after = &text[last + 1..];
    let negative = before.contains(['-', '−']) || (before.contains('(') && after.contains(')'));
    // A leading separator (`.5`, `,5`) belongs to the number.
    let leading = before.chars().last().filter(|c| *c == '.' || *c == ',');
    let core = match leading {
        Some(c) => format!("0{c}{core}"),
        None => core.to_owned(),
    };
    let decimal = match decimal {
        Some(d) => Some(d),
        None => guess_decimal(&core),
    };
    let mut normal = String::with_capacity(core.len());
    let mut seen_decimal = false;
    let mut previous_was_digit = false;
    for c in core.chars() {
        if c.is_ascii_digit() {
            normal.push(c);
            previous_was_digit = true;
            continue;
        }
        if !previous_was_digit {
            return Err(format!("{text:?}: two separators in a row"));
        }
        previous_was_digit = false;
        if Some(c) == decimal {
            if seen_decimal {
                return Err(format!(
                    "{text:?}: the decimal separator {c:?} appears twice"
                ));
            }
            seen_decimal = true;
            normal.push('.');
        } else if seen_decimal {
            return Err(format!(
                "{text:?}: a grouping separator {c:?} after the decimal separator"
            ));
        }
    }
    let value: f64 = normal.parse().map_err(|e| format!("{text:?}: {e}"))?;
    Ok(if negative { -value } else { value })
}

fn guess_decimal(core: &str) -> Option<char> {
    let last_point = core.rfind('.');
    let last_comma = core.rfind(',');
    match (last_point, last_comma) {
        (Some(p), Some(c)) => Some(if p > c { '.' } else { ',' }),
        (None, None) => None,
        (Some(i), None) | (None, Some(i)) => {
            let sep = if last_point.is_some() { '.' } else { ',' };
            let repeated = core.matches(sep).count() > 1;
            let digits_after = core[i + 1..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            let thousands = repeated
                || (digits_after == 3 && core[i + 1..].len() == 3 && !core.starts_with('0'));
            if thousands { None } else { Some(sep) }
        }
    }
}

/// Currency symbols and the codes they stand for; longer symbols first.
const SYMBOLS: &[(&str, &str)] = &[
    ("US$", "USD"),
    ("CA$", "CAD"),
    ("AU$", "AUD"),
    ("NZ$", "NZD"),
    ("HK$", "HKD"),
    ("R$", "BRL"),
    ("$", "USD"),
    ("€", "EUR"),
    ("£", "GBP"),
    ("¥", "JPY"),
    ("₹", "INR"),
    ("₩", "KRW"),
    ("₽", "RUB"),
    ("₺", "TRY"),
    ("₪", "ILS"),
    ("zł", "PLN"),
    ("Kč", "CZK"),
];

/// The currency `text` names: a three-letter upper-case code standing alone, else a symbol.
fn currency_of(text: &str) -> Option<String> {
    let code = text
        .split(|c: char| !c.is_ascii_alphabetic())
        .find(|w| w.len() == 3 && w.chars().all(|c| c.is_ascii_uppercase()));
    if let Some(code) = code {
        return Some(code.to_owned());
    }
    SYMBOLS
        .iter()
        .find(|(symbol, _)| text.contains(symbol))
        .map(|(_, code)| (*code).to_owned())
}

/// Reads a price: its amount and, when the text names one, its currency.
pub fn parse_price_text(text: &str, decimal: Option<char>) -> Result<ParsedPrice, String> {
    Ok(ParsedPrice {
        amount: parse_number_text(text, decimal)?,
        currency: currency_of(text),
    })
}

/// `std/transform.parse-number@1.0.0`.
pub fn parse_number() -> Result<impl Tool, DefineError> {
    define_tool(
        ToolDef::new("std/transform.parse-number", "1.0.0", Kind::Transform).description(
            "Read the number in a text, locale-aware: \"1,299.00\", \"1.299,00\", \"1 299,5\".",
        ),
        |input: ParseNumberInput, _ctx| async move {
            let decimal = decimal_separator(input.decimal.as_deref(), input.locale.as_deref())
                .map_err(ToolError::terminal)?;
            parse_number_text(&input.text, decimal).map_err(ToolError::terminal)
        },
    )
}

/// `std/transform.parse-price@1.0.0`.
pub fn parse_price() -> Result<impl Tool, DefineError> {
    define_tool(
        ToolDef::new("std/transform.parse-price", "1.0.0", Kind::Transform).description(
            "Read a price and its currency from a text: \"$1,299.00\", \"1.299,00 €\".",
        ),
        |input: ParseNumberInput, _ctx| async move {
            let decimal = decimal_separator(input.decimal.as_deref(), input.locale.as_deref())
                .map_err(ToolError::terminal)?;
            parse_price_text(&input.text, decimal).map_err(ToolError::terminal)
        },
    )
}
