//! Whether the evidence around `omc-hooks trust` points to an agent's model that hid itself
//! (contract §17, issue 43). The model runs as the person's user, so it can strip its
//! variables (`env -u`) and detach from the agent's process tree (`setsid -f`, a
//! `script -qc` or tmux server started for the purpose), and then no process above `trust`
//! names the agent. What such a run cannot easily hide is read here instead:
//!
//! * **detached**: `trust`'s parent is the first process (pid 1), or changed while it looked
//!   (the one that started it exited: `setsid -f` and `( … &)` leave it so, and on a busy
//!   machine it may look before that parent is gone), or it leads a session of its own with no
//!   terminal (`setsid`): it was left by whoever started it, so its parents say nothing about
//!   who that was;
//! * **no terminal while an agent works here**: `--yes` without a terminal while a session of
//!   this project had a hook within [`LIVE_WINDOW_MS`] and has not ended — a setup script or
//!   CI with no agent running in the project keeps working;
//! * **a terminal that is not a person's**: `trust` has a terminal file but no controlling
//!   terminal (`setsid`), or its session is led by `trust` itself (a terminal made for this
//!   command: `tmux new-session 'omc-hooks trust'`, `script -c`, whose shell ran it in its
//!   place) or by a command line (`sh -c …`) rather than an interactive shell, or the program
//!   holding the terminal's other end was itself detached and only makes terminals for
//!   commands (`setsid -f script …`);
//! * **an environment scrubbed of what a person's shell has**: at a terminal, no `HOME` or no
//!   `TERM` (every login and terminal sets both; `env -i` removes them).
//!
//! A person in a second terminal (a pseudo-terminal led by their interactive shell) passes
//! all of these while an agent works in the first. Linux reads all of them; elsewhere only the
//! detached parent and the live session are checked (the rest is said to be unchecked).

use crate::env::Env;
use crate::platform::ancestry::{self, Own, Process};
use crate::state::Store;

/// How recent a session's last hook must be for it to count as an agent working now: longer
/// than a person's pause between tool calls, short enough that a setup script run after the
/// agent was closed is not refused for long.
pub(super) const LIVE_WINDOW_MS: i64 = 15 * 60 * 1000;

/// Programs that give a command a pseudo-terminal of its own rather than a person one: when
/// one of these holds `trust`'s terminal and was itself detached, no person is at it.
const PTY_MAKERS: &[&str] = &["script", "expect", "unbuffer", "socat", "empty", "ptyrun"];

/// How often, and how far apart, a `trust` without a terminal looks at its parent again
/// (300 ms in all when nothing changes: only a script without a terminal waits for it).
const REPARENT_LOOKS: u32 = 15;
const REPARENT_STEP_MS: u64 = 20;

/// Variables every person's terminal session has.
const PERSON_VARS: &[&str] = &["HOME", "TERM"];

/// What `trust` could find out about itself.
#[derive(Debug, Default)]
pub(super) struct Facts {
    /// stdin is a terminal.
    pub terminal: bool,
    /// Its session and controlling terminal (`None`: not readable here).
    pub own: Option<Own>,
    /// Its parent's pid.
    pub parent: Option<u32>,
    /// Its parent changed between two looks: whoever started it has exited since.
    pub reparented: bool,
    /// The leader of its session, and the leader's parent (the terminal's holder).
    pub leader: Option<Process>,
    /// The process holding the terminal (the leader's parent), and the holder's parent's pid.
    pub holder: Option<(Process, u32)>,
    /// Of [`PERSON_VARS`], those unset.
    pub missing: Vec<&'static str>,
    /// Sessions of this project with a hook within [`LIVE_WINDOW_MS`]: (id, ms ago).
    pub live: Vec<(String, i64)>,
}

/// Reads the facts for a `trust` run in `store`'s project.
pub(super) fn gather(env: &Env, store: &Store, terminal: bool) -> Facts {
    let own = ancestry::own().ok();
    let parent_now = || ancestry::process(std::process::id()).ok().map(|(_, p)| p);
    let parent = parent_now();
    // Without a terminal, a parent that is not the first process is looked at again a little
    // later: `setsid -f` and `( … &)` start `trust` and exit, and on a busy machine `trust` may
    // look before they are gone (seen here: 75 of 200 `setsid -f` runs under load).
    // A run that leads a session of its own without a terminal is refused as detached
    // whatever its parent does ([`judge`]): it does not wait.
    let mut reparented = false;
    if !terminal && !leads_a_session_without_terminal(own) && parent.is_some_and(|p| p != 1) {
        for _ in 0..REPARENT_LOOKS {
            std::thread::sleep(std::time::Duration::from_millis(REPARENT_STEP_MS));
            if parent_now() != parent {
                reparented = true;
                break;
            }
        }
    }
    let leader_pid = own.map(|o| o.session);
    let leader = leader_pid
        .filter(|p| *p != 0)
        .and_then(|p| ancestry::process(p).ok());
    let holder = leader
        .as_ref()
        .and_then(|(_, pp)| ancestry::process(*pp).ok());
    Facts {
        terminal,
        own,
        parent,
        reparented,
        leader: leader.map(|(p, _)| p),
        holder,
        missing: PERSON_VARS
            .iter()
            .copied()
            .filter(|v| env.lookup(v).is_none_or(|x| x.trim().is_empty()))
            .collect(),
        live: store
            .live_sessions(LIVE_WINDOW_MS)
            .into_iter()
            .map(|(id, ago)| (id.to_string(), ago))
            .collect(),
    }
}

/// Whether a shell-like process runs a command given on its command line (`sh -c …`, `bash
/// -lc …`, `pwsh -Command …`) rather than reading a person's commands.
fn runs_command_line(p: &Process) -> bool {
    p.args.iter().skip(1).any(|a| {
        let a = a.as_str();
        (a.starts_with('-')
            && !a.starts_with("--")
            && a.len() > 1
            && a[1..].bytes().all(|c| c.is_ascii_alphabetic())
            && a.contains('c'))
            || a == "--command"
            || a.eq_ignore_ascii_case("-command")
    })
}

/// Whether this process leads a session of its own and has no controlling terminal, as a
/// command started by `setsid` does.
fn leads_a_session_without_terminal(own: Option<Own>) -> bool {
    own.is_some_and(|o| o.session == o.pid && !o.controlling_terminal)
}

/// The reason to refuse, when the facts point to an agent.
pub(super) fn judge(f: &Facts) -> Option<String> {
    // A person's shell may itself be the first process (`docker run -it img bash`): then it
    // leads `trust`'s session at its controlling terminal, which no detached run has.
    let shell_is_first = f.terminal
        && f.own
            .is_some_and(|o| o.controlling_terminal && o.session == 1 && o.pid != 1);
    let detached = if f.parent == Some(1) {
        Some("its parent is now the first process, as after `setsid -f` or `( … &)`")
    } else if f.reparented {
        Some("its parent exited while it looked, as after `setsid -f` or `( … &)`")
    } else if !f.terminal && leads_a_session_without_terminal(f.own) {
        Some("it leads a session of its own with no terminal, as after `setsid`")
    } else {
        None
    };
    if let Some(how) = detached
        && !shell_is_first
    {
        return Some(format!(
            "this command was detached from whoever started it ({how}), so who that was \
             cannot be told"
        ));
    }
    if !f.terminal {
        if let Some((id, ago)) = f.live.first() {
            return Some(format!(
                "there is no terminal, and an agent's session is working in this project \
                 (session {id}, last hook {} s ago)",
                ago / 1000
            ));
        }
        return None;
    }
    if let Some(own) = f.own {
        if !own.controlling_terminal {
            return Some(
                "its terminal is not its controlling terminal (it was detached with setsid)".into(),
            );
        }
        if own.session == own.pid {
            return Some(
                "it leads its own terminal session: the terminal was made for this command \
                 (as `tmux new-session 'omc-hooks trust'` or `script -c` do), not opened by a \
                 person"
                    .into(),
            );
        }
    }
    if let Some(l) = &f.leader
        && runs_command_line(l)
    {
        return Some(format!(
            "its terminal's session is led by a command line ({}), not by a person's \
             interactive shell",
            crate::terminal::visible(&l.args.join(" ").chars().take(120).collect::<String>())
        ));
    }
    if let Some((h, hp)) = &f.holder
        && *hp == 1
        && PTY_MAKERS.contains(&h.name.as_str())
    {
        return Some(format!(
            "its terminal is held by `{}` (process {}), which was detached from whoever \
             started it",
            crate::terminal::visible(&h.name),
            h.pid
        ));
    }
    if !f.missing.is_empty() {
        return Some(format!(
            "its environment has no {} (every person's terminal session has them)",
            f.missing.join(" and ")
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc(pid: u32, name: &str, args: &[&str]) -> Process {
        Process {
            pid,
            name: name.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            env: Some(vec![]),
            same_user: true,
        }
    }

    /// A person in a terminal: bash leads the session, a terminal emulator holds it.
    fn person() -> Facts {
        Facts {
            terminal: true,
            own: Some(Own {
                pid: 500,
                session: 400,
                controlling_terminal: true,
            }),
            parent: Some(400),
            reparented: false,
            leader: Some(proc(400, "bash", &["-bash"])),
            holder: Some((proc(300, "tmux: server", &["tmux"]), 1)),
            missing: vec![],
            live: vec![("agent-session".into(), 2_000)],
        }
    }

    #[test]
    fn a_person_at_a_terminal_passes_while_an_agent_works_here() {
        assert_eq!(judge(&person()), None);
        // A script with --yes and no agent in the project (CI, a setup script).
        let ci = Facts {
            terminal: false,
            parent: Some(77),
            missing: vec!["TERM"],
            ..Facts::default()
        };
        assert_eq!(judge(&ci), None);
        // A person whose shell is the container's first process (`docker run -it img bash`).
        let container = Facts {
            own: Some(Own {
                pid: 40,
                session: 1,
                controlling_terminal: true,
            }),
            parent: Some(1),
            leader: Some(proc(1, "bash", &["bash"])),
            holder: None,
            ..person()
        };
        assert_eq!(judge(&container), None);
    }

    #[test]
    fn each_piece_of_evidence_refuses() {
        let cases: Vec<(Facts, &str)> = vec![
            (
                Facts {
                    parent: Some(1),
                    ..person()
                },
                "detached from whoever started it (its parent is now the first process",
            ),
            (
                Facts {
                    terminal: false,
                    parent: Some(900),
                    reparented: true,
                    live: vec![],
                    ..person()
                },
                "detached from whoever started it (its parent exited while it looked",
            ),
            (
                Facts {
                    terminal: false,
                    own: Some(Own {
                        pid: 500,
                        session: 500,
                        controlling_terminal: false,
                    }),
                    parent: Some(900),
                    live: vec![],
                    ..person()
                },
                "detached from whoever started it (it leads a session of its own",
            ),
            (
                Facts {
                    terminal: false,
                    ..person()
                },
                "session agent-session, last hook 2 s ago",
            ),
            (
                Facts {
                    own: Some(Own {
                        pid: 500,
                        session: 500,
                        controlling_terminal: false,
                    }),
                    ..person()
                },
                "not its controlling terminal",
            ),
            (
                Facts {
                    own: Some(Own {
                        pid: 500,
                        session: 500,
                        controlling_terminal: true,
                    }),
                    ..person()
                },
                "leads its own terminal session",
            ),
            (
                Facts {
                    leader: Some(proc(400, "sh", &["/bin/sh", "-c", "omc-hooks trust"])),
                    ..person()
                },
                "led by a command line (/bin/sh -c omc-hooks trust)",
            ),
            (
                Facts {
                    leader: Some(proc(400, "bash", &["bash", "-lc", "x"])),
                    ..person()
                },
                "led by a command line",
            ),
            (
                Facts {
                    holder: Some((proc(300, "script", &["script", "-q", "/dev/null"]), 1)),
                    ..person()
                },
                "held by `script` (process 300)",
            ),
            (
                Facts {
                    missing: vec!["HOME", "TERM"],
                    ..person()
                },
                "no HOME and TERM",
            ),
        ];
        for (facts, want) in cases {
            let got = judge(&facts);
            assert!(
                got.as_deref().is_some_and(|g| g.contains(want)),
                "{facts:?}: {got:?}"
            );
        }
        // An interactive shell's flags are not a command line.
        for args in [
            &["bash", "-i"][..],
            &["-zsh"],
            &["fish", "-l"],
            &["bash", "--login"],
        ] {
            assert!(!runs_command_line(&proc(1, "x", args)), "{args:?}");
        }
    }
}
