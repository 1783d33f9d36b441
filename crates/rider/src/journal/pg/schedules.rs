//! [`ScheduleBook`] on PostgreSQL: the `schedules` and `schedule_firings` tables. The claim of
//! a slot is one `INSERT … ON CONFLICT DO NOTHING`: of any number of workers on any hosts,
//! exactly one inserts the row of a (schedule, slot).

use postgres::Row;

use super::{PgJournal, is_unique_violation};
use crate::journal::JournalError;
use crate::journal::schedules::{FiringRecord, FiringState, ScheduleBook, ScheduleRecord};
use crate::journal::store::JournalStore;

const SCHEDULE_COLUMNS: &str = "name, flow, tools, cron, time_zone, inputs, overlap, catch_up, \
     notify, paused, active_since_ms, created_at_ms";
const FIRING_COLUMNS: &str =
    "schedule, slot_ms, run_id, state, worker, claimed_at_ms, updated_at_ms, detail, manual";

impl PgJournal {
    fn unknown_schedule(&self, name: &str) -> JournalError {
        JournalError::UnknownSchedule {
            journal: self.describe(),
            name: name.to_owned(),
        }
    }

    fn schedule_row(&self, row: &Row) -> Result<ScheduleRecord, JournalError> {
        let name: String = row.get(0);
        let list = |text: &str, what: &str| {
            serde_json::from_str::<Vec<String>>(text).map_err(|e| {
                self.corrupt(format!(
                    "schedule `{name}`: its {what} do not read back: {e}"
                ))
            })
        };
        Ok(ScheduleRecord {
            tools: list(row.get(2), "tool folders")?,
            inputs: list(row.get(5), "inputs")?,
            name: name.clone(),
            flow: row.get(1),
            cron: row.get(3),
            time_zone: row.get(4),
            overlap: row.get(6),
            catch_up: row.get(7),
            notify: row.get(8),
            paused: row.get(9),
            active_since_ms: row.get(10),
            created_at_ms: row.get(11),
        })
    }

    fn firing_row(&self, row: &Row) -> Result<FiringRecord, JournalError> {
        let state: String = row.get(3);
        let Some(state) = FiringState::parse(&state) else {
            return Err(self.corrupt(format!("a firing has the unknown state `{state}`")));
        };
        Ok(FiringRecord {
            schedule: row.get(0),
            slot_ms: row.get(1),
            run_id: row.get(2),
            state,
            worker: row.get(4),
            claimed_at_ms: row.get(5),
            updated_at_ms: row.get(6),
            detail: row.get(7),
            manual: row.get(8),
        })
    }

    fn read_schedules(&self, name: Option<&str>) -> Result<Vec<ScheduleRecord>, JournalError> {
        self.with_client(|client| {
            client
                .query(
                    &format!(
                        "SELECT {SCHEDULE_COLUMNS} FROM schedules
                         WHERE $1::TEXT IS NULL OR name = $1 ORDER BY name"
                    ),
                    &[&name],
                )
                .map_err(self.pg_error("cannot read the schedules"))?
                .iter()
                .map(|row| self.schedule_row(row))
                .collect()
        })
    }

    fn read_firings(
        &self,
        filter: &str,
        schedule: Option<&str>,
        limit: usize,
    ) -> Result<Vec<FiringRecord>, JournalError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.with_client(|client| {
            client
                .query(
                    &format!(
                        "SELECT {FIRING_COLUMNS} FROM schedule_firings WHERE {filter}
                         ORDER BY slot_ms DESC LIMIT $2"
                    ),
                    &[&schedule, &limit],
                )
                .map_err(self.pg_error("cannot read the schedule firings"))?
                .iter()
                .map(|row| self.firing_row(row))
                .collect()
        })
    }
}

impl ScheduleBook for PgJournal {
    fn add_schedule(&self, s: &ScheduleRecord) -> Result<(), JournalError> {
        let tools = serde_json::to_string(&s.tools).unwrap_or_else(|_| "[]".to_owned());
        let inputs = self.text(&serde_json::to_string(&s.inputs).unwrap_or_else(|_| "[]".into()));
        self.with_client(|client| {
            client
                .execute(
                    &format!(
                        "INSERT INTO schedules ({SCHEDULE_COLUMNS})
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
                    ),
                    &[
                        &s.name,
                        &s.flow,
                        &tools,
                        &s.cron,
                        &s.time_zone,
                        &inputs,
                        &s.overlap,
                        &s.catch_up,
                        &s.notify,
                        &s.paused,
                        &s.active_since_ms,
                        &s.created_at_ms,
                    ],
                )
                .map_err(|e| {
                    if is_unique_violation(&e) {
                        JournalError::ScheduleExists {
                            journal: self.describe(),
                            name: s.name.clone(),
                        }
                    } else {
                        self.pg_error("cannot record the schedule")(e)
                    }
                })?;
            Ok(())
        })
    }

    fn schedules(&self) -> Result<Vec<ScheduleRecord>, JournalError> {
        self.read_schedules(None)
    }

    fn schedule(&self, name: &str) -> Result<ScheduleRecord, JournalError> {
        self.read_schedules(Some(name))?
            .pop()
            .ok_or_else(|| self.unknown_schedule(name))
    }

    fn set_paused(&self, name: &str, paused: bool, now_ms: i64) -> Result<(), JournalError> {
        let changed = self.with_client(|client| {
            if paused {
                client.execute(
                    "UPDATE schedules SET paused = TRUE WHERE name = $1",
                    &[&name],
                )
            } else {
                // Resuming a running schedule changes nothing: its slots since it was last
                // resumed stay due.
                client.execute(
                    "UPDATE schedules SET paused = FALSE,
                         active_since_ms = CASE WHEN paused THEN $2 ELSE active_since_ms END
                     WHERE name = $1",
                    &[&name, &now_ms],
                )
            }
            .map_err(self.pg_error("cannot change the schedule"))
        })?;
        if changed == 0 {
            return Err(self.unknown_schedule(name));
        }
        Ok(())
    }

    fn remove_schedule(&self, name: &str) -> Result<(), JournalError> {
        self.with_client(|client| {
            let write = self.pg_error("cannot remove the schedule");
            let mut tx = client.transaction().map_err(&write)?;
            let removed = tx
                .execute("DELETE FROM schedules WHERE name = $1", &[&name])
                .map_err(&write)?;
            if removed == 0 {
                return Err(self.unknown_schedule(name));
            }
            tx.execute("DELETE FROM schedule_firings WHERE schedule = $1", &[&name])
                .map_err(&write)?;
            tx.commit().map_err(&write)
        })
    }

    fn claim_firing(&self, f: &FiringRecord) -> Result<bool, JournalError> {
        let detail = f.detail.as_deref().map(|d| self.text(d));
        let inserted = self.with_client(|client| {
            client
                .execute(
                    &format!(
                        "INSERT INTO schedule_firings ({FIRING_COLUMNS})
                         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9
                         WHERE EXISTS (SELECT 1 FROM schedules WHERE name = $1)
                         ON CONFLICT (schedule, slot_ms) DO NOTHING"
                    ),
                    &[
                        &f.schedule,
                        &f.slot_ms,
                        &f.run_id,
                        &f.state.as_str(),
                        &f.worker,
                        &f.claimed_at_ms,
                        &f.updated_at_ms,
                        &detail,
                        &f.manual,
                    ],
                )
                .map_err(self.pg_error("cannot claim the schedule's slot"))
        })?;
        Ok(inserted == 1)
    }

    fn set_firing_state(
        &self,
        schedule: &str,
        slot_ms: i64,
        state: FiringState,
        detail: Option<&str>,
        now_ms: i64,
    ) -> Result<(), JournalError> {
        let detail = detail.map(|d| self.text(d));
        self.with_client(|client| {
            client
                .execute(
                    "UPDATE schedule_firings SET state = $3, detail = $4, updated_at_ms = $5
                     WHERE schedule = $1 AND slot_ms = $2",
                    &[&schedule, &slot_ms, &state.as_str(), &detail, &now_ms],
                )
                .map_err(self.pg_error("cannot record what became of the firing"))?;
            Ok(())
        })
    }

    fn last_slot(&self, schedule: &str) -> Result<Option<i64>, JournalError> {
        self.with_client(|client| {
            Ok(client
                .query_one(
                    "SELECT MAX(slot_ms) FROM schedule_firings
                     WHERE schedule = $1 AND NOT manual",
                    &[&schedule],
                )
                .map_err(self.pg_error("cannot read the schedule firings"))?
                .get(0))
        })
    }

    fn firings(&self, schedule: &str, limit: usize) -> Result<Vec<FiringRecord>, JournalError> {
        self.read_firings("schedule = $1", Some(schedule), limit)
    }

    fn running_firings(&self) -> Result<Vec<FiringRecord>, JournalError> {
        self.read_firings("state = 'running' AND $1::TEXT IS NULL", None, usize::MAX)
    }
}
