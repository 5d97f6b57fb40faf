//! The English words the rules read: which verbs make a task, which nouns make a mention a
//! modifier, which words negate, ask, report or compare. CJK words live in [`super::cjk`].
//!
//! Lists, not patterns: a reader can check a word is here, and a rule names the list it reads.

/// Imperative verbs that make the words after a keyword a task.
#[rustfmt::skip]
pub(crate) const TASK_VERBS: &[&str] = &[
    "fix", "shave", "debug", "investigate", "resolve", "handle", "patch", "address", "implement", "build",
    "create", "make", "write", "add", "refactor", "rewrite", "clean", "cleanup", "remove", "delete",
    "update", "upgrade", "migrate", "port", "convert", "optimize", "optimise", "improve", "finish",
    "complete", "continue", "keep", "get", "do", "run", "test", "verify", "review", "check",
    "audit", "analyze", "analyse", "research", "find", "search", "explore", "plan", "design",
    "document", "deploy", "ship", "set", "setup", "install", "configure", "integrate", "translate",
    "rename", "move", "split", "merge", "extract", "generate", "solve", "tackle", "work", "go",
    "start", "benchmark", "profile", "scaffold", "bootstrap", "polish", "harden", "stabilize",
    "stabilise", "reproduce", "finalize", "finalise", "prepare", "draft", "replace", "wire", "bump",
    "lint", "format", "tidy", "simplify", "dedupe", "prune", "modernize", "cover", "increase",
    "reduce", "speed", "trace", "diagnose", "repair", "correct", "restore", "recover", "redo",
    "rebuild", "retry", "until", "bring", "land", "push", "commit", "triage", "organize",
    "organise", "restructure", "decouple", "help", "take", "try", "figure", "look", "dig", "hunt",
    "chase", "nail", "knock", "iterate", "drive", "execute", "perform", "sweep", "scan", "compare",
    "explain", "summarize", "summarise", "read", "grep", "locate", "map", "interview", "ask",
    "clarify", "spec", "think", "reason", "consider", "evaluate", "assess", "inspect", "examine",
    "ensure", "deliver", "produce", "switch", "swap", "clear",
];

/// Verbs that, right before a keyword, ask for the mode itself.
#[rustfmt::skip]
pub(crate) const ACTIVATION_VERBS: &[&str] = &[
    "use", "run", "start", "enable", "activate", "invoke", "trigger", "launch", "engage", "try",
    "do", "apply", "begin", "enter", "go", "fire", "resume", "restart",
    // Spanish, Portuguese, Italian, German, French: `usa tdd para …`, `nutze ralph`
    "usa", "utiliza", "utilize", "utilizza", "nutze", "verwende", "benutze", "utilise", "utilisez",
    // `fai una code review`, `haz un code review`, `fais une code review`, `mach ein code review`
    "fai", "haz", "fais", "faça", "faz", "fazer", "mach", "mache",
];

/// Words a command or a stop may open with, one at a time, before what is asked (`ok ulw`,
/// `please stop`, `so um code review the …`): softeners, acknowledgements, sequence words, the
/// agent addressed, and the fillers of a dictated prompt (`um okay so ralph fix …`, `uh stop
/// stop stop`).
#[rustfmt::skip]
pub(crate) const LEADINS: &[&str] = &[
    "please", "pls", "plz", "ok", "okay", "k", "now", "then", "and", "also", "so", "alright",
    "just", "kindly", "first", "next", "finally", "right", "let's", "lets", "hey", "claude",
    "codex", "gemini", "yes", "yeah", "yep", "sure", "great", "good", "fine", "perfect", "nice",
    "cool", "thanks", "thx", "basically", "actually", "oh", "well", "anyway", "anyways", "btw",
    "yo", "afterwards", "bitte", "porfa", "svp", "oye", "hmm", "whoa", "woah",
    // a friend addressed, please, in Hindi-English and Tagalog-English (`bhai ulw chala do`,
    // `paki code review …`)
    "bhai", "yaar", "paki",
    // spoken: what dictation keeps
    "um", "umm", "ummm", "uh", "uhh", "uhm", "er", "erm", "ehm", "eh", "ah", "mm", "mmm", "hm",
];

pub(crate) const ACTIVATION_PAIRS: &[[&str; 2]] = &[
    ["turn", "on"],
    ["switch", "to"],
    ["switch", "on"],
    ["kick", "off"],
    ["spin", "up"],
    ["fire", "up"],
    ["go", "into"],
    ["go", "with"],
    ["start", "up"],
    ["switch", "into"],
];

#[rustfmt::skip]
pub(crate) const FILLERS: &[&str] = &[
    "the", "a", "an", "omc", "omc's", "oh-my-claudecode", "oh-my-claudecode's", "my", "your", "our",
    "full", "proper", "quick", "thorough", "deep", "careful", "real", "fresh", "second", "final",
    "brief", "light", "serious", "complete", "detailed", "good", "another",
    // articles of the other languages' activation verbs (`fai una code review`)
    "una", "un", "une", "uma", "um", "ein", "eine", "einen",
];

/// After `give` / `get`, the thing the mode is given to (`give this a security review`).
#[rustfmt::skip]
pub(crate) const RECIPIENTS: &[&str] = &[
    "this", "it", "that", "these", "those", "them", "me", "us", "everything", "the", "pr", "diff",
    "branch", "change", "changes", "patch", "commit", "code", "module", "file", "my", "our",
];

/// Words after a keyword that make it the subject of a statement.
#[rustfmt::skip]
pub(crate) const FINITE: &[&str] = &[
    "is", "isn't", "was", "wasn't", "were", "are", "aren't", "has", "hasn't", "had", "have",
    "keeps", "kept", "seems", "seemed", "got", "gets", "went", "won't", "wont", "doesn't", "doesnt",
    "didn't", "didnt", "does", "did", "never", "still", "always", "sometimes", "randomly", "loops",
    "looped", "looping", "hangs", "hung", "fails", "failed", "failing", "crashed", "crashes",
    "triggers", "triggered", "fires", "fired", "starts", "started", "stopped", "stops", "ran",
    "runs", "ended", "ends", "should", "would", "could", "will", "can", "cannot", "can't", "cant",
    "might", "may", "said", "says", "wrote", "works", "worked", "working", "needs", "needed",
    "uses", "used", "prints", "printed", "shows", "showed", "returns", "returned", "blocked",
    "blocks", "restarts", "restarted", "activated", "activates", "finished", "completed",
    "succeeded", "passed", "exited", "quit", "died", "timed", "just", "also", "already", "itself",
    "only", "really", "actually", "sucks", "rocks", "means", "refers", "stands", "lets", "allows",
    "tries", "tried", "makes", "made", "handles", "handled", "spawns", "spawned", "writes", "reads",
    "reminds", "feels", "broke", "breaks", "behaves", "requires", "supports", "wants", "wanted",
    "gave", "gives", "ignores", "ignored", "continues", "continued", "found", "finds", "flagged",
    "flags", "showed", "revealed", "caught", "missed", "turned",
];

/// Nouns after a keyword that make it a modifier (an autopilot *toggle*).
#[rustfmt::skip]
pub(crate) const NOUNS: &[&str] = &[
    "toggle", "toggles", "setting", "settings", "flag", "flags", "feature", "features", "option",
    "options", "button", "buttons", "switch", "config", "configuration", "module", "modules",
    "function", "functions", "class", "struct", "code", "codebase", "state", "states", "file",
    "files", "hook", "hooks", "tests", "docs", "documentation", "readme", "page", "screen",
    "component", "api", "endpoint", "implementation", "logic", "handler", "detector", "keyword",
    "keywords", "script", "scripts", "plugin", "integration", "support", "label", "variable",
    "field", "column", "icon", "menu", "version", "branch", "issue", "issues", "bug", "bugs", "pr",
    "repo", "repository", "directory", "folder", "skill", "skills", "template", "templates",
    "command", "subcommand", "counter", "iteration", "iterations", "cap", "limit", "timeout",
    "workflow", "output", "logs", "log", "message", "messages", "text", "section", "spec", "ticket",
    "status", "prompt", "prompts", "schema", "type", "enum", "crate", "package", "library", "test",
    "suite", "example", "examples", "demo", "people", "team", "tutorial", "guide", "article",
    "post", "thread", "discussion", "project", "author", "maintainers", "name", "names", "alias",
    "aliases", "behaviour", "behavior", "design", "architecture", "changes", "change", "fix",
    "fixes", "regression", "system", "mechanism", "loops", "modes", "runs", "sessions", "cli",
    "binary",
];

#[rustfmt::skip]
pub(crate) const DETERMINERS: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "our", "my", "your", "its", "their", "his",
    "her", "some", "any", "each", "every", "no",
];

#[rustfmt::skip]
pub(crate) const TOPIC_WORDS: &[&str] = &[
    "about", "regarding", "re", "called", "named", "of", "from", "by", "like", "than", "as",
    "unlike", "vs", "versus", "between", "whether", "if",
];

#[rustfmt::skip]
pub(crate) const NEGATORS: &[&str] = &[
    "don't", "dont", "never", "not", "no", "without", "avoid", "disable", "deactivate", "instead",
    "rather", "isn't", "stop", "skip", "except", "shouldn't", "can't", "won't", "nor", "neither",
    "w/o", "unless", "exclude", "excluding", "ignore", "forget",
];

pub(crate) const NEGATORS_AFTER: &[&str] = &["not", "off", "disabled", "isn't", "aside"];

/// English informational phrases before a keyword in its clause.
pub(crate) const INFO_BEFORE: &[&[&str]] = &[
    &["what", "is"],
    &["what's"],
    &["whats"],
    &["what", "are"],
    &["what", "does"],
    &["what", "do"],
    &["how", "does"],
    &["how", "do"],
    &["how", "to"],
    &["how", "is"],
    &["how", "can"],
    &["explain"],
    &["explains"],
    &["describe"],
    &["describes"],
    &["tell", "me", "about"],
    &["tell", "me", "what"],
    &["tell", "me", "how"],
    &["meaning", "of"],
    &["docs", "for"],
    &["documentation"],
    &["learn", "about"],
    &["read", "about"],
    &["curious", "about"],
    &["question", "about"],
    &["questions", "about"],
    &["info", "on"],
    &["information", "on"],
    &["difference", "between"],
    &["when", "to"],
    &["when", "should"],
    &["why", "does"],
    &["why", "is"],
    &["why", "did"],
];

#[rustfmt::skip]
pub(crate) const COMPARISON: &[&str] = &[
    "vs", "versus", "compare", "compared", "comparison", "difference", "differences", "differ",
];

/// Words that, before a colon, mark what follows as quoted rather than asked for.
#[rustfmt::skip]
pub(crate) const REPORTING: &[&str] = &[
    "prompt", "prompts", "was", "were", "said", "says", "typed", "wrote", "writes", "example",
    "examples", "e.g", "eg", "output", "log", "logs", "message", "error", "quote", "title", "reads",
    "saying", "input", "transcript", "history", "previous", "earlier", "yesterday", "original",
    "asked", "told", "sent", "subject", "commit", "heading",
];

#[rustfmt::skip]
pub(crate) const QUESTION_STARTS: &[&str] = &[
    "what", "what's", "whats", "how", "why", "when", "where", "which", "who", "whom", "whose", "is",
    "are", "was", "were", "does", "did", "should", "shall", "may", "might", "has", "have", "isn't",
    "aren't", "doesn't", "didn't", "wasn't", "am",
];

/// Skippable nouns between a keyword and what says how it is used (`ralph loop keeps …`).
pub(crate) const MODE_NOUNS: &[&str] = &["loop", "mode", "run", "session", "workflow"];

/// Greetings and thanks: right before `ralph` they make it a person addressed (`thanks ralph`).
#[rustfmt::skip]
pub(crate) const GREETINGS: &[&str] = &[
    "hi", "hey", "hello", "thanks", "thank", "thx", "ty", "cheers", "bye", "dear", "morning",
    "evening", "yo", "sorry", "congrats", "welcome", "goodbye", "howdy", "hiya",
];

/// Praise right after a name set off by a colon or a dash: a person addressed (`Ralph — great
/// catch on the race condition`).
#[rustfmt::skip]
pub(crate) const PRAISE: &[&str] = &[
    "great", "nice", "good", "awesome", "brilliant", "excellent", "amazing", "kudos", "well",
    "solid", "lovely", "fantastic", "superb",
];

/// Auxiliaries that open a question (`is it worth it?`, `does it slow down …?`).
#[rustfmt::skip]
pub(crate) const AUX_QUESTIONS: &[&str] = &[
    "is", "are", "was", "does", "do", "did", "can", "could", "would", "will", "should", "isn't",
    "doesn't", "won't",
];

/// Objects a mode name used as a verb can take: `ralplan the schema change`, `autopilot this`.
#[rustfmt::skip]
pub(crate) const OBJECTS: &[&str] = &[
    "the", "this", "that", "these", "those", "it", "them", "my", "our", "your", "all", "every",
    "each", "everything", "a", "an", "some", "any", "both", "whatever", "remaining", "rest",
    // the articles of a request in another language around an English mode word (`can you
    // ralph el bug del checkout?`, `ulw die Lint-Fehler`)
    "el", "la", "los", "las", "les", "il", "lo", "gli", "der", "die", "das", "den", "yung", "ang",
];

/// After a mode name used as a verb, these turn the sentence into a statement about someone
/// (`ralph the intern said …`).
#[rustfmt::skip]
pub(crate) const STATEMENT_VERBS: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "has", "have", "had", "should", "would", "could",
    "will", "can", "must", "might", "may", "does", "did", "isn't", "aren't", "wasn't", "doesn't",
    "didn't", "won't", "can't", "shouldn't", "keeps", "seems", "said", "says", "wants", "told",
    "thinks", "looks", "stopped", "failed", "crashed", "broke", "hangs", "loops", "gets", "got",
];

/// Words that open a clause or a phrase of their own: a statement verb after one of them is not
/// the main verb (`ultrawork the tests that are failing`, `deep interview me on what … should
/// be`).
#[rustfmt::skip]
pub(crate) const RELATIVES: &[&str] = &[
    "that", "which", "who", "where", "when", "whose", "what", "how", "why", "whether", "if", "on",
    "about", "in", "for", "with", "to", "from", "of", "at", "by", "into", "over", "under", "until",
    "before", "after", "so", "because", "since", "while", "once", "and", "but",
];

/// Words that may follow a mode name that is the whole sentence (`tdd please`, `ulw now`).
#[rustfmt::skip]
pub(crate) const SOFTENERS: &[&str] = &[
    "please", "pls", "plz", "now", "mode", "again", "thanks", "thx", "ty", "asap", "ok", "okay",
    "first",
    "on",
    // `ralph time.`, `ultrawork time: …`
    "time",
];

/// The last line before a lone name is a sign-off: the name signs the message.
#[rustfmt::skip]
pub(crate) const SIGNOFFS: &[&str] = &[
    "thanks", "thank", "you", "cheers", "regards", "best", "br", "kind", "sincerely", "love", "thx",
    "ty", "warmly", "yours",
];

/// What may stand between two mode names joined in one command (`tdd and ralph`, `ralph, with
/// tdd`, `code review + ultrawork`).
#[rustfmt::skip]
pub(crate) const JOINERS: &[&str] = &[
    "and", "with", "plus", "then", "also", "using", "&", "+", "/",
];

/// Products autopilot builds (`build me a cli`, `i want a dashboard`).
#[rustfmt::skip]
pub(crate) const PRODUCT_NOUNS: &[&str] = &[
    "app", "feature", "project", "tool", "plugin", "website", "api", "server", "cli", "script",
    "system", "service", "dashboard", "bot", "extension", "webapp", "site",
];

/// Words that end a product's description before its noun (`make me a list of apps` is not a
/// request for an app).
#[rustfmt::skip]
pub(crate) const PRODUCT_STOPS: &[&str] = &[
    "of", "for", "to", "with", "that", "which", "and", "or", "on", "in", "about", "from", "like",
    "list", "summary", "diagram", "table", "report", "copy", "backup", "description", "comparison",
];

/// Verbs whose job `end to end` can describe: a whole piece of work to carry through
/// (`take the reset flow end to end`), not a check or an explanation (`test it end to end`,
/// `explain the flow end to end`).
#[rustfmt::skip]
pub(crate) const BUILD_VERBS: &[&str] = &[
    "build", "implement", "do", "take", "ship", "handle", "own", "deliver", "finish", "make",
    "create", "write", "develop", "get", "wire", "drive", "carry", "complete", "code", "set",
    "port", "migrate", "add", "fix", "rebuild", "rewrite", "land", "bring", "tackle", "work",
    "knock", "scaffold", "bootstrap", "prototype", "integrate",
];

/// Nouns that, after a product noun, make it a modifier: `a feature flag`, `an api key`, `a
/// bot token` are not products.
#[rustfmt::skip]
pub(crate) const COMPOUND_HEADS: &[&str] = &[
    "key", "keys", "token", "tokens", "flag", "flags", "error", "errors", "store", "account",
    "prompt", "board", "call", "calls", "tag", "id", "manifest", "url", "name", "page", "link",
    "config", "file", "secret", "version", "endpoint", "route", "layer", "logs", "log", "request",
    "response", "client", "spec", "docs", "test", "tests", "icon", "idea", "ideas", "review",
];

/// After `search the codebase` / `review code`, the words that continue the request (rather than
/// a noun that makes it something else: `search the code review guidelines`).
#[rustfmt::skip]
pub(crate) const SCOPE_WORDS: &[&str] = &[
    "for", "to", "and", "where", "that", "which", "who", "with", "containing", "named", "matching",
    "using", "calling", "referencing", "importing", "mentioning", "related", "in", "under",
    "across", "looking", "until", "then", "so", "please", "pls", "now", "about", "on", "of", "at",
    "changed", "touched", "since", "from", "before", "after", "again", "thoroughly", "carefully",
];

/// After `review security` / `review code`, what of it is reviewed, before the scope: `review
/// security headers in the nginx config`, `review code changes since Friday` (not `review code
/// comments`, which are text).
#[rustfmt::skip]
pub(crate) const REVIEW_ASPECTS: &[&str] = &[
    "headers", "settings", "configuration", "config", "rules", "policies", "policy",
    "permissions", "posture", "controls", "boundaries", "implications", "aspects", "hardening",
    "changes", "quality",
];

/// Verbs that, heading a command whose object is a code smell, ask for ai-slop-cleaner
/// (`clean up the dead code`, `simplify the wrapper layers`).
#[rustfmt::skip]
pub(crate) const CLEANUP_VERBS: &[&str] = &[
    "clean", "cleanup", "refactor", "simplify", "dedupe", "deduplicate", "de-duplicate", "prune",
    "remove", "delete", "eliminate", "strip", "consolidate", "tidy", "purge", "kill", "trim",
];

/// OMC's own cleanup verbs: the only ones that make a vague smell (`tech debt`, `generated
/// code`, `wrapper layers`) a request for ai-slop-cleaner.
#[rustfmt::skip]
pub(crate) const CORE_CLEANUP_VERBS: &[&str] = &[
    "clean", "cleanup", "refactor", "simplify", "dedupe", "deduplicate", "de-duplicate", "prune",
];

/// Nouns that make `duplicated …` a code smell (`duplicated helpers`, not `duplicate rows`).
#[rustfmt::skip]
pub(crate) const CODE_NOUNS: &[&str] = &[
    "code", "logic", "helper", "helpers", "function", "functions", "fn", "fns", "util", "utils",
    "utility", "utilities", "method", "methods", "type", "types", "struct", "structs", "class",
    "classes", "module", "modules", "component", "components", "test", "tests", "boilerplate",
    "implementation", "implementations", "wrapper", "wrappers", "abstraction", "abstractions",
    "constant", "constants", "handler", "handlers", "validation", "validators", "parsing", "checks",
    "snippets", "blocks", "files", "hooks", "interfaces", "traits", "macros", "definitions",
    "routines", "paths", "branches", "loader", "loaders", "parser", "parsers", "builder",
    "builders", "factory", "factories", "adapter", "adapters", "mapper", "mappers", "serializer",
    "serializers", "middleware", "middlewares", "queries", "routes", "fixtures", "mocks", "enums",
    "impls", "closures", "schemas", "models", "endpoints", "clients", "services", "errors",
    "formatter", "formatters", "converter", "converters", "validator", "reducer", "reducers",
    "selectors", "callbacks", "decorators",
];

/// Plural verbs: after modes joined by `and` they make the modes the subject
/// (`ralph and autopilot keep fighting`).
#[rustfmt::skip]
pub(crate) const PLURAL_VERBS: &[&str] = &[
    "keep", "fight", "conflict", "clash", "overlap", "interfere", "differ", "share", "both", "seem",
    "look", "need", "behave", "don't", "do", "aren't", "are", "have", "were", "work", "loop",
    "fail", "break", "hang", "collide", "compete", "race", "coexist", "sound", "feel",
    "all", "each", "together", "spawn", "block",
    // what modes do by themselves: `autopilot, ralph and ultrawork start from keywords`
    "start", "run", "trigger", "activate", "fire", "stop",
];

/// Words that put a request off (`i want a cli eventually`).
#[rustfmt::skip]
pub(crate) const DEFERRALS: &[&str] = &[
    "eventually", "someday", "sometime", "later", "tomorrow", "afterwards",
];

/// Words that, in the label a request stands under, make it a plan or a choice rather than an
/// order (`tomorrow: ralplan …`, `note to self: …`, `Options for this afternoon:` over a list,
/// `remind me to deslop …`).
#[rustfmt::skip]
pub(crate) const PLAN_WORDS: &[&str] = &[
    "tomorrow", "later", "eventually", "someday", "monday", "tuesday", "wednesday",
    "thursday", "friday", "saturday", "sunday", "weekend", "self", "remind", "reminder",
    "reminders", "idea", "ideas", "option", "options", "choices", "agenda", "backlog", "wishlist",
];

/// After a request, when it is for: `… on Monday`, `… next week` (a plan for then).
#[rustfmt::skip]
pub(crate) const LATER_DAYS: &[&str] = &[
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "week", "weekend",
    "sprint", "month", "quarter",
];

/// Words that make a request only supposed (`… in theory?`, `hypothetically, …`).
pub(crate) const HYPOTHETICAL: &[&str] = &[
    "hypothetically",
    "theoretically",
    "hypothetical",
    "theoretical",
];

/// Words that ask what a word means (`what does slop mean?`).
pub(crate) const MEANING: &[&str] = &["mean", "means", "meaning", "definition", "define"];

/// Words that open a clause the way a question would (`ralplan how we move auth`).
#[rustfmt::skip]
pub(crate) const WH_WORDS: &[&str] = &[
    "how", "what", "why", "where", "whether", "which", "when",
    // around an English mode word in another language: `deep search dónde se valida el token`
    "dónde", "donde", "cómo", "qué", "cuál", "où", "wo", "wie", "warum", "dove", "onde",
];

/// Auxiliaries: right after a wh-word they make a question (`how does it work`), not an object
/// clause (`how we move auth`).
#[rustfmt::skip]
pub(crate) const AUXILIARIES: &[&str] = &[
    "does", "do", "did", "is", "are", "was", "were", "can", "could", "should", "would", "will",
    "has", "have", "had", "am", "doesn't", "don't", "isn't", "aren't", "it's", "'s", "the",
];

/// Articles and possessives: before `end to end` they make it a modifier (`the end to end
/// suite`).
#[rustfmt::skip]
pub(crate) const ARTICLES: &[&str] = &[
    "a", "an", "the", "our", "my", "your", "their", "its", "his", "her",
];

/// Nouns after a smell that make it talk about the smell (`dead code comments`, `tech debt
/// tickets`), not ask to remove it.
#[rustfmt::skip]
pub(crate) const SMELL_TALK: &[&str] = &[
    "comment", "comments", "detector", "detection", "warning", "warnings", "analysis", "report",
    "reports", "ticket", "tickets", "checker", "lint", "linter", "rule", "rules", "metric",
    "metrics", "count", "list", "notes", "doc", "docs", "section", "label", "labels", "issue",
    "issues", "backlog", "board", "budget", "discussion", "meeting", "policy", "tool", "tooling",
];

/// Laughter that makes an ordinary wish a joke (`i want an app like that too lol`).
pub(crate) const BANTER: &[&str] = &[
    "lol", "lmao", "haha", "hahaha", "hehe", "jk", "rofl", "lul", "kidding", "joking",
];

/// Prepositions before a mode that make it the instrument of a command: `fix … with ralph`,
/// `arregla … con ralph`, `bitte mit ultrawork …`, `corrige … avec ralph`.
pub(crate) const INSTRUMENT_PREPS: &[&str] = &[
    "with", "using", "via", "con", "mit", "avec", "com", "usando",
];

/// Imperatives that open a command in Spanish, German, French, Portuguese and Italian, read
/// only by the instrument shape (`arregla los tests con ralph`), so that a sentence about a
/// person (`hablé con Ralph`) stays a statement.
#[rustfmt::skip]
pub(crate) const FOREIGN_TASK_VERBS: &[&str] = &[
    // es
    "arregla", "corrige", "repara", "implementa", "haz", "refactoriza", "migra", "crea", "escribe",
    "revisa", "añade", "agrega", "elimina", "actualiza", "mejora", "optimiza", "construye",
    "genera", "prueba", "termina", "busca", "analiza", "arregle", "corrija", "haga", "cree",
    // with the object glued on (`hazlo con ultrawork`, `arréglalo con ralph`)
    "hazlo", "arréglalo", "arreglalo", "corrígelo", "corrigelo", "termínalo", "terminalo",
    // de
    "behebe", "repariere", "fixe", "korrigiere", "implementiere", "ersetze", "migriere",
    "schreibe", "schreib", "erstelle", "baue", "bau", "mach", "mache", "prüfe", "überprüfe",
    "aktualisiere", "entferne", "refaktoriere", "optimiere", "teste", "finde", "suche", "löse",
    // fr
    "répare", "implémente", "fais", "migre", "écris", "crée", "ajoute", "remplace", "supprime",
    "refactorise", "optimise", "cherche", "trouve", "construis", "vérifie", "corrigez", "faites",
    // pt
    "conserte", "implemente", "faça", "crie", "escreva", "adicione", "remova", "atualize",
    "refatore", "arrume",
    // it
    "correggi", "sistema", "fai", "scrivi", "aggiungi", "rimuovi", "aggiorna", "risolvi",
    "controlla", "trova", "cerca",
];

/// Hindi imperatives that end a Hindi-English command after its English verb (`bug fix kar do,
/// ralph`, `tests theek karo ulw`).
#[rustfmt::skip]
pub(crate) const HINGLISH_IMPERATIVES: &[&[&str]] = &[
    &["kar", "do"], &["kardo"], &["karo"], &["kar", "de"], &["kar", "dijiye"], &["kijiye"],
    &["kar", "dena"], &["karna"],
    // right after the name: run it (`ulw chala do`, `code review kar do`)
    &["chala", "do"], &["chalao"], &["laga", "do"], &["lagao"],
];

/// Lead-ins that ask for something (`bitte mit ultrawork …`): after one, a command may open
/// with its instrument.
pub(crate) const REQUEST_LEADINS: &[&str] = &[
    "please", "pls", "plz", "kindly", "bitte", "porfa", "svp", "favor", "favore",
];

/// Verbs whose object is a word in a text or a list (`the table lists deslop`, `the docs are
/// missing anti-slop`), not a mode asked for.
#[rustfmt::skip]
pub(crate) const LISTING_VERBS: &[&str] = &[
    "lists", "list", "listed", "mentions", "mention", "mentioned", "contains", "contain",
    "includes", "include", "included", "missing", "lacks", "lack", "lacking", "documents",
    "documented", "spells", "spelled", "spelt", "misspells", "misspelled", "recognises",
    "recognizes", "recognised", "recognized", "detects", "detected", "matches", "matched",
    "supports", "supported", "omits", "omitted", "defines", "defined", "registers", "registered",
];

/// Where a name is added as a word (`add ultrathink to the keyword list`).
#[rustfmt::skip]
pub(crate) const LIST_NOUNS: &[&str] = &[
    "list", "table", "docs", "documentation", "readme", "aliases", "keywords", "section", "enum",
    "array", "lexicon", "vocabulary", "dictionary", "glossary", "regex", "pattern", "corpus",
    "changelog", "allowlist", "denylist", "blocklist",
];
