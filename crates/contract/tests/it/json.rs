//! The strict JSON reader: size, depth and duplicate keys.

use std::io::Read;
use std::time::{Duration, Instant};

use browserflow_contract::{
    JsonError, JsonLimits, MAX_DEPTH, Rule, ToolContract, parse_json_str, read_json,
    read_json_file, read_json_file_with,
};
use proptest::prelude::*;
use serde_json::json;

#[test]
fn a_repeated_key_is_refused_with_its_pointer() {
    let err =
        parse_json_str(r#"{"a": [{"x": 1}, {"kind": "browser", "kind": "code"}]}"#).unwrap_err();
    assert!(
        matches!(&err, JsonError::DuplicateKey { pointer, key } if pointer == "/a/1/kind" && key == "kind"),
        "{err:?}"
    );
    assert_eq!(err.rule(), Rule::DuplicateKey);
    assert!(err.to_string().contains("/a/1/kind"), "{err}");
    // Escaped per RFC 6901.
    let err = parse_json_str(r#"{"a/b~": 1, "a/b~": 2}"#).unwrap_err();
    assert_eq!(err.pointer(), "/a~1b~0");
}

#[test]
fn a_contract_with_two_kinds_is_refused_not_read_as_the_last() {
    let text = r#"{"name": "search-price", "version": "1.2.0", "kind": "browser", "kind": "code",
        "description": "", "inputs": [], "output": {"type": "string"}, "capabilities": ["browser"]}"#;
    let problems = ToolContract::from_json_str(text).unwrap_err();
    let problem = problems.iter().next().unwrap();
    assert_eq!(problem.rule, Rule::DuplicateKey);
    assert_eq!(problem.pointer, "/kind");
}

#[test]
fn nesting_is_bounded() {
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(parse_json_str(&ok).is_ok());
    let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
    let err = parse_json_str(&deep).unwrap_err();
    assert!(
        matches!(&err, JsonError::TooDeep { limit, .. } if *limit == MAX_DEPTH),
        "{err:?}"
    );
    assert_eq!(err.rule(), Rule::TooDeep);
    // Far deeper than serde_json's own recursion limit, still our clear error.
    let mut very = "{\"a\":".repeat(100_000);
    very.push('1');
    assert!(matches!(
        parse_json_str(&very),
        Err(JsonError::TooDeep { .. })
    ));
}

#[test]
fn values_read_exactly() {
    let text = r#"{"b": [1, -2, 3.5, 18446744073709551615, true, null, "x\u00e9"], "a": {}}"#;
    assert_eq!(
        parse_json_str(text).unwrap(),
        serde_json::from_str::<serde_json::Value>(text).unwrap()
    );
    assert!(matches!(parse_json_str("{} x"), Err(JsonError::Syntax(_))));
    assert!(matches!(parse_json_str("1e400"), Err(JsonError::Syntax(_))));
}

/// An endless stream of whitespace: never valid, never finished.
struct Endless;

impl Read for Endless {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        buf.fill(b' ');
        Ok(buf.len())
    }
}

#[test]
fn an_endless_stream_stops_at_the_limit() {
    let limits = JsonLimits {
        max_bytes: 1024 * 1024,
        max_depth: MAX_DEPTH,
    };
    let counted = std::rc::Rc::new(std::cell::Cell::new(0u64));
    struct Counting(std::rc::Rc<std::cell::Cell<u64>>);
    impl Read for Counting {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = Endless.read(buf)?;
            self.0.set(self.0.get() + n as u64);
            Ok(n)
        }
    }
    let err = read_json(Counting(counted.clone()), limits).unwrap_err();
    assert!(
        matches!(err, JsonError::TooLarge { limit } if limit == 1024 * 1024),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "is larger than the limit of 1 MiB");
    // At most one read buffer past the limit.
    assert!(counted.get() <= 1024 * 1024 + 1, "{}", counted.get());
    // An endless string inside a valid start is refused the same way.
    let err = read_json(b"[\"".chain(std::io::repeat(b'a')), limits).unwrap_err();
    assert!(matches!(err, JsonError::TooLarge { .. }), "{err:?}");
    // Exactly at the limit is fine.
    let exact = format!("[{}]", " ".repeat(1024 * 1024 - 2));
    assert!(read_json(exact.as_bytes(), limits).is_ok());
}

#[test]
fn dev_zero_fails_at_once() {
    let started = Instant::now();
    let err = read_json_file(std::path::Path::new("/dev/zero")).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        err.to_string().starts_with("/dev/zero: is not valid JSON"),
        "{err}"
    );
}

#[test]
fn a_big_file_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(1 << 40).unwrap(); // sparse: 1 TiB of zeros that would take hours to read
    let limits = JsonLimits {
        max_bytes: 4096,
        max_depth: 8,
    };
    let started = Instant::now();
    let err = read_json_file_with(&path, limits).unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        err.to_string(),
        format!("{}: is larger than the limit of 4 KiB", path.display())
    );
    let err = read_json_file(&dir.path().join("absent.json")).unwrap_err();
    assert!(matches!(err.reason, JsonError::Io(_)), "{err:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Whatever serde_json reads without duplicates, the strict reader reads the same.
    #[test]
    fn agrees_with_serde_json_on_what_it_accepts(text in "[\\[\\]{}\",:0-9a-c .e-]{0,60}") {
        match parse_json_str(&text) {
            Ok(value) => prop_assert_eq!(value, serde_json::from_str::<serde_json::Value>(&text).unwrap()),
            Err(JsonError::Syntax(_)) => prop_assert!(serde_json::from_str::<serde_json::Value>(&text).is_err()),
            Err(JsonError::DuplicateKey { .. }) | Err(JsonError::TooDeep { .. }) => {}
            Err(other) => prop_assert!(false, "unexpected {other:?}"),
        }
    }

    #[test]
    fn what_it_writes_it_reads(value in proptest::collection::vec((".{0,12}", any::<i32>()), 0..8)) {
        let object: serde_json::Map<_, _> = value.into_iter().map(|(k, v)| (k, json!(v))).collect();
        let text = serde_json::to_string(&object).unwrap();
        prop_assert_eq!(parse_json_str(&text).unwrap(), serde_json::Value::Object(object));
    }
}
