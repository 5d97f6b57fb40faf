#!/usr/bin/env node
// The `omc-hooks` command of the npm package `omc-hooks`: it finds the native binary that npm
// installed beside it — the optional dependency `@omc-hooks/<os>-<cpu>` that matches this
// machine (npm skips the others by their `os` and `cpu` fields) — and runs it with the same
// arguments, stdin, stdout and stderr, ending as it ends.
//
// Only the commands a person runs come through here. `omc-hooks install` writes the native
// binary's own path (the path of the running executable, which is that binary, not this file)
// into the agents' hook files, so no hook event ever starts Node.js.
//
// No install script and no download: what npm unpacked is all there is. When no binary for
// this machine is there, this says why and what to do, and exits 1.
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

// The platform package and the binary in it for a `process.platform` and `process.arch`:
// `@omc-hooks/<platform>-<arch>`, its `bin/omc-hooks` (`bin/omc-hooks.exe` on Windows).
function binaryFor(platform, arch) {
  const id = `${platform}-${arch}`;
  return {
    id,
    pkg: `@omc-hooks/${id}`,
    file: path.join('bin', platform === 'win32' ? 'omc-hooks.exe' : 'omc-hooks'),
  };
}

function fail(lines) {
  process.stderr.write(`omc-hooks: ${lines.join('\n  ')}\n`);
  process.exit(1);
}

function main() {
  const manifest = require('../package.json');
  const { id: platform, pkg: name, file } = binaryFor(process.platform, process.arch);
  const prebuilt = Object.keys(manifest.optionalDependencies || {}).map((p) =>
    p.replace('@omc-hooks/', ''),
  );

  if (!prebuilt.includes(platform)) {
    fail([
      `no prebuilt binary for this machine (${platform}); there are for ${prebuilt.join(', ')}.`,
      'Build it from source with Rust (https://rustup.rs): cargo install omc-hooks',
    ]);
  }

  let dir = null;
  try {
    dir = path.dirname(require.resolve(`${name}/package.json`));
  } catch (_) {
    dir = null;
  }
  const exe = dir && path.join(dir, file);
  if (!exe || !fs.existsSync(exe)) {
    fail([
      `the binary for this machine is not installed: ${name}@${manifest.version}.`,
      'npm installs it with omc-hooks as an optional dependency; it is left out when optional',
      'dependencies are omitted (--omit=optional, --no-optional, npm config omit=optional) or',
      'when a lockfile written on another platform is installed.',
      'Reinstall with them: npm install -g omc-hooks --include=optional',
      'or build from source with Rust: cargo install omc-hooks',
    ]);
  }

  // A platform package of another version (a partial upgrade) still runs, but says so.
  try {
    const found = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
    if (found !== manifest.version) {
      process.stderr.write(
        `omc-hooks: warning: ${name} is ${found}, omc-hooks is ${manifest.version}; reinstall omc-hooks to match them.\n`,
      );
    }
  } catch (_) {
    // An unreadable manifest is npm's business; the binary decides whether it runs.
  }

  run(exe);
}

// A signal sent to this process alone (a client's timeout, `kill`) reaches the binary too;
// one sent to the whole process group (Ctrl-C) reaches both anyway. The handlers are in place
// before the binary starts: a signal in between would otherwise end this process by its
// default action and leave the binary running on its own. (Node runs a handler from its event
// loop, after this script's first run, when `child` is set.)
function run(exe) {
  // (Windows has no SIGQUIT; its console sends SIGINT and SIGBREAK.)
  const forward =
    process.platform === 'win32'
      ? ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK']
      : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
  let child = null;
  for (const sig of forward) {
    process.on(sig, () => child && child.kill(sig));
  }
  child = spawn(exe, process.argv.slice(2), { stdio: 'inherit' });
  child.on('error', (e) => fail([`cannot run ${exe}: ${e.message}`]));
  child.on('exit', (code, signal) => {
    if (signal) {
      // End the same way: remove our handler so the signal's default action applies.
      for (const sig of forward) process.removeAllListeners(sig);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code === null ? 1 : code);
  });
}

module.exports = { binaryFor };

if (require.main === module) main();
