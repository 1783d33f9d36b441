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
            eprintln!("error: {error:#}");
            ExitCode::from(1)
        }
    }
}
