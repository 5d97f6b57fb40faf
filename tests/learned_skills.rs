//! Learned skills (`.omc/skills/*.md`, the user's `skills/` beside hooks.toml) through the
//! real binary: given with the prompt that says a trigger, once per session, not for pasted
//! text or a question about the skill; symlinks left out; `doctor` lists them.

use crate::common::command_in;
use crate::common::{Hook, Project, payload};
use crate::common::{assert_has, assert_lacks};
use crate::schema::assert_valid;
use serde_json::{Value, json};
use std::path::Path;

const SID: &str = "ls-session-1";

const DEPLOY: &str = "---\nname: deploy-staging\ndescription: How we deploy to staging\n\
triggers:\n  - deploy to staging\n  - ship to staging\n---\n\n\
# Deploy to staging\n\nRun `make deploy ENV=staging` from a clean tree, then watch #deploys.\n";

fn setup() -> (Project, tempfile::TempDir) {
    let p = Project::new();
    std::fs::create_dir_all(p.omc().join("skills")).unwrap();
    std::fs::write(p.omc().join("skills/deploy-staging.md"), DEPLOY).unwrap();
    (p, tempfile::tempdir().unwrap())
}

fn prompt(p: &Project, config: &Path, sid: &str, text: &str) -> crate::common::Outcome {
    let mut v = payload("UserPromptSubmit", sid, p.path());
    v["prompt"] = json!(text);
    let out = Hook::new("user-prompt-submit")
        .env("XDG_CONFIG_HOME", &config.to_string_lossy())
        .payload(v)
        .cwd(p.path())
        .run();
    out.expect_valid();
    out
}

#[test]
fn a_trigger_in_the_persons_words_gives_the_skill_once_per_session() {
    let (p, config) = setup();
    let out = prompt(
        &p,
        config.path(),
        SID,
        "once the PR is merged, deploy to staging please",
    );
    let ctx = out.context();
    out.expect_context("[LEARNED SKILL: deploy-staging]");
    assert_has(&ctx, "make deploy ENV=staging");
    let given: Value = serde_json::from_slice(
        &std::fs::read(p.session_dir(SID).join("skills-given.json")).unwrap(),
    )
    .unwrap();
    assert_valid("skills-given", &given);
    // Once per session; a new session gets it again.
    let again = prompt(&p, config.path(), SID, "deploy to staging again");
    assert!(
        !again.context().contains("LEARNED SKILL"),
        "{}",
        again.stdout
    );
    let other = prompt(&p, config.path(), "ls-session-2", "ship to staging now");
    assert!(other.context().contains("LEARNED SKILL: deploy-staging"));
}

#[test]
fn no_skill_for_another_request_pasted_text_or_a_question_about_it() {
    let (p, config) = setup();
    for (i, text) in [
        "fix the flaky login test",
        "this failed:\n```\n$ ./ci deploy to staging\nerror: denied\n```\nwhy?",
        "what does the deploy to staging skill do?",
        "the runbook says \"deploy to staging\" twice",
    ]
    .iter()
    .enumerate()
    {
        let out = prompt(&p, config.path(), &format!("ls-q{i}"), text);
        assert!(
            !out.context().contains("LEARNED SKILL"),
            "{text:?}: {}",
            out.stdout
        );
    }
}

#[test]
fn the_users_folder_counts_and_a_symlink_is_left_out() {
    let p = Project::new();
    std::fs::create_dir_all(p.omc().join("skills")).unwrap();
    let config = tempfile::tempdir().unwrap();
    let user = config.path().join("omc-hooks/skills");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("release.md"),
        "---\nname: release-notes\ndescription: Our release notes\ntriggers: [release notes]\n---\nGroup by area.\n",
    )
    .unwrap();
    // A link planted in the project's folder, to a file outside it.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x.md"), DEPLOY).unwrap();
    std::os::unix::fs::symlink(outside.path().join("x.md"), p.omc().join("skills/x.md")).unwrap();
    // A skill kept as `<name>/SKILL.md` counts too.
    std::fs::create_dir_all(p.omc().join("skills/migrations")).unwrap();
    std::fs::write(
        p.omc().join("skills/migrations/SKILL.md"),
        "---\nname: migrations\ntriggers: [review the migration]\n---\nCheck the down step.\n",
    )
    .unwrap();
    let out = prompt(&p, config.path(), "ls-s3", "now review the migration");
    assert!(
        out.context().contains("Check the down step."),
        "{}",
        out.stdout
    );
    let out = prompt(&p, config.path(), SID, "please write the release notes");
    assert!(out.context().contains("Group by area."), "{}", out.stdout);
    let out = prompt(&p, config.path(), "ls-s2", "deploy to staging");
    assert!(!out.context().contains("LEARNED SKILL"), "{}", out.stdout);
    // doctor lists the skills, their triggers, and why the link was left out.
    let doctor = command_in(p.path())
        .arg("doctor")
        .env("XDG_CONFIG_HOME", config.path())
        .env("HOME", config.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert_has(&text, "2 learned skill(s)");
    assert!(
        text.contains("skill release-notes (user, ") && text.contains("triggers \"release notes\""),
        "{text}"
    );
    assert_has(&text, "x.md left out: a symbolic link");
}

#[test]
fn omcs_skill_injector_name_in_omc_skip_hooks_switches_them_off() {
    let (p, config) = setup();
    let mut v = payload("UserPromptSubmit", SID, p.path());
    v["prompt"] = json!("deploy to staging");
    let out = Hook::new("user-prompt-submit")
        .env("XDG_CONFIG_HOME", &config.path().to_string_lossy())
        .env("OMC_SKIP_HOOKS", "skill-injector")
        .payload(v)
        .cwd(p.path())
        .run();
    out.expect_valid();
    assert!(!out.context().contains("LEARNED SKILL"), "{}", out.stdout);
}

/// Issue 43: a skill file is anyone's text — a secret in it is redacted and an escape
/// sequence in its name or body is stripped before the context reaches the model (and the
/// terminal that shows it).
#[test]
fn a_skills_secret_and_escapes_never_reach_the_model() {
    let p = Project::new();
    std::fs::create_dir_all(p.omc().join("skills")).unwrap();
    std::fs::write(
        p.omc().join("skills/rotate.md"),
        "---\nname: rotate\x1b[31m-keys\ndescription: Rotating keys\ntriggers:\n  - rotate the keys\n---\n\n\
         Use token ghp_R4nd0mF4k3T0k3nV4lu3F0rT3st1ng0000 and \x1b]0;owned\x07 password = Hunter22pw.\n",
    )
    .unwrap();
    let config = tempfile::tempdir().unwrap();
    let ctx = prompt(&p, config.path(), SID, "please rotate the keys").context();
    assert_has(&ctx, "LEARNED SKILL");
    assert!(!ctx.contains('\x1b'), "{ctx:?}");
    assert_lacks(&ctx, "ghp_R4nd0mF4k3");
    assert_lacks(&ctx, "Hunter22pw");
}

/// Issue 46: the skills OMC's learner wrote for the person, where it wrote them
/// (`~/.claude/skills/omc-learned/`, `~/.omc/skills/`), are offered on their triggers; a skill
/// that says `matching: fuzzy` is found from a near spelling, as OMC's injector finds it.
#[test]
fn skills_in_omcs_own_folders_are_offered_and_fuzzy_ones_match_nearly() {
    let p = Project::new();
    let config = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let learned = home.path().join(".claude/skills/omc-learned");
    std::fs::create_dir_all(&learned).unwrap();
    std::fs::write(learned.join("deploy-staging.md"), DEPLOY).unwrap();
    let omc = home.path().join(".omc/skills");
    std::fs::create_dir_all(&omc).unwrap();
    std::fs::write(
        omc.join("flaky.md"),
        "---\nname: flaky-tests\nmatching: fuzzy\ntriggers:\n  - flaky test\n---\nRerun with --repeat 20.\n",
    )
    .unwrap();
    let run = |sid: &str, text: &str| {
        let mut v = payload("UserPromptSubmit", sid, p.path());
        v["prompt"] = json!(text);
        let out = Hook::new("user-prompt-submit")
            .env("XDG_CONFIG_HOME", &config.path().to_string_lossy())
            .env("HOME", &home.path().to_string_lossy())
            .payload(v)
            .cwd(p.path())
            .run();
        out.expect_valid();
        out.context()
    };
    let ctx = run("ls-omc-1", "once merged, deploy to staging please");
    assert_has(&ctx, "[LEARNED SKILL: deploy-staging]");
    assert_has(&ctx, "omc-learned");
    // Fuzzy: "flakey tests" is near "flaky test"; the exact skill needs its phrase.
    let ctx = run("ls-omc-2", "the flakey tests are back");
    assert_has(&ctx, "Rerun with --repeat 20.");
    assert_lacks(&ctx, "deploy-staging");
    let ctx = run("ls-omc-3", "deploy the docs to production");
    assert_lacks(&ctx, "LEARNED SKILL");
    // CLAUDE_CONFIG_DIR moves Claude Code's folder, and the learner's with it.
    let moved = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(moved.path().join("skills/omc-learned")).unwrap();
    std::fs::write(
        moved.path().join("skills/omc-learned/notes.md"),
        "---\nname: notes\ntriggers: [release notes]\n---\nGroup by area.\n",
    )
    .unwrap();
    let mut v = payload("UserPromptSubmit", "ls-omc-4", p.path());
    v["prompt"] = json!("write the release notes");
    let out = Hook::new("user-prompt-submit")
        .env("XDG_CONFIG_HOME", &config.path().to_string_lossy())
        .env("HOME", &home.path().to_string_lossy())
        .env("CLAUDE_CONFIG_DIR", &moved.path().to_string_lossy())
        .payload(v)
        .cwd(p.path())
        .run();
    assert!(out.context().contains("Group by area."), "{}", out.stdout);
}
