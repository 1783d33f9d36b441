//! Key names (as in `KeyboardEvent.key`) to the fields of CDP `Input.dispatchKeyEvent`.

use serde_json::{Value, json};

use browserflow_steps::Modifier;

/// What CDP needs to press one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDefinition {
    /// The key's value (`Enter`, `a`, `A`).
    pub key: String,
    /// The physical key (`Enter`, `KeyA`).
    pub code: String,
    /// The Windows virtual key code CDP's key events carry.
    pub key_code: u32,
    /// The text the key types, if any (`\r` for Enter).
    pub text: Option<String>,
}

/// Looks up a key by its `KeyboardEvent.key` name; single characters are typed as themselves.
pub fn key_definition(name: &str) -> Option<KeyDefinition> {
    let named = |key: &str, code: &str, key_code: u32, text: Option<&str>| KeyDefinition {
        key: key.to_string(),
        code: code.to_string(),
        key_code,
        text: text.map(str::to_string),
    };
    let def = match name {
        "Enter" => named("Enter", "Enter", 13, Some("\r")),
        "Tab" => named("Tab", "Tab", 9, None),
        "Escape" => named("Escape", "Escape", 27, None),
        "Backspace" => named("Backspace", "Backspace", 8, None),
        "Delete" => named("Delete", "Delete", 46, None),
        "Space" | " " => named(" ", "Space", 32, Some(" ")),
        "ArrowUp" => named("ArrowUp", "ArrowUp", 38, None),
        "ArrowDown" => named("ArrowDown", "ArrowDown", 40, None),
        "ArrowLeft" => named("ArrowLeft", "ArrowLeft", 37, None),
        "ArrowRight" => named("ArrowRight", "ArrowRight", 39, None),
        "Home" => named("Home", "Home", 36, None),
        "End" => named("End", "End", 35, None),
        "PageUp" => named("PageUp", "PageUp", 33, None),
        "PageDown" => named("PageDown", "PageDown", 34, None),
        "Insert" => named("Insert", "Insert", 45, None),
        "Shift" => named("Shift", "ShiftLeft", 16, None),
        "Control" => named("Control", "ControlLeft", 17, None),
        "Alt" => named("Alt", "AltLeft", 18, None),
        "Meta" => named("Meta", "MetaLeft", 91, None),
        _ => {
            if let Some(n) = name.strip_prefix('F').and_then(|n| n.parse::<u32>().ok())
                && (1..=12).contains(&n)
            {
                return Some(named(name, name, 111 + n, None));
            }
            let mut chars = name.chars();
            let c = chars.next()?;
            if chars.next().is_some() {
                return None;
            }
            let (code, key_code) = if c.is_ascii_alphabetic() {
                (
                    format!("Key{}", c.to_ascii_uppercase()),
                    c.to_ascii_uppercase() as u32,
                )
            } else if c.is_ascii_digit() {
                (format!("Digit{c}"), c as u32)
            } else if let Some((code, key_code)) = us_punctuation(c) {
                (code.to_string(), key_code)
            } else {
                // No key on the keyboard types it (`é` on a US layout, `€`, an emoji): the
                // events still carry it as their key and text, as an on-screen keyboard's do.
                (String::new(), 0)
            };
            KeyDefinition {
                key: c.to_string(),
                code,
                key_code,
                text: Some(c.to_string()),
            }
        }
    };
    Some(def)
}

/// The physical key (`code`) and virtual key code that type `c` on a US keyboard, for the
/// characters that are neither letters nor digits.
fn us_punctuation(c: char) -> Option<(&'static str, u32)> {
    Some(match c {
        '-' | '_' => ("Minus", 189),
        '=' | '+' => ("Equal", 187),
        '[' | '{' => ("BracketLeft", 219),
        ']' | '}' => ("BracketRight", 221),
        '\\' | '|' => ("Backslash", 220),
        ';' | ':' => ("Semicolon", 186),
        '\'' | '"' => ("Quote", 222),
        ',' | '<' => ("Comma", 188),
        '.' | '>' => ("Period", 190),
        '/' | '?' => ("Slash", 191),
        '`' | '~' => ("Backquote", 192),
        '!' => ("Digit1", 49),
        '@' => ("Digit2", 50),
        '#' => ("Digit3", 51),
        '$' => ("Digit4", 52),
        '%' => ("Digit5", 53),
        '^' => ("Digit6", 54),
        '&' => ("Digit7", 55),
        '*' => ("Digit8", 56),
        '(' => ("Digit9", 57),
        ')' => ("Digit0", 48),
        _ => return None,
    })
}

/// One piece of typed text: a key pressed for a character, or text inserted where no key
/// press can type it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypedPiece {
    /// Pressed as a key: `keyDown` carrying the character as its text, then `keyUp`.
    Key(KeyDefinition),
    /// Inserted as text (one `input` event, no key events): control characters, whose key
    /// would act instead of typing (Enter submits a form or sends a chat message, Tab moves
    /// the focus), so a person's value holding one was not typed with that key.
    Text(String),
}

/// How `text` is typed key by key, as a person types it: each character its own key press,
/// control characters inserted.
pub fn typing(text: &str) -> Vec<TypedPiece> {
    let mut pieces: Vec<TypedPiece> = Vec::new();
    for c in text.chars() {
        if c.is_control() {
            match pieces.last_mut() {
                Some(TypedPiece::Text(run)) => run.push(c),
                _ => pieces.push(TypedPiece::Text(c.to_string())),
            }
            continue;
        }
        let mut buf = [0u8; 4];
        match key_definition(c.encode_utf8(&mut buf)) {
            Some(def) => pieces.push(TypedPiece::Key(def)),
            None => pieces.push(TypedPiece::Text(c.to_string())),
        }
    }
    pieces
}

/// The CDP modifiers bit mask.
pub fn modifier_mask(modifiers: &[Modifier]) -> u32 {
    modifiers
        .iter()
        .map(|m| match m {
            Modifier::Alt => 1,
            Modifier::Control => 2,
            Modifier::Meta => 4,
            Modifier::Shift => 8,
        })
        .fold(0, |a, b| a | b)
}

/// The `keyDown` and `keyUp` parameters for pressing `def` with `modifiers` held. A key typed
/// with Control, Alt or Meta held produces no text (it is a shortcut).
pub fn key_events(def: &KeyDefinition, modifiers: &[Modifier]) -> (Value, Value) {
    let mask = modifier_mask(modifiers);
    let shortcut = modifiers
        .iter()
        .any(|m| matches!(m, Modifier::Control | Modifier::Alt | Modifier::Meta));
    let mut down = json!({
        "type": if def.text.is_some() && !shortcut { "keyDown" } else { "rawKeyDown" },
        "modifiers": mask,
        "key": def.key,
        "code": def.code,
        "windowsVirtualKeyCode": def.key_code,
    });
    if let Some(text) = def.text.as_ref().filter(|_| !shortcut) {
        down["text"] = json!(text);
        down["unmodifiedText"] = json!(text);
    }
    let up = json!({
        "type": "keyUp",
        "modifiers": mask,
        "key": def.key,
        "code": def.code,
        "windowsVirtualKeyCode": def.key_code,
    });
    (down, up)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_and_character_keys() {
        let enter = key_definition("Enter").unwrap();
        assert_eq!((enter.key_code, enter.text.as_deref()), (13, Some("\r")));
        let a = key_definition("a").unwrap();
        assert_eq!((a.code.as_str(), a.key_code), ("KeyA", 65));
        assert_eq!(key_definition("F5").unwrap().key_code, 116);
        assert_eq!(key_definition("NoSuchKey"), None);
    }

    #[test]
    fn text_is_typed_key_by_key_and_control_characters_are_inserted() {
        let pieces = typing("aB.\u{e9}\u{1F600}\n\t1");
        let keys: Vec<String> = pieces
            .iter()
            .map(|p| match p {
                TypedPiece::Key(d) => format!("{}:{}:{}", d.key, d.code, d.key_code),
                TypedPiece::Text(t) => format!("text {t:?}"),
            })
            .collect();
        assert_eq!(
            keys,
            [
                "a:KeyA:65",
                "B:KeyB:66",
                ".:Period:190",
                "\u{e9}::0",
                "\u{1F600}::0",
                "text \"\\n\\t\"",
                "1:Digit1:49",
            ]
        );
        // Every key types its own character.
        for piece in &pieces {
            if let TypedPiece::Key(d) = piece {
                assert_eq!(d.text.as_deref(), Some(d.key.as_str()));
            }
        }
    }

    #[test]
    fn shortcuts_type_no_text() {
        let a = key_definition("a").unwrap();
        let (down, _) = key_events(&a, &[Modifier::Control]);
        assert_eq!(down["type"], "rawKeyDown");
        assert!(down.get("text").is_none());
        assert_eq!(down["modifiers"], 2);
    }
}
