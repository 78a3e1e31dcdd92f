//! `lhc schema`: the JSON Schema of the cluster file.

use super::Outcome;

pub fn run() -> Outcome {
    Outcome { stdout: crate::schema::schema_text(), ..Outcome::default() }
}
