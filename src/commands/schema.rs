//! `lhc schema [--layer]`: the JSON Schema of the cluster file, or of a layer (a partial
//! cluster file, for the files `extends` names).

use super::Outcome;

pub fn run(layer: bool) -> Outcome {
    let stdout =
        if layer { crate::schema::layer_schema_text() } else { crate::schema::schema_text() };
    Outcome { stdout, ..Outcome::default() }
}
