//! A run's issues under fio's flow control (`flow.rs`): slots held back, woken, retried after
//! `flow_sleep`, and a guard against a hang.

use super::*;

impl Run {
    /// A slot of stream `index` was held back by fio's flow control at `at_ns`: it waits for
    /// another job of its flow to issue, or, with `flow_sleep`, for the job's commands in flight
    /// and the sleep after them (`flow.rs`).
    pub(super) fn flow_blocked(&mut self, index: usize, at_ns: Nanoseconds) {
        let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) else { return };
        m.blocked += 1;
        if m.sleep_ns > 0 && !m.sleeping {
            m.sleeping = true;
            if m.outstanding == 0 {
                let until_ns = at_ns.saturating_add(m.sleep_ns);
                self.hold(until_ns, index, Held::FlowRetry);
            }
        }
    }

    /// fio's flow control after an event at `at_ns`: jobs that have ended (issue no more, with
    /// nothing outstanding) leave their flow; the slots held back by it issue as it allows.
    pub(super) fn flow_wake(&mut self, drive: &mut Drive, at_ns: Nanoseconds) -> Result<()> {
        let Some(flows) = self.flows.as_mut() else { return Ok(()) };
        for (index, stream) in self.streams.iter().enumerate() {
            let ended = stream.stopped || self.stopped_issuing;
            if let Some(m) = flows.members[index].as_ref() {
                if m.joined && ended && m.outstanding == 0 {
                    flows.leave(index);
                }
            }
        }
        for index in 0..self.streams.len() {
            loop {
                let Some(flows) = self.flows.as_mut() else { return Ok(()) };
                let Some(m) = flows.members[index].as_mut() else { break };
                if m.blocked == 0 || m.sleeping || !flows.allowed(index) {
                    break;
                }
                if let Some(m) = flows.members[index].as_mut() {
                    m.blocked -= 1;
                }
                self.issue(drive, index, at_ns)?;
            }
        }
        Ok(())
    }

    /// A command of stream `index` completed at `done_ns`: with fio's `flow_sleep`, a job held
    /// back sleeps once its last command in flight is done (fio's `io_u_quiesce`).
    pub(super) fn flow_completed(&mut self, index: usize, done_ns: Nanoseconds) {
        let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) else { return };
        m.outstanding = m.outstanding.saturating_sub(1);
        if m.sleeping && m.outstanding == 0 {
            let until_ns = done_ns.saturating_add(m.sleep_ns);
            self.hold(until_ns, index, Held::FlowRetry);
        }
    }

    /// Nothing is in flight or pending, yet slots are held back by fio's flow control: cannot
    /// happen while a job in a flow is under its share (one always is), so this is a guard
    /// against a hang: such a job leaves its flow and issues. Returns whether any did.
    pub(super) fn flow_unstick(&mut self, drive: &mut Drive) -> Result<bool> {
        if self.stopped_issuing {
            return Ok(false);
        }
        let Some(flows) = self.flows.as_mut() else { return Ok(false) };
        let stuck: Vec<(usize, u32)> =
            flows.members.iter().enumerate().filter_map(|(i, m)| m.as_ref().filter(|m| m.blocked > 0).map(|m| (i, m.blocked))).collect();
        debug_assert!(stuck.is_empty(), "flow control held back every job: {stuck:?}");
        for &(index, _) in &stuck {
            flows.leave(index);
            if let Some(m) = flows.members[index].as_mut() {
                m.blocked = 0;
                m.sleeping = false;
            }
        }
        let at_ns = self.last_done_ns.max(self.now_ns);
        for (index, blocked) in &stuck {
            for _ in 0..*blocked {
                self.issue(drive, *index, at_ns)?;
            }
        }
        Ok(!stuck.is_empty())
    }

    /// A job held back with `flow_sleep` wakes at `at_ns` and tries its held slots again.
    pub(super) fn flow_retry(&mut self, drive: &mut Drive, index: usize, at_ns: Nanoseconds) -> Result<()> {
        let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) else { return Ok(()) };
        m.sleeping = false;
        let mut left = std::mem::take(&mut m.blocked);
        while left > 0 {
            left -= 1;
            self.issue(drive, index, at_ns)?;
            if self.flows.as_ref().and_then(|f| f.members[index].as_ref()).is_some_and(|m| m.sleeping) {
                // Held back again: the rest wait with it.
                if let Some(m) = self.flows.as_mut().and_then(|f| f.members[index].as_mut()) {
                    m.blocked += left;
                }
                break;
            }
        }
        Ok(())
    }
}
