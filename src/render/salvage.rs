//! The salvage report as text or as one JSON object per partition.

use std::io::{self, Write};

use serde_json::{Value, json};

use super::OutputFormat;
use crate::inspect::recovery::salvage::report::{Kept, LostOffsets};
use crate::inspect::recovery::salvage::{CutCost, Damage, SalvageReport};
use crate::logdir::file_name::segment_file_name;

/// Writes `report` in `format`.
pub fn write_report(
    out: &mut impl Write,
    report: &SalvageReport,
    format: OutputFormat,
) -> io::Result<()> {
    match format {
        OutputFormat::Text => write_text(out, report),
        OutputFormat::Json => {
            serde_json::to_writer(&mut *out, &report_json(report))?;
            writeln!(out)
        }
    }
}

fn segment_name(base: i64) -> String {
    segment_file_name(base, "log")
}

fn lost_text(lost: &LostOffsets) -> String {
    match (lost.last, lost.count()) {
        (_, Some(0)) => "no offsets lost".to_string(),
        (Some(last), Some(n)) if last == lost.first => format!("offset {last} lost ({n} offset)"),
        (Some(last), Some(n)) => format!("offsets {}..{last} lost ({n} offsets)", lost.first),
        _ => format!(
            "offsets from {} on lost (nothing after the range tells how many)",
            lost.first
        ),
    }
}

fn kept_text(kept: &Kept) -> String {
    match kept.offsets {
        None => "nothing".to_string(),
        Some((first, last)) => format!(
            "{} {}, {} {}, offsets {first}..{last}",
            kept.batches,
            plural(kept.batches, "batch", "batches"),
            kept.records,
            plural(kept.records, "record", "records"),
        ),
    }
}

fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// Writes one line per damaged range of `report`, each under `prefix`
/// (what `export --salvage` prints on stderr: what it read past).
pub fn write_damages(out: &mut impl Write, report: &SalvageReport, prefix: &str) -> io::Result<()> {
    for segment in &report.segments {
        for d in &segment.damages {
            writeln!(
                out,
                "{prefix}{}/{}: {}",
                report.partition,
                segment_name(segment.base_offset),
                damage_text(d)
            )?;
        }
    }
    Ok(())
}

fn damage_text(d: &Damage) -> String {
    format!(
        "bytes {}..{} damaged ({} bytes; {}): {}; kept after it: {}",
        d.start,
        d.end,
        d.end - d.start,
        d.why,
        lost_text(&d.lost),
        kept_text(&d.kept_after)
    )
}

fn write_text(out: &mut impl Write, report: &SalvageReport) -> io::Result<()> {
    let damages: usize = report.segments.iter().map(|s| s.damages.len()).sum();
    let records: u64 = report.segments.iter().map(|s| s.kept.records).sum();
    writeln!(
        out,
        "{}: {} segments, {records} records kept, {damages} damaged {}",
        report.partition,
        report.segments.len(),
        plural(damages as u64, "range", "ranges")
    )?;
    for segment in &report.segments {
        for d in &segment.damages {
            writeln!(
                out,
                "  {}: {}",
                segment_name(segment.base_offset),
                damage_text(d)
            )?;
        }
    }
    if let Some(cut) = report.kafka_cut() {
        let deleted = if cut.deleted_segments.is_empty() {
            "deletes no later segment".to_string()
        } else {
            format!(
                "deletes segments {:?} ({} bytes)",
                cut.deleted_segments, cut.deleted_bytes
            )
        };
        writeln!(
            out,
            "  Kafka's recovery, when it reaches segment {} (after an unclean shutdown, from the recovery point on; see `kseg verify`), truncates it at byte {} and {deleted}; salvaging keeps the {} records past that point",
            cut.segment, cut.position, cut.records_kept_past_cut
        )?;
    }
    Ok(())
}

fn kept_json(kept: &Kept) -> Value {
    json!({
        "batches": kept.batches,
        "records": kept.records,
        "firstOffset": kept.offsets.map(|o| o.0),
        "lastOffset": kept.offsets.map(|o| o.1),
    })
}

fn report_json(report: &SalvageReport) -> Value {
    let segments: Vec<Value> = report
        .segments
        .iter()
        .map(|s| {
            let damages: Vec<Value> = s
                .damages
                .iter()
                .map(|d| {
                    json!({
                        "start": d.start,
                        "end": d.end,
                        "length": d.end - d.start,
                        "reason": d.why.to_string(),
                        "lostFirstOffset": d.lost.first,
                        "lostLastOffset": d.lost.last,
                        "lostOffsets": d.lost.count(),
                        "keptAfter": kept_json(&d.kept_after),
                    })
                })
                .collect();
            json!({
                "baseOffset": s.base_offset,
                "file": s.file.display().to_string(),
                "size": s.size,
                "kept": kept_json(&s.kept),
                "damages": damages,
            })
        })
        .collect();
    let cut = report.kafka_cut().map(|c| {
        json!({
            "segment": c.segment,
            "position": c.position,
            "deletedSegments": c.deleted_segments,
            "deletedBytes": c.deleted_bytes,
            "recordsKeptPastCut": c.records_kept_past_cut,
        })
    });
    json!({
        "type": "salvage",
        "partition": report.partition,
        "clean": report.is_clean(),
        "segments": segments,
        "kafkaCut": cut,
    })
}

/// Writes, loudly, what keeping the data after the cuts costs (as one
/// `"type": "salvageCost"` object in JSON).
pub fn write_cost(
    out: &mut impl Write,
    partition: &str,
    cost: &CutCost,
    format: OutputFormat,
) -> io::Result<()> {
    if format == OutputFormat::Json {
        let value = json!({
            "type": "salvageCost",
            "partition": partition,
            "openTransactions": cost.open_transactions.iter().map(|t| json!({
                "producerId": t.producer_id,
                "producerEpoch": t.producer_epoch,
                "firstOffset": t.first_offset,
                "endedBy": t.ended_by,
            })).collect::<Vec<_>>(),
            "sequenceGaps": cost.sequence_gaps.iter().map(|g| json!({
                "producerId": g.producer_id,
                "epochBefore": g.before.0,
                "lastSequenceBefore": g.before.1,
                "epochAfter": g.after.0,
                "firstSequenceAfter": g.after.1,
                "offsetAfter": g.offset_after,
            })).collect::<Vec<_>>(),
            "epochsStartingInCuts": cost.epochs_starting_in_cuts,
        });
        serde_json::to_writer(&mut *out, &value)?;
        return writeln!(out);
    }
    for t in &cost.open_transactions {
        let fate = match t.ended_by {
            Some(marker) => format!(
                "the producer's next marker, at offset {marker}, now ends everything from offset {}: if the cut held this transaction's own marker, its records take that marker's outcome",
                t.first_offset
            ),
            None => format!(
                "no marker follows: it holds the last stable offset at {0} and read_committed consumers stop there. Fix: `kafka-transactions.sh --bootstrap-server … abort --topic <topic> --partition <n> --start-offset {0}`",
                t.first_offset
            ),
        };
        writeln!(
            out,
            "  WARNING {partition}: producer {} (epoch {}) has a transaction from offset {} that spans a cut, so its COMMIT or ABORT marker may have been cut; {fate}",
            t.producer_id, t.producer_epoch, t.first_offset
        )?;
    }
    for g in &cost.sequence_gaps {
        writeln!(
            out,
            "  WARNING {partition}: producer {} resumes at epoch {} sequence {} (offset {}) after a cut; before it, it was at epoch {} sequence {}: the records in between are gone, and Kafka will not notice",
            g.producer_id, g.after.0, g.after.1, g.offset_after, g.before.0, g.before.1
        )?;
    }
    for e in &cost.epochs_starting_in_cuts {
        writeln!(
            out,
            "  WARNING {partition}: leader epoch {} starts at offset {}, which was cut; the leader-epoch-checkpoint entry is kept as it is (as after compaction, the epoch begins in the gap)",
            e.epoch, e.start_offset
        )?;
    }
    Ok(())
}
