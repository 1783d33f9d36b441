//! A `tracing_subscriber` writer that redacts every log line before it is written.
//!
//! `tracing_subscriber::fmt` formats a whole event into one buffer and writes it with a single
//! call, so redacting each write redacts each line whole.

use std::io::{self, Write};

use tracing_subscriber::fmt::MakeWriter;

use crate::redact::Redactor;

/// Wraps a [`MakeWriter`] so that its output passes through a [`Redactor`].
#[derive(Debug, Clone)]
pub struct RedactingMakeWriter<W> {
    redactor: Redactor,
    inner: W,
}

impl<W> RedactingMakeWriter<W> {
    pub(crate) fn new(redactor: Redactor, inner: W) -> Self {
        RedactingMakeWriter { redactor, inner }
    }
}

/// One redacting writer, as made by [`RedactingMakeWriter`].
#[derive(Debug)]
pub struct RedactingWriter<W> {
    redactor: Redactor,
    inner: W,
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.inner
            .write_all(self.redactor.redact(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<'a, W> MakeWriter<'a> for RedactingMakeWriter<W>
where
    W: MakeWriter<'a>,
{
    type Writer = RedactingWriter<W::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter {
            redactor: self.redactor.clone(),
            inner: self.inner.make_writer(),
        }
    }
}
