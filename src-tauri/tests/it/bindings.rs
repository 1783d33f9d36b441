//! The TypeScript bindings in `ui/src/bindings/` are generated from the Rust types: this test
//! generates them and fails when the checked-in files differ. Run it with
//! `UPDATE_BINDINGS=1` to rewrite them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ts_rs::TS;

fn generate(dir: &Path) {
    use browserflow_app::commands::{model, packs};
    use browserflow_catalog::{
        batch_view, flow_view, library, pack_view, preview, record_view as record,
    };
    browserflow_app::AppError::export_all_to(dir).expect("AppError");
    browserflow_app::AppPaths::export_all_to(dir).expect("AppPaths");
    library::LibraryItem::export_all_to(dir).expect("LibraryItem");
    flow_view::FlowView::export_all_to(dir).expect("FlowView");
    pack_view::ManifestView::export_all_to(dir).expect("ManifestView");
    pack_view::VerifyView::export_all_to(dir).expect("VerifyView");
    pack_view::OnConflict::export_all_to(dir).expect("OnConflict");
    packs::ExportChoice::export_all_to(dir).expect("ExportChoice");
    preview::PreviewRequest::export_all_to(dir).expect("PreviewRequest");
    preview::PreviewResult::export_all_to(dir).expect("PreviewResult");
    batch_view::BatchRequest::export_all_to(dir).expect("BatchRequest");
    batch_view::BatchRowView::export_all_to(dir).expect("BatchRowView");
    batch_view::BatchResultView::export_all_to(dir).expect("BatchResultView");
    record::RecordStart::export_all_to(dir).expect("RecordStart");
    record::RecordEventView::export_all_to(dir).expect("RecordEventView");
    record::DraftView::export_all_to(dir).expect("DraftView");
    record::RecordStatusView::export_all_to(dir).expect("RecordStatusView");
    record::FieldProblem::export_all_to(dir).expect("FieldProblem");
    browserflow_catalog::shop_view::ShopView::export_all_to(dir).expect("ShopView");
    record::OutputKindName::export_all_to(dir).expect("OutputKindName");
    model::ModelStatus::export_all_to(dir).expect("ModelStatus");
    model::DraftSuggestions::export_all_to(dir).expect("DraftSuggestions");
    model::SelectorSuggestionView::export_all_to(dir).expect("SelectorSuggestionView");
}

fn read_all(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "ts"))
                .map(|e| {
                    let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                    (e.file_name().to_string_lossy().to_string(), text)
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_checked_in_typescript_bindings_match_the_rust_types() {
    let fresh = tempfile::tempdir().expect("a temp dir");
    generate(fresh.path());
    let generated = read_all(fresh.path());
    assert!(
        generated.contains_key("LibraryItem.ts"),
        "{:?}",
        generated.keys()
    );
    assert!(generated["AppError.ts"].contains("code: string"));

    let checked_in: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings");
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        std::fs::create_dir_all(&checked_in).expect("bindings folder");
        for (name, _) in read_all(&checked_in) {
            let _ = std::fs::remove_file(checked_in.join(name));
        }
        generate(&checked_in);
    }
    let current = read_all(&checked_in);
    let stale: Vec<&String> = generated
        .keys()
        .chain(current.keys())
        .filter(|name| generated.get(*name) != current.get(*name))
        .collect();
    assert!(
        stale.is_empty(),
        "ui/src/bindings is stale ({stale:?}): run `UPDATE_BINDINGS=1 cargo test -p browserflow-app --test it bindings`"
    );
}
