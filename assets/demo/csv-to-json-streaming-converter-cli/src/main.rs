use std::collections::HashMap;
use std::env;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};

use flate2::read::GzDecoder;
use serde_json::{Map, Number, Value};

/// Infers the JSON type of one CSV field: integer, float, boolean, null or string.
fn infer(field: &str) -> Value {
    let t = field.trim();
    if t.is_empty() {
        return Value::Null;
    }
    if let Ok(i) = t.parse::<i64>() {
        return Value::Number(i.into());
    }
    if let Ok(f) = t.parse::<f64>() {
        if let Some(n) = Number::from_f64(f) {
            return Value::Number(n);
        }
    }
    match t.to_ascii_lowercase().as_str() {
        "true" | "yes" => Value::Bool(true),
        "false" | "no" => Value::Bool(false),
        _ => Value::String(field.to_string()),
    }
}

/// Opens a file (or stdin for "-"), transparently decompressing gzip by its magic bytes.
fn open_input(path: &str) -> io::Result<Box<dyn Read>> {
    let raw: Box<dyn Read> = if path == "-" { Box::new(io::stdin()) } else { Box::new(File::open(path)?) };
    let mut reader = BufReader::new(raw);
    let is_gzip = reader.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    Ok(if is_gzip { Box::new(GzDecoder::new(reader)) } else { Box::new(reader) })
}

fn parse_mappings(args: &[String]) -> HashMap<String, String> {
    args.windows(2)
        .filter(|w| w[0] == "--map")
        .filter_map(|w| w[1].split_once('=').map(|(a, b)| (a.to_string(), b.to_string())))
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = env::args().skip(1).collect();
    let input = args.first().cloned().unwrap_or_else(|| "-".to_string());
    let mapping = parse_mappings(&args);
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(open_input(&input)?);
    let headers: Vec<String> = reader
        .headers()?
        .iter()
        .map(|h| mapping.get(h).cloned().unwrap_or_else(|| h.to_string()))
        .collect();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut record = csv::StringRecord::new();
    let mut rows = 0u64;
    while reader.read_record(&mut record)? {
        let mut obj = Map::with_capacity(headers.len());
        for (name, field) in headers.iter().zip(record.iter()) {
            obj.insert(name.clone(), infer(field));
        }
        serde_json::to_writer(&mut out, &Value::Object(obj))?;
        out.write_all(b"\n")?;
        rows += 1;
    }
    out.flush()?;
    eprintln!("converted {rows} rows");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infers_types() {
        assert_eq!(infer("42"), Value::Number(42.into()));
        assert_eq!(infer("yes"), Value::Bool(true));
        assert_eq!(infer(""), Value::Null);
        assert_eq!(infer("abc"), Value::String("abc".into()));
    }
}
