//! The one strict JSON reader of browserflow: bounded in size and depth, and refusing
//! duplicate object keys.
//!
//! Every file or pack member browserflow reads as JSON (tool files, flows, contracts,
//! DevTools recordings, secrets files, pack manifests) goes through here, so that:
//!
//! - a document larger than its limit fails while it is being read, after at most
//!   `limit + 1` bytes (`/dev/zero` or an endless pipe fails fast, with bounded memory);
//! - nesting deeper than [`MAX_DEPTH`] is refused before it can exhaust the stack;
//! - a repeated key is refused with its JSON pointer. serde_json keeps the last duplicate
//!   silently, so `{"kind": "browser", "kind": "code"}` would otherwise be read as code.
//!
//! Opening a file is the only I/O this crate does.

use std::cell::RefCell;
use std::fmt;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::problem::{Problem, Rule, push_pointer};

/// The size limit of one document read from a file (tool, flow, contract, recording,
/// secrets file, pack manifest). The largest real tool files are a few hundred KiB (a long
/// recording with model-assist metadata); 16 MiB leaves room for 50× that, yet keeps a
/// mistaken `bflow contract check big.iso` (or `/dev/zero`) from taking the machine's memory.
pub const MAX_DOCUMENT_BYTES: u64 = 16 * 1024 * 1024;

/// The nesting limit (objects and arrays). Real formats nest at most ~12 deep (a schema's
/// properties of items of properties…); 64 is generous for hand-written schemas and well
/// below serde_json's own recursion limit of 128, so ours is the error a person sees.
pub const MAX_DEPTH: usize = 64;

/// Bounds for one read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonLimits {
    /// At most this many bytes.
    pub max_bytes: u64,
    /// At most this many nested objects and arrays.
    pub max_depth: usize,
}

impl JsonLimits {
    /// The limits of a browserflow document: [`MAX_DOCUMENT_BYTES`] and [`MAX_DEPTH`].
    pub const DOCUMENT: JsonLimits = JsonLimits {
        max_bytes: MAX_DOCUMENT_BYTES,
        max_depth: MAX_DEPTH,
    };
}

impl Default for JsonLimits {
    fn default() -> Self {
        JsonLimits::DOCUMENT
    }
}

/// Why a JSON document was refused.
#[derive(Debug, thiserror::Error)]
pub enum JsonError {
    /// Larger than the size limit; reading stopped at the limit.
    #[error("is larger than the limit of {}", human_bytes(*limit))]
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// Nested deeper than the depth limit.
    #[error(
        "nests deeper than the limit of {limit} levels (at {})",
        display_pointer(pointer)
    )]
    TooDeep {
        /// Where the limit was crossed.
        pointer: String,
        /// The limit.
        limit: usize,
    },
    /// An object has the same key twice.
    #[error(
        "has the key `{key}` twice in one object (at {})",
        display_pointer(pointer)
    )]
    DuplicateKey {
        /// The pointer of the repeated member.
        pointer: String,
        /// The key.
        key: String,
    },
    /// Not JSON (syntax, bad UTF-8, a number out of range, trailing characters).
    #[error("is not valid JSON: {0}")]
    Syntax(serde_json::Error),
    /// Reading failed.
    #[error("{}", crate::io_in_words(.0))]
    Io(std::io::Error),
}

impl JsonError {
    /// The [`Rule`] it breaks.
    pub fn rule(&self) -> Rule {
        match self {
            JsonError::TooLarge { .. } => Rule::TooLarge,
            JsonError::TooDeep { .. } => Rule::TooDeep,
            JsonError::DuplicateKey { .. } => Rule::DuplicateKey,
            JsonError::Syntax(_) | JsonError::Io(_) => Rule::InvalidJson,
        }
    }

    /// The pointer of the offending place (`""` when it is the document as a whole).
    pub fn pointer(&self) -> &str {
        match self {
            JsonError::TooDeep { pointer, .. } | JsonError::DuplicateKey { pointer, .. } => pointer,
            _ => "",
        }
    }

    /// As a located [`Problem`], for parsers that collect problems.
    pub fn to_problem(&self) -> Problem {
        // The pointer is the problem's own; the message need not repeat it.
        let message = match self {
            JsonError::Syntax(e) => format!("not valid JSON: {e}"),
            JsonError::DuplicateKey { key, .. } => {
                format!("the key `{key}` appears twice in one object")
            }
            JsonError::TooDeep { limit, .. } => {
                format!("the document nests deeper than the limit of {limit} levels")
            }
            other => format!("the document {other}"),
        };
        Problem::new(self.pointer(), self.rule(), message)
    }
}

/// A JSON file that was refused, naming the file.
///
/// The reason is part of the message and not a `source`, so that an error chain says it once.
#[derive(Debug, thiserror::Error)]
#[error("{}: {reason}", path.display())]
pub struct JsonFileError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub reason: JsonError,
}

/// Parses JSON text strictly with the document limits.
pub fn parse_json_str(text: &str) -> Result<Value, JsonError> {
    parse_json_slice(text.as_bytes())
}

/// Parses JSON bytes strictly with the document limits.
pub fn parse_json_slice(bytes: &[u8]) -> Result<Value, JsonError> {
    parse_json_slice_with(bytes, JsonLimits::DOCUMENT)
}

/// Parses JSON bytes strictly with the given limits.
pub fn parse_json_slice_with(bytes: &[u8], limits: JsonLimits) -> Result<Value, JsonError> {
    if bytes.len() as u64 > limits.max_bytes {
        return Err(JsonError::TooLarge {
            limit: limits.max_bytes,
        });
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    finish(parse_with(&mut deserializer, limits), deserializer.end())
}

/// Reads one JSON document from `reader`, never more than `limits.max_bytes + 1` bytes of it.
pub fn read_json(reader: impl Read, limits: JsonLimits) -> Result<Value, JsonError> {
    let mut counted = Counted {
        // One byte past the limit is how "too large" is told from "exactly the limit".
        inner: reader.take(limits.max_bytes.saturating_add(1)),
        read: 0,
        io_error: None,
    };
    let result = {
        let mut deserializer = serde_json::Deserializer::from_reader(BufReader::new(&mut counted));
        let parsed = parse_with(&mut deserializer, limits);
        let end = parsed.as_ref().map(|_| deserializer.end());
        match end {
            Ok(end) => finish(parsed, end),
            Err(_) => parsed,
        }
    };
    if counted.read > limits.max_bytes {
        return Err(JsonError::TooLarge {
            limit: limits.max_bytes,
        });
    }
    if let Some(e) = counted.io_error {
        return Err(JsonError::Io(e));
    }
    result
}

/// Reads one JSON file with the document limits; a regular file larger than the limit is
/// refused before any byte of it is read.
pub fn read_json_file(path: &Path) -> Result<Value, JsonFileError> {
    read_json_file_with(path, JsonLimits::DOCUMENT)
}

/// [`read_json_file`] with the given limits.
pub fn read_json_file_with(path: &Path, limits: JsonLimits) -> Result<Value, JsonFileError> {
    let fail = |reason| JsonFileError {
        path: path.to_owned(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| fail(JsonError::Io(e)))?;
    if let Ok(meta) = file.metadata()
        && meta.is_file()
        && meta.len() > limits.max_bytes
    {
        return Err(fail(JsonError::TooLarge {
            limit: limits.max_bytes,
        }));
    }
    read_json(file, limits).map_err(fail)
}

/// The text of a document file, read with the document size limit (for parsers that keep
/// positions in the text, or parse it in several ways). A regular file over the limit is
/// refused before it is read; a stream stops one byte past it.
pub fn read_document_text(path: &Path) -> Result<String, JsonError> {
    let file = std::fs::File::open(path).map_err(JsonError::Io)?;
    if let Ok(meta) = file.metadata()
        && meta.is_file()
        && meta.len() > MAX_DOCUMENT_BYTES
    {
        return Err(JsonError::TooLarge {
            limit: MAX_DOCUMENT_BYTES,
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(JsonError::Io)?;
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(JsonError::TooLarge {
            limit: MAX_DOCUMENT_BYTES,
        });
    }
    String::from_utf8(bytes)
        .map_err(|e| JsonError::Io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}

/// A reader that counts what it hands out and keeps its I/O error (serde_json turns it into
/// a text-only error).
struct Counted<R> {
    inner: R,
    read: u64,
    io_error: Option<std::io::Error>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.read += n as u64;
                Ok(n)
            }
            Err(e) => {
                let copy = std::io::Error::new(e.kind(), e.to_string());
                self.io_error = Some(e);
                Err(copy)
            }
        }
    }
}

fn finish(
    parsed: Result<Value, JsonError>,
    end: serde_json::Result<()>,
) -> Result<Value, JsonError> {
    let value = parsed?;
    end.map_err(JsonError::Syntax)?;
    Ok(value)
}

fn parse_with<'de, D>(deserializer: D, limits: JsonLimits) -> Result<Value, JsonError>
where
    D: de::Deserializer<'de, Error = serde_json::Error>,
{
    let refused = RefCell::new(None);
    let seed = StrictValue {
        at: &PathNode::Root,
        depth: 0,
        limits,
        refused: &refused,
    };
    match seed.deserialize(deserializer) {
        Ok(value) => Ok(value),
        // A refusal of ours travels through serde_json as a text error; the typed one is
        // kept aside.
        Err(e) => Err(refused.into_inner().unwrap_or(JsonError::Syntax(e))),
    }
}

/// Where a value sits, as a chain up to the root; the pointer text is built only for an
/// error.
enum PathNode<'a> {
    Root,
    Key(&'a PathNode<'a>, &'a str),
    Index(&'a PathNode<'a>, usize),
}

impl PathNode<'_> {
    fn pointer(&self) -> String {
        match self {
            PathNode::Root => String::new(),
            PathNode::Key(parent, key) => push_pointer(&parent.pointer(), key),
            PathNode::Index(parent, i) => format!("{}/{i}", parent.pointer()),
        }
    }
}

struct StrictValue<'a> {
    at: &'a PathNode<'a>,
    depth: usize,
    limits: JsonLimits,
    refused: &'a RefCell<Option<JsonError>>,
}

impl StrictValue<'_> {
    fn refuse<E: de::Error>(&self, error: JsonError) -> E {
        let message = error.to_string();
        *self.refused.borrow_mut() = Some(error);
        E::custom(message)
    }

    fn enter<E: de::Error>(&self) -> Result<usize, E> {
        let depth = self.depth + 1;
        if depth > self.limits.max_depth {
            return Err(self.refuse(JsonError::TooDeep {
                pointer: self.at.pointer(),
                limit: self.limits.max_depth,
            }));
        }
        Ok(depth)
    }
}

impl<'de> DeserializeSeed<'de> for StrictValue<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let depth = self.enter()?;
        let mut items = Vec::new();
        loop {
            let at = PathNode::Index(self.at, items.len());
            let seed = StrictValue {
                at: &at,
                depth,
                limits: self.limits,
                refused: self.refused,
            };
            match seq.next_element_seed(seed)? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let depth = self.enter()?;
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = PathNode::Key(self.at, &key);
            if object.contains_key(&key) {
                return Err(self.refuse(JsonError::DuplicateKey {
                    pointer: at.pointer(),
                    key: key.clone(),
                }));
            }
            let seed = StrictValue {
                at: &at,
                depth,
                limits: self.limits,
                refused: self.refused,
            };
            let value = map.next_value_seed(seed)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(root)"
    } else {
        pointer
    }
}

fn human_bytes(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_read_humanly() {
        assert_eq!(human_bytes(MAX_DOCUMENT_BYTES), "16 MiB");
        assert_eq!(human_bytes(2048), "2 KiB");
        assert_eq!(human_bytes(10), "10 bytes");
    }
}
