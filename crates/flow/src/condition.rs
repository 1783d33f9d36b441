//! `when` conditions: boolean expressions over flow inputs and step outputs.

use std::cmp::Ordering;
use std::fmt;

use serde_json::Value;

use crate::reference::Reference;
use crate::scope::{EvalError, Scope};
use crate::secret::Bound;

/// Longest condition accepted, in tokens: keeps parsing and evaluation shallow.
const MAX_TOKENS: usize = 256;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CompareOp {
    /// The operator's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::Ne => "!=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
        }
    }

    /// Whether it orders its operands (rather than testing equality).
    pub fn is_ordering(self) -> bool {
        !matches!(self, CompareOp::Eq | CompareOp::Ne)
    }
}

/// A condition expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal: number, string, boolean or null.
    Literal(Value),
    /// A flow input or step output.
    Ref(Reference),
    /// `!e`
    Not(Box<Expr>),
    /// `a && b`
    And(Box<Expr>, Box<Expr>),
    /// `a || b`
    Or(Box<Expr>, Box<Expr>),
    /// `a OP b`
    Compare(CompareOp, Box<Expr>, Box<Expr>),
}

/// A parsed `when` condition: a boolean expression over flow inputs and step outputs.
///
/// Grammar (C-like precedence, `!` binds tightest, comparisons do not chain):
///
/// ```text
/// or      := and ("||" and)*
/// and     := compare ("&&" compare)*
/// compare := unary (("==" | "!=" | "<" | "<=" | ">" | ">=") unary)?
/// unary   := "!" unary | primary
/// primary := "(" or ")" | reference | number | "string" | true | false | null
/// ```
///
/// A reference is `input.NAME…` or `steps.ID.output…` (secrets are refused by the compiler:
/// a branch on a secret would leak it). At run time a skipped step reads as `null`; `null`
/// is false where a boolean is needed, equal only to `null`, and every ordering comparison
/// with `null` is false.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    expr: Expr,
}

/// A condition that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("condition `{text}`: {message} (at byte {offset})")]
pub struct ConditionError {
    /// The condition text.
    pub text: String,
    /// Byte offset of the problem.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl Condition {
    /// Parses a condition.
    pub fn parse(text: &str) -> Result<Condition, ConditionError> {
        let fail = |offset: usize, message: String| ConditionError {
            text: text.to_owned(),
            offset,
            message,
        };
        let tokens = tokenize(text).map_err(|(at, m)| fail(at, m))?;
        if tokens.len() > MAX_TOKENS {
            return Err(fail(0, format!("longer than {MAX_TOKENS} tokens")));
        }
        let mut parser = Parser {
            tokens: &tokens,
            at: 0,
            end: text.len(),
        };
        let expr = parser.or().map_err(|(at, m)| fail(at, m))?;
        if let Some((at, token)) = tokens.get(parser.at) {
            return Err(fail(*at, format!("unexpected {}", token.describe())));
        }
        Ok(Condition { expr })
    }

    /// The expression tree.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// Every reference it reads.
    pub fn references(&self) -> Vec<&Reference> {
        let mut out = Vec::new();
        collect_refs(&self.expr, &mut out);
        out
    }

    /// Evaluates the condition in `scope`.
    pub fn evaluate(&self, scope: &Scope) -> Result<bool, EvalError> {
        truth(&self.expr, scope)
    }
}

fn collect_refs<'a>(expr: &'a Expr, out: &mut Vec<&'a Reference>) {
    match expr {
        Expr::Literal(_) => {}
        Expr::Ref(r) => out.push(r),
        Expr::Not(e) => collect_refs(e, out),
        Expr::And(a, b) | Expr::Or(a, b) | Expr::Compare(_, a, b) => {
            collect_refs(a, out);
            collect_refs(b, out);
        }
    }
}

fn truth(expr: &Expr, scope: &Scope) -> Result<bool, EvalError> {
    match expr {
        Expr::Not(e) => Ok(!truth(e, scope)?),
        Expr::And(a, b) => Ok(truth(a, scope)? && truth(b, scope)?),
        Expr::Or(a, b) => Ok(truth(a, scope)? || truth(b, scope)?),
        Expr::Compare(op, a, b) => {
            let (left, right) = (value(a, scope)?, value(b, scope)?);
            compare(*op, &left, &right).ok_or_else(|| EvalError::Compare {
                expression: expr.to_string(),
                left: crate::json_type_name(&left),
                right: crate::json_type_name(&right),
            })
        }
        Expr::Literal(_) | Expr::Ref(_) => match value(expr, scope)? {
            Value::Bool(b) => Ok(b),
            Value::Null => Ok(false),
            other => Err(EvalError::NotBoolean {
                expression: expr.to_string(),
                found: crate::json_type_name(&other),
            }),
        },
    }
}

fn value(expr: &Expr, scope: &Scope) -> Result<Value, EvalError> {
    match expr {
        Expr::Literal(v) => Ok(v.clone()),
        Expr::Ref(r) => match r.resolve(scope)? {
            Bound::Value(v) => Ok(v),
            Bound::Secret(_) => Err(EvalError::SecretNotAllowed {
                reference: r.to_string(),
                place: "in a condition",
            }),
        },
        other => truth(other, scope).map(Value::Bool),
    }
}

/// `None` when the operands have no order.
fn compare(op: CompareOp, left: &Value, right: &Value) -> Option<bool> {
    let ordering = match (left, right) {
        (Value::Number(a), Value::Number(b)) => a.as_f64()?.partial_cmp(&b.as_f64()?),
        (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
        _ => None,
    };
    match op {
        CompareOp::Eq => {
            Some(ordering == Some(Ordering::Equal) || (ordering.is_none() && left == right))
        }
        CompareOp::Ne => {
            Some(!(ordering == Some(Ordering::Equal) || (ordering.is_none() && left == right)))
        }
        _ if left.is_null() || right.is_null() => Some(false),
        CompareOp::Lt => ordering.map(|o| o == Ordering::Less),
        CompareOp::Le => ordering.map(|o| o != Ordering::Greater),
        CompareOp::Gt => ordering.map(|o| o == Ordering::Greater),
        CompareOp::Ge => ordering.map(|o| o != Ordering::Less),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Literal(Value),
    Op(&'static str),
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Word(w) => format!("`{w}`"),
            Token::Literal(v) => format!("`{v}`"),
            Token::Op(op) => format!("`{op}`"),
        }
    }
}

const OPERATORS: [&str; 12] = [
    "==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")", "=",
];

fn tokenize(text: &str) -> Result<Vec<(usize, Token)>, (usize, String)> {
    let mut tokens = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let Some(c) = rest.chars().next() else { break };
        if c.is_whitespace() {
            at += c.len_utf8();
        } else if c == '"' {
            let end = string_end(bytes, at).ok_or((at, "a string is never closed".to_owned()))?;
            let literal: Value = serde_json::from_str(&text[at..end])
                .map_err(|e| (at, format!("bad string literal: {e}")))?;
            tokens.push((at, Token::Literal(literal)));
            at = end;
        } else if c.is_ascii_digit()
            || (c == '-' && rest[1..].starts_with(|d: char| d.is_ascii_digit()))
        {
            let len = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || matches!(ch, '.' | '-' | '+')))
                .unwrap_or(rest.len());
            let number: Value = serde_json::from_str(&rest[..len])
                .ok()
                .filter(Value::is_number)
                .ok_or((at, format!("`{}` is not a number", &rest[..len])))?;
            tokens.push((at, Token::Literal(number)));
            at += len;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let len = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.')))
                .unwrap_or(rest.len());
            let word = &rest[..len];
            let token = match word {
                "true" => Token::Literal(Value::Bool(true)),
                "false" => Token::Literal(Value::Bool(false)),
                "null" => Token::Literal(Value::Null),
                _ => Token::Word(word.to_owned()),
            };
            tokens.push((at, token));
            at += len;
        } else if let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(*op)) {
            if *op == "=" {
                return Err((at, "`=` is not an operator; compare with `==`".to_owned()));
            }
            tokens.push((at, Token::Op(op)));
            at += op.len();
        } else {
            return Err((at, format!("unexpected character `{c}`")));
        }
    }
    Ok(tokens)
}

/// The byte just past the closing quote of the string starting at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

struct Parser<'a> {
    tokens: &'a [(usize, Token)],
    at: usize,
    end: usize,
}

type ParseResult = Result<Expr, (usize, String)>;

impl Parser<'_> {
    fn peek_op(&self, op: &str) -> bool {
        matches!(self.tokens.get(self.at), Some((_, Token::Op(o))) if *o == op)
    }

    fn offset(&self) -> usize {
        self.tokens.get(self.at).map_or(self.end, |(at, _)| *at)
    }

    fn or(&mut self) -> ParseResult {
        let mut left = self.and()?;
        while self.peek_op("||") {
            self.at += 1;
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> ParseResult {
        let mut left = self.compare()?;
        while self.peek_op("&&") {
            self.at += 1;
            left = Expr::And(Box::new(left), Box::new(self.compare()?));
        }
        Ok(left)
    }

    fn compare(&mut self) -> ParseResult {
        let left = self.unary()?;
        let op = match self.tokens.get(self.at) {
            Some((_, Token::Op("=="))) => CompareOp::Eq,
            Some((_, Token::Op("!="))) => CompareOp::Ne,
            Some((_, Token::Op("<"))) => CompareOp::Lt,
            Some((_, Token::Op("<="))) => CompareOp::Le,
            Some((_, Token::Op(">"))) => CompareOp::Gt,
            Some((_, Token::Op(">="))) => CompareOp::Ge,
            _ => return Ok(left),
        };
        self.at += 1;
        let right = self.unary()?;
        if let Some((at, Token::Op(o))) = self.tokens.get(self.at)
            && matches!(*o, "==" | "!=" | "<" | "<=" | ">" | ">=")
        {
            return Err((
                *at,
                "comparisons do not chain; use `&&` and parentheses".to_owned(),
            ));
        }
        Ok(Expr::Compare(op, Box::new(left), Box::new(right)))
    }

    fn unary(&mut self) -> ParseResult {
        if self.peek_op("!") {
            self.at += 1;
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> ParseResult {
        let offset = self.offset();
        let Some((_, token)) = self.tokens.get(self.at) else {
            return Err((
                offset,
                "the condition ends where a value was expected".to_owned(),
            ));
        };
        self.at += 1;
        match token {
            Token::Literal(v) => Ok(Expr::Literal(v.clone())),
            Token::Word(w) => Reference::parse(w).map(Expr::Ref).map_err(|m| (offset, m)),
            Token::Op("(") => {
                let inner = self.or()?;
                if !self.peek_op(")") {
                    return Err((self.offset(), "expected `)`".to_owned()));
                }
                self.at += 1;
                Ok(inner)
            }
            Token::Op(op) => Err((offset, format!("expected a value, found `{op}`"))),
        }
    }
}

/// Binding strength, for printing with the fewest parentheses.
fn precedence(expr: &Expr) -> u8 {
    match expr {
        Expr::Or(..) => 1,
        Expr::And(..) => 2,
        Expr::Compare(..) => 3,
        _ => 4,
    }
}

struct Operand<'a>(&'a Expr, u8);

impl fmt::Display for Operand<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if precedence(self.0) < self.1 {
            write!(f, "({})", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// The normal form: single spaces around binary operators, only needed parentheses.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Literal(v) => write!(f, "{v}"),
            Expr::Ref(r) => write!(f, "{r}"),
            Expr::Not(e) => write!(f, "!{}", Operand(e, 4)),
            Expr::And(a, b) => write!(f, "{} && {}", Operand(a, 2), Operand(b, 3)),
            Expr::Or(a, b) => write!(f, "{} || {}", Operand(a, 1), Operand(b, 2)),
            Expr::Compare(op, a, b) => {
                write!(f, "{} {} {}", Operand(a, 4), op.as_str(), Operand(b, 4))
            }
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.expr.fmt(f)
    }
}
