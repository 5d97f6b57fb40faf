//! The npm packages as a person gets them: `packaging/npm-pack.sh` on the binary under test
//! (this machine's platform package and the launcher package), then `npm install --offline` of
//! the tarballs into an empty global prefix — what `npm i -g omc-hooks` lays out, with no
//! registry reached (the other machines' platform packages are optional and left out). Once
//! per test process, under `target/tmp/e2e-npm/`; npm's cache and user configuration are the
//! sandbox's own, so a `~/.npmrc` (an `omit=optional`, another registry) changes nothing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// What the install left: the tarballs and the prefix with `bin/omc-hooks`.
pub struct NpmInstall {
    pub tarballs: PathBuf,
    pub prefix: PathBuf,
}

impl NpmInstall {
    /// `<prefix>/bin/omc-hooks`: the command npm puts on PATH (a link to the launcher).
    pub fn bin(&self) -> PathBuf {
        self.prefix.join("bin/omc-hooks")
    }

    /// The tarball whose file name starts with `name-` (`omc-hooks-0.1.0.tgz`, or the platform
    /// package's `omc-hooks-linux-x64-0.1.0.tgz`).
    pub fn tarball(&self, platform: bool) -> PathBuf {
        let version = env!("CARGO_PKG_VERSION");
        let want = |n: &str| {
            n.ends_with(&format!("-{version}.tgz"))
                && (n == format!("omc-hooks-{version}.tgz")) != platform
        };
        std::fs::read_dir(&self.tarballs)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| want(&p.file_name().unwrap().to_string_lossy()))
            .unwrap_or_else(|| {
                panic!(
                    "no {} tarball in {}",
                    if platform { "platform" } else { "launcher" },
                    self.tarballs.display()
                )
            })
    }
}

fn work() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e-npm")
}

/// The packages of the binary under test, packed and installed globally once per process.
pub fn installed() -> &'static NpmInstall {
    static ONCE: OnceLock<NpmInstall> = OnceLock::new();
    ONCE.get_or_init(|| {
        let dir = work().join(std::process::id().to_string());
        let _ = std::fs::remove_dir_all(work());
        let tarballs = dir.join("tarballs");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging/npm-pack.sh");
        let out = Command::new("bash")
            .arg(&script)
            .arg(&tarballs)
            .arg("--binary")
            .arg(env!("CARGO_BIN_EXE_omc-hooks"))
            .output()
            .expect("run packaging/npm-pack.sh (needs bash, Node.js and npm)");
        assert!(
            out.status.success(),
            "packaging/npm-pack.sh failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let i = NpmInstall {
            tarballs,
            prefix: dir.join("prefix"),
        };
        let both = [i.tarball(true), i.tarball(false)];
        npm_install(&dir, &i.prefix, true, &both);
        i
    })
}

/// `npm install --offline [--global] --prefix PREFIX TARBALLS…` with a cache and user
/// configuration of its own under `sandbox`. Panics with npm's output when it fails.
pub fn npm_install(sandbox: &Path, prefix: &Path, global: bool, tarballs: &[PathBuf]) {
    std::fs::create_dir_all(prefix).unwrap();
    let npmrc = sandbox.join("npmrc");
    std::fs::write(&npmrc, "").unwrap();
    let mut cmd = Command::new("npm");
    cmd.args([
        "install",
        "--offline",
        "--no-audit",
        "--no-fund",
        "--no-update-notifier",
    ]);
    if global {
        cmd.arg("--global");
    }
    cmd.arg("--prefix")
        .arg(prefix)
        .arg("--cache")
        .arg(sandbox.join("npm-cache"))
        .arg("--userconfig")
        .arg(&npmrc)
        // absolute paths: npm reads `dir/x.tgz` as a GitHub repository
        .args(tarballs);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy()
            .to_ascii_lowercase()
            .starts_with("npm_config_")
        {
            cmd.env_remove(k);
        }
    }
    let out = cmd.output().expect("run npm");
    assert!(
        out.status.success(),
        "npm install --offline of {tarballs:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
