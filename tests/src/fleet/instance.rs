//! One notes-server instance of the fleet: a process on a fixed loopback port (so that the load
//! balancer's configuration stays valid across restarts), which the faults kill, stop and
//! restart. Its log goes to a file of its own, appended across restarts.

use std::fs::OpenOptions;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A free loopback port (free when asked; nothing holds it after).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free loopback port").port()
}

/// Waits until something accepts connections on `port`, or `deadline`.
pub fn wait_for_port(port: u16, deadline: Instant) -> bool {
    while Instant::now() < deadline {
        if TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(200)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// One instance: what it runs and, while it runs, its process.
pub struct Instance {
    /// Its name in the load balancer and in the record (`n1`, `n2`, …).
    pub name: String,
    /// Its loopback port.
    pub port: u16,
    binary: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    log: PathBuf,
    child: Option<Child>,
}

impl Instance {
    /// An instance of `binary` with `args` (besides `--listen`) and `env`, logging to `log`;
    /// not started yet.
    pub fn new(name: &str, binary: PathBuf, args: Vec<String>, env: Vec<(String, String)>, log: PathBuf) -> Self {
        Instance { name: name.to_owned(), port: free_port(), binary, args, env, log, child: None }
    }

    /// Starts the process and returns once it accepts connections.
    pub fn start(&mut self) {
        assert!(self.child.is_none(), "{} is running already", self.name);
        let log = OpenOptions::new().create(true).append(true).open(&self.log).expect("open the instance's log");
        let child = Command::new(&self.binary)
            .args(&self.args)
            .args(["--listen", &format!("127.0.0.1:{}", self.port)])
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.binary.display()));
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        while !wait_for_port(self.port, Instant::now() + Duration::from_millis(500)) {
            if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
                panic!("{} exited at start ({status}); see {}", self.name, self.log.display());
            }
            assert!(
                Instant::now() < deadline,
                "{} did not listen on {} within a minute; see {}",
                self.name,
                self.port,
                self.log.display()
            );
        }
    }

    /// Whether its process runs (one that died by itself is reaped here).
    pub fn is_running(&mut self) -> bool {
        match self.child.as_mut().map(Child::try_wait) {
            Some(Ok(None)) => true,
            Some(_) => {
                self.child = None;
                false
            }
            None => false,
        }
    }

    /// The process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    fn signal(&self, signal: &str) {
        let pid = self.pid().unwrap_or_else(|| panic!("{} is not running", self.name));
        let status = Command::new("kill").args([signal, &pid.to_string()]).status().expect("run kill");
        assert!(status.success(), "kill {signal} {pid} failed");
    }

    /// `kill -9`: the process dies at once, mid-request, with nothing flushed or closed.
    pub fn kill(&mut self) {
        self.signal("-KILL");
        self.reap(Duration::from_secs(10));
    }

    /// SIGTERM, as a rolling restart sends it: listen streams end with their result and
    /// requests in flight are answered. Killed if it takes longer than 20 s.
    pub fn terminate(&mut self) {
        self.signal("-TERM");
        if !self.reap(Duration::from_secs(20)) {
            self.kill();
        }
    }

    /// SIGSTOP: the process stays, holding its connections, and answers nothing.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// SIGCONT after [`pause`](Self::pause).
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn reap(&mut self, within: Duration) -> bool {
        let Some(child) = self.child.as_mut() else { return true };
        let deadline = Instant::now() + within;
        loop {
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => {
                    self.child = None;
                    return true;
                }
                Ok(None) if Instant::now() >= deadline => return false,
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = Command::new("kill").args(["-CONT", &child.id().to_string()]).status();
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
