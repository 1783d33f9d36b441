//! A real PostgreSQL server for the tests: Debian's binaries (`/usr/lib/postgresql/<ver>/bin`,
//! or `$BROWSERFLOW_PG_BIN`), one cluster per test process on a free loopback port in a
//! temporary folder (in memory, `/dev/shm`, where there is one), a fresh database per journal, stopped when the process ends.
//!
//! `initdb` runs once per machine and user into a template folder (under a file lock, so
//! parallel test processes wait for the first); each process copies it, which takes a tenth
//! of the time. As root, the server runs as `nobody` (PostgreSQL refuses root). A watchdog
//! shell stops the server and removes its folder once the test process is gone, however it
//! ended (nextest runs each test in a process of its own; a static is never dropped).
//!
//! Without the binaries the PostgreSQL tests say NOT RUN on stderr and pass — unless the
//! dependencies are said to be installed (`BROWSERFLOW_DEPS_INSTALLED=1`, set by
//! `scripts/test`, or `CI`), where a missing PostgreSQL fails them.

use std::os::unix::fs::MetadataExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A running server.
pub struct Cluster {
    port: u16,
}

static CLUSTER: OnceLock<Option<Cluster>> = OnceLock::new();

/// The process's server, started on first use; `None` (said loudly) when PostgreSQL is not
/// installed and not required.
pub fn cluster() -> Option<&'static Cluster> {
    CLUSTER
        .get_or_init(|| match bin_dir() {
            Some(bin) => Some(Cluster::start(&bin)),
            None if required() => panic!(
                "PostgreSQL is required (BROWSERFLOW_DEPS_INSTALLED or CI is set) but no initdb was \
                 found in $BROWSERFLOW_PG_BIN or /usr/lib/postgresql/*/bin: install Debian's \
                 `postgresql` (scripts/install-deps)"
            ),
            None => None,
        })
        .as_ref()
        .or_else(|| {
            eprintln!(
                "!!!!!!!! PostgreSQL tests NOT RUN: no initdb in $BROWSERFLOW_PG_BIN or \
                 /usr/lib/postgresql/*/bin (install Debian's `postgresql`) !!!!!!!!"
            );
            None
        })
}

fn required() -> bool {
    std::env::var_os("BROWSERFLOW_DEPS_INSTALLED").is_some_and(|v| v == "1")
        || std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false")
}

/// The folder of `initdb`, `pg_ctl` and `postgres`: the newest Debian version's.
fn bin_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("BROWSERFLOW_PG_BIN") {
        return Some(PathBuf::from(dir)).filter(|d| d.join("initdb").is_file());
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// Whether this process is root (whose servers run as `nobody`).
fn is_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// `program` from `bin`, run as `nobody` when this process is root.
fn server_command(bin: &Path, program: &str) -> Command {
    let program = bin.join(program);
    let mut command = if is_root() {
        let mut runuser = Command::new("runuser");
        runuser.args(["-u", "nobody", "--"]).arg(program);
        runuser
    } else {
        Command::new(program)
    };
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

fn give_to_server_user(path: &Path) {
    if is_root() {
        let id = |flag: &str| -> u32 {
            let out = Command::new("id").args([flag, "nobody"]).output().unwrap();
            String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
        };
        std::os::unix::fs::chown(path, Some(id("-u")), Some(id("-g"))).unwrap();
    }
}

fn run(mut command: Command, what: &str) {
    let status = command.status().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(status.success(), "{what} exited with {status}");
}

/// Where clusters go: memory (`/dev/shm`) where there is one, as a copy there costs no disk
/// I/O on a loaded machine; the temporary folder otherwise.
fn scratch_root() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() && tempfile::tempdir_in(shm).is_ok() {
        shm.to_owned()
    } else {
        std::env::temp_dir()
    }
}

/// The initdb'd template of this machine and user, made once under a file lock.
fn template(bin: &Path) -> PathBuf {
    let version = bin
        .parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let uid = std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(0);
    let base = scratch_root().join(format!("browserflow-pg{version}-u{uid}"));
    std::fs::create_dir_all(&base).unwrap();
    give_to_server_user(&base);
    let lock = std::fs::File::create(base.join("lock")).unwrap();
    lock.lock().unwrap();
    let template = base.join("template");
    if !template.join("PG_VERSION").is_file() {
        let scratch = base.join(format!("scratch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&scratch);
        let mut initdb = server_command(bin, "initdb");
        initdb
            .arg("-D")
            .arg(&scratch)
            .args(["-N", "-A", "trust", "-U", "postgres", "-E", "UTF8"])
            .args(["--locale=C", "--no-instructions"]);
        run(initdb, "initdb");
        std::fs::rename(&scratch, &template).unwrap();
    }
    template
}

impl Cluster {
    fn start(bin: &Path) -> Cluster {
        let template = template(bin);
        let dir = tempfile::Builder::new()
            .prefix("browserflow-pg-")
            .tempdir_in(scratch_root())
            .unwrap()
            .keep();
        give_to_server_user(&dir);
        let data = dir.join("data");
        run(
            {
                let mut cp = Command::new("cp");
                cp.arg("-a").arg(&template).arg(&data);
                cp
            },
            "cp the template cluster",
        );
        // The watchdog first: whatever happens next, the server and its folder go with us.
        let stop = format!(
            "{}{}/pg_ctl -D {} -m immediate stop",
            if is_root() {
                "runuser -u nobody -- "
            } else {
                ""
            },
            bin.display(),
            data.display()
        );
        // Started in the background by a shell that exits at once (waited for here), so the
        // watchdog belongs to no one and outlives this process.
        let watchdog = Command::new("sh")
            .arg("-c")
            .arg("(while [ -d /proc/$0 ]; do sleep 0.2; done; $1 >/dev/null 2>&1; rm -rf \"$2\") &")
            .arg(std::process::id().to_string())
            .arg(&stop)
            .arg(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .status()
            .unwrap();
        assert!(watchdog.success(), "the watchdog did not start");
        let log = dir.join("server.log");
        for _ in 0..5 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let settings = format!(
                "\nlisten_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = ''\n\
                 fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n"
            );
            std::fs::write(data.join("postgresql.auto.conf"), settings).unwrap();
            let mut pg_ctl = server_command(bin, "pg_ctl");
            pg_ctl
                .arg("-D")
                .arg(&data)
                .arg("-l")
                .arg(&log)
                .args(["-w", "-t", "60", "start"]);
            if pg_ctl.status().is_ok_and(|s| s.success()) {
                return Cluster { port };
            }
        }
        panic!(
            "PostgreSQL did not start; its log:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    /// The URL of the database `name`.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// A new, empty database; returns its URL.
    pub fn fresh_database(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "journal_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let admin = self.url("postgres");
        let statement = format!("CREATE DATABASE {name}");
        // The blocking client starts a runtime of its own: never on a test's runtime thread.
        std::thread::spawn(move || {
            let mut client = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
            client.batch_execute(&statement).unwrap();
        })
        .join()
        .unwrap();
        self.url(&name)
    }
}
