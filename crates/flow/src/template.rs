//! The one grammar of `{…}` templates: literal text with `{placeholder}`s, where `{{` and `}}`
//! stand for literal braces.
//!
//! Flow bindings (`{"template": "{steps.search.output.name} costs {steps.search.output.price}"}`),
//! the text form of a secret-bearing value (`Bearer {secret.API_TOKEN}`) and the std pack's
//! `transform.template` (`{name.field.0}`) are all read by [`scan_template`], so they agree on
//! what a brace means. What a placeholder *names* is each caller's business: the scanner hands
//! back its text, trimmed, and where it starts.
//!
//! (Step text in tool files uses another grammar, `{{name}}`, scanned by browserflow-steps'
//! `template_parts`: there a doubled brace opens a reference.)

/// One piece of a template, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplatePiece<'a> {
    /// Literal text, with `{{` and `}}` already turned into single braces. Never empty, and
    /// never next to another `Text`.
    Text(String),
    /// A `{…}` placeholder.
    Placeholder {
        /// What is between the braces, with surrounding whitespace trimmed.
        name: &'a str,
        /// The byte offset of its `{` in the template.
        at: usize,
    },
}

/// Why a text is not a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// A `{` with no `}` after it.
    #[error("`{{` at byte {at} is never closed (write `{{{{` for a literal brace)")]
    Unclosed {
        /// The byte offset of the `{`.
        at: usize,
    },
    /// A `}` that closes nothing.
    #[error("unmatched `}}` at byte {at} (write `}}}}` for a literal brace)")]
    Unmatched {
        /// The byte offset of the `}`.
        at: usize,
    },
}

/// Splits `text` into literal text and placeholders, in order. A placeholder runs from a
/// single `{` to the next `}`; the text between is not scanned further (so `{ {a}` is the
/// placeholder `{a`, for the caller to refuse by name). Lazy, so a caller that checks each
/// placeholder as it comes reports the first problem of the text, whichever kind it is; the
/// scan ends after an error.
pub fn scan_template(text: &str) -> TemplatePieces<'_> {
    TemplatePieces {
        text,
        at: 0,
        pending: None,
    }
}

/// The pieces of a template, from [`scan_template`].
#[derive(Debug, Clone)]
pub struct TemplatePieces<'a> {
    text: &'a str,
    /// Where scanning goes on; past the end once done or after an error.
    at: usize,
    /// A placeholder found right after the text just returned.
    pending: Option<TemplatePiece<'a>>,
}

impl<'a> Iterator for TemplatePieces<'a> {
    type Item = Result<TemplatePiece<'a>, TemplateError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(piece) = self.pending.take() {
            return Some(Ok(piece));
        }
        let text = self.text;
        let mut literal = String::new();
        while let Some(c) = text.get(self.at..).and_then(|rest| rest.chars().next()) {
            let at = self.at;
            let rest = &text[at..];
            if rest.starts_with("{{") || rest.starts_with("}}") {
                literal.push(c);
                self.at += 2;
                continue;
            }
            if c != '{' && c != '}' {
                literal.push(c);
                self.at += c.len_utf8();
                continue;
            }
            let found = match rest.find('}') {
                Some(length) if c == '{' => {
                    self.at += length + 1;
                    Ok(TemplatePiece::Placeholder {
                        name: rest[1..length].trim(),
                        at,
                    })
                }
                _ => {
                    // Nothing more is read after an error.
                    self.at = usize::MAX;
                    Err(if c == '{' {
                        TemplateError::Unclosed { at }
                    } else {
                        TemplateError::Unmatched { at }
                    })
                }
            };
            if literal.is_empty() {
                return Some(found);
            }
            match found {
                Ok(piece) => self.pending = Some(piece),
                // The text before an error is not worth returning: the template is refused.
                Err(e) => return Some(Err(e)),
            }
            return Some(Ok(TemplatePiece::Text(literal)));
        }
        (!literal.is_empty()).then_some(Ok(TemplatePiece::Text(literal)))
    }
}

/// `text` as the literal part of a template: every brace doubled, so [`scan_template`] reads
/// it back as exactly `text`.
pub fn escape_template_text(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

#[cfg(test)]
mod tests {
    use super::TemplatePiece::{Placeholder, Text};
    use super::*;

    fn scan(text: &str) -> Result<Vec<TemplatePiece<'_>>, TemplateError> {
        scan_template(text).collect()
    }

    #[test]
    fn text_and_placeholders_split_in_order() {
        assert_eq!(
            scan("Bearer {secret.API_TOKEN}!").unwrap(),
            [
                Text("Bearer ".into()),
                Placeholder {
                    name: "secret.API_TOKEN",
                    at: 7
                },
                Text("!".into()),
            ]
        );
        assert_eq!(
            scan("{ a }{b}").unwrap(),
            [
                Placeholder { name: "a", at: 0 },
                Placeholder { name: "b", at: 5 }
            ]
        );
        assert_eq!(scan("").unwrap(), []);
        assert_eq!(scan("é{x}").unwrap()[1], Placeholder { name: "x", at: 2 });
    }

    #[test]
    fn doubled_braces_are_literal_braces() {
        assert_eq!(
            scan("{{x}} is {x}").unwrap(),
            [Text("{x} is ".into()), Placeholder { name: "x", at: 9 }]
        );
        // A placeholder ends at its first `}`: what follows is text again.
        assert_eq!(scan("{ {a}").unwrap(), [Placeholder { name: "{a", at: 0 }]);
    }

    #[test]
    fn a_lone_brace_is_an_error_at_its_offset() {
        assert_eq!(scan("ab {x"), Err(TemplateError::Unclosed { at: 3 }));
        assert_eq!(scan("{a}}"), Err(TemplateError::Unmatched { at: 3 }));
        assert_eq!(scan("{{a}"), Err(TemplateError::Unmatched { at: 3 }));
        // Lazily: what comes before an error is seen first, so a caller reports the first
        // problem of the text.
        let mut pieces = scan_template("{x} }");
        assert_eq!(pieces.next(), Some(Ok(Placeholder { name: "x", at: 0 })));
        assert_eq!(pieces.next(), Some(Err(TemplateError::Unmatched { at: 4 })));
        assert_eq!(pieces.next(), None);
    }

    #[test]
    fn escaped_text_reads_back_as_itself() {
        for text in ["plain", "{x}", "}}{{", "a { b } c", "}{"] {
            let escaped = escape_template_text(text);
            assert_eq!(
                scan(&escaped).unwrap(),
                [Text(text.to_owned())],
                "{escaped}"
            );
        }
    }
}
