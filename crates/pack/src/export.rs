//! Export: the closure of the requested tools and flows, checked and encoded as a pack.

use std::collections::{BTreeMap, BTreeSet};

use browserflow_contract::{Digest, InputDecl, ToolContract, ToolRef};
use browserflow_flow::{Binding, FlowSpec, Reference, Registry, TemplatePart};

use crate::archive;
use crate::catalog::Catalog;
use crate::error::PackError;
use crate::manifest::{Entry, External, Form, Manifest, check_pack_name};
use crate::secrets::DenyList;

/// What to export.
#[derive(Debug)]
pub struct ExportRequest<'a> {
    /// The pack name (a tool name without `/`).
    pub name: String,
    /// The pack version.
    pub version: semver::Version,
    /// The tools and flows asked for; what they require comes along.
    pub roots: Vec<ToolRef>,
    /// The program's built-in tools: flows may use them; they are recorded in the manifest
    /// as externals, never packed.
    pub builtins: &'a Registry,
    /// Secret values that must not appear in any file (the CLI passes the resolved
    /// `BROWSERFLOW_SECRET_*` values).
    pub deny: &'a DenyList,
}

/// An encoded pack: its manifest, digest and archive bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Pack {
    /// The manifest.
    pub manifest: Manifest,
    /// The pack digest: `sha256:` of `manifest.json`.
    pub digest: Digest,
    /// The archive.
    pub bytes: Vec<u8>,
}

/// Builds the pack of `request.roots` and everything they require from `catalog`.
///
/// A flow brings the tools and flows it pins (and the composite tools it uses bring their
/// inner flows), each checked against its pin; built-in tools become externals. Refused:
/// a ref found nowhere, a pin that does not match, a flow that does not compile, and
/// anything the [secret check](crate::secrets) finds.
pub fn export(catalog: &Catalog, request: &ExportRequest<'_>) -> Result<Pack, PackError> {
    check_pack_name(&request.name).map_err(PackError::Export)?;
    if request.roots.is_empty() {
        return Err(PackError::Export(
            "nothing to export: name at least one tool or flow".into(),
        ));
    }
    // The closure: every ref the roots reach, in the catalog or built in.
    let mut packed: BTreeSet<ToolRef> = BTreeSet::new();
    let mut externals: BTreeSet<ToolRef> = BTreeSet::new();
    let mut queue: Vec<(ToolRef, Option<ToolRef>)> =
        request.roots.iter().map(|r| (r.clone(), None)).collect();
    while let Some((reference, wanted_by)) = queue.pop() {
        if packed.contains(&reference) || externals.contains(&reference) {
            continue;
        }
        if let Some(sources) = catalog.ambiguity(&reference) {
            return Err(PackError::Export(format!(
                "`{reference}` is defined more than once with different content: {}; name the one to export by its path",
                sources.join(", ")
            )));
        }
        match catalog.get(&reference) {
            Some(item) => {
                packed.insert(reference.clone());
                if let Some(flow) = &item.flow {
                    for used in flow_uses(flow) {
                        queue.push((used, Some(reference.clone())));
                    }
                }
            }
            None if wanted_by.is_some() && request.builtins.get(&reference).is_some() => {
                externals.insert(reference);
            }
            None => {
                let by = wanted_by
                    .map(|w| format!(", required by `{w}`,"))
                    .unwrap_or_default();
                let skipped = if catalog.skipped().is_empty() {
                    String::new()
                } else {
                    format!(" (skipped files: {})", catalog.skipped().join("; "))
                };
                return Err(PackError::Export(format!(
                    "`{reference}`{by} is not among the tool and flow files given{}{skipped}",
                    if by.is_empty() { "" } else { " nor built in" }
                )));
            }
        }
    }

    let tools: BTreeMap<ToolRef, ToolContract> = packed
        .iter()
        .filter_map(|r| {
            catalog
                .get(r)
                .and_then(|i| i.contract.clone())
                .map(|c| (r.clone(), c))
        })
        .collect();
    let flows: BTreeMap<ToolRef, (FlowSpec, String)> = packed
        .iter()
        .filter_map(|r| {
            let item = catalog.get(r)?;
            item.flow
                .clone()
                .map(|f| (r.clone(), (f, item.source.clone())))
        })
        .collect();
    let external_contracts: BTreeMap<ToolRef, ToolContract> = externals
        .iter()
        .filter_map(|r| {
            request
                .builtins
                .get(r)
                .map(|t| (r.clone(), t.contract.clone()))
        })
        .collect();

    // Secret rules 1 and 2 come before compiling, so their message is the one a person sees.
    for reference in &packed {
        if let Some(item) = catalog.get(reference) {
            check_secret_defaults(reference, item, &tools, &flows, &external_contracts)?;
        }
    }

    let composites = compile_flows(&tools, &external_contracts, &flows)?;

    let mut entries = Vec::new();
    for reference in &packed {
        let Some(item) = catalog.get(reference) else {
            continue;
        };
        let contract = match item.form {
            Form::Tool => tools.get(reference).cloned(),
            Form::Flow => composites.get(reference).cloned(),
        }
        .ok_or_else(|| PackError::Export(format!("`{reference}` has no contract")))?;
        let mut requires = item
            .flow
            .as_ref()
            .map(|f| f.requires.clone())
            .unwrap_or_default();
        requires.sort_by_key(|r| r.reference.to_string());
        entries.push(Entry {
            reference: reference.clone(),
            form: item.form,
            contract_digest: contract.contract_digest(),
            contract,
            file: item.form.file_path(reference),
            sha256: Digest::of_bytes(&item.bytes),
            requires,
        });
    }
    let mut roots = request.roots.clone();
    roots.sort();
    roots.dedup();
    let manifest = Manifest {
        name: request.name.clone(),
        version: request.version.clone(),
        roots,
        entries,
        externals: external_contracts
            .into_iter()
            .map(|(reference, contract)| External {
                reference,
                contract_digest: contract.contract_digest(),
                contract,
            })
            .collect(),
    };

    // Secret rule 3: no denied value in any file, in any common encoding.
    let manifest_bytes = manifest.to_bytes();
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for entry in &manifest.entries {
        if let Some(item) = catalog.get(&entry.reference) {
            files.push((entry.file.clone(), item.bytes.clone()));
        }
    }
    // The files first, so a message names the file a person has to fix.
    for (file, bytes) in files.iter().cloned().chain(std::iter::once((
        "manifest.json".to_owned(),
        manifest_bytes.clone(),
    ))) {
        if let Some((label, form)) = request.deny.find_in(&bytes) {
            let source = manifest
                .entries
                .iter()
                .find(|e| e.file == file)
                .and_then(|e| catalog.get(&e.reference))
                .map(|i| format!(" (from {})", i.source))
                .unwrap_or_default();
            return Err(PackError::Secret(format!(
                "`{file}`{source} contains the value of {label} ({form} form); remove it and use a secret reference"
            )));
        }
    }

    let bytes = encode(&manifest_bytes, files, &[])?;
    Ok(Pack {
        digest: Digest::of_bytes(&manifest_bytes),
        manifest,
        bytes,
    })
}

/// [`export`], then writes the archive to `path` (atomically: a temporary file beside it,
/// then a rename).
pub fn export_to_file(
    catalog: &Catalog,
    request: &ExportRequest<'_>,
    path: impl AsRef<std::path::Path>,
) -> Result<Pack, PackError> {
    let pack = export(catalog, request)?;
    crate::write_atomic(path.as_ref(), &pack.bytes)?;
    Ok(pack)
}

/// The entry holding the pack digest (`sha256:<hex>` and a newline): a change to any byte of
/// `manifest.json` that leaves it self-consistent still breaks this record.
pub(crate) const MANIFEST_DIGEST_FILE: &str = "manifest.json.sha256";

/// The canonical archive: `manifest.json`, `manifest.json.sha256`, the files sorted by path,
/// then the signatures sorted by path.
pub(crate) fn encode(
    manifest: &[u8],
    mut files: Vec<(String, Vec<u8>)>,
    signatures: &[(String, Vec<u8>)],
) -> Result<Vec<u8>, PackError> {
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut signatures = signatures.to_vec();
    signatures.sort_by(|a, b| a.0.cmp(&b.0));
    let digest = format!("{}\n", Digest::of_bytes(manifest));
    let mut all = vec![
        ("manifest.json".to_owned(), manifest.to_vec()),
        (MANIFEST_DIGEST_FILE.to_owned(), digest.into_bytes()),
    ];
    all.extend(files);
    all.extend(signatures);
    archive::write(&all)
}

/// Every ref a flow needs: its pins and the tools its steps use.
fn flow_uses(flow: &FlowSpec) -> BTreeSet<ToolRef> {
    flow.requires
        .iter()
        .map(|r| r.reference.clone())
        .chain(flow.steps.iter().map(|s| s.uses.clone()))
        .collect()
}

/// Compiles every flow against the tools, the externals and each other; returns each flow's
/// composite contract.
pub(crate) fn compile_flows(
    tools: &BTreeMap<ToolRef, ToolContract>,
    externals: &BTreeMap<ToolRef, ToolContract>,
    flows: &BTreeMap<ToolRef, (FlowSpec, String)>,
) -> Result<BTreeMap<ToolRef, ToolContract>, PackError> {
    let mut registry = Registry::new();
    for (reference, contract) in externals.iter().chain(tools.iter()) {
        registry
            .insert(contract.clone())
            .map_err(|d| PackError::Contract {
                reference: reference.to_string(),
                file: String::new(),
                message: d.to_string(),
            })?;
    }
    // Flows may use each other: compile whichever can, until a round adds none.
    let mut pending: Vec<&ToolRef> = flows.keys().collect();
    loop {
        let before = pending.len();
        let mut failed = Vec::new();
        for reference in pending {
            let (spec, _) = &flows[reference];
            if registry.insert_flow(spec).is_err() {
                failed.push(reference);
            }
        }
        if failed.is_empty() {
            break;
        }
        if failed.len() == before {
            // Report the first flow's own diagnostics.
            let reference = failed[0];
            let (spec, source) = &flows[reference];
            let message = match registry.insert_flow(spec) {
                Err(d) => d.to_string(),
                Ok(_) => "does not compile".into(),
            };
            return Err(PackError::Contract {
                reference: reference.to_string(),
                file: source.clone(),
                message: format!("the flow does not compile: {message}"),
            });
        }
        pending = failed;
    }
    Ok(flows
        .keys()
        .filter_map(|r| registry.get(r).map(|t| (r.clone(), t.contract.clone())))
        .collect())
}

/// Secret rules 1 and 2 for one catalog item.
fn check_secret_defaults(
    reference: &ToolRef,
    item: &crate::catalog::Item,
    tools: &BTreeMap<ToolRef, ToolContract>,
    flows: &BTreeMap<ToolRef, (FlowSpec, String)>,
    externals: &BTreeMap<ToolRef, ToolContract>,
) -> Result<(), PackError> {
    let defaulted = |inputs: &[InputDecl]| -> Option<String> {
        inputs
            .iter()
            .find(|i| i.secret && i.schema.default.is_some())
            .map(|i| i.name.clone())
    };
    let declared: &[InputDecl] = match (&item.contract, &item.flow) {
        (Some(contract), _) => contract.inputs(),
        (None, Some(flow)) => &flow.inputs,
        (None, None) => &[],
    };
    if let Some(slot) = defaulted(declared) {
        return Err(PackError::Secret(format!(
            "`{reference}` ({}): the secret input `{slot}` carries a `default`; a secret value cannot ship in a pack",
            item.source
        )));
    }
    let Some(flow) = &item.flow else {
        return Ok(());
    };
    let secret_inputs: BTreeSet<&str> = flow
        .inputs
        .iter()
        .filter(|i| i.secret)
        .map(|i| i.name.as_str())
        .collect();
    for step in &flow.steps {
        let inputs: Vec<InputDecl> =
            if let Some(c) = tools.get(&step.uses).or(externals.get(&step.uses)) {
                c.inputs().to_vec()
            } else if let Some((inner, _)) = flows.get(&step.uses) {
                inner.inputs.clone()
            } else {
                Vec::new()
            };
        for decl in inputs.iter().filter(|d| d.secret) {
            let Some(binding) = step.with.get(&decl.name) else {
                continue;
            };
            let carries_secret = binding.references().iter().any(|r| match r {
                Reference::Secret { .. } => true,
                Reference::Input { name, .. } => secret_inputs.contains(name.as_str()),
                // An item is never secret: a `for_each` over a secret is refused.
                Reference::Step { .. } | Reference::Item { .. } => false,
            });
            let literal = match binding {
                Binding::Literal(_) => true,
                Binding::Template(parts) => {
                    !carries_secret && parts.iter().any(|p| matches!(p, TemplatePart::Text(_)))
                }
                Binding::Ref(_) => false,
            };
            if literal {
                return Err(PackError::Secret(format!(
                    "`{reference}` ({}): step `{}` binds a literal into the secret slot `{}` of `{}`; bind a secret reference (`secret.NAME`) instead",
                    item.source, step.id, decl.name, step.uses
                )));
            }
        }
    }
    Ok(())
}
