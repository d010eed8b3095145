//! fio's token-based flow control between the jobs of a group (`flow`, `flow_id`,
//! `flow_sleep`): jobs of one flow issue in proportion to their weights.

mod common;

use ssdlab_drive::RunSummary;

/// Run a job file's first group on the small drive with 64 MiB written.
fn run_file(text: &str) -> RunSummary {
    common::run_job_file(text, 7)
}

/// fio's flow.fio example on the small drive: a writer of weight 1 beside a random reader of
/// weight 8 (`sleep`: its `flow_sleep`, or none).
fn example(sleep: &str, extra: &str) -> String {
    format!("[global]\ntime_based\nruntime=10\niodepth=16\nsize=64m\nbs=8k\n{sleep}\n[job2]\nrw=write\nflow=1\n{extra}\n[job1]\nrw=randread\nflow=8\n")
}

#[test]
fn jobs_of_a_flow_issue_in_proportion_to_their_weights() {
    for sleep in ["", "flow_sleep=1000"] {
        let s = run_file(&example(sleep, ""));
        let ratio = s.reads as f64 / s.writes as f64;
        // fio's example: "roughly a 1:8 difference between job2 and job1".
        assert!((ratio - 8.0).abs() <= 0.08, "{sleep}: {} reads, {} writes: {ratio}", s.reads, s.writes);
        assert!(s.writes > 1000, "{} writes", s.writes);
    }
    // Without flow the reader, faster on this drive, is nowhere near 8 to 1.
    let free = run_file(&example("", "").replace("flow=1\n", "").replace("flow=8\n", ""));
    let ratio = free.reads as f64 / free.writes as f64;
    assert!((ratio - 8.0).abs() > 1.0, "{ratio}");
}

#[test]
fn jobs_of_different_flows_or_without_a_weight_run_as_without_flow() {
    let free = run_file(&example("", "").replace("flow=1\n", "").replace("flow=8\n", ""));
    // Each job alone in its flow_id: always within its share.
    let apart = run_file(&example("", "flow_id=3").replace("flow=8\n", "flow=8\nflow_id=4\n"));
    assert_eq!(apart, free);
    // flow=0 is fio's default: no flow control (flow_id and flow_sleep then do nothing).
    let zero = run_file(&example("flow_sleep=500", "").replace("flow=1\n", "flow=0\nflow_id=2\n").replace("flow=8\n", ""));
    assert_eq!(zero, free);
}

#[test]
fn a_job_that_ends_leaves_its_flow() {
    // The writer ends after 200 commands; the reader, held to 8 per write while the writer runs,
    // then reads freely (fio's flow_exit_job takes the writer's count and weight out).
    let s = run_file(&example("", "number_ios=200\ntime_based=0"));
    assert_eq!(s.writes, 200);
    assert!(s.reads > 20 * 8 * 200, "{} reads", s.reads);
}
