//! The integration tests, one binary so the suite links once: each module runs the real `lhc`
//! binary (through [`common::Test`]) or the library, and checks what it produced with real tools.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

#[allow(dead_code)]
mod common;

mod architecture;
mod benchmarks;
mod cases;
mod chart;
mod cli;
mod compat;
mod diagnostics;
mod diff;
mod first_week;
mod fleet;
mod flux_vars;
mod fuzz;
mod gitops;
mod import;
mod layers;
mod longhorn_release;
mod lowering;
mod nodes;
mod outputs;
mod plan;
mod recurring;
mod report;
mod report_parsers;
mod status;
mod upgrade;
mod upgrade_command;
mod verdicts;
mod yaml;
mod yaml11;
mod yaml_check;
