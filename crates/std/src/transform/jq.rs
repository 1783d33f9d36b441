//! `std/transform.jq`: a jq program over JSON, run by jaq.
//!
//! The program is pure: the builtins that read the clock (`now`, `mktime`, `gmtime`, …),
//! the environment (`env`, `$ENV`), the input stream (`input`, `inputs`), or write outside
//! the result (`debug`, `stderr`, `halt`, `halt_error`) are removed, so a program naming
//! one is refused when it is compiled, with the position of the name. Module imports read no
//! file.

use browserflow_contract::Kind;
use browserflow_rider::{DefineError, Tool, ToolDef, ToolError, define_tool};
use jaq_core::load::{self, Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data};
use jaq_json::Val;
use serde_json::Value;

/// Builtins a pure program may not use: time, environment, input, side output, exit.
pub const IMPURE_BUILTINS: &[&str] = &[
    "now",
    "mktime",
    "gmtime",
    "localtime",
    "strftime",
    "strflocaltime",
    "strptime",
    "todateiso8601",
    "fromdateiso8601",
    "todate",
    "fromdate",
    "date",
    "dateadd",
    "datesub",
    "env",
    "$ENV",
    "input",
    "inputs",
    "input_filename",
    "input_line_number",
    "debug",
    "debug_empty",
    "stderr",
    "stderr_empty",
    "halt",
    "halt_error",
];

/// At most this many results are collected from one run.
pub const MAX_OUTPUTS: usize = 100_000;

/// Why a jq program did not compile or run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JqError {
    /// The program does not parse or names something unknown or impure.
    #[error("jq program: {}", .0.join("; "))]
    Compile(Vec<String>),
    /// The program failed on its input.
    #[error("jq program failed: {0}")]
    Run(String),
    /// The input or a result is not JSON.
    #[error("jq value: {0}")]
    Value(String),
}

/// A compiled jq program.
pub struct JqProgram {
    filter: jaq_core::Filter<data::JustLut<Val>>,
}

impl std::fmt::Debug for JqProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JqProgram").finish_non_exhaustive()
    }
}

/// `line L, column C` (1-based) of byte `offset` in `code`.
fn position(code: &str, offset: usize) -> String {
    let before = &code[..offset.min(code.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {column}")
}

/// Where `part` (a slice of `code`) starts, or the end of `code` when it is not a slice of it.
fn offset_of(code: &str, part: &str) -> usize {
    let start = code.as_ptr() as usize;
    let at = part.as_ptr() as usize;
    if at >= start && at <= start + code.len() {
        at - start
    } else {
        code.len()
    }
}

fn lex_expectation(e: &load::lex::Expect<&str>) -> &'static str {
    use load::lex::Expect;
    match e {
        Expect::Digit => "a digit",
        Expect::Ident => "an identifier",
        Expect::Delim("(") => "a closing parenthesis",
        Expect::Delim("[") => "a closing bracket",
        Expect::Delim("{") => "a closing brace",
        Expect::Delim("\"") => "a closing quote",
        Expect::Delim(_) => "a closing delimiter",
        Expect::Escape => "a string escape sequence",
        Expect::Unicode => "a 4-digit hexadecimal code point",
        Expect::Token => "a token",
        _ => "something else",
    }
}

impl JqProgram {
    /// Parses and compiles `code`. Every problem names its line and column.
    pub fn compile(code: &str) -> Result<JqProgram, JqError> {
        let defs = jaq_core::defs()
            .chain(jaq_std::defs())
            .chain(jaq_json::defs())
            .filter(|d| !IMPURE_BUILTINS.contains(&d.name));
        let funs = jaq_core::funs()
            .chain(jaq_std::funs())
            .chain(jaq_json::funs())
            .filter(|(name, _, _)| !IMPURE_BUILTINS.contains(name));
        let arena = Arena::default();
        let loader = Loader::new(defs);
        let modules = loader
            .load(&arena, File { code, path: () })
            .map_err(|errors| {
                let mut found = Vec::new();
                for (_, error) in errors {
                    match error {
                        load::Error::Io(list) => {
                            for (path, why) in list {
                                found.push(format!(
                                    "module `{path}` at {}: {why}",
                                    position(code, offset_of(code, path))
                                ));
                            }
                        }
                        load::Error::Lex(list) => {
                            for (expect, at) in list {
                                found.push(format!(
                                    "expected {} at {}",
                                    lex_expectation(&expect),
                                    position(code, offset_of(code, at))
                                ));
                            }
                        }
                        load::Error::Parse(list) => {
                            for (expect, at) in list {
                                let near = at.chars().take(12).collect::<String>();
                                let near = if near.is_empty() {
                                    "the end of the program".to_owned()
                                } else {
                                    format!("`{near}`")
                                };
                                found.push(format!(
                                    "expected {} at {} (found {near})",
                                    expect.as_str(),
                                    position(code, offset_of(code, at))
                                ));
                            }
                        }
                    }
                }
                JqError::Compile(found)
            })?;
        let filter = Compiler::default().with_funs(funs).compile(modules).map_err(|errors| {
            let mut found = Vec::new();
            for (_, list) in errors {
                for (name, undefined) in list {
                    let at = position(code, offset_of(code, name));
                    let bare = name.trim_start_matches('$');
                    if IMPURE_BUILTINS.contains(&name) || IMPURE_BUILTINS.contains(&bare) && name.starts_with('$') {
                        found.push(format!(
                            "`{name}` at {at} is not allowed: a jq transform is pure, so the clock, the environment, the input stream, debug output and halt are not available"
                        ));
                    } else {
                        found.push(format!("undefined {} `{name}` at {at}", undefined.as_str()));
                    }
                }
            }
            JqError::Compile(found)
        })?;
        Ok(JqProgram { filter })
    }

    /// Runs the program on `input`, collecting every result.
    pub fn run(&self, input: &Value) -> Result<Vec<Value>, JqError> {
        let text = serde_json::to_vec(input).map_err(|e| JqError::Value(e.to_string()))?;
        let val =
            jaq_json::read::parse_single(&text).map_err(|e| JqError::Value(format!("{e:?}")))?;
        let ctx = Ctx::<data::JustLut<Val>>::new(&self.filter.lut, Vars::new([]));
        let mut out = Vec::new();
        for result in self.filter.id.run((ctx, val)).map(jaq_core::unwrap_valr) {
            let value = result.map_err(|e| JqError::Run(e.to_string()))?;
            if out.len() == MAX_OUTPUTS {
                return Err(JqError::Run(format!("more than {MAX_OUTPUTS} results")));
            }
            let json: Value = serde_json::from_str(&value.to_string())
                .map_err(|e| JqError::Value(format!("the result {value} is not JSON: {e}")))?;
            out.push(json);
        }
        Ok(out)
    }
}

/// The input of `jq`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JqInput {
    /// The jq program, such as `.items | map(.price) | min`.
    pub program: String,
    /// The value the program reads as `.`.
    pub input: Value,
    /// `true`: the output is the list of every result; `false` (default): the program must
    /// give exactly one result, which is the output.
    #[serde(default)]
    pub collect: bool,
}

/// `std/transform.jq@1.0.0`.
pub fn jq() -> Result<impl Tool, DefineError> {
    define_tool(
        ToolDef::new("std/transform.jq", "1.0.0", Kind::Transform).description(
            "Run a pure jq program over a JSON value (no clock, env, input or debug builtins).",
        ),
        |input: JqInput, _ctx| async move {
            let program = JqProgram::compile(&input.program)
                .map_err(|e| ToolError::terminal(e.to_string()))?;
            let mut results = program
                .run(&input.input)
                .map_err(|e| ToolError::terminal(e.to_string()))?;
            if input.collect {
                return Ok(Value::Array(results));
            }
            match results.len() {
                1 => Ok(results.remove(0)),
                n => Err(ToolError::terminal(format!(
                    "jq program gave {n} results where exactly one is expected; set `collect: true` to get them all as a list"
                ))),
            }
        },
    )
}
