//! `smg curate`, `audit`, `restore`, `tier`, `policy`, `knowledge` (spec §18).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::json;
use smg_engine::curate::{
    self,
    governance::{add_knowledge, Knowledge},
    ActionReport, CurateOptions, CycleReport, Direction,
};
use smg_format::model::{Policy, Scope, Timestamp};
use smg_format::Error;

use super::checkpoint::report as say;
use super::merge::load_indexed;
use crate::cli::{
    CurateArgs, KnowledgeCommand, KnowledgeTier, PolicyCommand, PolicySetArgs, TierCommand,
};
use crate::io::{load, save_indexed, write_stdout, Context};
use crate::Outcome;

type Result<T> = std::result::Result<T, smg_engine::Error>;

fn now_or(given: &Option<String>) -> Result<Timestamp> {
    let given = super::time_arg("--now", given.as_deref())?;
    Ok(given.unwrap_or_else(Timestamp::now))
}

fn action_json(a: &ActionReport) -> serde_json::Value {
    json!({"id": a.id, "action": a.action.name(), "node": a.node, "into": a.into,
           "reason": a.reason, "score": a.score})
}

pub(crate) fn run(a: &CurateArgs, ctx: &Context) -> Result<Outcome> {
    let (mut loaded, indexed) = load_indexed(&a.file, ctx)?;
    let now = now_or(&a.now)?;
    let options = CurateOptions::at(now.clone()).with_dedup(!a.no_dedup);
    let working = super::working::Working::new(format!("curating {}", a.file.display()));
    let report = curate::curate(&mut loaded.doc, &options);
    drop(working);
    let report = report?;
    let changed = report.cycle.is_some() || report.expired > 0;
    if changed && !a.dry_run {
        save_indexed(&a.file, loaded, indexed, &ctx.limits)?;
    }
    say(&a.file, &cycle_text(&report, a, &now))?;
    Ok(Outcome::Success)
}

fn cycle_text(r: &CycleReport, a: &CurateArgs, now: &str) -> String {
    if a.json {
        let tokens: Vec<_> = r
            .tokens
            .iter()
            .map(|(c, t, n)| json!({"class": c.name(), "tier": t.name(), "tokens": n}))
            .collect();
        let actions: Vec<_> = r.actions.iter().map(action_json).collect();
        let v = json!({"now": now, "cycle": r.cycle, "dryRun": a.dry_run, "scanned": r.scanned,
                       "expired": r.expired, "actions": actions, "tokens": tokens});
        return format!("{v}\n");
    }
    let mut out = String::new();
    for x in &r.actions {
        let into = x
            .into
            .as_deref()
            .map_or(String::new(), |i| format!(" -> {i}"));
        let score = x.score.map_or(String::new(), |s| format!(" (MVS {s:.2})"));
        let _ = writeln!(
            out,
            "{:<9} {}{into}{score}: {}",
            x.action.name(),
            x.node,
            x.reason
        );
    }
    let verb = if a.dry_run { "would take" } else { "took" };
    let _ = writeln!(
        out,
        "{} nodes scanned at {now}; {verb} {} actions{}",
        r.scanned,
        r.actions.len(),
        r.cycle
            .as_deref()
            .map_or(String::new(), |c| format!(" (cycle {c})"))
    );
    out
}

pub(crate) fn audit(file: &Path, as_json: bool, ctx: &Context) -> Result<Outcome> {
    let doc = load(file, ctx)?.doc;
    let c = doc.curation.unwrap_or_default();
    let audit = c.audit.unwrap_or_default();
    let cycles = c.cycles.unwrap_or_default();
    let text = if as_json {
        format!("{}\n", json!({"audit": audit, "cycles": cycles}))
    } else {
        let mut out = String::new();
        for s in &cycles {
            let _ = writeln!(
                out,
                "{}  scanned {}, promoted {}, demoted {}, archived {}, tombstoned {}, purged {}, merged {}, related {}",
                s.id, s.scanned, s.promoted, s.demoted, s.archived, s.tombstoned, s.purged, s.merged, s.related
            );
        }
        for e in &audit {
            let _ = writeln!(
                out,
                "{}  {} {}: {}",
                e.id,
                e.action.name(),
                e.node,
                e.reason
            );
        }
        if out.is_empty() {
            out.push_str("no curation recorded\n");
        }
        out
    };
    write_stdout(text.as_bytes())?;
    Ok(Outcome::Success)
}

pub(crate) fn restore(file: &Path, id: &str, ctx: &Context) -> Result<Outcome> {
    let (mut loaded, indexed) = load_indexed(file, ctx)?;
    let undone = curate::restore(&mut loaded.doc, id)?;
    save_indexed(file, loaded, indexed, &ctx.limits)?;
    say(
        file,
        &format!("restored {} ({} entries)\n", id, undone.len()),
    )?;
    Ok(Outcome::Success)
}

pub(crate) fn tier(cmd: &TierCommand, ctx: &Context) -> Result<Outcome> {
    let (a, direction) = match cmd {
        TierCommand::Promote(a) => (a, Direction::Warmer),
        TierCommand::Demote(a) => (a, Direction::Colder),
    };
    let (mut loaded, indexed) = load_indexed(&a.file, ctx)?;
    let r = curate::move_tier(
        &mut loaded.doc,
        &a.node,
        direction,
        &now_or(&a.now)?,
        &a.reason,
    )?;
    save_indexed(&a.file, loaded, indexed, &ctx.limits)?;
    say(&a.file, &format!("{}: {} ({})\n", r.node, r.reason, r.id))?;
    Ok(Outcome::Success)
}

pub(crate) fn policy(cmd: &PolicyCommand, ctx: &Context) -> Result<Outcome> {
    match cmd {
        PolicyCommand::Show { file, json } => {
            let doc = load(file, ctx)?.doc;
            let p = doc.curation.and_then(|c| c.policy).unwrap_or_default();
            write_stdout(policy_text(&p, *json).as_bytes())?;
        }
        PolicyCommand::Set(a) => {
            let (mut loaded, indexed) = load_indexed(&a.file, ctx)?;
            let curation = loaded.doc.curation.get_or_insert_with(Default::default);
            let p = curation.policy.get_or_insert_with(Default::default);
            set_policy(p, a)?;
            let text = policy_text(p, false);
            save_indexed(&a.file, loaded, indexed, &ctx.limits)?;
            say(&a.file, &text)?;
        }
    }
    Ok(Outcome::Success)
}

fn set_policy(p: &mut Policy, a: &PolicySetArgs) -> std::result::Result<(), Error> {
    for pair in &a.approver {
        let (dept, id) = pair
            .split_once('=')
            .filter(|(d, i)| !d.is_empty() && !i.is_empty())
            .ok_or_else(|| {
                Error::InvalidArgument(format!("--approver `{pair}`: expected DEPARTMENT=ID"))
            })?;
        let list = p
            .approvers
            .get_or_insert_with(Default::default)
            .entry(dept.to_string())
            .or_default();
        if !list.iter().any(|x| x == id) {
            list.push(id.to_string());
        }
    }
    for id in a.executive.iter().filter(|i| !i.is_empty()) {
        let list = p.executives.get_or_insert_with(Vec::new);
        if !list.contains(id) {
            list.push(id.clone());
        }
    }
    for id in &a.revoke {
        for list in p.approvers.iter_mut().flat_map(|m| m.values_mut()) {
            list.retain(|x| x != id);
        }
        if let Some(m) = p.approvers.as_mut() {
            m.retain(|_, l| !l.is_empty());
        }
        if let Some(list) = p.executives.as_mut() {
            list.retain(|x| x != id);
        }
    }
    p.approvers = p.approvers.take().filter(|m| !m.is_empty());
    p.executives = p.executives.take().filter(|l| !l.is_empty());
    p.audit_days = a.audit_days.or(p.audit_days);
    p.tombstone_days = a.tombstone_days.or(p.tombstone_days);
    Ok(())
}

fn policy_text(p: &Policy, as_json: bool) -> String {
    if as_json {
        return format!("{}\n", serde_json::to_value(p).unwrap_or_default());
    }
    let mut out = String::new();
    for (dept, ids) in p.approvers.iter().flatten() {
        let _ = writeln!(out, "departmental approvers of {dept}: {}", ids.join(", "));
    }
    let execs = p.executives.as_deref().unwrap_or_default().join(", ");
    let _ = writeln!(
        out,
        "global approvers (executives): {}",
        if execs.is_empty() { "none" } else { &execs }
    );
    let audit = p.audit_days.unwrap_or(Policy::AUDIT_DAYS);
    let tomb = p.tombstone_days.unwrap_or(Policy::TOMBSTONE_DAYS);
    let _ = writeln!(out, "audit kept {audit} days; tombstones kept {tomb} days");
    out
}

pub(crate) fn knowledge(cmd: &KnowledgeCommand, ctx: &Context) -> Result<Outcome> {
    let KnowledgeCommand::Add(a) = cmd;
    let (mut loaded, indexed) = load_indexed(&a.file, ctx)?;
    let mut k = Knowledge::new(&a.label, &a.content, a.confidence, now_or(&a.now)?);
    k.scope = Some(a.tier.scope());
    k.department = a.department.clone();
    k.approved_by = a.approved_by.clone();
    k.created_by = a.created_by.clone();
    k.knowledge_type = a.knowledge_type.clone();
    k.id = a.id.clone().unwrap_or_default();
    let id = add_knowledge(&mut loaded.doc, k)?;
    let mut said = format!("added {id}\n");
    // Restricted knowledge is never written in the clear: it goes into a sealed
    // section (spec §10.2) in the same write, with the restricted nodes already there.
    if matches!(a.tier, KnowledgeTier::Restricted) {
        let pass = crate::secret::other_passphrase(
            a.seal_passphrase_file.as_deref(),
            "SMG_SEAL_PASSPHRASE",
            true,
        )?;
        let target = smg_format::seal::SealTarget::Tier(Scope::Restricted);
        let iterations = smg_format::crypto::MIN_ITERATIONS;
        let section = smg_format::seal::seal(&mut loaded.doc, target, &pass, iterations)?;
        said = format!("added {id}, sealed in {section}\n");
    }
    save_indexed(&a.file, loaded, indexed, &ctx.limits)?;
    say(&a.file, &said)?;
    Ok(Outcome::Success)
}
