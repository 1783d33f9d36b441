//! How commands end: a success code, a "the input is wrong" code (1) with the problems
//! already printed, or an error printed as one clear chain, never a backtrace.

use std::process::ExitCode;

/// A command's result: `Ok(true)` success, `Ok(false)` the input was checked and found wrong.
pub type Outcome = anyhow::Result<bool>;

/// Turns a command's outcome into the process exit code.
pub fn report(outcome: Outcome) -> ExitCode {
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("error: {}", chain_text(&error));
            ExitCode::from(1)
        }
    }
}

/// The error and its causes joined by `: `, each cause once. Many errors write their source
/// into their own message (so one `to_string` tells the whole story, as the app shows it) and
/// also expose it as `source()`; printing both would say a cause twice (`(os error 2): No such
/// file or directory (os error 2)`), so a cause already said is left out. (File-system causes
/// are said in words by the errors that name the file, `io_in_words`, and not exposed again.)
fn chain_text(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if cause.is_empty() || text.contains(&cause) {
            continue;
        }
        text.push_str(": ");
        text.push_str(&cause);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::chain_text;

    /// Writes its source into its message, and exposes it.
    #[derive(Debug)]
    struct Embeds {
        path: String,
        source: std::io::Error,
    }

    impl std::fmt::Display for Embeds {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{}: {}", self.path, self.source)
        }
    }

    impl std::error::Error for Embeds {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.source)
        }
    }

    /// Only exposes its source.
    #[derive(Debug)]
    struct Wraps(std::io::Error);

    impl std::fmt::Display for Wraps {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "cannot open the pack")
        }
    }

    impl std::error::Error for Wraps {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    fn not_found() -> std::io::Error {
        std::io::Error::from(std::io::ErrorKind::NotFound)
    }

    #[test]
    fn a_cause_written_into_its_error_is_said_once() {
        let error = anyhow::Error::new(Embeds {
            path: "/x".into(),
            source: not_found(),
        })
        .context("cannot find how run r was started");
        assert_eq!(
            chain_text(&error),
            format!("cannot find how run r was started: /x: {}", not_found())
        );
    }

    #[test]
    fn a_cause_not_written_into_its_error_is_added() {
        let error = anyhow::Error::new(Wraps(not_found()));
        assert_eq!(
            chain_text(&error),
            format!("cannot open the pack: {}", not_found())
        );
    }
}
