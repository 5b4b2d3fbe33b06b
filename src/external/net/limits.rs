//! Rate limits and retries of model calls, per (base URL, model) pair, paced
//! continuously: each limit is a bucket that holds one second's worth (`rpm/60`
//! requests, `tpm/60` tokens) and refills steadily, never a one-minute window that
//! would let a minute's requests out at once.
//!
//! A bucket is kept as the time it is next empty (the "theoretical arrival time" of
//! the generic cell rate algorithm): a caller reserves its share and learns when it
//! may send, so waiting callers never race each other for a freed slot.
//!
//! Adaptive: where no limit is given (`--llm-rpm`, `--llm-tpm`), the server's
//! `x-ratelimit-limit-requests` / `x-ratelimit-limit-tokens` headers set one; a
//! `x-ratelimit-remaining-*` of 0 holds every call of the pair until the matching
//! `x-ratelimit-reset-*` has passed. A call that got 408, 409, 429, 5xx or lost its
//! connection is retried after the server's `Retry-After` (or `retry-after-ms`), else
//! after an exponential backoff with jitter, as the official SDKs do.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// One (base URL, model) pair's limits.
#[derive(Debug)]
pub struct Pair {
    state: Mutex<PairState>,
    /// Requests in flight (`--llm-in-flight`), if bounded.
    pub in_flight: Option<Arc<tokio::sync::Semaphore>>,
}

#[derive(Debug)]
struct PairState {
    rpm: Option<f64>,
    tpm: Option<f64>,
    /// Whether `rpm`/`tpm` came from the user (then headers do not change them).
    rpm_fixed: bool,
    tpm_fixed: bool,
    /// When the request bucket is next empty.
    requests_tat: Option<Instant>,
    /// When the token bucket is next empty.
    tokens_tat: Option<Instant>,
    /// No request before this (the server said its budget is spent).
    held_until: Option<Instant>,
}

/// The share of a limit actually used: requests arrive at the server a little
/// bunched by the network, so pacing exactly at its limit would meet its bucket empty.
const MARGIN: f64 = 0.97;

/// One bucket of `per_minute`, holding one second's worth: the time the caller may
/// go for `cost` units, and the bucket's new empty time. A new bucket starts empty
/// (the first call goes at once, the next ones at the steady rate): a server whose own
/// bucket was drained by an earlier run is then never met with a burst.
fn reserve(tat: Option<Instant>, now: Instant, per_minute: f64, cost: f64) -> (Instant, Instant) {
    let per_second = (MARGIN * per_minute / 60.0).max(1e-9);
    let interval = Duration::from_secs_f64((cost.max(0.0) / per_second).min(86_400.0));
    // Burst tolerance: one second's worth, less the caller's own share.
    let burst = Duration::from_secs(1).saturating_sub(interval);
    let tat = tat.unwrap_or(now + burst).max(now);
    let go = tat.checked_sub(burst).unwrap_or(now).max(now);
    (go, tat + interval)
}

impl Pair {
    fn new(rpm: Option<f64>, tpm: Option<f64>, in_flight: Option<usize>) -> Pair {
        Pair {
            state: Mutex::new(PairState {
                rpm,
                tpm,
                rpm_fixed: rpm.is_some(),
                tpm_fixed: tpm.is_some(),
                requests_tat: None,
                tokens_tat: None,
                held_until: None,
            }),
            in_flight: in_flight.map(|n| Arc::new(tokio::sync::Semaphore::new(n.max(1)))),
        }
    }

    /// Reserves one request of `tokens` estimated tokens: when it may be sent.
    pub fn reserve(&self, tokens: u64) -> Instant {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        // A hold (the server said its budget is spent) delays the buckets too.
        let now = Instant::now().max(s.held_until.unwrap_or_else(Instant::now));
        let mut go = now;
        if let Some(rpm) = s.rpm {
            let (at, tat) = reserve(s.requests_tat, now, rpm, 1.0);
            s.requests_tat = Some(tat);
            go = go.max(at);
        }
        if let Some(tpm) = s.tpm {
            let (at, tat) = reserve(s.tokens_tat, now, tpm, tokens as f64);
            s.tokens_tat = Some(tat);
            go = go.max(at);
        }
        go
    }

    /// Charges (or gives back) the difference between a call's estimated tokens and
    /// what the server counted.
    pub fn settle(&self, estimated: u64, used: u64) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let (Some(tpm), Some(tat)) = (s.tpm, s.tokens_tat) {
            let per_second = (tpm / 60.0).max(1e-9);
            let diff = used as f64 - estimated as f64;
            let d = Duration::from_secs_f64((diff.abs() / per_second).min(86_400.0));
            s.tokens_tat = Some(if diff >= 0.0 {
                tat + d
            } else {
                tat.checked_sub(d).unwrap_or(tat)
            });
        }
    }

    /// Learns from a response's `x-ratelimit-*` headers.
    pub fn observe(&self, headers: &reqwest::header::HeaderMap) {
        let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if !s.rpm_fixed
            && let Some(n) =
                get("x-ratelimit-limit-requests").and_then(|v| v.trim().parse::<f64>().ok())
            && n > 0.0
        {
            s.rpm = Some(n);
        }
        if !s.tpm_fixed
            && let Some(n) =
                get("x-ratelimit-limit-tokens").and_then(|v| v.trim().parse::<f64>().ok())
            && n > 0.0
        {
            s.tpm = Some(n);
        }
        let now = Instant::now();
        for (remaining, reset) in [
            (
                "x-ratelimit-remaining-requests",
                "x-ratelimit-reset-requests",
            ),
            ("x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"),
        ] {
            let spent = get(remaining)
                .and_then(|v| v.trim().parse::<f64>().ok())
                .is_some_and(|n| n <= 0.0);
            if spent && let Some(d) = get(reset).and_then(parse_duration) {
                let until = now + d;
                s.held_until = Some(s.held_until.map_or(until, |h| h.max(until)));
            }
        }
    }
}

/// The pair's limits, made on first use with the run's settings.
pub fn pair(base: &str, model: &str, s: &super::settings::LlmSettings) -> Arc<Pair> {
    type Pairs = Mutex<HashMap<(String, String), Arc<Pair>>>;
    static PAIRS: OnceLock<Pairs> = OnceLock::new();
    let mut map = PAIRS
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    map.entry((base.to_string(), model.to_string()))
        .or_insert_with(|| Arc::new(Pair::new(s.rpm, s.tpm, s.in_flight)))
        .clone()
}

/// A duration as the rate-limit headers write it: `1s`, `6m0s`, `20ms`, `1.5s`,
/// `1h2m3.5s`, or a bare number of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let t = text.trim();
    if let Ok(secs) = t.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let mut total = 0.0f64;
    let mut num = String::new();
    let mut chars = t.chars().peekable();
    let mut any = false;
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let unit = match c {
            'h' => 3600.0,
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                0.001
            }
            'm' => 60.0,
            's' => 1.0,
            _ => return None,
        };
        let n: f64 = num.parse().ok()?;
        total += n * unit;
        num.clear();
        any = true;
    }
    (any && num.is_empty() && total.is_finite()).then(|| Duration::from_secs_f64(total))
}

/// How long the server asks us to wait before trying again: `retry-after-ms`, or
/// `Retry-After` in seconds or as an HTTP date.
pub fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let v = get("retry-after")?.trim();
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// The wait before retry number `attempt` (1, 2, ...) when the server gave none: 0.5 s
/// doubled each time, at most 8 s, less up to a quarter at random (the OpenAI SDKs'
/// schedule).
pub fn backoff(attempt: u32) -> Duration {
    let base = (0.5f64 * 2f64.powi(attempt.saturating_sub(1).min(10) as i32)).min(8.0);
    let jitter = 1.0 - 0.25 * random_unit();
    Duration::from_secs_f64(base * jitter)
}

/// A number in [0, 1) that differs from call to call (not for cryptography).
fn random_unit() -> f64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static STATE: AtomicU64 = AtomicU64::new(0);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let x = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed) ^ seed;
    // splitmix64
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// Whether a status is worth another try (the SDKs' list): 408, 409, 429 and 5xx.
pub fn retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (500..600).contains(&status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_the_headers_write_them() {
        assert_eq!(parse_duration("1s"), Some(Duration::from_secs(1)));
        assert_eq!(parse_duration("6m0s"), Some(Duration::from_secs(360)));
        assert_eq!(parse_duration("20ms"), Some(Duration::from_millis(20)));
        assert_eq!(parse_duration("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_duration("1h1m1s"), Some(Duration::from_secs(3661)));
        assert_eq!(parse_duration("soon"), None);
        assert_eq!(parse_duration("5"), Some(Duration::from_secs(5)));
        assert_eq!(parse_duration("-1"), None);
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "250".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
        let mut h = reqwest::header::HeaderMap::new();
        // A date already past: no wait.
        h.insert(
            "retry-after",
            "Sun, 06 Nov 1994 08:49:37 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
        h.insert("retry-after", "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn a_bucket_starts_empty_and_paces() {
        // 600 a minute: one every 100 ms (a little more, for the margin).
        let pair = Pair::new(Some(600.0), None, None);
        let start = Instant::now();
        let gos: Vec<Duration> = (0..30).map(|_| pair.reserve(1) - start).collect();
        assert!(gos[0] < Duration::from_millis(20), "{gos:?}");
        let last = gos[29].as_secs_f64();
        let want = 29.0 * 0.1 / MARGIN;
        assert!((last - want).abs() < 0.05, "{last} against {want}");
        // Never more than 10 in any window of 1 s, beyond the one that opens it.
        for i in 0..gos.len() {
            let n = gos[i..]
                .iter()
                .filter(|g| **g < gos[i] + Duration::from_secs(1))
                .count();
            assert!(n <= 11, "{n} in a second from {i}");
        }
    }

    #[test]
    fn an_idle_bucket_refills_to_one_seconds_worth() {
        let start = Instant::now();
        // A bucket last used long ago: ten go at once, the eleventh waits.
        let (go, mut tat) = reserve(Some(start), start + Duration::from_secs(5), 600.0, 1.0);
        assert_eq!(go, start + Duration::from_secs(5));
        let mut gos = vec![go];
        for _ in 0..10 {
            let (g, t) = reserve(Some(tat), start + Duration::from_secs(5), 600.0, 1.0);
            gos.push(g);
            tat = t;
        }
        let at_once = gos
            .iter()
            .filter(|g| **g == start + Duration::from_secs(5))
            .count();
        // One second's worth (nine or ten, with the margin).
        assert!((9..=10).contains(&at_once), "{gos:?}");
    }

    #[test]
    fn tokens_pace_by_their_own_bucket() {
        // 6000 tokens a minute: about 100 a second; calls of 50 tokens go two a second.
        let pair = Pair::new(None, Some(6000.0), None);
        let start = Instant::now();
        let gos: Vec<Duration> = (0..6).map(|_| pair.reserve(50) - start).collect();
        let want = 5.0 * 0.5 / MARGIN;
        assert!((gos[5].as_secs_f64() - want).abs() < 0.05, "{gos:?}");
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        for attempt in 1..12 {
            let d = backoff(attempt).as_secs_f64();
            let base = (0.5 * 2f64.powi(attempt as i32 - 1)).min(8.0);
            assert!(d <= base && d >= base * 0.75, "{attempt}: {d}");
        }
    }

    #[test]
    fn statuses_retried_like_the_sdks() {
        for s in [408, 409, 429, 500, 502, 503] {
            assert!(retryable_status(s), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!retryable_status(s), "{s}");
        }
    }
}
