//! fio's token-based flow control between the jobs of a group (`flow`, `flow_id`,
//! `flow_sleep`; fio's `flow.c` and its use in `backend.c`'s job loop).
//!
//! The jobs of one `flow_id` share a counter, which starts at 1; before each command a job
//! checks that its own count over the shared one is at most its weight over the flow's total
//! weight (`flow_threshold_exceeded`). When it is, the job counts one more command in both and
//! goes on; when it is not, the job does not issue: without `flow_sleep` it tries again as soon
//! as another job of its flow has issued (fio's job spins on the check), with `flow_sleep` it
//! waits for its own commands in flight, sleeps, and tries again then. A job that ends takes its
//! count and weight out of the flow (`flow_exit_job`), once its last commands have completed.

use ssdlab_workload::Flow;

/// One flow: the shared counter and the weights of the jobs in it.
#[derive(Debug)]
struct Counter {
    id: u32,
    /// fio's `flow->flow_counter`: 1, plus every command counted by its jobs still in it.
    count: u64,
    /// fio's `flow->total_weight`: the weights of its jobs still in it, added as fio adds them
    /// (an unsigned int: a negative `flow`, wrapped to a huge weight, wraps the total too).
    total_weight: u32,
}

/// A job's place in its flow.
#[derive(Debug)]
pub(super) struct Member {
    flow: usize,
    weight: u32,
    /// fio's `td->flow_counter`: the job's commands counted.
    count: u64,
    /// fio's `flow_sleep`, ns.
    pub sleep_ns: u64,
    /// Slots of the job held back by the flow, waiting to issue.
    pub blocked: u32,
    /// The job is waiting for its commands in flight, or sleeping (fio's `flow_sleep`); it
    /// does not try again until its retry.
    pub sleeping: bool,
    /// The job's commands in the drive or the host's queue (what fio's quiesce waits for).
    pub outstanding: u32,
    /// Still in the flow (a job leaves it at its end).
    pub joined: bool,
}

/// The flows of a run's group, and each job's place in them.
#[derive(Debug)]
pub(super) struct Flows {
    counters: Vec<Counter>,
    /// By stream index: the job's place in its flow, if it has a `flow` weight.
    pub members: Vec<Option<Member>>,
}

impl Flows {
    /// The flows of the jobs of a group (their `flow` in stream order), `None` when no job has
    /// one.
    pub fn new<'a>(jobs: impl Iterator<Item = Option<&'a Flow>>) -> Option<Self> {
        let mut counters: Vec<Counter> = Vec::new();
        let mut members = Vec::new();
        for flow in jobs {
            members.push(flow.map(|f| {
                let index = match counters.iter().position(|c| c.id == f.id) {
                    Some(i) => i,
                    None => {
                        counters.push(Counter { id: f.id, count: 1, total_weight: 0 });
                        counters.len() - 1
                    }
                };
                counters[index].total_weight = counters[index].total_weight.wrapping_add(f.weight);
                Member { flow: index, weight: f.weight, count: 0, sleep_ns: f.sleep_ns, blocked: 0, sleeping: false, outstanding: 0, joined: true }
            }));
        }
        (!counters.is_empty()).then_some(Self { counters, members })
    }

    /// Whether job `index` may issue now (fio's check, without counting).
    pub fn allowed(&self, index: usize) -> bool {
        let Some(m) = self.members[index].as_ref().filter(|m| m.joined) else { return true };
        let c = &self.counters[m.flow];
        // count / flow count > weight / total weight, in integers (the flow's count is above 0;
        // a total of 0, fio's weight / 0 = infinity, holds nothing back).
        (m.count as u128) * (c.total_weight as u128) <= (m.weight as u128) * (c.count as u128)
    }

    /// fio's `flow_threshold_exceeded` for job `index` about to issue: when allowed, count the
    /// command in the job and its flow and return true; otherwise false (the caller holds the
    /// slot back).
    pub fn pass(&mut self, index: usize) -> bool {
        // A job sleeping after being held back (fio's flow_sleep) issues nothing.
        if !self.allowed(index) || self.members[index].as_ref().is_some_and(|m| m.joined && m.sleeping) {
            return false;
        }
        if let Some(m) = self.members[index].as_mut().filter(|m| m.joined) {
            m.count += 1;
            self.counters[m.flow].count += 1;
        }
        true
    }

    /// Job `index` ended: its count and weight leave its flow (fio's `flow_exit_job`).
    pub fn leave(&mut self, index: usize) {
        let Some(m) = self.members[index].as_mut().filter(|m| m.joined) else { return };
        m.joined = false;
        let c = &mut self.counters[m.flow];
        c.count -= m.count;
        c.total_weight = c.total_weight.wrapping_sub(m.weight);
    }

    /// The command counts of job `index` and of its flow (for tests and reports).
    #[cfg(test)]
    fn counts(&self, index: usize) -> (u64, u64) {
        let m = self.members[index].as_ref().expect("member");
        (m.count, self.counters[m.flow].count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(id: u32, weight: u32) -> Flow {
        Flow { id, weight, sleep_ns: 0 }
    }

    #[test]
    fn jobs_issue_in_proportion_to_their_weights_as_fio_counts() {
        let (a, b) = (flow(0, 1), flow(0, 8));
        let mut flows = Flows::new([Some(&a), Some(&b)].into_iter()).unwrap();
        // Both always ready: each turn, every job that may issue does (job order).
        let mut issued = [0u64; 2];
        for _ in 0..9_000 {
            for (index, n) in issued.iter_mut().enumerate() {
                if flows.pass(index) {
                    *n += 1;
                }
            }
        }
        assert_eq!(flows.counts(1).1, 1 + issued[0] + issued[1]);
        let ratio = issued[1] as f64 / issued[0] as f64;
        assert!((ratio - 8.0).abs() / 8.0 < 0.01, "{issued:?}");
    }

    #[test]
    fn a_job_that_leaves_frees_the_others_and_other_ids_are_apart() {
        let (a, b, c) = (flow(0, 1), flow(0, 1), flow(7, 1));
        let mut flows = Flows::new([Some(&a), Some(&b), Some(&c), None].into_iter()).unwrap();
        // Job 0 alone issues: after one command its share (1/2) is above its weight's (1/2)? no:
        // 1/2 <= 1/2 allows a second; then 2/3 > 1/2 holds it.
        assert!(flows.pass(0) && flows.pass(0) && !flows.pass(0));
        // Job 2 has a flow of its own, job 3 none: neither is held.
        assert!((0..100).all(|_| flows.pass(2) && flows.pass(3)));
        flows.leave(1);
        assert!(flows.pass(0) && flows.counts(0) == (3, 4));
    }

    #[test]
    fn weights_of_2_and_minus_2_hold_nothing_back_as_in_fio_3_33() {
        // fio's butterfly.fio: `flow=2` and `flow=-2`, the second wrapped to 2^32 - 2 in fio's
        // unsigned int; the total wraps to 0, so neither job waits (fio 3.33 with a rate limit on
        // one job: the other finishes at once; with 2 and 2 it is paced by the first).
        let (a, b) = (flow(0, 2), flow(0, 2u32.wrapping_neg()));
        let mut flows = Flows::new([Some(&a), Some(&b)].into_iter()).unwrap();
        assert!((0..1000).all(|_| flows.pass(0)), "job 0 alone is not held");
        assert!((0..1000).all(|_| flows.pass(1)));
        // Once one leaves, the other is alone in the flow (its weight is the total).
        flows.leave(0);
        assert!((0..1000).all(|_| flows.pass(1)));
        let (a, b) = (flow(0, 2), flow(0, 2));
        let mut paced = Flows::new([Some(&a), Some(&b)].into_iter()).unwrap();
        assert!(!(0..1000).all(|_| paced.pass(0)), "equal positive weights pace job 0");
    }
}
