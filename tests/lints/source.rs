//! A small lexer for Rust and WGSL, enough to find functions and comments:
//! it knows comments (line and nested block), string literals (plain, byte,
//! C and raw) and character literals (told apart from lifetimes), and
//! nothing else.

/// A source file split into code and comments.
#[derive(Debug, Default)]
pub struct Lexed {
    /// The text with every comment and literal blanked: each of their
    /// characters is a space, line breaks are kept, so offsets and line
    /// numbers are the original's.
    pub code: String,
    /// Every comment line: (1-based line number, its text without the `//`,
    /// `///` or `//!` marker). A block comment gives one entry per line.
    pub comments: Vec<(usize, String)>,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Splits `text` into code and comments.
pub fn lex(text: &str) -> Lexed {
    let chars: Vec<char> = text.chars().collect();
    let mut lexer = Lexer {
        chars: &chars,
        at: 0,
        line: 1,
        out: Lexed::default(),
        comment: None,
    };
    lexer.run();
    lexer.out
}

struct Lexer<'a> {
    chars: &'a [char],
    at: usize,
    line: usize,
    out: Lexed,
    /// The comment line being collected, if inside a comment.
    comment: Option<String>,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// Copies the next character into the code unchanged.
    fn keep(&mut self) {
        let c = self.chars[self.at];
        self.out.code.push(c);
        self.advance_line(c);
        self.at += 1;
    }

    /// Blanks the next character (a line break stays one), collecting it
    /// into the current comment, if any.
    fn blank(&mut self) {
        let c = self.chars[self.at];
        if c == '\n' {
            self.out.code.push('\n');
            if let Some(comment) = self.comment.as_mut() {
                let text = std::mem::take(comment);
                self.out.comments.push((self.line, text));
            }
        } else {
            self.out.code.push(' ');
            if let Some(comment) = self.comment.as_mut() {
                comment.push(c);
            }
        }
        self.advance_line(c);
        self.at += 1;
    }

    fn advance_line(&mut self, c: char) {
        if c == '\n' {
            self.line += 1;
        }
    }

    fn blank_n(&mut self, n: usize) {
        for _ in 0..n {
            if self.at < self.chars.len() {
                self.blank();
            }
        }
    }

    fn run(&mut self) {
        while let Some(c) = self.peek(0) {
            match c {
                '/' if self.peek(1) == Some('/') => self.line_comment(),
                '/' if self.peek(1) == Some('*') => self.block_comment(),
                '"' => self.string(),
                '\'' => self.quote(),
                c if is_ident(c) => self.identifier(),
                _ => self.keep(),
            }
        }
    }

    fn line_comment(&mut self) {
        // The marker: `//`, then `/` or `!` of a doc comment.
        self.blank_n(2);
        if matches!(self.peek(0), Some('/' | '!')) {
            self.blank();
        }
        self.comment = Some(String::new());
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.blank();
        }
        let text = self.comment.take().expect("inside the comment");
        self.out.comments.push((self.line, text));
    }

    /// A block comment; they nest in Rust and in WGSL.
    fn block_comment(&mut self) {
        self.blank_n(2);
        self.comment = Some(String::new());
        let mut depth = 1;
        while self.peek(0).is_some() {
            if self.peek(0) == Some('/') && self.peek(1) == Some('*') {
                depth += 1;
            } else if self.peek(0) == Some('*') && self.peek(1) == Some('/') {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            } else {
                self.blank();
                continue;
            }
            self.blank_n(2);
        }
        let text = self.comment.take().expect("inside the comment");
        self.out.comments.push((self.line, text));
        self.blank_n(2);
    }

    /// A string with escapes, from its opening quote.
    fn string(&mut self) {
        self.blank();
        while let Some(c) = self.peek(0) {
            self.blank();
            match c {
                '\\' => self.blank_n(1),
                '"' => return,
                _ => {}
            }
        }
    }

    /// A raw string from its `#`s: `"` and as many `#`s close it.
    fn raw_string(&mut self) {
        let mut hashes = 0;
        while self.peek(0) == Some('#') {
            hashes += 1;
            self.blank();
        }
        self.blank();
        while self.peek(0).is_some() {
            let closes = self.peek(0) == Some('"')
                && (1..=hashes).all(|ahead| self.peek(ahead) == Some('#'));
            if closes {
                self.blank_n(1 + hashes);
                return;
            }
            self.blank();
        }
    }

    /// A character literal, or a lifetime or label (kept as code).
    fn quote(&mut self) {
        if self.peek(1) == Some('\\') {
            // An escape: `'\''`, `'\n'`, `'\u{1F600}'`.
            self.blank_n(3);
            while self.peek(0).is_some_and(|c| c != '\'') {
                self.blank();
            }
            self.blank_n(1);
        } else if self.peek(2) == Some('\'') {
            self.blank_n(3);
        } else {
            self.keep();
        }
    }

    /// An identifier or keyword, or the prefix of a byte, C or raw string.
    fn identifier(&mut self) {
        let start = self.at;
        let mut end = start;
        while self.chars.get(end).is_some_and(|&c| is_ident(c)) {
            end += 1;
        }
        let word: String = self.chars[start..end].iter().collect();
        let next = self.chars.get(end).copied();
        let after_hashes = self.chars[end..].iter().find(|&&c| c != '#').copied();
        let raw = matches!(word.as_str(), "r" | "br" | "cr")
            && matches!(next, Some('#' | '"'))
            && after_hashes == Some('"');
        let prefixed = matches!(word.as_str(), "b" | "c") && next == Some('"');
        let byte_char = word == "b" && next == Some('\'');
        if raw {
            self.blank_n(end - start);
            self.raw_string();
        } else if prefixed {
            self.blank_n(end - start);
            self.string();
        } else if byte_char {
            self.blank_n(end - start);
            self.quote();
        } else {
            for _ in start..end {
                self.keep();
            }
        }
    }
}

/// A function found in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// The line of its `fn` keyword (1-based).
    pub first_line: usize,
    /// The line of its closing brace.
    pub last_line: usize,
}

impl Function {
    /// Lines from the signature's first to the closing brace, both counted.
    pub fn lines(&self) -> usize {
        self.last_line - self.first_line + 1
    }
}

/// Every function with a body in `code` (a [`Lexed::code`]: comments and
/// literals blanked): `fn name`, then the signature up to the first `{` or
/// `;` outside parentheses and brackets (a `;` is a declaration without a
/// body, skipped), then the body up to its matching `}`. Function pointer
/// types (`fn(u32)`) and macro patterns (`fn $name`) are not functions.
pub fn functions(code: &str) -> Vec<Function> {
    let chars: Vec<char> = code.chars().collect();
    let mut line_of = Vec::with_capacity(chars.len());
    let mut line = 1;
    for &c in &chars {
        line_of.push(line);
        if c == '\n' {
            line += 1;
        }
    }
    let mut found = Vec::new();
    for at in 0..chars.len() {
        let keyword = chars[at] == 'f'
            && chars.get(at + 1) == Some(&'n')
            && (at == 0 || !is_ident(chars[at - 1]))
            && chars.get(at + 2).is_some_and(|c| c.is_whitespace());
        if !keyword {
            continue;
        }
        let mut i = at + 2;
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        let name_start = i;
        while chars.get(i).is_some_and(|&c| is_ident(c)) {
            i += 1;
        }
        if i == name_start || chars[name_start].is_ascii_digit() {
            continue;
        }
        let name: String = chars[name_start..i].iter().collect();
        let Some(open) = body_start(&chars, i) else {
            continue;
        };
        let Some(close) = matching_brace(&chars, open) else {
            continue;
        };
        found.push(Function {
            name,
            first_line: line_of[at],
            last_line: line_of[close],
        });
    }
    found
}

/// The `{` that opens the body of the signature from `from`, or `None` for
/// a declaration (`;` first).
fn body_start(chars: &[char], from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, &c) in chars.iter().enumerate().skip(from) {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '{' if depth == 0 => return Some(i),
            ';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The `}` that closes the `{` at `open`.
fn matching_brace(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}
