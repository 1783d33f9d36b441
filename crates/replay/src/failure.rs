//! Why a step failed, as a type. The kind is set where the failure is made, from the error
//! types of the layer below or from what the replayer was doing; what the Rider retries is
//! decided on the kind alone, so rewording a message changes nothing but the message.

use browserflow_cdp::BrowserError;
use browserflow_cdp::page::EvalError;
use browserflow_cdp::session::CdpError;
use browserflow_steps::NavigationRefusal;

/// What kind of failure stopped a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The step cannot run as written: malformed, an input missing, a file to upload that
    /// cannot be read, an unknown key, the main page closed, an expression that does not parse.
    InvalidStep,
    /// A page or frame the step names is not there.
    NotFound(Missing),
    /// No element could take the action (see [`Unactionable`]).
    NotActionable(Unactionable),
    /// A wait ran out of time: an expression that never became truthy, a file chooser or a
    /// download that never came.
    Timeout,
    /// A navigation, popup or download began but did not finish loading in time, or the
    /// network failed it. Transient: a slow or flaky server may answer next time.
    LoadFailed,
    /// The navigation is not allowed: a URL off the web, or an origin the tool does not list
    /// (see [`Blocked`]). Nothing of its target was loaded.
    NavigationBlocked(Blocked),
    /// The browser refused the navigation (an invalid URL) or the network failed it outright
    /// (`net::ERR_CONNECTION_REFUSED`, a bad certificate): trying again fails the same way.
    NavigationRefused,
    /// What the step expects did not hold: an assertion, an expected navigation or popup, a
    /// download's name.
    Assertion,
    /// An extracted value does not fit its field's kind (a price with no number in it).
    Extraction,
    /// The element read never showed a value consistent with what the recording read (it
    /// stayed empty, a placeholder such as "Loading…" or "—", another shape, or `aria-busy`)
    /// within the step's budget; the message names the expected and the actual value. A read
    /// never returns such a value instead.
    ReadMismatch,
    /// The step ran but did not do what it did when recorded: a post-state check (the
    /// element's value, an ARIA state, the focus, a change of the page) did not hold within
    /// the step's budget. Never retried: acting again could act twice.
    StateMismatch,
    /// What the step's gesture set off when recorded (a request, a WebSocket exchange) was
    /// not answered within the step's budget: the step names what it waited for and what it
    /// saw. Never retried: the gesture may have started server work already.
    NotSettled,
    /// The page or frame the step acts in went away: closed, or its document replaced.
    Gone,
    /// The renderer process of the step's page died while the step ran: it crashed, was
    /// killed, or ran out of memory. Noticed the moment the browser says so (not at the end
    /// of the step's budget). Never retried: the step may have acted already.
    Crashed,
    /// The browser exited or crashed, or the connection to it dropped. Transient: the shared
    /// browser relaunches on the next attempt.
    BrowserDisconnected,
    /// A browser call failed for another reason (a protocol error, a renderer that stopped
    /// answering, a cancelled download).
    Browser,
    /// A local folder or file could not be made or written (the download folder, a download).
    LocalFile,
}

/// Why a navigation was not allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocked {
    /// Not a web URL: `file:`, `chrome:`, `chrome-extension:`, `devtools:`, `view-source:`,
    /// `javascript:`, or `data:` at the top level.
    NotWeb,
    /// A top-level page on an origin the tool file's `origins` does not list.
    OriginNotAllowed,
    /// A loopback, link-local or cloud-metadata address (written, or what a name resolved
    /// to) that the tool's `origins` does not name (`*` never does).
    LocalAddress,
}

/// What the step needed that is not there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// No frame (or more than one) matched the selector's frame.
    Frame,
    /// No page of the replay has the name.
    Page,
}

/// Why no element could take the action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unactionable {
    /// The budget ran out before a candidate matched exactly one element that met the step's
    /// requirements (visible, enabled, editable, stable, receiving the pointer). The in-page
    /// resolver describes each candidate's last state in words; the message lists them.
    NoCandidateReady,
    /// The element stayed covered by an overlay in a page around its frame.
    CoveredOutsideFrame,
    /// The element has no point to act at.
    NoActionPoint,
    /// The input was sent but never reached the element (the browser routed it to another
    /// element or document), however often it was sent; no attempt acted.
    InputNotDelivered,
    /// The element was found but refused the action: no such option, a rejected value, more
    /// files than it accepts.
    Refused,
}

impl FailureKind {
    /// Whether replaying again may succeed (the Rider retries these).
    pub fn is_transient(self) -> bool {
        matches!(
            self,
            FailureKind::BrowserDisconnected | FailureKind::LoadFailed
        )
    }

    /// The kind of a failed CDP call.
    fn of_cdp(error: &CdpError) -> Self {
        match error {
            CdpError::Closed => FailureKind::BrowserDisconnected,
            CdpError::Detached { .. } => FailureKind::Gone,
            _ => FailureKind::Browser,
        }
    }
}

/// Why a step failed, and which candidate had been found when it did.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) kind: FailureKind,
    pub(crate) message: String,
    pub(crate) winner: Option<usize>,
}

impl Failure {
    pub(crate) fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            winner: None,
        }
    }

    /// A failed CDP call; `message` says what was being done.
    pub(crate) fn cdp(error: &CdpError, message: impl Into<String>) -> Self {
        Self::new(FailureKind::of_cdp(error), message)
    }

    /// A failed evaluation: `otherwise` unless the document went away or the browser did.
    pub(crate) fn eval(
        otherwise: FailureKind,
        error: &EvalError,
        message: impl Into<String>,
    ) -> Self {
        let kind = match error {
            EvalError::Cdp(CdpError::Closed) => FailureKind::BrowserDisconnected,
            EvalError::Navigated => FailureKind::Gone,
            _ => otherwise,
        };
        Self::new(kind, message)
    }

    /// A failed browser operation; `message` says what was being done.
    pub(crate) fn browser(error: &BrowserError, message: impl Into<String>) -> Self {
        let kind = if error.is_connection_closed() {
            FailureKind::BrowserDisconnected
        } else {
            FailureKind::Browser
        };
        Self::new(kind, message)
    }

    /// A navigation the tool may not make; the message names the URL (and the origins
    /// allowed).
    pub(crate) fn blocked(refusal: &NavigationRefusal) -> Self {
        let blocked = match refusal {
            NavigationRefusal::Scheme { .. } => Blocked::NotWeb,
            NavigationRefusal::Origin { .. } => Blocked::OriginNotAllowed,
            NavigationRefusal::LocalAddress { .. } => Blocked::LocalAddress,
        };
        Self::new(FailureKind::NavigationBlocked(blocked), refusal.to_string())
    }

    pub(crate) fn with_winner(mut self, winner: usize) -> Self {
        self.winner = Some(winner);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_connection_is_a_disconnect_whatever_was_being_done() {
        let closed = Failure::cdp(&CdpError::Closed, "typing failed");
        assert_eq!(closed.kind, FailureKind::BrowserDisconnected);
        let eval = Failure::eval(
            FailureKind::LoadFailed,
            &EvalError::Cdp(CdpError::Closed),
            "x",
        );
        assert_eq!(eval.kind, FailureKind::BrowserDisconnected);
        let browser = BrowserError::Cdp {
            context: "closing a page".into(),
            source: CdpError::Closed,
        };
        assert_eq!(
            Failure::browser(&browser, "x").kind,
            FailureKind::BrowserDisconnected
        );
    }

    #[test]
    fn other_errors_keep_the_kind_of_what_was_being_done() {
        let protocol = CdpError::Protocol {
            method: "Input.insertText".into(),
            code: -32000,
            // The words of a closed connection in a protocol error change nothing.
            message: "the connection to the browser is closed".into(),
        };
        assert_eq!(Failure::cdp(&protocol, "x").kind, FailureKind::Browser);
        let thrown = EvalError::Exception("boom".into());
        assert_eq!(
            Failure::eval(FailureKind::LoadFailed, &thrown, "x").kind,
            FailureKind::LoadFailed
        );
        assert_eq!(
            Failure::eval(FailureKind::LoadFailed, &EvalError::Navigated, "x").kind,
            FailureKind::Gone
        );
        assert_eq!(
            Failure::browser(&BrowserError::Page("gone".into()), "x").kind,
            FailureKind::Browser
        );
    }

    #[test]
    fn only_disconnects_and_loads_are_transient() {
        let transient = [FailureKind::BrowserDisconnected, FailureKind::LoadFailed];
        let terminal = [
            FailureKind::InvalidStep,
            FailureKind::NotFound(Missing::Frame),
            FailureKind::NotActionable(Unactionable::NoCandidateReady),
            FailureKind::Timeout,
            FailureKind::Assertion,
            FailureKind::Extraction,
            FailureKind::ReadMismatch,
            FailureKind::Gone,
            FailureKind::Browser,
            FailureKind::LocalFile,
            FailureKind::NotSettled,
            FailureKind::NavigationBlocked(Blocked::NotWeb),
            FailureKind::NavigationBlocked(Blocked::OriginNotAllowed),
            FailureKind::NavigationBlocked(Blocked::LocalAddress),
            FailureKind::Crashed,
        ];
        assert!(transient.iter().all(|k| k.is_transient()));
        assert!(terminal.iter().all(|k| !k.is_transient()));
    }
}
