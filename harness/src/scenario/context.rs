//! What every check of a scenario needs: the file (for the line an error names) and the
//! command line's overrides (for the option an error blames).

use crate::error::HarnessError;
use crate::scenario::model::{Override, Source};
use crate::scenario::tomldoc::{self, split_path};

/// The scenario text parsed once, spans kept: the file's sections, the document that overrides
/// and axes change, and the lines errors name are all read from it.
pub(super) type Parsed<'a> = toml_edit::ImDocument<&'a str>;

/// A scenario being loaded: where errors point.
pub(super) struct Context<'a> {
    pub(super) source: &'a Source,
    /// The file as written, for the lines errors name.
    pub(super) parsed: &'a Parsed<'a>,
    pub(super) overrides: &'a [Override],
    /// Refuse points that this build cannot run (the ns-3 backend without its feature).
    pub(super) runnable: bool,
}

impl Context<'_> {
    /// A bad-input error about `field`, with the line it is written on if it is in the file.
    pub(super) fn field_error(&self, field: &str, message: impl std::fmt::Display) -> HarnessError {
        let from_flag = self.overrides.iter().rev().find(|o| {
            let key = o.key.as_str();
            field == key
                || field.starts_with(&format!("{key}."))
                || field.starts_with(&format!("{key}["))
                || key.starts_with(&format!("{field}."))
        });
        if let Some(o) = from_flag {
            return HarnessError::bad_input(format!("{}: {message}", o.flag));
        }
        let mut candidates = vec![field.to_owned()];
        for dir in ["a_to_b", "b_to_a"] {
            let prefix = format!("link.{dir}.");
            if let Some(rest) = field.strip_prefix(&prefix) {
                candidates.push(format!("link.both.{rest}"));
            }
        }
        let line = candidates
            .iter()
            .find_map(|c| tomldoc::line_of(self.parsed, &split_path(c)));
        match line {
            Some(line) => {
                HarnessError::bad_input(format!("{}: line {line}: {message}", self.source.name))
            }
            None => HarnessError::bad_input(format!("{}: {message}", self.source.name)),
        }
    }
}
