//! `bench-floor [--chrome PATH] [--origin URL] [--query TEXT]`: the raw-CDP floor of the
//! search-price journey. Prints the product as JSON on stdout, phase times on stderr.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(about = "Launch Chromium and load the journey's three pages over raw CDP")]
struct Args {
    /// The Chromium executable.
    #[arg(long, default_value = "/usr/bin/chromium")]
    chrome: PathBuf,
    /// Where the fixture shop is served.
    #[arg(long, default_value = "http://127.0.0.1:4780")]
    origin: String,
    /// The search.
    #[arg(long, default_value = "keyboard")]
    query: String,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match browserflow_bench::floor::run_floor(&args.chrome, &args.origin, &args.query) {
        Ok(run) => {
            println!("{}", run.output);
            for (phase, took) in &run.phases {
                eprintln!("{phase}: {:.1} ms", took.as_secs_f64() * 1000.0);
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("bench-floor: {error}");
            ExitCode::FAILURE
        }
    }
}
