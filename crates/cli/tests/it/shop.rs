//! `bflow demo --serve` on the address the shipped search-price tool points at
//! (127.0.0.1:4780). Tests in other processes want the same port, so a [`Shop`] holds an
//! exclusive lock on a file for as long as it serves.

use std::fs::File;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const ADDR: &str = "127.0.0.1:4780";

pub struct Shop {
    child: Child,
    // Released when the shop is dropped (after the child is gone).
    _lock: File,
}

impl Shop {
    pub fn start() -> Shop {
        let lock = File::create(std::env::temp_dir().join("browserflow-test-shop-4780.lock"))
            .expect("create the shop's lock file");
        lock.lock().expect("lock the shop's port");
        let child = Command::new(env!("CARGO_BIN_EXE_bflow"))
            .args(["demo", "--serve", "--addr", ADDR])
            .stderr(Stdio::null())
            .spawn()
            .expect("bflow demo --serve starts");
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(ADDR).is_err() {
            assert!(
                Instant::now() < deadline,
                "the shop did not start on {ADDR}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Shop { child, _lock: lock }
    }
}

impl Drop for Shop {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
