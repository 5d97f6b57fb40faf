//! A person saying stop in their own words: `stop the loop, it's burning tokens`, `ok stop,
//! that's enough looping`, `turn off ralph`, `kill it`, `그만해`, `ループを止めて`, `停下来`.
//! Loops that cannot be stopped are what OMC users complain of most, and only `cancelomc` used
//! to stop one. A stop is acted on exactly as `cancelomc` is, but only while something of the
//! session runs (`scan.rs`, rule `nothing-running`): outside a run such a phrase starts nothing
//! and says nothing.
//!
//! The verbs are aliases of `cancel` (shape [`Shape::Stop`]), found in the one pass with every
//! other alias. [`extent`] says whether the words around a verb make it a request to stop the
//! work: the verb opens its sentence (after lead-ins such as `ok`, `please`, `that's enough,
//! you can`), and what follows it in its clause is the work itself (`the loop`, `it`,
//! `everything`, `ralph`, `working on this`, `now`), so `stop the dev server`, `stop adding
//! comments` and `if it fails, stop` are not. A limit on the loop (`stop ralph from touching
//! the migrations`) is not a stop either, and the mode it names starts nothing ([`object`]).
//! Korean, Japanese and Chinese have no spaces to count words by: there the sentence around the
//! verb must reduce, token by token, to lead-ins, the work named, particles and the verb's
//! endings (`이제 멈춰`, `ラルフを止めてください`, `把拉尔夫停了`).

use super::lexicon::{ALIASES, Shape, is_cjk_text};
use super::scene::Scene;
use super::text::{back, floor, fwd, head_before_break, is, tail_after_break, words};
use super::vocab::{FILLERS, LEADINS};
use crate::modes::is_persistent;
/// English verbs that ask to stop, as the `Stop` aliases spell them.
const EN_VERBS: &[&str] = &[
    "stop",
    "halt",
    "abort",
    "cancel",
    "kill",
    "quit",
    "end",
    "exit",
    "pause",
    "terminate",
    "enough",
    "turn",
    "switch",
    "shut",
];

/// Verbs that stop something only with an object (`end the run`, `kill it`): alone they are not
/// a request (`end.`, `quit`).
const EN_NEED_OBJECT: &[&str] = &["end", "kill", "exit", "pause", "terminate", "quit"];

/// Verbs that stop something only with one of their particles (`turn off ralph`, `shut it down`).
const EN_PARTICLES: &[(&str, &[&str])] = &[
    ("turn", &["off"]),
    ("switch", &["off"]),
    ("shut", &["off", "down"]),
];

/// Lead-ins a stop may open its sentence with, as word sequences, longest first where they
/// share a start (`ok, that's enough, you can stop`, `please just stop`, `i said stop`), besides
/// the one-word [`LEADINS`] of every language (`ok`, `please`, `um`).
const EN_LEADINS: &[&[&str]] = &[
    &["i", "want", "you", "to"],
    &["i", "need", "you", "to"],
    &["i'd", "like", "you", "to"],
    &["i", "want", "to"],
    &["i", "need", "to"],
    &["i'd", "like", "to"],
    &["we", "need", "to"],
    &["let", "me"],
    &["go", "ahead", "and"],
    &["that's", "enough"],
    &["thats", "enough"],
    &["that's", "it"],
    &["thats", "it"],
    &["that's"],
    &["thats"],
    &["we're", "done"],
    &["we", "are", "done"],
    &["all", "good"],
    &["thank", "you"],
    &["you", "can"],
    &["you", "may"],
    &["you", "should"],
    &["can", "you"],
    &["could", "you"],
    &["would", "you"],
    &["will", "you"],
    &["please", "just"],
    &["i", "said"],
    &["time", "to"],
    &["hold", "on"],
    &["hang", "on"],
    &["no"],
    &["nope"],
    &["wait"],
    &["enough"],
    &["done"],
    &["seriously"],
    &["ugh"],
    &["omg"],
    &["dude"],
    &["stop"],
];

/// What may follow the verb in its clause and name the work: `stop the loop`, `kill it`, `end
/// the run`, `stop working on this`, `stop what you're doing`.
const EN_WORK: &[&str] = &[
    "it",
    "this",
    "that",
    "everything",
    "all",
    "loop",
    "loops",
    "looping",
    "run",
    "runs",
    "running",
    "mode",
    "modes",
    "session",
    "work",
    "working",
    "task",
    "tasks",
    "job",
    "agent",
    "agents",
    "them",
    "iteration",
    "iterations",
    "iterating",
    "workflow",
    "continuing",
    "going",
    "doing",
    "now",
    // where the work is to stop: `pause here, I want to look`
    "here",
];

/// Words that may stand around the work without changing what is asked: `stop it now please`,
/// `stop everything right away`, `stop for today`, `stop what you're doing`.
const EN_AROUND: &[&str] = &[
    "the",
    "your",
    "my",
    "our",
    "current",
    "whole",
    "omc",
    "here",
    "there",
    "right",
    "away",
    "immediately",
    "asap",
    "please",
    "pls",
    "plz",
    "already",
    "for",
    "today",
    "tonight",
    "day",
    "thanks",
    "thank",
    "you",
    "then",
    "ok",
    "okay",
    "on",
    "of",
    "at",
    "once",
    "too",
    "mate",
    "man",
    "dude",
    "claude",
    "what",
    "you're",
    "youre",
    "are",
    "just",
    "completely",
    "entirely",
    "altogether",
    "good",
    "lol",
    "thx",
    "ty",
    "guys",
    "bro",
    "a",
    "bit",
    "moment",
    "sec",
    "second",
    "little",
    "these",
    "those",
    "off",
    "down",
];

/// After `and`, what a person asks for once the work has stopped: `stop and tell me what you
/// changed`, `stop and wait` (not `stop and think`, which asks for more work).
const EN_THEN: &[&str] = &[
    "tell",
    "show",
    "summarise",
    "summarize",
    "report",
    "explain",
    "give",
    "list",
    "wait",
    "let",
    "hand",
    "revert",
    "undo",
];

/// A subject and its verb in one word: a new clause after the verb with no comma (`stop it's
/// burning tokens`, `stop i'll take it from here`), which the verb's object never is.
const EN_CLAUSE_STARTS: &[&str] = &[
    "it's", "its", "that's", "thats", "i'll", "ill", "i'm", "im", "we're", "we'll", "you're",
    "youre", "i've", "ive", "there's",
];

/// Gerunds that, after `from`, are the loop itself (`stop ralph from looping`), not a limit on
/// what it does (`stop ralph from touching the migrations`).
const EN_LOOP_GERUNDS: &[&str] = &["looping", "running", "continuing", "iterating", "going"];
/// One language's words for a stop said in the person's own words: every language the detector
/// reads (English, German, Spanish, French, Italian, Portuguese; Korean, Japanese and Chinese
/// are read by [`cjk`]). A verb may be in several (`stop`, `halt`, `basta`, `para`): the words
/// around it are read with each language's table in turn, and the first that makes it a
/// request decides.
struct Tongue {
    lang: &'static str,
    /// The verbs (and fixed phrases) that ask to stop, as the `Stop` aliases spell them.
    verbs: &'static [&'static str],
    /// Verbs that stop something only with an object (`end the run`, `beende die Schleife`).
    need_object: &'static [&'static str],
    /// Verbs that stop something only with one of their particles, anywhere in the clause
    /// (`turn off ralph`, `shut it down`, `hör auf`, `brich das ab`).
    particles: &'static [(&'static str, &'static [&'static str])],
    /// Lead-ins a stop may open its sentence with, as word sequences, longest first where they
    /// share a start.
    leadins: &'static [&'static [&'static str]],
    /// What may follow the verb in its clause and name the work (`the loop`, `alles`, `todo`).
    work: &'static [&'static str],
    /// Words that may stand around the work without changing what is asked.
    around: &'static [&'static str],
    /// The word for `and`, and what a person asks for after it once the work has stopped (`stop
    /// and tell me what you changed`, not `stop and think`).
    and: &'static str,
    then: &'static [&'static str],
    /// A new clause after the verb with no comma (`stop it's burning tokens`).
    clause_starts: &'static [&'static str],
    /// A particle that names an activity after the verb (`from`, `de`), and the activities that
    /// are the loop itself (`stop ralph from looping`, `arrête de boucler`, `deja de iterar`);
    /// any other (`arrête de mettre des console.log`) is something else stopped.
    from: &'static str,
    loop_verbs: &'static [&'static str],
    /// After a break in the verb's sentence, words that make what follows the verb's object:
    /// German's `zu` (`hör auf, console.log einzubauen` stops the logging, not the run).
    object_after_break: &'static [&'static str],
    /// Lead-ins that ask politely: a question they open is the request (`kannst du aufhören?`,
    /// `¿puedes parar?`, `tu peux arrêter ?`), as `can you stop?` is.
    polite: &'static [&'static [&'static str]],
    /// Verbs that are also a common word (`para` is "for": `Para eso, usa …`, `Para todo esto
    /// necesito …`), and the only words that may follow them in their clause.
    weak: &'static [(&'static str, &'static [&'static str])],
}

/// English.
const EN: Tongue = Tongue {
    lang: "en",
    verbs: EN_VERBS,
    need_object: EN_NEED_OBJECT,
    particles: EN_PARTICLES,
    leadins: EN_LEADINS,
    work: EN_WORK,
    around: EN_AROUND,
    and: "and",
    then: EN_THEN,
    clause_starts: EN_CLAUSE_STARTS,
    from: "from",
    loop_verbs: EN_LOOP_GERUNDS,
    object_after_break: &[],
    polite: &[],
    weak: &[],
};

/// German: `stopp, das reicht`, `hör auf`, `halt an`, `brich das ab`, `pausiere hier`, `bitte
/// aufhören`; not `hör nicht auf, bis …` (the negation stands between verb and particle) nor
/// `hör auf, console.log einzubauen` (something else stopped).
#[rustfmt::skip]
const DE: Tongue = Tongue {
    lang: "de",
    verbs: &[
        "stop", "stopp", "stoppe", "stoppen", "halt", "halte", "anhalten", "hör", "höre", "hört",
        "hoer", "aufhören", "aufhoeren", "brich", "abbrechen", "beende", "beenden", "pausiere",
        "pausieren", "pause", "genug", "schluss", "reicht", "das reicht", "es reicht",
    ],
    need_object: &["beende", "beenden", "pause"],
    particles: &[
        ("hör", &["auf"]), ("höre", &["auf"]), ("hört", &["auf"]), ("hoer", &["auf"]),
        ("brich", &["ab"]), ("halte", &["an"]),
    ],
    leadins: &[
        &["das", "reicht"], &["es", "reicht"], &["das", "war's"], &["das", "wars"], &["du", "kannst"],
        &["kannst", "du"], &["ich", "sagte"], &["jetzt", "reicht's"], &["jetzt"], &["nein"],
        &["nee"], &["ja"], &["gut"], &["danke"], &["moment"], &["warte"], &["halt"], &["stopp"],
        &["stop"], &["einfach"], &["mal"], &["sofort"], &["genug"], &["schluss"], &["und"],
        &["dann"], &["alles"], &["gleich"],
        &["könntest", "du"], &["können", "sie"], &["könnten", "sie"],
        // the work before an infinitive (`Schleife abbrechen`, `alles stoppen`)
        &["die", "schleife"], &["den", "loop"], &["den", "lauf"], &["die", "arbeit"], &["schleife"],
        &["loop"],
    ],
    work: &[
        "es", "das", "alles", "schleife", "loop", "lauf", "läufe", "arbeit", "ausführung",
        "iteration", "iterationen", "modus", "agent", "agenten", "session", "sitzung", "damit",
        "jetzt", "sofort", "hier",
    ],
    around: &[
        "der", "die", "den", "das", "dem", "bitte", "jetzt", "sofort", "hier", "mal", "einfach",
        "gleich", "endlich", "doch", "nun", "ganz", "komplett", "für", "heute", "danke", "an", "ab",
        "auf", "kurz", "erstmal", "erst", "einmal", "ok", "okay", "schon", "omc", "claude",
        "laufende", "laufenden", "aktuelle", "aktuellen", "ganze", "ganzen", "alle", "alles",
    ],
    and: "und",
    then: &["sag", "zeig", "warte", "erklär", "erkläre", "fass", "gib", "lass"],
    clause_starts: &["ich", "wir"],
    from: "",
    loop_verbs: &[],
    object_after_break: &["zu"],
    polite: &[&["kannst", "du"], &["könntest", "du"], &["können", "sie"], &["könnten", "sie"]],
    weak: &[],
};

/// Spanish: `para ya`, `para, ya está bien`, `detente`, `basta`, `deja de iterar`; not `para los
/// tests` (`para` is also "for"), `no pares hasta …`, `deja de añadir console.log`.
#[rustfmt::skip]
const ES: Tongue = Tongue {
    lang: "es",
    verbs: &[
        "para", "pare", "paren", "parad", "parar", "detente", "detén", "deten", "detener", "basta",
        "alto", "deja", "cancela", "pausa", "pausar", "ya está bien", "ya esta bien", "stop",
    ],
    need_object: &["cancela", "deja"],
    particles: &[("deja", &["de"])],
    leadins: &[
        &["por", "favor"], &["ya", "está", "bien"], &["ya", "esta", "bien"], &["es", "suficiente"],
        &["puedes"], &["podrías"], &["podrias"], &["vale"], &["bueno"], &["ya"], &["espera"], &["sí"],
        &["venga"], &["mira"], &["basta"], &["para"], &["alto"], &["y"], &["suficiente"], &["stop"],
        &["ahora"], &["no"], &["puede"], &["podría"],
    ],
    work: &[
        "todo", "eso", "esto", "loop", "bucle", "ciclo", "ejecución", "ejecucion", "trabajo",
        "tarea", "agente", "agentes", "modo", "sesión", "sesion", "iteraciones", "ya",
    ],
    around: &[
        "el", "la", "los", "las", "mismo", "ya", "aquí", "aqui", "ahí", "ahi", "por", "favor",
        "porfa", "de", "una", "vez", "inmediatamente", "gracias", "claude", "un", "momento",
        "actual", "completo", "entero", "hoy", "ok", "vale", "omc", "lo",
    ],
    and: "y",
    then: &["dime", "explica", "explícame", "espera", "resume", "muéstrame", "muestrame", "enséñame"],
    clause_starts: &["quiero", "necesito", "voy"],
    from: "de",
    loop_verbs: &[
        "iterar", "trabajar", "repetir", "ejecutar", "correr", "hacer", "intentar", "seguir",
        "loopear", "ciclar",
    ],
    object_after_break: &[],
    polite: &[&["puedes"], &["podrías"], &["podrias"], &["puede"], &["podría"]],
    weak: &[("para", PARA_ES)],
};

/// What may follow Spanish `para` when it asks to stop: `para ya`, `para el loop`, `para, …`.
#[rustfmt::skip]
const PARA_ES: &[&str] = &[
    "ya", "el", "la", "loop", "bucle", "ciclo", "ejecución", "ejecucion", "agente", "mismo", "ahí",
    "ahi", "aquí", "aqui", "por", "favor", "porfa", "de", "una", "vez", "inmediatamente", "claude",
];

/// French: `arrête`, `stop, ça suffit`, `arrête-toi là`, `mets en pause`, `arrête de boucler`;
/// not `n'arrête pas avant …`, `arrête de mettre des console.log`, `arrête le serveur`.
#[rustfmt::skip]
const FR: Tongue = Tongue {
    lang: "fr",
    verbs: &[
        "arrête", "arrete", "arrêtez", "arretez", "arrête-toi", "arrete-toi", "arrêtez-vous",
        "arretez-vous", "stop", "stoppe", "stoppez", "suffit", "annule", "interromps", "halte",
        "mets en pause", "met en pause", "mettez en pause", "fais une pause", "pause", "arrêter",
        "arreter", "stopper",
    ],
    need_object: &["interromps", "pause"],
    particles: &[],
    leadins: &[
        &["c'est", "bon"], &["ça", "suffit"], &["ca", "suffit"], &["s'il", "te", "plaît"],
        &["s'il", "te", "plait"], &["s'il", "vous", "plaît"], &["s'il", "vous", "plait"],
        &["tu", "peux"], &["bon"], &["bref"], &["allez"], &["non"], &["stop"], &["merci"],
        &["maintenant"], &["stp"], &["et"], &["alors"], &["attends"], &["attendez"], &["voilà"],
        &["voila"], &["ça"], &["ca"], &["arrête"], &["peux-tu"], &["pourrais-tu"], &["vous", "pouvez"],
        &["pouvez-vous"],
    ],
    work: &[
        "tout", "ça", "ca", "cela", "boucle", "boucles", "exécution", "execution", "travail",
        "tâche", "tache", "agent", "agents", "mode", "session", "itérations", "maintenant", "ici",
        "là",
    ],
    around: &[
        "le", "la", "les", "l", "de", "suite", "là", "la", "ici", "s'il", "te", "vous", "plaît",
        "plait", "stp", "svp", "merci", "immédiatement", "donc", "en", "cours", "actuelle",
        "actuel", "pour", "aujourd'hui", "ok", "un", "peu", "instant", "moment", "claude", "toi",
        "omc", "tout",
    ],
    and: "et",
    then: &["dis", "montre", "explique", "attends", "résume", "resume", "donne"],
    clause_starts: &["je", "j'ai", "c'est", "on"],
    from: "de",
    loop_verbs: &["boucler", "tourner", "travailler", "itérer", "iterer", "continuer", "chercher"],
    object_after_break: &[],
    polite: &[&["tu", "peux"], &["peux-tu"], &["pourrais-tu"], &["vous", "pouvez"], &["pouvez-vous"]],
    weak: &[],
};

/// Italian and Portuguese, their common stops: `fermati`, `ferma tutto`, `basta`, `smettila`;
/// `pare`, `para com isso`, `chega`.
#[rustfmt::skip]
const IT_PT: Tongue = Tongue {
    lang: "it/pt",
    verbs: &[
        "fermati", "ferma", "smettila", "basta", "interrompi", "stop", "pare", "para", "chega",
        "interrompe", "fermarti", "parar",
    ],
    need_object: &["ferma", "interrompi", "interrompe"],
    particles: &[],
    leadins: &[
        &["per", "favore"], &["por", "favor"], &["adesso"], &["ora"], &["basta"], &["già"], &["já"],
        &["e"], &["chega"], &["puoi"], &["potresti"], &["pode"], &["podes"],
    ],
    work: &["tutto", "il", "loop", "ciclo", "tudo", "isso", "o", "agora", "subito"],
    around: &[
        "qui", "adesso", "ora", "subito", "per", "favore", "por", "favor", "grazie", "obrigado",
        "aqui", "já", "com", "ok", "claude", "così", "cosi",
    ],
    and: "e",
    then: &[],
    clause_starts: &[],
    from: "",
    loop_verbs: &[],
    object_after_break: &[],
    polite: &[&["puoi"], &["potresti"], &["pode"], &["podes"]],
    weak: &[("para", &["o", "loop", "já", "agora", "com", "isso", "tudo", "aqui"])],
};

/// Every language a stop is heard in, besides Korean, Japanese and Chinese ([`cjk`]).
const TONGUES: &[&Tongue] = &[&EN, &DE, &ES, &FR, &IT_PT];

/// The persistent modes' names in every script, and the other words for a run (`ulw`, `team`).
fn names_work(w: &str) -> bool {
    matches!(w, "ultraqa" | "team" | "pipeline" | "auto" | "pilot")
        || ALIASES
            .iter()
            .any(|a| a.shape == Shape::Name && is_persistent(a.name) && a.text == w)
}

/// A stop verb asked for politely, in its language (`kannst du aufhören?`, `¿puedes parar?`):
/// the question is the request, as `can you stop?` is.
pub(crate) fn polite(s: &Scene) -> bool {
    if s.shape != Shape::Stop {
        return false;
    }
    // (the candidate spans the request: its verb, then the work)
    let span = s.site.raw[s.site.start..s.end].to_lowercase();
    let opens = |v: &str| {
        span.strip_prefix(v)
            .is_some_and(|r| r.chars().next().is_none_or(|c| !c.is_alphanumeric()))
    };
    TONGUES
        .iter()
        .filter(|g| g.verbs.iter().any(|v| opens(v)))
        .any(|g| {
            g.polite.iter().any(|p| {
                s.sentence_words
                    .windows(p.len())
                    .any(|w| w.iter().zip(p.iter()).all(|(a, b)| a == b))
            })
        })
}

/// Every verb a stop is heard with, in any language written in Latin letters.
fn is_stop_verb(w: &str) -> bool {
    TONGUES.iter().any(|g| g.verbs.contains(&w))
}

/// Where the stop request whose verb is at `start..end` of `t` (the prompt as typed) ends, or
/// `None` when the words around it do not make it one.
pub(crate) fn extent(t: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    if t.is_char_boundary(start) && !is_cjk_text(&t[start..end]) {
        latin(t, start, end).map(|(_, span)| span)
    } else {
        cjk(t, start, end)
    }
}

/// The words before the verb in its sentence are all lead-ins: the language's, the run named
/// (`ralph stop`, `ulw, halt`) or a CJK word of lead-ins and the work (`先 stop`, `랄프 stop`).
fn opens_sentence(g: &Tongue, before: &[String]) -> bool {
    let mut i = 0;
    while i < before.len() {
        let rest = &before[i..];
        let w = rest[0].as_str();
        if names_work(w) || LEADINS.contains(&w) || (is_cjk_text(w) && reduces(w, CJK_BEFORE, true))
        {
            i += 1;
            continue;
        }
        let Some(l) = g
            .leadins
            .iter()
            .find(|l| rest.len() >= l.len() && rest.iter().zip(l.iter()).all(|(a, b)| a == b))
        else {
            return false;
        };
        i += l.len();
    }
    true
}

/// The first language whose table makes the verb at `start..end` a request, and the request's
/// span.
fn latin(t: &str, start: usize, end: usize) -> Option<(&'static str, (usize, usize))> {
    let verb = t[start..end].to_lowercase();
    // (the words before the verb, read once for every language that has it)
    let mut before: Option<Vec<String>> = None;
    TONGUES
        .iter()
        .filter(|g| g.verbs.contains(&verb.as_str()))
        .find_map(|g| {
            let before =
                before.get_or_insert_with(|| words(tail_after_break(back(t, start, 160), true)));
            if !opens_sentence(g, before) {
                return None;
            }
            in_tongue(g, &verb, t, end).map(|span| (g.lang, (start, span)))
        })
}

/// Where the request whose verb ends at `end` ends, read with `g`'s words, if they make it one
/// (the verb opens its sentence: [`opens_sentence`]).
fn in_tongue(g: &Tongue, verb: &str, t: &str, end: usize) -> Option<usize> {
    let (clause, brk) = head_before_break(fwd(t, end, 160), false);
    // (a word before a colon labels what follows: `Para: el equipo de backend`)
    if g.lang != "en" && brk == Some(':') && clause.trim().is_empty() {
        return None;
    }
    let ws = words(clause);
    if let Some((_, may)) = g.weak.iter().find(|(v, _)| *v == verb)
        && !ws
            .iter()
            .all(|w| may.contains(&w.as_str()) || names_work(w))
    {
        return None;
    }
    let (mut work, mut particle) = (false, false);
    let needs = g
        .particles
        .iter()
        .find(|(v, _)| *v == verb)
        .map(|(_, p)| *p);
    let mut i = 0;
    while i < ws.len() {
        let w = ws[i].as_str();
        if g.clause_starts.contains(&w) {
            // the rest is another clause: `stop it's burning tokens`
            break;
        }
        if !g.from.is_empty() && w == g.from && !is(ws.get(i + 1), g.around) {
            // `stop ralph from looping`, not `stop ralph from touching the migrations`
            // (`arrête tout de suite`: not an activity after it)
            if !is(ws.get(i + 1), g.loop_verbs) {
                return None;
            }
            work = true;
            particle = true;
            i += 1;
        } else if needs.is_some_and(|p| p.contains(&w)) {
            particle = true;
        } else if w == g.and {
            if is(ws.get(i + 1), g.then) {
                break;
            }
            return None;
        } else if g.work.contains(&w) || names_work(w) || g.verbs.contains(&w) {
            // (the verb said again is the same request: `abort abort abort`)
            work = true;
        } else if !g.around.contains(&w) && (!is_cjk_text(w) || !reduces(w, CJK_AFTER, true)) {
            // (a CJK ending or the work named in CJK is part of the request: `先 stop 吧`)
            return None;
        }
        i += 1;
    }
    if needs.is_some() && !particle {
        return None;
    }
    if g.need_object.contains(&verb) && !work {
        return None;
    }
    // `hör auf, console.log einzubauen`: the clause after the break is what is stopped
    if !g.object_after_break.is_empty() {
        let (sentence, _) = head_before_break(fwd(t, end, 200), true);
        let later = words(&sentence[clause.len()..]);
        if later.iter().any(|w| {
            g.object_after_break.contains(&w.as_str())
                || g.object_after_break.iter().any(|p| {
                    w.len() > p.len() + 4 && w.ends_with("en") && w.find(p).is_some_and(|k| k >= 2)
                })
        }) {
            return None;
        }
    }
    // `enough` stops only the work: `enough looping`, `enough.`, not `enough tests exist`
    let span_end = end + clause.trim_end().len();
    Some(span_end.max(end))
}

/// Korean, Japanese and Chinese: the sentence before the verb is lead-ins and the work named
/// (with its particles), and what follows it is the verb's endings (and, in Chinese, its object).
fn cjk(t: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let is_break = |c: char| "。！？!?\n，,、；;：:.…".contains(c);
    let head = back(t, start, 120);
    let before = match head.char_indices().rev().find(|(_, c)| is_break(*c)) {
        Some((i, c)) => &head[i + c.len_utf8()..],
        None => head,
    };
    let tail = fwd(t, end, 120);
    let after_len = tail.find(is_break).unwrap_or(tail.len());
    // (a new clause with no comma before it: `先停一下让我看看`)
    let after_len = ZH_NEXT_CLAUSE
        .iter()
        .filter_map(|c| tail[..after_len].find(c))
        .min()
        .unwrap_or(after_len);
    let after = &tail[..after_len];
    let squeeze = |s: &str| -> String {
        s.chars()
            .filter(|c| !c.is_whitespace() && !matches!(c, '~' | '～' | '!' | '！'))
            .collect::<String>()
            .to_lowercase()
    };
    let before = squeeze(before);
    let after = squeeze(after);
    if !reduces_stops(&before, CJK_BEFORE) || !reduces_stops(&after, CJK_AFTER) {
        return None;
    }
    // `그만`, `够了` alone; a verb that needs a form of its own needs one: `꺼` is `꺼줘`
    Some((start, floor(t, end + after_len)))
}

/// [`reduces`], where another CJK stop verb may stand too: two said together are one request
/// (`그만 멈춰`, `もうやめて止めて`).
fn reduces_stops(s: &str, tokens: &[&str]) -> bool {
    reduces_with(s, tokens, true, true)
}

/// `s` is nothing but `tokens` (and, with `names`, the persistent modes' names), in any order.
fn reduces(s: &str, tokens: &[&str], names: bool) -> bool {
    reduces_with(s, tokens, names, false)
}

fn reduces_with(s: &str, tokens: &[&str], names: bool, stops: bool) -> bool {
    let mut rest = s;
    while !rest.is_empty() {
        let token = tokens
            .iter()
            .filter(|k| rest.starts_with(*k))
            .max_by_key(|k| k.len())
            .map(|k| k.len());
        let name = names
            .then(|| {
                ALIASES
                    .iter()
                    .filter(|a| a.shape == Shape::Name && is_persistent(a.name))
                    .filter(|a| rest.starts_with(a.text))
                    .map(|a| a.text.len())
                    .max()
            })
            .flatten();
        // (each verb then reduces with its own endings: `그만해 멈춰`)
        let stop = stops
            .then(|| {
                ALIASES
                    .iter()
                    .filter(|a| a.shape == Shape::Stop && a.is_cjk())
                    .filter(|a| rest.starts_with(a.text))
                    .map(|a| a.text.len())
                    .max()
            })
            .flatten();
        match token.max(name).max(stop) {
            Some(n) if n > 0 => rest = &rest[n..],
            _ => return false,
        }
    }
    true
}

/// Before a CJK verb: lead-ins, the work named, and the particles that mark it as the object or
/// the topic (not `가`/`が`, the subject of a statement: `루프가 안 멈춰` is "the loop does not
/// stop").
#[rustfmt::skip]
const CJK_BEFORE: &[&str] = &[
    // lead-ins
    "ok", "okay", "please", "이제", "그냥", "제발", "좀", "일단", "지금", "다", "전부", "빨리", "얼른", "자", "야", "됐어", "됐고",
    "충분해", "오케이", "もう", "一旦", "いったん", "とりあえず", "全部", "今すぐ", "今", "すぐ", "早く", "ちょっと", "请", "先",
    "现在", "都", "快", "赶紧", "马上", "立刻", "你", "好了", "行了", "可以", "帮我", "给我", "把", "请你", "那就", "就", "直接",
    "全部", "ね", "ねえ", "さあ", "잠깐", "잠깐만", "여기서", "거기서", "ここで", "そこで", "一回", "到这里", "就到这里", "在这里",
    "这里",
    // the work
    "루프", "반복", "작업", "모드", "실행", "에이전트", "ループ", "作業", "モード", "実行", "処理", "エージェント", "循环", "任务", "模式",
    "工作", "运行", "执行", "迭代", "这个", "它", "所有",
    // particles
    "를", "을", "는", "은", "도", "を", "は", "も",
];

/// What opens a new Chinese clause after a stop with no comma: `先停一下让我看看` ("let me look").
const ZH_NEXT_CLAUSE: &[&str] = &["让我", "等我", "我来", "我先", "我要", "我想", "我看"];

/// After a CJK verb: its endings and politeness, and in Chinese the work it stops.
#[rustfmt::skip]
const CJK_AFTER: &[&str] = &[
    // Korean
    "해", "하자", "하세요", "해요", "해라", "해줘", "해주세요", "해주라", "해도돼", "해도돼요", "해도됩니다", "합시다", "둬", "두자",
    "둬요", "돌려", "돌리자", "도돼", "도돼요", "도됩니다", "줘", "주세요", "라", "요", "자", "세요", "시켜", "시켜줘", "좀", "제발", "이제",
    "봐", "봐요", "봐줘",
    // Japanese
    "て", "ください", "下さい", "くれ", "くれる", "ろ", "よう", "ましょう", "ちゃって", "ちゃえ", "ね", "よ", "な", "にして", "して",
    "しよう", "しましょう", "です", "だ", "ていい", "てもいい",
    // Chinese
    "下", "下来", "止", "了", "掉", "一下", "吧", "啊", "呀", "啦", "嘛", "来", "住", "循环", "拉尔夫", "任务", "工作", "运行",
    "执行", "迭代", "所有", "全部", "它", "这个", "跑", "继续", "折腾", "搞", "在这里", "在这", "这里", "在此",
    "手上的活", "手头的活", "手上的工作", "手头的工作",
];

/// Rule `stop-request`: a stop verb that [`extent`] found to open a request to stop the work
/// (the guards before it have already set aside one quoted, asked about or taken back). An
/// explicit `/cancel` is the command, judged by the shapes.
pub(crate) fn request(s: &Scene) -> bool {
    s.shape == Shape::Stop && !s.explicit
}

/// Rule `stop-object`: a mode named in a request to stop it (`stop ralph`, `turn off ralph`,
/// `랄프 꺼줘`, `停止拉尔夫`) — the stop verb is the request — or in a limit on it (`stop ralph
/// from touching the migrations`), which starts nothing.
pub(crate) fn object(s: &Scene) -> bool {
    if !s.is_name() || s.explicit || s.name == "cancel" {
        return false;
    }
    let rest = s.lead_rest();
    // (the verb's particles, from every language's table: `turn off ralph`, `brich ralph ab`)
    let particle = |w: &str| {
        TONGUES
            .iter()
            .any(|g| g.particles.iter().any(|(_, ps)| ps.contains(&w)))
    };
    let latin = rest.first().is_some_and(|w| is_stop_verb(w))
        && rest[1..]
            .iter()
            .all(|w| FILLERS.contains(&w.as_str()) || particle(w));
    latin || cjk_object(s)
}

/// The name, then (past particles and the work's own words) a CJK stop verb with its endings:
/// `랄프 꺼줘`, `ラルフを止めて`, `把拉尔夫停了`; or a Chinese stop verb right before it:
/// `停止拉尔夫`, `关掉自动驾驶`.
fn cjk_object(s: &Scene) -> bool {
    if s.sentence_after.is_ascii() && s.near_before.is_ascii() {
        return false;
    }
    let after: String = s
        .sentence_after
        .chars()
        .take(24)
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut rest = after.as_str();
    loop {
        let skip = [
            "를",
            "을",
            "는",
            "은",
            "도",
            "を",
            "は",
            "も",
            "루프",
            "모드",
            "ループ",
            "モード",
            "循环",
            "模式",
            "좀",
            "이제",
            "もう",
        ]
        .iter()
        .find(|p| rest.starts_with(*p));
        match skip {
            Some(p) => rest = &rest[p.len()..],
            None => break,
        }
    }
    let stop_verbs = || {
        ALIASES
            .iter()
            .filter(|a| a.shape == Shape::Stop && a.is_cjk())
    };
    let after_verb = stop_verbs().find_map(|a| rest.strip_prefix(a.text));
    if after_verb.is_some_and(|r| {
        let end = r
            .find(|c: char| "。！？!?，,、；;.".contains(c))
            .unwrap_or(r.len());
        reduces(&r[..end], CJK_AFTER, false)
    }) {
        return true;
    }
    let before = s.near_before.trim_end();
    stop_verbs().any(|a| {
        before.ends_with(a.text)
            || ["止", "下", "掉"]
                .iter()
                .any(|e| before.ends_with(&format!("{}{e}", a.text)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stop_at(t: &str, verb: &str) -> Option<String> {
        let s = t.find(verb).unwrap();
        extent(t, s, s + verb.len()).map(|(a, b)| t[a..b].to_string())
    }

    #[test]
    fn english_requests_to_stop() {
        for (t, v) in [
            ("stop", "stop"),
            ("stop the loop, it's burning tokens", "stop"),
            ("ok stop, that's enough looping", "stop"),
            ("that's enough, you can stop", "stop"),
            ("please stop now, I'll take it from here", "stop"),
            ("stop working on this, the tests are green", "stop"),
            ("kill the loop", "kill"),
            ("end the run, we're done", "end"),
            ("turn off ralph", "turn"),
            ("shut autopilot off, it's going in circles", "shut"),
            ("stop ralph from looping", "stop"),
            ("can you stop ralph?", "stop"),
            ("stop it's burning tokens", "stop"),
            ("stop and tell me what you changed", "stop"),
            ("alright, that's enough iterating, summarise", "enough"),
            ("autopilot halt", "halt"),
            ("ulw, stop now", "stop"),
            ("那就 stop 吧", "stop"),
            (
                "The build is red. Stop the loop, I'll fix it by hand.",
                "Stop",
            ),
        ] {
            assert!(stop_at(t, v).is_some(), "{t}");
        }
    }

    #[test]
    fn english_that_is_not_a_request_to_stop() {
        for (t, v) in [
            ("stop ralph from touching the migrations folder", "stop"),
            ("stop adding comments to every line", "stop"),
            ("stop the dev server and restart it", "stop"),
            ("don't stop until the tests pass", "stop"),
            ("if the build fails, stop", "stop"),
            ("stop and think about the design", "stop"),
            ("why did it stop?", "stop"),
            ("the stop hook fires twice", "stop"),
            ("end.", "end"),
            ("turn the list into a table", "turn"),
            ("switch to autopilot", "switch"),
            ("enough tests exist already", "enough"),
            ("stop when the tests pass", "stop"),
            ("ralph stop adding comments", "stop"),
            ("that's enough tests for now", "enough"),
            ("先 stop the dev server", "stop"),
            ("代码 stop", "stop"),
        ] {
            assert_eq!(stop_at(t, v), None, "{t}");
        }
    }

    #[test]
    fn stops_in_german_spanish_french_italian_portuguese() {
        for (t, v) in [
            ("stopp, das reicht", "stopp"),
            ("hör auf", "hör"),
            ("hör jetzt auf, das reicht", "hör"),
            ("halt an", "halt"),
            ("brich den lauf ab", "brich"),
            ("pausiere hier, ich will mir das ansehen", "pausiere"),
            ("bitte aufhören", "aufhören"),
            ("Schleife abbrechen", "abbrechen"),
            ("beende die schleife", "beende"),
            ("para ya", "para"),
            ("¡para!", "para"),
            ("para, ya está bien", "para"),
            ("ya está bien, para", "ya está bien"),
            ("detente", "detente"),
            ("basta ya", "basta"),
            ("deja de iterar", "deja"),
            ("pausa aquí, quiero revisar", "pausa"),
            ("arrête", "arrête"),
            ("arrête, ça suffit", "arrête"),
            ("arrête-toi là", "arrête-toi"),
            ("mets en pause, je veux regarder", "mets en pause"),
            ("arrête de boucler", "arrête"),
            ("c'est bon, arrête tout", "arrête"),
            ("fermati qui", "fermati"),
            ("chega, para com isso", "chega"),
            ("Das reicht jetzt.", "Das reicht"),
            ("tu peux arrêter, s'il te plaît", "arrêter"),
            ("Pause hier, ich will es mir ansehen", "Pause"),
        ] {
            assert!(stop_at(t, v).is_some(), "{t}");
        }
        for (t, v) in [
            ("hör nicht auf, bis die tests grün sind", "hör"),
            ("hör auf, console.log einzubauen", "hör"),
            ("hör zu, das ist wichtig", "hör"),
            ("beende den server", "beende"),
            ("para los tests, usa jest", "para"),
            ("para que los tests pasen, sube el timeout", "para"),
            ("Para: el equipo de backend", "Para"),
            ("Para eso, usa el script de deploy", "Para"),
            ("Para todo esto necesito un plan", "Para"),
            ("usa tdd para el nuevo módulo", "para"),
            ("el loop no para nunca", "para"),
            ("deja de añadir console.log", "deja"),
            ("deja eso ahí", "deja"),
            ("alto rendimiento es la meta", "alto"),
            ("n'arrête pas avant que les tests passent", "arrête"),
            ("arrête de mettre des console.log partout", "arrête"),
            ("arrête le serveur de dev", "arrête"),
            (
                "mets en pause la vidéo quand l'onglet perd le focus",
                "mets en pause",
            ),
            ("ferma il server", "ferma"),
            ("das reicht nicht, mach weiter", "das reicht"),
            ("pause", "pause"),
            ("arrêter le serveur avant la migration", "arrêter"),
        ] {
            assert_eq!(stop_at(t, v), None, "{t}");
        }
    }

    #[test]
    fn cjk_requests_to_stop() {
        for (t, v) in [
            ("그만해, 토큰 너무 많이 쓴다", "그만"),
            ("이제 멈춰", "멈춰"),
            ("랄프 그만 돌려", "그만"),
            ("그만 돌려도 돼, 내가 할게", "그만"),
            ("루프 멈춰줘, 충분해", "멈춰"),
            ("もう止めて、十分です", "止め"),
            ("ループを止めてください", "止め"),
            ("停下来，别再循环了", "停"),
            ("够了，停止吧", "够了"),
            ("把拉尔夫停了", "停"),
            ("停止拉尔夫", "停"),
            ("잠깐만, 멈춰봐", "멈춰"),
            ("여기서 멈춰 줘", "멈춰"),
            ("ここで一旦止めて、確認したい", "止め"),
            ("先停在这里，我要看一下", "停"),
            ("好了，别跑了", "别跑"),
            ("到此为止吧", "到此为止"),
        ] {
            assert!(stop_at(t, v).is_some(), "{t}");
        }
        for (t, v) in [
            ("루프가 안 멈춰요", "멈춰"),
            ("랄프를 멈추지 마", "멈추"),
            ("止めないで", "止め"),
            ("停车场的代码有bug", "停"),
            ("꺼내줘", "꺼"),
            ("别再改测试文件了", "别再"),
            ("别跑测试了，直接看日志", "别跑"),
            ("今天的讨论到此为止", "到此为止"),
        ] {
            assert_eq!(stop_at(t, v), None, "{t}");
        }
    }
}
