//! `record --command`: one retriever process speaking JSON Lines over its stdin and
//! stdout (docs/contract.md §4.8). ragdiff starts it once, without a shell, in a
//! process group of its own, writes up to `concurrency` requests ahead of the
//! answers and reads the answers in any order. Every failure names the query ids
//! in flight and what was wrong, never a question's text or a line's content.

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;

use crate::exit::RetrieverFailed;
use crate::record::questions::Question;
use crate::record::{Answer, Outcome, Reach, Tally};

/// How many lines of the retriever's stderr a failure shows.
const TAIL: usize = 20;

/// One request line.
#[derive(serde::Serialize)]
struct Request<'a> {
    id: &'a str,
    question: &'a str,
    depth: u32,
    filters: &'a std::collections::BTreeMap<String, String>,
}

/// One answer line: doc ids (scores optional), or an error of that query.
#[derive(serde::Deserialize)]
struct Response {
    id: serde_json::Value,
    #[serde(default)]
    doc_ids: Option<Vec<String>>,
    #[serde(default)]
    scores: Option<Vec<f64>>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

/// What the stdout reader hands the driver: a line and when it was read, or the end.
enum Msg {
    Line(Instant, Vec<u8>),
    End,
}

/// The running process and what its readers collect.
struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Msg>,
    tail: Arc<Mutex<VecDeque<String>>>,
    stderr_thread: Option<std::thread::JoinHandle<()>>,
    program: String,
}

/// The retriever's command line and where it runs (`None`: the working directory).
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub argv: Vec<String>,
    pub dir: Option<std::path::PathBuf>,
}

/// Run every question through the process `program`; the outcomes in question order.
pub fn run(
    program: &Program,
    reach: &Reach,
    questions: &[Question],
    tally: &Tally,
) -> Result<Vec<Outcome>, RetrieverFailed> {
    let redactor = Arc::new(super::Redactor::new(questions));
    let mut process = start(program, reach, redactor)?;
    let result = drive(&mut process, reach, questions, tally);
    match result {
        Ok(outcomes) => {
            // Closing stdin tells the process to finish; it gets a moment, then
            // its group is ended either way (nothing of it outlives ragdiff).
            drop(process.stdin.take());
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = process.child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            end(&mut process);
            Ok(outcomes)
        }
        Err(message) => {
            end(&mut process);
            let tail = process.tail.lock().map(|t| t.clone()).unwrap_or_default();
            Err(RetrieverFailed {
                message: format!("{}: {message}", process.program),
                // Redacted as they were read (keep_stderr).
                log_tail: tail.iter().cloned().collect(),
            })
        }
    }
}

/// Start the process: no shell, its own process group, stderr to the log.
fn start(
    to_run: &Program,
    reach: &Reach,
    redactor: Arc<super::Redactor>,
) -> Result<Process, RetrieverFailed> {
    let argv = &to_run.argv;
    let program = crate::text::shown_string(&argv[0]);
    let failed = |message: String| RetrieverFailed {
        message,
        log_tail: Vec::new(),
    };
    let log = open_log(reach).map_err(failed)?;
    let mut command = std::process::Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(dir) = &to_run.dir {
        command.current_dir(dir);
    }
    // ragdiff's threads block the fatal signals (src/interrupt.rs) and a child
    // inherits that mask: the retriever gets the default one back, so SIGTERM and
    // SIGINT reach it.
    // SAFETY: between fork and exec only pthread_sigmask runs, which is
    // async-signal-safe and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            let _ = nix::sys::signal::SigSet::all().thread_unblock();
            Ok(())
        });
    }
    let mut child = command
        .spawn()
        .map_err(|e| failed(format!("cannot start {program}: {e}")))?;
    if let Ok(pid) = i32::try_from(child.id()) {
        crate::interrupt::end_group_on_signal(pid);
    }
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = std::io::BufReader::with_capacity(1 << 16, stdout);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if send.send(Msg::Line(Instant::now(), line)).is_err() {
                        return;
                    }
                }
            }
        }
        let _ = send.send(Msg::End);
    });
    let tail = Arc::new(Mutex::new(VecDeque::with_capacity(TAIL)));
    let kept = Arc::clone(&tail);
    let stderr_thread = std::thread::spawn(move || keep_stderr(stderr, log, &kept, &redactor));
    Ok(Process {
        stdin: child.stdin.take(),
        child,
        lines,
        tail,
        stderr_thread: Some(stderr_thread),
        program,
    })
}

/// A signal stopped the asking and nothing is in flight: the signal's thread ends the
/// process (within its drain); nothing more is done here.
pub fn wait_for_the_end() {
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// Where the retriever's stderr goes, once redacted.
enum Log {
    File(std::fs::File),
    /// `--retriever-log -`: ragdiff's own stderr, each line `retriever: LINE`, escaped
    /// and guarded as every line ragdiff writes (docs/contract.md §4.8).
    Stderr,
}

impl Log {
    fn write(&mut self, line: &[u8]) {
        match self {
            Log::File(f) => {
                let _ = f.write_all(line);
            }
            Log::Stderr => {
                let text = String::from_utf8_lossy(line);
                let text = text.trim_end_matches(['\n', '\r']);
                crate::text::eprintln(&format!("retriever: {}", crate::text::shown(text)));
            }
        }
    }
}

/// The retriever's log, started anew or (a later repeat) added to.
fn open_log(reach: &Reach) -> Result<Option<Log>, String> {
    let Some(path) = &reach.log else {
        return Ok(None);
    };
    if path == std::path::Path::new("-") {
        return Ok(Some(Log::Stderr));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .append(reach.append_log)
        .truncate(!reach.append_log)
        .open(path)
        .map(|f| Some(Log::File(f)))
        .map_err(|e| format!("cannot write the retriever log {}: {e}", path.display()))
}

/// Copy the process's stderr to the log (if any), keeping its last lines, each line
/// with every gold question's text redacted (§4.8).
fn keep_stderr(
    stderr: std::process::ChildStderr,
    mut log: Option<Log>,
    tail: &Mutex<VecDeque<String>>,
    redactor: &super::Redactor,
) {
    let mut reader = std::io::BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let line = redactor.bytes(&line);
                if let Some(log) = log.as_mut() {
                    log.write(&line);
                }
                if let Ok(mut tail) = tail.lock() {
                    if tail.len() == TAIL {
                        tail.pop_front();
                    }
                    let text = String::from_utf8_lossy(&line);
                    tail.push_back(text.trim_end_matches(['\n', '\r']).to_string());
                }
            }
        }
    }
}

/// End the process group and wait for it and its stderr.
fn end(process: &mut Process) {
    drop(process.stdin.take());
    if let Ok(pid) = i32::try_from(process.child.id()) {
        crate::interrupt::forget_group(pid);
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = process.child.wait();
    if let Some(t) = process.stderr_thread.take() {
        let _ = t.join();
    }
}

/// The queries in flight: index by id, with when each request was written.
type InFlight = FxHashMap<String, (usize, Instant)>;

/// Keep up to `concurrency` requests in flight until every question is answered.
fn drive(
    process: &mut Process,
    reach: &Reach,
    questions: &[Question],
    tally: &Tally,
) -> Result<Vec<Outcome>, String> {
    let mut outcomes: Vec<Option<Outcome>> = (0..questions.len()).map(|_| None).collect();
    let mut in_flight = InFlight::default();
    let mut next = 0;
    let mut line_no = 0u64;
    let mut buf = Vec::with_capacity(256);
    loop {
        crate::interrupt::in_flight(in_flight.len());
        // After a signal no new request is sent; the answers in flight are read
        // until the signal's drain ends the process (src/interrupt.rs).
        while !crate::interrupt::stopping()
            && in_flight.len() < reach.concurrency
            && next < questions.len()
        {
            let q = &questions[next];
            buf.clear();
            let request = Request {
                id: &q.id,
                question: &q.text,
                depth: reach.depth,
                filters: &reach.filters,
            };
            serde_json::to_writer(&mut buf, &request).map_err(|e| e.to_string())?;
            buf.push(b'\n');
            let sent = Instant::now();
            in_flight.insert(q.id.to_string(), (next, sent));
            let stdin = process.stdin.as_mut().expect("stdin is open while driving");
            if stdin.write_all(&buf).and_then(|()| stdin.flush()).is_err() {
                return Err(exited(process, &in_flight));
            }
            next += 1;
        }
        crate::interrupt::in_flight(in_flight.len());
        if in_flight.is_empty() {
            if crate::interrupt::stopping() {
                wait_for_the_end();
            }
            break;
        }
        let oldest = in_flight
            .values()
            .map(|(_, t)| *t)
            .min()
            .expect("in flight");
        let wait = (oldest + reach.timeout).saturating_duration_since(Instant::now());
        match process.lines.recv_timeout(wait) {
            Ok(Msg::Line(at, line)) => {
                line_no += 1;
                let (i, outcome) = answer(&line, at, line_no, reach, questions, &mut in_flight)?;
                outcomes[i] = Some(outcome);
                tally.done();
            }
            Ok(Msg::End) | Err(RecvTimeoutError::Disconnected) => {
                return Err(exited(process, &in_flight));
            }
            Err(RecvTimeoutError::Timeout) => {
                let late: Vec<&str> = in_flight
                    .iter()
                    .filter(|(_, (_, t))| t.elapsed() >= reach.timeout)
                    .map(|(id, _)| id.as_str())
                    .collect();
                return Err(format!(
                    "no answer within {} s (--timeout) for {}; in flight: {}; its process group was killed",
                    reach.timeout.as_secs_f64(),
                    ids(late),
                    ids(in_flight.keys().map(String::as_str).collect())
                ));
            }
        }
    }
    Ok(outcomes
        .into_iter()
        .map(|o| o.expect("every question answered"))
        .collect())
}

/// The message for a process that ended (or closed its stdin) too early.
fn exited(process: &mut Process, in_flight: &InFlight) -> String {
    // Its stdout is closed; wait for its status.
    let status = process
        .child
        .wait()
        .map(|s| s.to_string())
        .unwrap_or_else(|e| e.to_string());
    format!(
        "the process ended ({status}) before answering {}",
        ids(in_flight.keys().map(String::as_str).collect())
    )
}

/// Check one answer line and take its query out of flight.
fn answer(
    line: &[u8],
    at: Instant,
    line_no: u64,
    reach: &Reach,
    questions: &[Question],
    in_flight: &mut InFlight,
) -> Result<(usize, Outcome), String> {
    let in_flight_now = |f: &InFlight| ids(f.keys().map(String::as_str).collect());
    let response: Response = serde_json::from_slice(line).map_err(|e| {
        format!(
            "line {line_no} of its stdout is not a JSON answer (column {}: {}); in flight: {}",
            e.column(),
            match e.classify() {
                serde_json::error::Category::Data => "not an object with `id` and `doc_ids`",
                serde_json::error::Category::Eof => "the JSON ends early",
                _ => "not JSON",
            },
            in_flight_now(in_flight)
        )
    })?;
    let id = match &response.id {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => n.to_string(),
        _ => {
            return Err(format!(
                "line {line_no} of its stdout has an `id` that is neither a string nor a number; in flight: {}",
                in_flight_now(in_flight)
            ));
        }
    };
    let Some((i, sent)) = in_flight.remove(&id) else {
        let what = if questions.iter().any(|q| q.id == id) {
            "answered query {ID} twice (or before it was asked)"
        } else {
            "answered {ID}, which is not a query it was asked"
        };
        return Err(format!(
            "line {line_no} of its stdout {}; in flight: {}",
            what.replace("{ID}", &shown_answer_id(&id, questions)),
            in_flight_now(in_flight)
        ));
    };
    if response.error.is_some() {
        return Ok((i, Outcome::Errored("its answer was an error".to_string())));
    }
    let latency_ms = at.saturating_duration_since(sent).as_secs_f64() * 1000.0;
    let Some(doc_ids) = response.doc_ids else {
        return Err(format!(
            "line {line_no} of its stdout answers query {id} without `doc_ids` (or `error`)"
        ));
    };
    let answer = Answer::new(doc_ids, response.scores, latency_ms, reach.depth)
        .map_err(|why| format!("line {line_no} of its stdout answers query {id} with {why}"))?;
    Ok((i, Outcome::Answered(answer)))
}

/// An answered id as a failure shows it: a question's text redacted (a retriever
/// that answers with the question must not put it in the message, §4.8), escaped,
/// cut to 64 columns.
fn shown_answer_id(id: &str, questions: &[Question]) -> String {
    let redacted = super::redact(id, questions);
    crate::text::cut_to(&crate::text::shown(&redacted), 64)
}

/// Ids in natural order, at most 10 shown.
fn ids(mut list: Vec<&str>) -> String {
    if list.is_empty() {
        return "none".to_string();
    }
    crate::text::sort_natural(&mut list);
    crate::text::name_ids(&list)
}
