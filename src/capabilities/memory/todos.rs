//! The session's todo list, as the model last wrote it, for the compaction checkpoint.
//!
//! Claude Code has two shapes (both are in the pinned 2.1.328 client; neither is offered in
//! `-p` mode, where the tool list has no todo tool):
//! * `TodoWrite` — `tool_input.todos: [{content, status, activeForm}]`, the whole list each
//!   time: the latest call wins;
//! * the task tools — `TaskCreate {subject, description}` answered with
//!   `tool_response.task.id`, and `TaskUpdate {taskId, status, subject}` (`status:"deleted"`
//!   removes the task).
//!
//! Kept in `todos.json` (session scope), at most [`MAX_TODOS`] items, texts clipped.

use super::clip;
use crate::capabilities::Ctx;
use crate::protocol::Answer;
use crate::state::files::SCHEMA_VERSION;
use crate::state::{Change, Scope, StateFile, Store};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `todos.json` in the session scope.
pub const FILE: &str = "todos.json";
pub const MAX_TODOS: usize = 100;
const MAX_CONTENT_CHARS: usize = 300;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Todos {
    #[serde(default)]
    pub schema_version: u32,
    #[serde(default)]
    pub updated_at: String,
    #[serde(default)]
    pub items: Vec<Todo>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Todo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub content: String,
    pub status: String,
}

impl Todo {
    /// Not finished: anything but `completed` (and the removed states).
    pub fn open(&self) -> bool {
        !matches!(self.status.as_str(), "completed" | "deleted" | "cancelled")
    }
}

/// PostToolUse: follows TodoWrite / TaskCreate / TaskUpdate. Says nothing to the model.
pub fn record(ctx: &Ctx<'_>) -> Answer {
    let Some(tool) = ctx.input.tool_name.as_deref() else {
        return Answer::default();
    };
    if !matches!(tool, "TodoWrite" | "TaskCreate" | "TaskUpdate") {
        return Answer::default();
    }
    let (Some(store), Some(file)) = (&ctx.store, StateFile::new(&ctx.scope, FILE)) else {
        return Answer::default();
    };
    let input = ctx.input.tool_input.clone().unwrap_or(Value::Null);
    let response = ctx.input.tool_response.clone().unwrap_or(Value::Null);
    let now = crate::time::iso(ctx.now_ms);
    let result = store.update(&file, |cur: Option<Todos>| {
        let mut t = cur.unwrap_or_default();
        if !apply(&mut t, tool, &input, &response) {
            return (Change::Keep, ());
        }
        t.schema_version = SCHEMA_VERSION;
        t.updated_at = now;
        (Change::Write(t), ())
    });
    if let Err(e) = result {
        crate::diag!("post-tool-use: cannot record todos: {e}");
    }
    Answer::default()
}

/// Applies one tool call to the list; false when it carried nothing usable.
pub fn apply(t: &mut Todos, tool: &str, input: &Value, response: &Value) -> bool {
    let text = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .map(|s| clip(s, MAX_CONTENT_CHARS))
    };
    let id_of = |v: Option<&Value>| match v {
        Some(Value::String(s)) => Some(clip(s, 64)),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    match tool {
        "TodoWrite" => {
            let Some(list) = input.get("todos").and_then(Value::as_array) else {
                return false;
            };
            t.items = list
                .iter()
                .filter_map(|item| {
                    Some(Todo {
                        id: id_of(item.get("id")),
                        content: text(item, "content")?,
                        status: text(item, "status").unwrap_or_else(|| "pending".into()),
                    })
                })
                .take(MAX_TODOS)
                .collect();
            true
        }
        "TaskCreate" => {
            let Some(subject) = text(input, "subject") else {
                return false;
            };
            let task = response.get("task");
            let id = id_of(task.and_then(|t| t.get("id")));
            t.items.push(Todo {
                id,
                content: subject,
                status: "pending".into(),
            });
            while t.items.len() > MAX_TODOS {
                t.items.remove(0);
            }
            true
        }
        "TaskUpdate" => {
            let Some(id) = id_of(input.get("taskId")) else {
                return false;
            };
            let Some(pos) = t.items.iter().position(|i| i.id.as_deref() == Some(&id)) else {
                return false;
            };
            match text(input, "status").as_deref() {
                Some("deleted") => {
                    t.items.remove(pos);
                }
                Some(status) => t.items[pos].status = status.to_string(),
                None => {}
            }
            if let (Some(subject), Some(item)) = (text(input, "subject"), t.items.get_mut(pos))
                && item.id.as_deref() == Some(&id)
            {
                item.content = subject;
            }
            true
        }
        _ => false,
    }
}

/// The session's todos (empty when none).
pub fn read(store: &Store, scope: &Scope) -> Todos {
    StateFile::new(scope, FILE)
        .and_then(|f| store.read(&f))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn todowrite_replaces_the_list() {
        let mut t = Todos::default();
        assert!(apply(
            &mut t,
            "TodoWrite",
            &json!({"todos":[{"content":"a","status":"pending","activeForm":"A"},
                             {"content":"b","status":"completed"}, {"status":"x"}]}),
            &Value::Null
        ));
        assert_eq!(t.items.len(), 2);
        assert!(t.items[0].open() && !t.items[1].open());
        apply(&mut t, "TodoWrite", &json!({"todos":[]}), &Value::Null);
        assert!(t.items.is_empty());
        assert!(!apply(&mut t, "TodoWrite", &json!({}), &Value::Null));
    }

    #[test]
    fn task_tools_create_update_delete() {
        let mut t = Todos::default();
        apply(
            &mut t,
            "TaskCreate",
            &json!({"subject":"write tests","description":"d"}),
            &json!({"task":{"id":"1","subject":"write tests"}}),
        );
        apply(
            &mut t,
            "TaskCreate",
            &json!({"subject":"ship"}),
            &json!({"task":{"id":2}}),
        );
        assert!(apply(
            &mut t,
            "TaskUpdate",
            &json!({"taskId":"1","status":"completed"}),
            &Value::Null
        ));
        assert_eq!(t.items[0].status, "completed");
        assert!(apply(
            &mut t,
            "TaskUpdate",
            &json!({"taskId":"2","status":"deleted"}),
            &Value::Null
        ));
        assert_eq!(t.items.len(), 1);
        assert!(!apply(
            &mut t,
            "TaskUpdate",
            &json!({"taskId":"9","status":"completed"}),
            &Value::Null
        ));
    }
}
