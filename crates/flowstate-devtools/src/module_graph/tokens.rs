//! Rust source as the module graph needs it: identifiers, string literals (an attribute's
//! `path = "..."`), `::` and single punctuation characters. Comments (doc comments
//! included), character literals, lifetimes and numbers are dropped, so that a path in a
//! comment or a string is never taken for code.

/// One token of Rust source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// An identifier or keyword (`r#type` is `type`).
    Ident(String),
    /// A string literal's text, escapes left as written.
    Str(String),
    /// `::`.
    PathSep,
    /// Any other punctuation character.
    Punct(char),
}

/// The tokens of `text`.
pub(crate) fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = skip_block_comment(&chars, i);
        } else if let Some((text, end)) = string_literal(&chars, i) {
            out.push(Token::Str(text));
            i = end;
        } else if c == '\'' {
            i = skip_char_or_lifetime(&chars, i);
        } else if c == 'r' && next == Some('#') && chars.get(i + 2).is_some_and(|&c| ident_start(c))
        {
            // A raw identifier: `r#type`.
            let (ident, end) = identifier(&chars, i + 2);
            out.push(Token::Ident(ident));
            i = end;
        } else if ident_start(c) {
            let (ident, end) = identifier(&chars, i);
            out.push(Token::Ident(ident));
            i = end;
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c == ':' && next == Some(':') {
            out.push(Token::PathSep);
            i += 2;
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    out
}

fn ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn identifier(chars: &[char], start: usize) -> (String, usize) {
    let mut end = start;
    while end < chars.len() && (chars[end].is_alphanumeric() || chars[end] == '_') {
        end += 1;
    }
    (chars[start..end].iter().collect(), end)
}

/// The index after the block comment starting at `start` (block comments nest).
fn skip_block_comment(chars: &[char], start: usize) -> usize {
    let mut depth = 0;
    let mut i = start;
    while i < chars.len() {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// A string literal starting at `start` (`"..."`, `b"..."`, `c"..."`, `r"..."`,
/// `r#"..."#`, `br#"..."#`): its text and the index after it.
fn string_literal(chars: &[char], start: usize) -> Option<(String, usize)> {
    // A literal's prefix is not the end of an identifier (`xr"` cannot occur, but `br`
    // must not be read from the middle of `abr`).
    if start > 0 && (chars[start - 1].is_alphanumeric() || chars[start - 1] == '_') {
        return None;
    }
    let mut i = start;
    if matches!(chars.get(i), Some('b' | 'c')) {
        i += 1;
    }
    let raw = chars.get(i) == Some(&'r');
    if raw {
        i += 1;
        let mut hashes = 0;
        while chars.get(i) == Some(&'#') {
            hashes += 1;
            i += 1;
        }
        if chars.get(i) != Some(&'"') {
            return None;
        }
        let body = i + 1;
        let mut j = body;
        while j < chars.len() {
            if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                return Some((chars[body..j].iter().collect(), j + 1 + hashes));
            }
            j += 1;
        }
        return Some((chars[body..].iter().collect(), chars.len()));
    }
    if chars.get(i) != Some(&'"') {
        return None;
    }
    let body = i + 1;
    let mut j = body;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 2,
            '"' => return Some((chars[body..j].iter().collect(), j + 1)),
            _ => j += 1,
        }
    }
    Some((chars[body..].iter().collect(), chars.len()))
}

/// The index after the character literal (`'a'`, `'\n'`, `'\u{1F600}'`) or lifetime
/// (`'a`, `'static`) starting at `start`.
fn skip_char_or_lifetime(chars: &[char], start: usize) -> usize {
    let i = start + 1;
    match chars.get(i) {
        Some('\\') => {
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            j + 1
        }
        Some(_) if chars.get(i + 1) == Some(&'\'') => i + 2,
        Some(&c) if ident_start(c) => identifier(chars, i).1,
        _ => i,
    }
}
