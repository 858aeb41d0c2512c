//! A PostgreSQL server for the tests: the one `MCP_ROUNDS_TEST_POSTGRES` names, or a private
//! cluster on loopback under the target directory, created and started on first use (and left
//! running for the next test process). There is no skipping: a test that needs PostgreSQL
//! fails with the reason when none can be had.

use std::fs::{self, File};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::certs::Authority;
use crate::python::target_dir;

/// The port of the private cluster (override with `MCP_ROUNDS_TEST_POSTGRES_PORT`).
const DEFAULT_PORT: u16 = 55_433;
/// The database the tests use.
pub const DATABASE: &str = "mcp_rounds_test";
/// The relay key (base64) of every fixture server that relays changes, unless told another: a
/// test seals notifications with it that the fixtures believe.
pub const FIXTURE_RELAY_KEY: &str = "Zml4dHVyZS1yZWxheS1rZXktMzItYnl0ZXMtbG9uZyEh";

/// Where the server binaries are, looked up once per process (every start, stop and
/// `createdb` of the fleet's faults asks).
fn bin_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(find_bin_dir)
}

fn find_bin_dir() -> PathBuf {
    if let Ok(output) = Command::new("pg_config").arg("--bindir").output()
        && output.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        if dir.join("initdb").exists() {
            return dir;
        }
    }
    // Debian keeps the server binaries out of PATH, one directory per major version.
    let mut versions: Vec<PathBuf> = fs::read_dir("/usr/lib/postgresql")
        .map(|entries| entries.flatten().map(|e| e.path().join("bin")).filter(|p| p.join("initdb").exists()).collect())
        .unwrap_or_default();
    versions.sort();
    versions.pop().unwrap_or_else(|| {
        panic!("PostgreSQL is not installed (no initdb found); install the Debian package `postgresql`")
    })
}

fn is_root() -> bool {
    static ROOT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ROOT.get_or_init(|| {
        Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
    })
}

/// Runs a PostgreSQL binary, as the `postgres` user when the tests run as root (the server
/// refuses to run as root).
fn pg(bin: &Path, args: &[&str]) -> Command {
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(bin).args(args);
        command
    } else {
        let mut command = Command::new(bin);
        command.args(args);
        command
    }
}

fn run(mut command: Command, what: &str) {
    let output = command.output().unwrap_or_else(|e| panic!("cannot {what}: {e}"));
    assert!(
        output.status.success(),
        "could not {what}: {}\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn reachable(port: u16) -> bool {
    TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(300)).is_ok()
}

/// A URL of a PostgreSQL database the tests may use freely.
pub fn url() -> String {
    if let Ok(url) = std::env::var("MCP_ROUNDS_TEST_POSTGRES") {
        return url;
    }
    let port = std::env::var("MCP_ROUNDS_TEST_POSTGRES_PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(DEFAULT_PORT);
    let url = format!("postgres://postgres@127.0.0.1:{port}/{DATABASE}");
    let dir = target_dir().join("test-postgres");
    fs::create_dir_all(target_dir()).expect("create target dir");
    let lock = File::create(target_dir().join("test-postgres.lock")).expect("create postgres lock");
    lock.lock().expect("lock postgres");
    let ready = dir.join("ready");
    if ready.exists() && reachable(port) {
        return url;
    }
    init(&dir);
    if !reachable(port) {
        start(&dir, port, "");
    }
    let created = pg(
        &bin_dir().join("psql"),
        &[
            "-h",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-tAc",
            &format!("SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'"),
        ],
    )
    .output()
    .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "1")
    .unwrap_or(false);
    if !created {
        run(
            pg(&bin_dir().join("createdb"), &["-h", "127.0.0.1", "-p", &port.to_string(), "-U", "postgres", DATABASE]),
            "create the test database",
        );
    }
    fs::write(&ready, &url).expect("mark the cluster ready");
    drop(lock);
    url
}

/// Creates a cluster in `dir/data` unless one is there, owned by the user the server runs as.
fn init(dir: &Path) {
    let data = dir.join("data");
    if data.join("PG_VERSION").exists() {
        return;
    }
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(&data).expect("create the cluster directory");
    if is_root() {
        let mut chown = Command::new("chown");
        chown.args(["-R", "postgres:postgres"]).arg(dir);
        run(chown, "give the cluster directory to the postgres user");
    }
    let data_arg = data.to_string_lossy().into_owned();
    run(
        pg(
            &bin_dir().join("initdb"),
            &["-D", &data_arg, "--auth=trust", "--username=postgres", "--encoding=UTF8", "-N"],
        ),
        "create a PostgreSQL cluster",
    );
}

/// Starts the cluster in `dir/data` on loopback port `port`, with the server settings `extra`
/// besides the tests' own, and returns once it accepts connections.
fn start(dir: &Path, port: u16, extra: &str) {
    let data_arg = dir.join("data").to_string_lossy().into_owned();
    let options = format!(
        "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300 {extra}",
        dir.display()
    );
    let log = dir.join("server.log").to_string_lossy().into_owned();
    // `-w` returns once the server accepts connections (`-t`: or fails after 20 s).
    let start = ["-D", &data_arg, "-o", &options, "-l", &log, "-w", "-t", "20", "start"];
    run(pg(&bin_dir().join("pg_ctl"), &start), "start PostgreSQL");
    assert!(reachable(port), "PostgreSQL started but does not accept connections on port {port}; see {log}");
}

/// A PostgreSQL server of one test's own, on a port of its own, for a test that stops and
/// starts it under load (the shared one serves other tests meanwhile), or that serves TLS.
/// Stopped and removed when dropped.
pub struct Cluster {
    dir: PathBuf,
    /// Its loopback port.
    pub port: u16,
    /// The certificate of the CA that signed its server certificate, when it serves TLS.
    ca_file: Option<PathBuf>,
    /// Whether a commit waits for its WAL to be written (`synchronous_commit=on`).
    durable: bool,
}

/// The server certificate's one name: loopback, by name, and not `127.0.0.1`.
pub const TLS_HOST: &str = "localhost";

impl Cluster {
    /// Creates and starts a cluster in `dir` (which it owns: anything there is replaced) on
    /// `port`, with one empty database, `fleet`.
    pub fn create(dir: &Path, port: u16) -> Self {
        Self::make(dir, port, false, false)
    }

    /// [`create`](Self::create), serving TLS too (plain connections stay allowed) with a
    /// certificate for [`TLS_HOST`] alone, signed by a CA made here whose certificate is
    /// [`ca_file`](Self::ca_file).
    pub fn create_with_tls(dir: &Path, port: u16) -> Self {
        Self::make(dir, port, true, false)
    }

    /// [`create_with_tls`](Self::create_with_tls), with `synchronous_commit=on`: a commit
    /// answered before the server crashes survives it (the tests' other clusters skip that wait).
    /// `fsync` stays off: it matters only when the machine itself loses power.
    pub fn create_durable(dir: &Path, port: u16) -> Self {
        Self::make(dir, port, true, true)
    }

    fn make(dir: &Path, port: u16, tls: bool, durable: bool) -> Self {
        let _ = fs::remove_dir_all(dir);
        init(dir);
        let ca_file = tls.then(|| write_tls_files(dir));
        let cluster = Cluster { dir: dir.to_path_buf(), port, ca_file, durable };
        cluster.start();
        let created =
            pg(&bin_dir().join("createdb"), &["-h", "127.0.0.1", "-p", &port.to_string(), "-U", "postgres", "fleet"]);
        run(created, "create the fleet database");
        cluster
    }

    /// The URL of its database: with TLS, verified against its CA and reached by the name its
    /// certificate has.
    pub fn url(&self) -> String {
        match &self.ca_file {
            None => format!("postgres://postgres@127.0.0.1:{}/fleet", self.port),
            Some(ca) => format!(
                "postgres://postgres@{TLS_HOST}:{}/fleet?sslmode=verify-full&sslrootcert={}",
                self.port,
                ca.display()
            ),
        }
    }

    /// The CA certificate (PEM) that signed its server certificate, when it serves TLS.
    pub fn ca_file(&self) -> Option<&Path> {
        self.ca_file.as_deref()
    }

    /// The server settings of its own: TLS, durable commits.
    fn options(&self) -> String {
        let durable = if self.durable { "-c synchronous_commit=on " } else { "" };
        match &self.ca_file {
            None => durable.to_owned(),
            Some(_) => {
                let tls = self.dir.join("tls");
                format!(
                    "{durable}-c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
                    tls.join("server.pem").display(),
                    tls.join("server.key").display()
                )
            }
        }
    }

    /// Stops it the way an operator restarting it does (`pg_ctl stop -m fast`: open
    /// transactions are rolled back, connections closed).
    pub fn stop(&self) {
        let data = self.dir.join("data").to_string_lossy().into_owned();
        run(pg(&bin_dir().join("pg_ctl"), &["-D", &data, "-m", "fast", "-w", "stop"]), "stop PostgreSQL");
    }

    /// Crashes it: `pg_ctl stop -m immediate` (every process quits at once, nothing is
    /// flushed or shut down cleanly; the next start recovers from the WAL).
    pub fn stop_immediately(&self) {
        let data = self.dir.join("data").to_string_lossy().into_owned();
        run(pg(&bin_dir().join("pg_ctl"), &["-D", &data, "-m", "immediate", "-w", "stop"]), "crash PostgreSQL");
    }

    /// Crashes it harder: `kill -9` of the postmaster, then of every backend it left, and
    /// returns once all of them are gone (a new postmaster refuses to start while one of the
    /// old processes still holds the shared memory).
    pub fn kill(&self) {
        let pid_file = self.dir.join("data/postmaster.pid");
        let text = fs::read_to_string(&pid_file).expect("PostgreSQL's postmaster.pid");
        let postmaster: u32 = text.lines().next().and_then(|l| l.trim().parse().ok()).expect("a postmaster pid");
        let mut doomed = children(postmaster);
        doomed.insert(0, postmaster);
        for pid in &doomed {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while doomed.iter().any(|pid| alive(*pid)) {
            assert!(std::time::Instant::now() < deadline, "PostgreSQL's processes outlived kill -9 for 20 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        // A dead postmaster's pid may still show as a zombie no one reaps; its lock files
        // would then name a live-looking process.
        let _ = fs::remove_file(&pid_file);
        let _ = fs::remove_file(self.dir.join(format!(".s.PGSQL.{}.lock", self.port)));
    }

    /// Starts it (again); returns once it accepts connections.
    pub fn start(&self) {
        start(&self.dir, self.port, &self.options());
    }
}

/// The processes whose parent is `pid`.
fn children(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(child) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let stat = fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The fields after the command's name, which is in parentheses and may hold spaces.
        let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
        if after.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok()) == Some(pid) {
            found.push(child);
        }
    }
    found
}

/// Whether `pid` is a process that still runs (a zombie does not).
fn alive(pid: u32) -> bool {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next());
    matches!(state, Some(s) if s != "Z" && s != "X")
}

/// Makes a CA and a server certificate for [`TLS_HOST`] in `dir/tls`, readable by the server
/// (its key by it alone, as PostgreSQL demands); returns the CA certificate's path.
fn write_tls_files(dir: &Path) -> PathBuf {
    let tls = dir.join("tls");
    fs::create_dir_all(&tls).expect("create the TLS directory");
    for path in [dir, tls.as_path()] {
        let shown = path.display().to_string();
        assert!(!shown.contains(char::is_whitespace), "the server's options cannot quote {shown}");
    }
    let authority = Authority::new("mcp-rounds test CA");
    let server = authority.issue(&[TLS_HOST]);
    authority.write_cert(&tls.join("ca.pem"));
    fs::write(tls.join("server.pem"), &server.cert_pem).expect("write the server certificate");
    let key = tls.join("server.key");
    fs::write(&key, &server.key_pem).expect("write the server key");
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(&key, fs::Permissions::from_mode(0o600)).expect("make the key private");
    }
    if is_root() {
        let mut chown = Command::new("chown");
        chown.args(["-R", "postgres:postgres"]).arg(&tls);
        run(chown, "give the TLS files to the postgres user");
    }
    tls.join("ca.pem")
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.dir.join("data").to_string_lossy().into_owned();
        let _ = pg(&bin_dir().join("pg_ctl"), &["-D", &data, "-m", "immediate", "-w", "stop"]).output();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// A URL of a new, empty database named `name` on the same server (dropped first if it
/// exists), for a test that needs the whole database to itself.
pub fn fresh_database(name: &str) -> String {
    let url = url();
    let (server, _) = url.rsplit_once('/').expect("a database URL");
    let admin = format!("{server}/postgres");
    for statement in [format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"), format!("CREATE DATABASE \"{name}\"")]
    {
        let output = Command::new(bin_dir().join("psql"))
            .args([admin.as_str(), "-v", "ON_ERROR_STOP=1", "-qc", &statement])
            .output()
            .unwrap_or_else(|e| panic!("cannot run psql: {e}"));
        assert!(output.status.success(), "{statement}: {}", String::from_utf8_lossy(&output.stderr));
    }
    format!("{server}/{name}")
}
