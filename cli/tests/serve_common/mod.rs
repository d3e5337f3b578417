//! What the serve tests share: the server started on a free loopback port
//! (port 0, read back from its first line), an HTTP client that returns
//! every status, and the server's log, checked for panics at the end.

#![allow(dead_code)] // each test binary uses part of this module

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A running `togyz-probe serve`, stopped when dropped.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    log: Arc<Mutex<String>>,
}

impl Server {
    /// Starts the server over `tables` with the extra `args`.
    pub fn start(tables: &Path, args: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_togyz-probe"))
            .args(["serve", "--bind", "127.0.0.1:0", "--tables"])
            .arg(tables)
            .args(args)
            .env_remove("TOGYZ_TABLES")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut first = String::new();
        err.read_line(&mut first).unwrap();
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        let log = Arc::new(Mutex::new(first));
        let sink = log.clone();
        std::thread::spawn(move || {
            let mut line = String::new();
            while err.read_line(&mut line).is_ok_and(|n| n > 0) {
                sink.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        Server {
            child,
            base: format!("http://{addr}"),
            addr,
            log,
        }
    }

    /// What the server wrote on standard error so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// `GET path` (with its query string): status, headers, body.
    pub fn get(&self, path: &str) -> Reply {
        self.get_with(path, &[])
    }

    /// `GET path` with extra headers.
    pub fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut req = agent().get(format!("{}{path}", self.base));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        Reply::from(req.call().expect("the request is answered"))
    }

    /// `POST path` with `body`.
    pub fn post(&self, path: &str, body: &[u8]) -> Reply {
        let req = agent().post(format!("{}{path}", self.base));
        Reply::from(req.send(body).expect("the request is answered"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client that returns 4xx and 5xx answers instead of failing on them.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

/// An answer.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    fn from(mut r: ureq::http::Response<ureq::Body>) -> Reply {
        let status = r.status().as_u16();
        let headers = r
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
            .collect();
        let body = r
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .unwrap();
        Reply {
            status,
            headers,
            body,
        }
    }

    /// The header `name`, if sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// `s` with its spaces written as `_`, as lila takes a FEN in a URL.
pub fn underscored(s: &str) -> String {
    s.replace(' ', "_")
}
