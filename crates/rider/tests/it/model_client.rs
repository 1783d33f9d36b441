//! The one model client against real HTTP servers on 127.0.0.1: answers read within their
//! bound (an endless one refused, never held), statuses and non-JSON answers as typed errors
//! that keep the retry class of HTTP.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use browserflow_rider::caps::model::{MAX_ANSWER_BYTES, ModelClient, ModelClientError};
use browserflow_rider::secrecy::SecretString;
use browserflow_rider::{ErrorClass, ToolError};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the server answers to every request.
#[derive(Clone)]
enum Answer {
    /// A status and a body, with its `Content-Length`.
    Fixed(u16, Vec<u8>),
    /// `200` with a body announced longer than the bound; only the head is sent.
    Announced(u64),
    /// `200`, chunked, a body that never ends: 64 KiB chunks until the client goes away.
    Endless,
}

/// Each request's head (lowercase) and body.
type Seen = Arc<Mutex<Vec<(String, Vec<u8>)>>>;

/// A one-answer-kind server; keeps each request's head and body, and how many body bytes it
/// wrote.
struct Server {
    url: String,
    requests: Seen,
    written: Arc<Mutex<u64>>,
}

impl Server {
    async fn start(answer: Answer) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests: Seen = Arc::default();
        let written: Arc<Mutex<u64>> = Arc::default();
        let (seen, count) = (requests.clone(), written.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (seen, count, answer) = (seen.clone(), count.clone(), answer.clone());
                tokio::spawn(async move { serve(stream, answer, seen, count).await });
            }
        });
        Server {
            url,
            requests,
            written,
        }
    }
}

async fn serve(mut stream: TcpStream, answer: Answer, seen: Seen, written: Arc<Mutex<u64>>) {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buffer.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
        }
    }
    seen.lock()
        .unwrap()
        .push((head, buffer[head_end..head_end + length].to_vec()));
    match answer {
        Answer::Fixed(status, body) => {
            let head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(&body).await;
            *written.lock().unwrap() += body.len() as u64;
        }
        Answer::Announced(length) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {length}\r\n\r\n"
            );
            let _ = stream.write_all(head.as_bytes()).await;
            // Hold the connection open: a client that waited for the body would hang here.
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        Answer::Endless => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let piece = vec![b' '; 64 * 1024];
            let mut framed = format!("{:x}\r\n", piece.len()).into_bytes();
            framed.extend_from_slice(&piece);
            framed.extend_from_slice(b"\r\n");
            while stream.write_all(&framed).await.is_ok() {
                *written.lock().unwrap() += piece.len() as u64;
            }
        }
    }
}

fn client(server: &Server, key: Option<&str>) -> ModelClient {
    ModelClient::new(
        &server.url,
        key.map(|k| SecretString::from(k.to_owned())),
        Duration::from_secs(30),
    )
    .unwrap()
}

fn request() -> Vec<u8> {
    serde_json::to_vec(&json!({"model": "m", "messages": []})).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_is_read_with_the_key_sent_as_a_bearer_token() {
    let answer = json!({"choices": [{"message": {"content": "{}"}}]});
    let server = Server::start(Answer::Fixed(200, answer.to_string().into_bytes())).await;
    let got = client(&server, Some("sk-test"))
        .post_json(request())
        .await
        .unwrap();
    assert_eq!(got, answer);
    let seen = server.requests.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0].0.starts_with("post /v1/chat/completions "),
        "{}",
        seen[0].0
    );
    assert!(
        seen[0].0.contains("authorization: bearer sk-test"),
        "{}",
        seen[0].0
    );
    let sent: Value = serde_json::from_slice(&seen[0].1).unwrap();
    assert_eq!(sent["model"], json!("m"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_of_exactly_the_bound_is_read() {
    // A JSON string filling the bound to the byte.
    let mut body = vec![b'a'; MAX_ANSWER_BYTES];
    body[0] = b'"';
    body[MAX_ANSWER_BYTES - 1] = b'"';
    let server = Server::start(Answer::Fixed(200, body)).await;
    let got = client(&server, None).post_json(request()).await.unwrap();
    assert_eq!(got.as_str().map(str::len), Some(MAX_ANSWER_BYTES - 2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_one_byte_over_the_bound_is_refused() {
    let mut body = vec![b' '; MAX_ANSWER_BYTES + 1];
    body[..2].copy_from_slice(b"{}");
    let server = Server::start(Answer::Fixed(200, body)).await;
    let err = client(&server, None)
        .post_json(request())
        .await
        .unwrap_err();
    assert!(
        matches!(err, ModelClientError::TooLarge { limit, .. } if limit == MAX_ANSWER_BYTES),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "model call to {}/chat/completions: the answer exceeds {MAX_ANSWER_BYTES} bytes",
            server.url
        )
    );
    // A tool's call fails for good: a retry would read the same answer.
    assert_eq!(ToolError::from(err).class, ErrorClass::Terminal);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_announced_over_the_bound_is_refused_before_its_body() {
    let server = Server::start(Answer::Announced(MAX_ANSWER_BYTES as u64 + 1)).await;
    // The server never sends the body: only refusing on the announced length ends this call
    // before the 30 s timeout.
    let err = tokio::time::timeout(
        Duration::from_secs(20),
        client(&server, None).post_json(request()),
    )
    .await
    .expect("refused at once, from the Content-Length")
    .unwrap_err();
    assert!(matches!(err, ModelClientError::TooLarge { .. }), "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_answer_is_refused_at_the_bound_not_held() {
    let server = Server::start(Answer::Endless).await;
    let err = client(&server, None)
        .post_json(request())
        .await
        .unwrap_err();
    assert!(matches!(err, ModelClientError::TooLarge { .. }), "{err:?}");
    // The server did send past the bound: the client stopped reading there.
    let written = *server.written.lock().unwrap();
    assert!(written > MAX_ANSWER_BYTES as u64, "{written} bytes written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statuses_and_non_json_answers_are_typed_errors_with_the_http_retry_class() {
    let busy = Server::start(Answer::Fixed(503, b"overloaded".to_vec())).await;
    let err = client(&busy, None).post_json(request()).await.unwrap_err();
    assert!(
        matches!(&err, ModelClientError::Status { status: 503, body_start, .. } if body_start == "overloaded"),
        "{err:?}"
    );
    let tool_error = ToolError::from(err);
    assert_eq!(tool_error.class, ErrorClass::Transient);
    assert_eq!(
        tool_error.message,
        format!(
            "model call to {}/chat/completions: HTTP 503 — overloaded",
            busy.url
        )
    );

    let refused = Server::start(Answer::Fixed(401, Vec::new())).await;
    let err = client(&refused, None)
        .post_json(request())
        .await
        .unwrap_err();
    assert_eq!(ToolError::from(err).class, ErrorClass::Terminal);

    let garbled = Server::start(Answer::Fixed(200, b"<html>".to_vec())).await;
    let err = client(&garbled, None)
        .post_json(request())
        .await
        .unwrap_err();
    assert!(matches!(err, ModelClientError::NotJson { .. }), "{err:?}");

    // Nobody listening: a connection problem, worth a retry.
    let gone = ModelClient::new("http://127.0.0.1:9/v1", None, Duration::from_secs(2)).unwrap();
    let err = gone.post_json(request()).await.unwrap_err();
    assert!(
        matches!(
            err,
            ModelClientError::Request {
                transient: true,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(ToolError::from(err).class, ErrorClass::Transient);
}
