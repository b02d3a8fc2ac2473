//! What a scorecard command prints: tables and sentences, as Markdown or as JSON (the same
//! content: a ratio cell is its mean, interval and seed count in JSON).

use serde::Serialize;

use crate::report::paired::PairedRatio;

/// One cell of a table.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Cell {
    /// A paired ratio: `1.17 [1.05, 1.30]*` in Markdown.
    Ratio(PairedRatio),
    /// Anything else, as written.
    Text(String),
    /// Nothing to show: `-` in Markdown, `null` in JSON.
    Empty,
}

impl Cell {
    /// A ratio, or empty when there is none.
    pub fn ratio(ratio: Option<PairedRatio>) -> Self {
        ratio.map_or(Self::Empty, Self::Ratio)
    }

    /// A text cell.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(text.into())
    }

    fn markdown(&self) -> String {
        match self {
            Self::Ratio(r) => r.cell(),
            Self::Text(t) if t.is_empty() => "-".to_owned(),
            Self::Text(t) => t.replace('|', "\\|"),
            Self::Empty => "-".to_owned(),
        }
    }
}

/// A table: its column names and rows of cells.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Table {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, each as long as `columns`.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// An empty table with these columns.
    pub fn new(columns: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            columns: columns.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    fn markdown(&self) -> String {
        let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
        let mut out = line(self.columns.clone());
        out += &format!("|{}\n", "---|".repeat(self.columns.len()));
        for row in &self.rows {
            out += &line(row.iter().map(Cell::markdown).collect());
        }
        out
    }
}

/// A part of a document.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Block {
    /// A heading (`###` in Markdown).
    Heading(String),
    /// A sentence or paragraph.
    Text(String),
    /// A table.
    Table(Table),
}

/// A scorecard command's output.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Document {
    /// Its parts, in order.
    pub blocks: Vec<Block>,
}

impl Document {
    /// Appends a heading.
    pub fn heading(&mut self, text: impl Into<String>) {
        self.blocks.push(Block::Heading(text.into()));
    }

    /// Appends a paragraph.
    pub fn text(&mut self, text: impl Into<String>) {
        self.blocks.push(Block::Text(text.into()));
    }

    /// Appends a table.
    pub fn table(&mut self, table: Table) {
        self.blocks.push(Block::Table(table));
    }

    /// The document as Markdown: blocks separated by a blank line.
    pub fn markdown(&self) -> String {
        let parts: Vec<String> = self
            .blocks
            .iter()
            .map(|block| match block {
                Block::Heading(h) => format!("### {h}\n"),
                Block::Text(t) => format!("{t}\n"),
                Block::Table(t) => t.markdown(),
            })
            .collect();
        parts.join("\n")
    }

    /// The document as pretty JSON.
    pub fn json(&self) -> serde_json::Result<String> {
        Ok(serde_json::to_string_pretty(self)? + "\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_escapes_pipes_and_marks_empty_cells() {
        let mut table = Table::new(["point", "x"]);
        table.rows.push(vec![Cell::text("a|b"), Cell::Empty]);
        let mut doc = Document::default();
        doc.table(table);
        doc.text("done");
        assert_eq!(
            doc.markdown(),
            "| point | x |\n|---|---|\n| a\\|b | - |\n\ndone\n"
        );
        assert!(doc.json().unwrap().contains("\"a|b\""));
    }
}
