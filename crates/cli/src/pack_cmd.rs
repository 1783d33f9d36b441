//! `bflow pack export|verify|import|sign|keygen|push|pull|list`.

use std::path::{Path, PathBuf};

use anyhow::Context;
use browserflow_catalog::pack_view::{ImportError, OnConflict, import_into, remove_pack};
use browserflow_flow::Registry;
use browserflow_pack::oci::{self, OciOptions};
use browserflow_pack::{
    Catalog, DenyList, ExportRequest, Store, VerifiedPack, VerifyOptions, VerifyingKey,
};
use clap::{Args, Subcommand};

use crate::exit::Outcome;

#[derive(Subcommand)]
pub enum PackCommand {
    /// Export tools and flows (and everything they require) as `NAME-VERSION.bfpack`.
    Export {
        /// The pack name.
        #[arg(long)]
        name: String,
        /// The pack version.
        #[arg(long)]
        version: semver::Version,
        /// Tool or flow files, or `name@version` refs found in `--tools` folders.
        #[arg(required = true)]
        roots: Vec<String>,
        /// A folder of tool and flow files (repeatable; default: `recordings` and
        /// `recordings/contracts`).
        #[arg(long = "tools", value_name = "DIR")]
        tools: Vec<PathBuf>,
        /// The pack file to write (default: `NAME-VERSION.bfpack` in the current folder).
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// Verify every digest (and signatures) of a pack file.
    Verify {
        file: PathBuf,
        #[command(flatten)]
        trust: TrustArgs,
    },
    /// Verify a pack and install it into the local store. A pack that carries a tool or
    /// flow the workspace defines differently (same `name@version`) is refused, naming both,
    /// unless `--replace` or `--keep` says which to use.
    Import {
        file: PathBuf,
        #[command(flatten)]
        trust: TrustArgs,
        /// The store folder (default: `BROWSERFLOW_STORE`, else the user's data folder).
        #[arg(long, value_name = "DIR")]
        store: Option<PathBuf>,
        /// A workspace folder of tool and flow files to compare the pack with (repeatable;
        /// default: `recordings` and `recordings/contracts`).
        #[arg(long = "tools", value_name = "DIR")]
        tools: Vec<PathBuf>,
        /// Write the pack's version over each workspace file that differs.
        #[arg(long, conflicts_with = "keep")]
        replace: bool,
        /// Install the pack and keep each workspace file that differs (it is used instead of
        /// the pack's).
        #[arg(long)]
        keep: bool,
    },
    /// Uninstall a pack from the local store: by its `NAME@VERSION` or its digest (as `pack
    /// list` shows it; 8 leading hex digits are enough).
    Remove {
        /// `NAME@VERSION` or `sha256:HEX`.
        pack: String,
        /// The store folder (default: `BROWSERFLOW_STORE`, else the user's data folder).
        #[arg(long, value_name = "DIR")]
        store: Option<PathBuf>,
    },
    /// Sign a pack with an Ed25519 private key (PEM, as `openssl genpkey -algorithm ed25519`).
    Sign {
        file: PathBuf,
        #[arg(long, value_name = "KEY")]
        key: PathBuf,
    },
    /// Make an Ed25519 key pair: `PREFIX.key` (0600) and `PREFIX.pub`.
    Keygen { prefix: PathBuf },
    /// Publish a pack to an OCI registry: `oci://HOST/REPO:TAG`.
    Push { file: PathBuf, location: String },
    /// Fetch a pack from an OCI registry, verify it, and write it.
    Pull {
        location: String,
        #[arg(short, long)]
        out: PathBuf,
        #[command(flatten)]
        trust: TrustArgs,
    },
    /// The packs installed in the local store.
    List {
        #[arg(long, value_name = "DIR")]
        store: Option<PathBuf>,
    },
}

#[derive(Args)]
pub struct TrustArgs {
    /// A trusted public key (PEM; repeatable).
    #[arg(long = "trust", value_name = "PUBKEY")]
    keys: Vec<PathBuf>,
    /// Refuse the pack unless a trusted key signed it.
    #[arg(long)]
    require_signature: bool,
}

pub fn run(command: PackCommand) -> Outcome {
    let builtins = browserflow_catalog::builtin_contracts().map_err(|d| anyhow::anyhow!("{d}"))?;
    match command {
        PackCommand::Export {
            name,
            version,
            roots,
            tools,
            out,
        } => {
            let mut catalog = Catalog::new();
            for dir in &workspace(tools) {
                catalog.add_dir(dir)?;
            }
            let roots = roots
                .iter()
                .map(|r| catalog.root(r))
                .collect::<Result<Vec<_>, _>>()?;
            let deny = DenyList::from_env();
            let request = ExportRequest {
                name,
                version,
                roots,
                builtins: &builtins,
                deny: &deny,
            };
            let out = out.unwrap_or_else(|| default_pack_file(&request.name, &request.version));
            browserflow_catalog::pack_view::check_export(&catalog, &request)?;
            let pack = browserflow_pack::export_to_file(&catalog, &request, &out)?;
            for entry in &pack.manifest.entries {
                println!("{} {}", entry.reference, entry.contract_digest);
            }
            println!("wrote {} ({})", out.display(), pack.digest);
        }
        PackCommand::Verify { file, trust } => {
            let keys = trust.keys()?;
            let options = trust.options(&keys, &builtins);
            let pack = browserflow_pack::verify_file(&file, &options)
                .with_context(|| format!("{} does not verify", file.display()))?;
            print_verified(&pack);
        }
        PackCommand::Import {
            file,
            trust,
            store,
            tools,
            replace,
            keep,
        } => {
            let keys = trust.keys()?;
            let options = trust.options(&keys, &builtins);
            let store = open_store(store)?;
            let on_conflict = match (replace, keep) {
                (true, _) => OnConflict::Replace,
                (_, true) => OnConflict::Keep,
                _ => OnConflict::Refuse,
            };
            let done = match import_into(
                &file,
                store.root(),
                &options,
                &workspace(tools),
                on_conflict,
            ) {
                Ok(done) => done,
                Err(ImportError::Conflicts(conflicts)) => {
                    eprintln!("error: {} was not imported:", file.display());
                    for conflict in &conflicts {
                        eprintln!("  {conflict}");
                    }
                    eprintln!(
                        "nothing was installed; run again with --replace to write the pack's versions over these files, or --keep to install it and keep them (they are used instead of the pack's)"
                    );
                    return Ok(false);
                }
                Err(e) => {
                    return Err(anyhow::Error::new(e)
                        .context(format!("{} was not imported", file.display())));
                }
            };
            print_verified(&done.imported.pack);
            for conflict in &done.conflicts {
                if done.replaced.contains(&conflict.file) {
                    println!(
                        "replaced {} with the pack's {}",
                        conflict.file, conflict.reference
                    );
                } else {
                    println!(
                        "kept {} (used instead of the pack's {})",
                        conflict.file, conflict.reference
                    );
                }
            }
            let verb = if done.imported.newly_installed {
                "installed in"
            } else {
                "already in"
            };
            println!("{verb} {}", done.imported.dir.display());
        }
        PackCommand::Remove { pack, store } => {
            let store = open_store(store)?;
            let removed = remove_pack(store.root(), &pack)?;
            println!("removed {removed} from {}", store.root().display());
        }
        PackCommand::Sign { file, key } => {
            let id = browserflow_pack::sign_file(&file, &key)?;
            println!("signed {} with key {id}", file.display());
        }
        PackCommand::Keygen { prefix } => {
            let key = browserflow_pack::generate_key()?;
            let private = with_extension(&prefix, "key");
            let public = with_extension(&prefix, "pub");
            browserflow_pack::write_key_files(&key, &private, &public)?;
            println!(
                "{} (private, 0600) and {} (public), key {}",
                private.display(),
                public.display(),
                browserflow_pack::key_id(&key.verifying_key())
            );
        }
        PackCommand::Push { file, location } => {
            let bytes = read_pack_file(&file)?;
            let pushed = oci::push_blocking(&bytes, &location, &OciOptions::default())?;
            println!("pushed {} to {}", pushed.pack_digest, pushed.manifest_url);
        }
        PackCommand::Pull {
            location,
            out,
            trust,
        } => {
            let keys = trust.keys()?;
            let options = trust.options(&keys, &builtins);
            let pulled = oci::pull_blocking(&location, &OciOptions::default(), &options)?;
            crate::words::write_file(&out, &pulled.bytes)?;
            print_verified(&pulled.pack);
            println!("wrote {}", out.display());
        }
        PackCommand::List { store } => {
            let store = open_store(store)?;
            let packs = store.packs()?;
            if packs.is_empty() {
                println!("no packs installed in {}", store.root().display());
            }
            for pack in packs {
                print!("{}", describe_installed(&pack));
            }
        }
    }
    Ok(true)
}

impl TrustArgs {
    fn keys(&self) -> anyhow::Result<Vec<VerifyingKey>> {
        self.keys
            .iter()
            .map(|k| browserflow_pack::read_public_key(k).map_err(Into::into))
            .collect()
    }

    fn options<'a>(&self, keys: &[VerifyingKey], builtins: &'a Registry) -> VerifyOptions<'a> {
        VerifyOptions {
            trusted_keys: keys.to_vec(),
            require_signature: self.require_signature,
            builtins: Some(builtins),
            expected_digest: None,
        }
    }
}

/// A pack file's bytes, refused past the largest pack there can be (never read whole first).
fn read_pack_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    use std::io::Read;
    let limit = browserflow_pack::MAX_PACK_BYTES;
    let in_words = |e: std::io::Error| {
        anyhow::anyhow!(
            "cannot read {}: {}",
            path.display(),
            browserflow_contract::io_in_words(&e)
        )
    };
    let file = std::fs::File::open(path).map_err(in_words)?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(in_words)?;
    if bytes.len() as u64 > limit {
        anyhow::bail!(
            "{} is larger than the limit of {} MiB for a pack",
            path.display(),
            limit >> 20
        );
    }
    Ok(bytes)
}

/// Where `pack export` writes when no `-o` is given: `NAME-VERSION.bfpack` here.
fn default_pack_file(name: &str, version: &semver::Version) -> PathBuf {
    PathBuf::from(format!("{name}-{version}.bfpack"))
}

/// An installed pack as `pack list` shows it: its name and version, digest and folder, then
/// each tool and flow it carries with its kind and contract digest.
fn describe_installed(pack: &browserflow_pack::InstalledPack) -> String {
    let manifest = &pack.manifest;
    let mut text = format!(
        "{}  {}\n  in {}\n",
        manifest.reference(),
        pack.digest,
        pack.dir.display()
    );
    for entry in &manifest.entries {
        text.push_str(&format!(
            "  {:<32} {:<9} {}\n",
            entry.reference.to_string(),
            entry.contract.kind().as_str(),
            entry.contract_digest
        ));
    }
    text
}

fn open_store(root: Option<PathBuf>) -> anyhow::Result<Store> {
    Ok(Store::open(match root {
        Some(root) => root,
        None => browserflow_catalog::default_store()?,
    }))
}

/// The workspace folders: those given, else those of `recordings` and `recordings/contracts`
/// that exist (a pack of files named by path needs no workspace).
fn workspace(tools: Vec<PathBuf>) -> Vec<PathBuf> {
    if tools.is_empty() {
        ["recordings", "recordings/contracts"]
            .into_iter()
            .map(PathBuf::from)
            .filter(|dir| dir.is_dir())
            .collect()
    } else {
        tools
    }
}

fn print_verified(pack: &VerifiedPack) {
    println!("ok {}", pack.digest);
    for entry in &pack.manifest.entries {
        println!("  {} {}", entry.reference, entry.contract_digest);
    }
    for signature in &pack.signatures {
        let trust = if signature.trusted {
            "trusted"
        } else {
            "untrusted"
        };
        println!("  signed by {} ({trust})", signature.key_id);
    }
}

fn with_extension(prefix: &Path, extension: &str) -> PathBuf {
    let mut name = prefix.as_os_str().to_owned();
    name.push(".");
    name.push(extension);
    PathBuf::from(name)
}
