//! `record --http` (docs/contract.md §4.8): a search server asked over HTTP, one
//! request per question, up to `concurrency` at once and at most `max_rps` a second.
//! GET fills a URL template, POST a JSON body template; the doc ids (and scores) are
//! found in the answer by JSON pointers with `*` for arrays. Connection errors,
//! timeouts, 429 and 5xx are retried with exponential backoff and jitter, honouring
//! `Retry-After`. Nothing here prints a URL as sent, a header's value or a body:
//! failures are named by status code (and a JSON `error.type`) and query id.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::record::questions::Question;
use crate::record::{Answer, Outcome, Reach, Tally};

/// The server and how to read its answers.
#[derive(Debug, Clone)]
pub struct Target {
    /// The URL template: `{question}`, `{id}` URL-encoded, `{depth}`.
    pub url: String,
    /// A JSON body template (POST): `{question}`, `{id}` JSON-escaped inside a
    /// string, `{depth}` a number, `{filters}` an object.
    pub body: Option<String>,
    pub ids: Pointer,
    pub scores: Option<Pointer>,
    /// Header names and values; the values are never printed.
    pub headers: Vec<(String, String)>,
    pub retries: u32,
    pub max_rps: Option<f64>,
}

/// An RFC 6901 JSON pointer whose segment `*` stands for every element of an array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    pub text: String,
    segments: Vec<String>,
}

impl Pointer {
    /// Parse `/hits/hits/*/_id`; the error says what is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        if !text.starts_with('/') {
            return Err(format!(
                "{}: a JSON pointer starts with `/`, e.g. /hits/hits/*/_id",
                crate::text::shown(text)
            ));
        }
        let segments = text[1..]
            .split('/')
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect();
        Ok(Self {
            text: text.to_string(),
            segments,
        })
    }

    /// Every value the pointer reaches, in document order.
    pub fn find<'v>(&self, value: &'v serde_json::Value) -> Vec<&'v serde_json::Value> {
        let mut here = vec![value];
        for seg in &self.segments {
            let mut next = Vec::new();
            for v in here {
                match (v, seg.as_str()) {
                    (serde_json::Value::Array(items), "*") => next.extend(items.iter()),
                    (serde_json::Value::Array(items), i) => {
                        next.extend(i.parse::<usize>().ok().and_then(|i| items.get(i)))
                    }
                    (serde_json::Value::Object(map), key) => next.extend(map.get(key)),
                    _ => {}
                }
            }
            here = next;
        }
        here
    }
}

/// `text` URL-encoded: every byte but the unreserved ones (RFC 3986) as `%XX`.
pub fn url_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `text` escaped for the inside of a JSON string.
fn json_escape(text: &str) -> String {
    let quoted = serde_json::Value::String(text.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

impl Target {
    fn url_for(&self, q: &Question, depth: u32) -> String {
        self.url
            .replace("{question}", &url_encode(&q.text))
            .replace("{id}", &url_encode(&q.id))
            .replace("{depth}", &depth.to_string())
    }

    /// The body for one question (filled from the template once per request).
    pub fn body_for(&self, q: &Question, reach: &Reach) -> Option<String> {
        let filters = serde_json::to_string(&reach.filters).unwrap_or_else(|_| "{}".into());
        self.body.as_ref().map(|b| {
            b.replace("{question}", &json_escape(&q.text))
                .replace("{id}", &json_escape(&q.id))
                .replace("{depth}", &reach.depth.to_string())
                .replace("{filters}", &filters)
        })
    }
}

/// Paces requests to at most `rps` a second, across every worker.
struct Pace {
    interval: Option<Duration>,
    next: Mutex<Instant>,
}

impl Pace {
    fn wait(&self) {
        let Some(interval) = self.interval else {
            return;
        };
        let at = {
            let mut next = self
                .next
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let at = (*next).max(Instant::now());
            *next = at + interval;
            at
        };
        std::thread::sleep(at.saturating_duration_since(Instant::now()));
    }
}

/// Ask every question; the outcomes in question order.
pub fn run(target: &Target, reach: &Reach, questions: &[Question], tally: &Tally) -> Vec<Outcome> {
    let agent = agent(reach.timeout);
    let pace = Pace {
        // Settings keep RPS in range (docs/contract.md §4.8); no pace beats a panic.
        interval: target
            .max_rps
            .and_then(|r| Duration::try_from_secs_f64(1.0 / r).ok()),
        next: Mutex::new(Instant::now()),
    };
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<Outcome>>> =
        Mutex::new((0..questions.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..reach.concurrency.min(questions.len().max(1)) {
            s.spawn(|| {
                loop {
                    // No new request after a signal (src/interrupt.rs drains).
                    if crate::interrupt::stopping() {
                        super::command::wait_for_the_end();
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(q) = questions.get(i) else { break };
                    crate::interrupt::in_flight_add(true);
                    let outcome = ask(&agent, target, reach, q, &pace);
                    crate::interrupt::in_flight_add(false);
                    if let Ok(mut all) = outcomes.lock() {
                        all[i] = Some(outcome);
                    }
                    tally.done();
                }
            });
        }
    });
    outcomes
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .into_iter()
        .map(|o| o.unwrap_or(Outcome::Errored("not asked".to_string())))
        .collect()
}

/// One agent for every request: `timeout` per request, statuses as values, the
/// system's root certificates for `https://`.
fn agent(timeout: Duration) -> ureq::Agent {
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::PlatformVerifier)
        .build();
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .tls_config(tls)
        .build()
        .into()
}

/// What one attempt came to.
enum Attempt {
    Done(Answer),
    /// Worth another try (after at least the given wait, from `Retry-After`).
    Retry(String, Option<Duration>),
    /// Not worth another try.
    Failed(String),
}

/// One question, with its retries.
fn ask(agent: &ureq::Agent, target: &Target, reach: &Reach, q: &Question, pace: &Pace) -> Outcome {
    let mut attempt = 0;
    loop {
        pace.wait();
        match once(agent, target, reach, q) {
            Attempt::Done(answer) => return Outcome::Answered(answer),
            Attempt::Failed(why) => return Outcome::Errored(why),
            Attempt::Retry(why, after) => {
                if attempt >= target.retries {
                    let tries = crate::text::plural(attempt as usize + 1, "try", "tries");
                    return Outcome::Errored(format!("{why} ({tries})"));
                }
                std::thread::sleep(backoff(attempt).max(after.unwrap_or_default()));
                attempt += 1;
            }
        }
    }
}

/// 200 ms, 400 ms, 800 ms, … (at most 10 s), each times a jitter in [0.5, 1.5).
fn backoff(attempt: u32) -> Duration {
    let base = 0.2 * f64::from(1u32 << attempt.min(6));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let jitter = 0.5 + f64::from(nanos % 1000) / 1000.0;
    Duration::from_secs_f64((base * jitter).min(10.0))
}

fn once(agent: &ureq::Agent, target: &Target, reach: &Reach, q: &Question) -> Attempt {
    let url = target.url_for(q, reach.depth);
    let started = Instant::now();
    let result = match target.body_for(q, reach) {
        Some(body) => {
            let mut req = agent.post(&url).header("Content-Type", "application/json");
            for (name, value) in &target.headers {
                req = req.header(name, value);
            }
            req.send(body.as_bytes())
        }
        None => {
            let mut req = agent.get(&url);
            for (name, value) in &target.headers {
                req = req.header(name, value);
            }
            req.call()
        }
    };
    let mut response = match result {
        Ok(r) => r,
        Err(e) => return Attempt::Retry(transport(&e), None),
    };
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(|s| Duration::from_secs(s.min(120)));
    let body = match response.body_mut().read_to_string() {
        Ok(b) => b,
        Err(e) => return Attempt::Retry(transport(&e), None),
    };
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    if status != 200 {
        let why = format!("HTTP {status}{}", error_type(&body));
        return if status == 429 || status >= 500 {
            Attempt::Retry(why, retry_after)
        } else {
            Attempt::Failed(why)
        };
    }
    match read_answer(target, &body) {
        Ok((doc_ids, scores)) => match Answer::new(doc_ids, scores, latency_ms, reach.depth) {
            Ok(a) => Attempt::Done(a),
            Err(why) => Attempt::Failed(format!("an answer with {why}")),
        },
        Err(why) => Attempt::Failed(why),
    }
}

/// A transport error by its kind only: its text may hold the URL, so the question.
fn transport(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => "no answer within --timeout".to_string(),
        ureq::Error::HostNotFound => "host not found".to_string(),
        ureq::Error::ConnectionFailed => "connection failed".to_string(),
        ureq::Error::Io(io) => format!("connection error ({:?})", io.kind()),
        _ => "transport error".to_string(),
    }
}

/// ` (error.type T)` when the body is JSON with a plain `error.type`.
fn error_type(body: &str) -> String {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
        return String::new();
    };
    match v.pointer("/error/type").and_then(|t| t.as_str()) {
        Some(t)
            if t.len() <= 80
                && t.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')) =>
        {
            format!(" (error.type {t})")
        }
        _ => String::new(),
    }
}

type Found = (Vec<String>, Option<Vec<f64>>);

/// The doc ids (strings or numbers) and scores an answer holds.
fn read_answer(target: &Target, body: &str) -> Result<Found, String> {
    let v: serde_json::Value =
        serde_json::from_str(body).map_err(|_| "an answer that is not JSON".to_string())?;
    let mut ids = Vec::new();
    for id in target.ids.find(&v) {
        match id {
            serde_json::Value::String(s) => ids.push(s.clone()),
            serde_json::Value::Number(n) => ids.push(n.to_string()),
            _ => {
                return Err(format!(
                    "a value at {} that is not a string or number",
                    target.ids.text
                ));
            }
        }
    }
    if ids.is_empty() && !pointer_leads_to_empty(&target.ids, &v) {
        return Err(format!("nothing at {} in the answer", target.ids.text));
    }
    let scores = match &target.scores {
        None => None,
        Some(p) => Some(
            p.find(&v)
                .into_iter()
                .map(|s| {
                    s.as_f64()
                        .ok_or_else(|| format!("a value at {} that is not a number", p.text))
                })
                .collect::<Result<Vec<f64>, String>>()?,
        ),
    };
    Ok((ids, scores))
}

/// Whether an empty result is an empty array on the pointer's way (no hits), not a
/// pointer that leads nowhere (a wrong `--ids`).
fn pointer_leads_to_empty(p: &Pointer, v: &serde_json::Value) -> bool {
    let Some(star) = p.segments.iter().position(|s| s == "*") else {
        return false;
    };
    let head = Pointer {
        text: String::new(),
        segments: p.segments[..star].to_vec(),
    };
    head.find(v)
        .iter()
        .all(|a| a.as_array().is_some_and(|a| a.is_empty()))
        && !head.find(v).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_with_stars_reach_every_hit() {
        let v = serde_json::json!({"hits": {"hits": [{"_id": "a", "_score": 2.0}, {"_id": 7, "_score": 1}]}});
        let p = Pointer::parse("/hits/hits/*/_id").unwrap();
        assert_eq!(p.find(&v), [&serde_json::json!("a"), &serde_json::json!(7)]);
        let p = Pointer::parse("/hits/hits/1/_score").unwrap();
        assert_eq!(p.find(&v), [&serde_json::json!(1)]);
        assert!(Pointer::parse("hits").is_err());
        let p = Pointer::parse("/a~1b/c~0d").unwrap();
        assert_eq!(
            p.find(&serde_json::json!({"a/b": {"c~d": 1}})),
            [&serde_json::json!(1)]
        );
    }

    #[test]
    fn url_encoding_keeps_only_unreserved_bytes() {
        assert_eq!(url_encode("a b&c=é/~"), "a%20b%26c%3D%C3%A9%2F~");
    }

    #[test]
    fn error_types_are_shown_only_when_plain() {
        assert_eq!(
            error_type(r#"{"error": {"type": "search_phase_execution_exception"}}"#),
            " (error.type search_phase_execution_exception)"
        );
        assert_eq!(
            error_type(r#"{"error": {"type": "no such index [what is up]"}}"#),
            ""
        );
        assert_eq!(error_type("<html>"), "");
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        for attempt in 0..10 {
            let d = backoff(attempt).as_secs_f64();
            let base = 0.2 * f64::from(1u32 << attempt.min(6));
            assert!(
                d >= (base * 0.5).min(10.0) - 1e-9 && d <= (base * 1.5).min(10.0),
                "{attempt}: {d}"
            );
        }
    }
}
