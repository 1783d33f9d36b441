//! Flows read strictly and bounded: repeated keys, depth, size; and mutations of the shipped
//! flow never panic and always explain themselves.

use browserflow_flow::{FlowSpec, Registry, check_file};
use proptest::prelude::*;

use crate::support::*;

fn shipped_flow() -> String {
    std::fs::read_to_string(repo_root().join("recordings/daily-price-watch.flow.json")).unwrap()
}

#[test]
fn a_repeated_key_is_refused_with_its_pointer() {
    let text = shipped_flow().replacen(
        "\"id\": \"search\"",
        "\"id\": \"search\", \"id\": \"other\"",
        1,
    );
    let errors = FlowSpec::from_json_str(&text).unwrap_err();
    assert_diag(
        only(&errors),
        "duplicate_key",
        None,
        None,
        "/steps/0/id",
        &["the key `id` appears twice"],
    );
}

#[test]
fn nesting_is_bounded() {
    let text = format!("{{\"name\": {}1{}}}", "[".repeat(5000), "]".repeat(5000));
    let errors = FlowSpec::from_json_str(&text).unwrap_err();
    assert_diag(
        only(&errors),
        "too_deep",
        None,
        None,
        "/name/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0",
        &["64 levels"],
    );
}

#[test]
fn files_over_the_limit_are_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.flow.json");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(browserflow_contract::MAX_DOCUMENT_BYTES + 1)
        .unwrap();
    let errors = check_file(&path, &Registry::new()).unwrap_err();
    assert!(
        only(&errors)
            .message
            .contains("is larger than the limit of 16 MiB"),
        "{errors}"
    );
    let mut registry = Registry::new();
    let errors = registry
        .load_files(std::slice::from_ref(&path))
        .unwrap_err();
    assert!(
        only(&errors)
            .message
            .contains("is larger than the limit of 16 MiB"),
        "{errors}"
    );
    let errors = check_file("/dev/zero", &Registry::new()).unwrap_err();
    assert!(only(&errors).message.contains("not valid JSON"), "{errors}");
}

/// One change to a valid document's bytes.
#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: usize, bits: u8 },
    Truncate { at: usize },
    Insert { at: usize, text: &'static str },
    Nest { depth: usize },
}

/// Texts that hostile or broken files are made of: structure, huge and odd numbers, repeated
/// keys, escapes.
const INSERTS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ",",
    ":",
    "null",
    "1e999",
    "-1e400",
    "123456789012345678901234567890",
    "-0",
    "0.0000000000000000000000001",
    "\"name\": \"x\", ",
    "\"id\": \"a\", ",
    "\\u0000",
    "\\ud800",
    "\u{feff}",
    "\"steps\": [], ",
    "{\"from\": \"steps.x.output\"}",
    "\"when\": \"!\", ",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1..=255u8).prop_map(|(at, bits)| Mutation::Flip { at, bits }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        (any::<usize>(), prop::sample::select(INSERTS))
            .prop_map(|(at, text)| Mutation::Insert { at, text }),
        (1..200usize).prop_map(|depth| Mutation::Nest { depth }),
    ]
}

fn apply(text: &str, mutations: &[Mutation]) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    for m in mutations {
        let len = bytes.len().max(1);
        match m {
            Mutation::Flip { at, bits } => {
                if !bytes.is_empty() {
                    bytes[at % len] ^= bits;
                }
            }
            Mutation::Truncate { at } => bytes.truncate(at % len),
            Mutation::Insert { at, text } => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, text.bytes());
            }
            Mutation::Nest { depth } => {
                let mut nested = "[".repeat(*depth).into_bytes();
                nested.extend_from_slice(&bytes);
                nested.extend(std::iter::repeat_n(b']', *depth));
                bytes = nested;
            }
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// A mutated flow parses, or every problem has a pointer and a message; compiling what
    /// parses never panics either.
    #[test]
    fn mutated_flows_never_panic(mutations in prop::collection::vec(mutation(), 1..4)) {
        let text = String::from_utf8_lossy(&apply(&shipped_flow(), &mutations)).into_owned();
        match FlowSpec::from_json_str(&text) {
            Ok(spec) => {
                let _ = browserflow_flow::compile(&spec, &recordings_registry());
            }
            Err(errors) => {
                prop_assert!(!errors.0.is_empty());
                for d in errors.iter() {
                    prop_assert!(d.pointer.is_empty() || d.pointer.starts_with('/'), "{d}");
                    prop_assert!(!d.message.is_empty());
                }
            }
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = FlowSpec::from_json_str(&String::from_utf8_lossy(&bytes));
    }
}
