//! The shop's pages are embedded with `include_dir!`, which cargo does not know to watch: a
//! page added or changed under `tests/fixtures/shop` must rebuild the crate.

fn main() {
    println!("cargo::rerun-if-changed=../../tests/fixtures/shop");
}
