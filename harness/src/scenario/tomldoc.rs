//! Working with scenario documents as TOML trees: dotted-path overrides, deep merges, and
//! finding the line a field is written on (for error messages).

use toml::{Table, Value};

/// One step of a field path: a key or an array index (`errors[0]` is `Key("errors"), Index(0)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A table key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// Splits `link.a_to_b.errors[0].ber` into segments. Unparseable indices stay part of the key.
pub fn split_path(path: &str) -> Vec<Segment> {
    let mut segments = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            segments.push(Segment::Key(key.to_owned()));
        }
        while let Some(end) = rest.find(']') {
            match rest[1..end].parse() {
                Ok(index) => segments.push(Segment::Index(index)),
                Err(_) => segments.push(Segment::Key(rest[..=end].to_owned())),
            }
            rest = &rest[end + 1..];
        }
    }
    segments
}

/// Recursively merges `over` into `base`: tables merge key by key, anything else replaces.
pub fn deep_merge(base: &mut Table, over: &Table) {
    for (key, value) in over {
        match (base.get_mut(key), value) {
            (Some(Value::Table(existing)), Value::Table(incoming)) => {
                deep_merge(existing, incoming)
            }
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Sets the dotted `path` (keys only) in `root` to `value`, creating tables on the way. A table
/// value is merged into an existing table rather than replacing it. Fails if a segment on the
/// way is not a table.
pub fn set_path(root: &mut Table, path: &str, value: Value) -> Result<(), String> {
    let keys: Vec<&str> = path.split('.').filter(|k| !k.is_empty()).collect();
    let Some((last, parents)) = keys.split_last() else {
        return match value {
            Value::Table(table) => {
                deep_merge(root, &table);
                Ok(())
            }
            _ => Err("an empty key can only take a table of settings".to_owned()),
        };
    };
    let mut table = root;
    for (depth, key) in parents.iter().enumerate() {
        let entry = table
            .entry((*key).to_owned())
            .or_insert_with(|| Value::Table(Table::new()));
        table = match entry {
            Value::Table(inner) => inner,
            _ => {
                return Err(format!("`{}` is not a table", keys[..=depth].join(".")));
            }
        };
    }
    match (table.get_mut(*last), value) {
        (Some(Value::Table(existing)), Value::Table(incoming)) => deep_merge(existing, &incoming),
        (_, value) => {
            table.insert((*last).to_owned(), value);
        }
    }
    Ok(())
}

/// Reads a command-line value as TOML (`0.2`, `true`, `"2Mbps"`, `{ model = "per", p = 0.1 }`),
/// falling back to a plain string (`2Mbps`).
pub fn parse_value(text: &str) -> Value {
    match format!("v = {text}").parse::<Table>() {
        Ok(mut table) => table
            .remove("v")
            .unwrap_or_else(|| Value::String(text.to_owned())),
        Err(_) => Value::String(text.to_owned()),
    }
}

/// The 1-based line on which the field at `path` is written in the parsed file `doc`, if it is
/// there.
pub fn line_of<S: AsRef<str>>(doc: &toml_edit::ImDocument<S>, path: &[Segment]) -> Option<usize> {
    let offset = span_of(doc.as_item(), path)?;
    Some(doc.raw().get(..offset)?.matches('\n').count() + 1)
}

fn span_of(item: &toml_edit::Item, path: &[Segment]) -> Option<usize> {
    use toml_edit::Item;
    let Some((first, rest)) = path.split_first() else {
        return item.span().map(|s| s.start);
    };
    match (item, first) {
        (Item::Table(table), Segment::Key(key)) => {
            let (k, next) = table.get_key_value(key)?;
            if rest.is_empty() {
                return k
                    .span()
                    .map(|s| s.start)
                    .or_else(|| next.span().map(|s| s.start));
            }
            item_or_value_span(next, rest)
        }
        (Item::ArrayOfTables(array), Segment::Index(i)) => {
            let table = array.get(*i)?;
            span_of(&Item::Table(table.clone()), rest)
        }
        (Item::Value(value), _) => value_span(value, path),
        _ => None,
    }
}

fn item_or_value_span(item: &toml_edit::Item, path: &[Segment]) -> Option<usize> {
    match item {
        toml_edit::Item::Value(value) => value_span(value, path),
        other => span_of(other, path),
    }
}

fn value_span(value: &toml_edit::Value, path: &[Segment]) -> Option<usize> {
    use toml_edit::Value as V;
    let Some((first, rest)) = path.split_first() else {
        return value.span().map(|s| s.start);
    };
    match (value, first) {
        (V::InlineTable(table), Segment::Key(key)) => {
            let (k, next) = table.get_key_value(key)?;
            if rest.is_empty() {
                return k.span().map(|s| s.start);
            }
            item_or_value_span(next, rest)
        }
        (V::Array(array), Segment::Index(i)) => value_span(array.get(*i)?, rest),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_keys_and_indices() {
        assert_eq!(
            split_path("link.a_to_b.errors[0].ber"),
            vec![
                Segment::Key("link".into()),
                Segment::Key("a_to_b".into()),
                Segment::Key("errors".into()),
                Segment::Index(0),
                Segment::Key("ber".into()),
            ]
        );
    }

    #[test]
    fn set_path_merges_tables_and_replaces_scalars() {
        let mut root: Table = "[link.path]\nmodel = \"mobility\"\nnodes = 50\n"
            .parse()
            .unwrap();
        set_path(
            &mut root,
            "link.path",
            parse_value("{ min_speed = 5.0, max_speed = 5.0 }"),
        )
        .unwrap();
        set_path(&mut root, "transfer.duration", parse_value("20s")).unwrap();
        let path = root["link"]["path"].as_table().unwrap();
        assert_eq!(path["model"].as_str(), Some("mobility"));
        assert_eq!(path["nodes"].as_integer(), Some(50));
        assert_eq!(path["max_speed"].as_float(), Some(5.0));
        assert_eq!(root["transfer"]["duration"].as_str(), Some("20s"));
        assert!(set_path(&mut root, "transfer.duration.x", Value::Integer(1)).is_err());
    }

    #[test]
    fn lines_are_found_for_nested_and_inline_fields() {
        let source = "name = \"x\"\n\n[link.a_to_b]\nrate = \"2Mbps\"\nerrors = [{ model = \"ber\", ber = 2.0 }]\n";
        let source = toml_edit::ImDocument::parse(source).unwrap();
        let source = &source;
        assert_eq!(line_of(source, &split_path("link.a_to_b.rate")), Some(4));
        assert_eq!(
            line_of(source, &split_path("link.a_to_b.errors[0].ber")),
            Some(5)
        );
        assert_eq!(line_of(source, &split_path("link.b_to_a.rate")), None);
    }
}

/// The dotted key path (`link.a_to_b.rate`) of the deepest field whose key or value covers the
/// byte `offset` of the parsed file `doc`: names the field an error points into.
pub fn key_at<S: AsRef<str>>(doc: &toml_edit::ImDocument<S>, offset: usize) -> Option<String> {
    let mut best = None;
    walk_item(doc.as_item(), &mut Vec::new(), offset, &mut best);
    best
}

fn covers(span: Option<std::ops::Range<usize>>, offset: usize) -> bool {
    span.is_some_and(|s| s.start <= offset && offset <= s.end)
}

fn walk_item(
    item: &toml_edit::Item,
    path: &mut Vec<String>,
    offset: usize,
    best: &mut Option<String>,
) {
    use toml_edit::Item;
    match item {
        Item::Table(table) => {
            for (key, value) in table.iter() {
                let k = table.key(key);
                path.push(key.to_owned());
                if covers(k.and_then(|k| k.span()), offset) || covers(value.span(), offset) {
                    *best = Some(path.join("."));
                }
                walk_item(value, path, offset, best);
                path.pop();
            }
        }
        Item::ArrayOfTables(array) => {
            for (i, table) in array.iter().enumerate() {
                if let Some(last) = path.last_mut() {
                    let base = last.clone();
                    *last = format!("{base}[{i}]");
                    walk_item(&Item::Table(table.clone()), path, offset, best);
                    if let Some(last) = path.last_mut() {
                        *last = base;
                    }
                }
            }
        }
        Item::Value(value) => walk_value(value, path, offset, best),
        Item::None => {}
    }
}

fn walk_value(
    value: &toml_edit::Value,
    path: &mut Vec<String>,
    offset: usize,
    best: &mut Option<String>,
) {
    use toml_edit::Value as V;
    match value {
        V::InlineTable(table) => {
            for (key, inner) in table.iter() {
                let k = table.key(key);
                path.push(key.to_owned());
                if covers(k.and_then(|k| k.span()), offset) || covers(inner.span(), offset) {
                    *best = Some(path.join("."));
                }
                walk_value(inner, path, offset, best);
                path.pop();
            }
        }
        V::Array(array) => {
            for (i, inner) in array.iter().enumerate() {
                if covers(inner.span(), offset)
                    && let Some(last) = path.last_mut()
                {
                    let base = last.clone();
                    *last = format!("{base}[{i}]");
                    *best = Some(path.join("."));
                    walk_value(inner, path, offset, best);
                    if let Some(last) = path.last_mut() {
                        *last = base;
                    }
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod key_tests {
    use super::*;

    #[test]
    fn key_at_names_the_field_under_an_offset() {
        let source =
            "[link.a_to_b]\nrate = \"fast\"\nerrors = [{ model = \"ber\", ber = \"x\" }]\n";
        let rate = source.find("\"fast\"").unwrap();
        let ber = source.find("\"x\"").unwrap();
        let source = &toml_edit::ImDocument::parse(source).unwrap();
        assert_eq!(key_at(source, rate).as_deref(), Some("link.a_to_b.rate"));
        assert_eq!(
            key_at(source, ber).as_deref(),
            Some("link.a_to_b.errors[0].ber")
        );
    }
}

/// Removes the dotted `path` from `root` if it is there.
pub fn remove_path(root: &mut Table, path: &str) {
    let keys: Vec<&str> = path.split('.').filter(|k| !k.is_empty()).collect();
    let Some((last, parents)) = keys.split_last() else {
        return;
    };
    let mut table = root;
    for key in parents {
        match table.get_mut(*key) {
            Some(Value::Table(inner)) => table = inner,
            _ => return,
        }
    }
    table.remove(*last);
}
