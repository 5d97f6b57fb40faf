#![allow(unreachable_pub, dead_code)]

//! The one integration-test binary. Each module drives the real `omc-hooks` binary (or, for
//! the real-client suites in `e2e`, the real Claude Code, Codex CLI, Gemini CLI and Qwen Code
//! clients) and asserts the answer and the state files.

mod agents;
mod agents_golden;
mod agents_install;
mod agents_plugins;
#[path = "e2e/recorder/record_fixtures.rs"]
mod claude_recorder;
mod cli;
mod common;
mod deliverables;
mod demo;
mod docs;
mod e2e;
mod e2e_agent_guards;
mod e2e_agent_long_runs;
mod e2e_agent_modes;
mod e2e_agents;
mod e2e_cli;
mod e2e_codex;
mod e2e_cross_agent;
mod e2e_export;
mod e2e_foundation;
mod e2e_gemini;
mod e2e_hardening;
mod e2e_honest;
mod e2e_install;
mod e2e_keywords;
mod e2e_lifecycle;
mod e2e_long_runs;
mod e2e_memory;
mod e2e_npm;
mod e2e_packages;
mod e2e_plugins;
mod e2e_qwen;
mod e2e_record;
mod e2e_rules;
mod e2e_skills;
mod e2e_statusline;
mod e2e_stop;
mod e2e_user_hooks;
mod export;
mod hardening;
mod honest;
mod install;
mod keyword_table;
mod keywords;
mod launcher;
mod layers;
mod long_runs;
mod memory;
mod output_check;
mod packaging;
mod project_rules;
mod schema;
mod secrets;
mod skills;
mod state_store;
mod statusline;
mod stop;
mod tool_failure;
mod user_hooks;
mod wire;
