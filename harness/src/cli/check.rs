//! `harness check`: which result files hold runs of this build, which are stale (exit 1), and
//! which are unreadable, edited or mixed (refused, exit 2, as merge and resume refuse them).

use super::args::CheckArgs;
use super::print_stdout;
use crate::batch::result_file::{
    FORMAT, ResultFile, check_current, check_runs, read_results_if_started,
};
use crate::error::{HarnessError, Result};

/// A stale file's runs by controller: which are current and which are not (a stale software
/// fact, or an older format, makes every run stale).
fn by_controller(file: &ResultFile) -> String {
    let Some(provenance) = file
        .header
        .provenance
        .as_ref()
        .filter(|_| file.header.format == FORMAT)
    else {
        return format!("         all {} runs (an older format)\n", file.runs.len());
    };
    let shared = provenance.shared_stale();
    let mut out = String::new();
    for fact in &provenance.controllers {
        let label = fact.spec.label();
        let runs = file.runs.iter().filter(|r| r.controller == label).count();
        let verdict = match shared.clone().or_else(|| fact.stale()) {
            None => "current".to_owned(),
            Some(why) => format!("stale ({why})"),
        };
        out.push_str(&format!("         {label}: {runs} runs {verdict}\n"));
    }
    out
}

pub(super) fn check_command(args: &CheckArgs) -> Result<()> {
    let mut files = crate::batch::merge::collect_files_recursively(&args.inputs)?;
    // One file named twice (`check d d/shard-0-of-1.jsonl`) is checked once.
    let mut seen = std::collections::BTreeSet::new();
    files.retain(|f| seen.insert(f.canonicalize().unwrap_or_else(|_| f.clone())));
    let mut report = String::new();
    let (mut current, mut stale, mut refused) = (0usize, 0usize, 0usize);
    for path in &files {
        // Unreadable, edited or mixed: refused (what merge and resume refuse with exit 2).
        let file = read_results_if_started(path).and_then(|file| match file {
            None => Err(HarnessError::bad_input("no complete header line")),
            Some(file) => {
                check_runs(path, &file.header, &file.runs)?;
                Ok(file)
            }
        });
        let file = match file {
            Ok(file) => file,
            Err(e) => {
                refused += 1;
                report.push_str(&format!("REFUSED  {}: {e}\n", path.display()));
                continue;
            }
        };
        match check_current(path, &file.header, "check") {
            Ok(()) => {
                current += 1;
                report.push_str(&format!(
                    "current  {} ({} runs{})\n",
                    path.display(),
                    file.runs.len(),
                    if file.torn {
                        "; a torn last line, an interrupted write that resuming drops"
                    } else {
                        ""
                    }
                ));
            }
            Err(e) => {
                stale += 1;
                report.push_str(&format!("STALE    {}: {e}\n", path.display()));
                report.push_str(&by_controller(&file));
            }
        }
    }
    report.push_str(&format!(
        "{current} current, {stale} stale, {refused} refused (unreadable or edited), of {} result files\n",
        files.len()
    ));
    print_stdout(&report)?;
    let total = files.len();
    if refused > 0 {
        return Err(HarnessError::bad_input(format!(
            "{refused} of {total} result files are unreadable, edited or mixed (REFUSED above)"
        )));
    }
    if stale > 0 {
        return Err(HarnessError::Incomplete(format!(
            "{stale} of {total} result files are not this build's runs"
        )));
    }
    Ok(())
}
