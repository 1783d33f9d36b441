//! Run inputs from the command line: `--input name=value`, parsed here and nowhere else into
//! typed [`RunInput`]s against the slots of the flow or tool being run.

use browserflow_catalog::{InputError, RunInput, RunInputs};
use browserflow_contract::InputDecl;

/// What the inputs are of, to name it in a message.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    /// A flow.
    Flow,
    /// The tool `name@version`.
    Tool(&'a str),
}

/// A `--input` argument that does not fit the slots.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputArgError {
    /// Not `name=value`.
    #[error("`--input {0}`: expected name=value")]
    Malformed(String),
    /// No such input.
    #[error("`--input {name}=…`: {owner} has no input `{name}` (its inputs: {known})")]
    Unknown {
        /// The name given.
        name: String,
        /// `the flow`, or `the tool `name@version``.
        owner: String,
        /// The inputs, comma-separated.
        known: String,
    },
    /// Given twice.
    #[error("`--input {0}=…` is given twice")]
    Duplicate(String),
    /// A secret input needs a reference, never a value on the command line.
    #[error(
        "`--input {0}=…`: this input is secret; pass a reference, `{0}=secret.NAME`, and provide NAME through BROWSERFLOW_SECRET_NAME or the secrets file"
    )]
    SecretValue(String),
    /// Blank text for an input without a default (the app's Run refuses it too).
    #[error("--input {0}= is blank, and the input {0} has no default: give it a value")]
    Blank(String),
    /// A reference to a secret given for a plain input.
    #[error("`--input {0}=secret.…`: this input is not secret and cannot take a secret")]
    NotSecret(String),
}

/// Parses `name=value` arguments against the slots `decls`. A string-typed input takes the
/// text as it is; any other input takes it as JSON (`count=3`, `tags=["a","b"]`), falling
/// back to the text. A secret input takes `secret.NAME`.
pub fn parse_input_args(
    decls: &[InputDecl],
    args: &[String],
    subject: Subject<'_>,
) -> Result<RunInputs, InputArgError> {
    let mut inputs = RunInputs::new();
    for arg in args {
        let Some((name, text)) = arg.split_once('=') else {
            return Err(InputArgError::Malformed(arg.clone()));
        };
        let Some(decl) = decls.iter().find(|d| d.name == name) else {
            let known: Vec<&str> = decls.iter().map(|d| d.name.as_str()).collect();
            return Err(InputArgError::Unknown {
                name: name.to_owned(),
                owner: match subject {
                    Subject::Flow => "the flow".to_owned(),
                    Subject::Tool(reference) => format!("the tool `{reference}`"),
                },
                known: if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                },
            });
        };
        let input = RunInput::from_typed(decl, text).map_err(|e| match e {
            InputError::NotSecret(_) => InputArgError::NotSecret(name.to_owned()),
            InputError::Blank(_) => InputArgError::Blank(name.to_owned()),
            _ => InputArgError::SecretValue(name.to_owned()),
        })?;
        // Blank for an input with a default: the default, as the app's form sends it.
        let Some(input) = input else { continue };
        if inputs.insert(name.to_owned(), input).is_some() {
            return Err(InputArgError::Duplicate(name.to_owned()));
        }
    }
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use browserflow_contract::Schema;
    use serde_json::json;

    fn decl(name: &str, schema: serde_json::Value, secret: bool) -> InputDecl {
        let mut decl = InputDecl::new(name, Schema::from_json(&schema).expect("a schema"));
        decl.secret = secret;
        decl
    }

    #[test]
    fn input_arguments_are_typed_by_the_slots() {
        let decls = [
            decl("title", json!({"type": "string"}), false),
            decl("n", json!({"type": "integer"}), false),
            decl("token", json!({"type": "string"}), true),
        ];
        let args: Vec<String> = ["title=42", "n=42", "token=secret.API"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let parsed = parse_input_args(&decls, &args, Subject::Flow).unwrap();
        assert_eq!(parsed["title"], RunInput::Value(json!("42")));
        assert_eq!(parsed["n"], RunInput::Value(json!(42)));
        assert_eq!(parsed["token"], RunInput::Secret("API".into()));
        let err =
            parse_input_args(&decls, &["token=hunter2".to_owned()], Subject::Flow).unwrap_err();
        assert!(err.to_string().contains("secret.NAME"), "{err}");
        let err = parse_input_args(&decls, &["nope=1".to_owned()], Subject::Flow).unwrap_err();
        assert!(err.to_string().contains("title, n, token"), "{err}");
        let err =
            parse_input_args(&decls, &["nope=1".to_owned()], Subject::Tool("t@1.0.0")).unwrap_err();
        assert!(
            err.to_string()
                .contains("the tool `t@1.0.0` has no input `nope` (its inputs: title, n, token)"),
            "{err}"
        );
        let err = parse_input_args(&decls, &["n=1".to_owned(), "n=2".to_owned()], Subject::Flow)
            .unwrap_err();
        assert_eq!(err, InputArgError::Duplicate("n".into()));
        let err = parse_input_args(&decls, &["title".to_owned()], Subject::Flow).unwrap_err();
        assert_eq!(err, InputArgError::Malformed("title".into()));
    }
}
