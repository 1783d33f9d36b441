//! The page `POST /upload` answers with.

use axum::body::Bytes;

/// One part of a `multipart/form-data` body.
#[derive(Debug, PartialEq)]
pub(crate) struct UploadPart {
    /// The form field's name.
    pub name: String,
    /// The file name, for a file field.
    pub filename: Option<String>,
    /// The part's bytes.
    pub content: Bytes,
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page naming each file of `parts` with its size and each other field with its value;
/// `None`: the body was not a `multipart/form-data` one.
pub(crate) fn upload_page(parts: Option<&[UploadPart]>) -> String {
    let items = match parts {
        None => "<li data-testid=\"upload-error\">not a multipart/form-data body</li>".to_string(),
        Some(parts) => parts
            .iter()
            .map(|part| match &part.filename {
                Some(filename) => format!(
                    "<li>{}: <span data-testid=\"upload-name\">{}</span> \
                     (<span data-testid=\"upload-size\">{}</span> bytes)</li>",
                    escape_html(&part.name),
                    escape_html(filename),
                    part.content.len()
                ),
                None => format!(
                    "<li>{}: <span data-testid=\"upload-field-{}\">{}</span></li>",
                    escape_html(&part.name),
                    escape_html(&part.name),
                    escape_html(&String::from_utf8_lossy(&part.content))
                ),
            })
            .collect(),
    };
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Upload received</title>\
         <link rel=\"stylesheet\" href=\"/shop.css\"></head>\n<body><main><h1>Upload received</h1>\
         <ul data-testid=\"upload-result\">{items}</ul><a href=\"/files.html\">Back</a></main></body></html>\n"
    )
}
