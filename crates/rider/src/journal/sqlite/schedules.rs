//! [`ScheduleBook`] on SQLite: the `schedules` and `schedule_firings` tables (schema 5).
//! A journal of an older version opened read-only has neither: it has no schedules.

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::SqliteJournal;
use crate::journal::JournalError;
use crate::journal::schedules::{FiringRecord, FiringState, ScheduleBook, ScheduleRecord};
use crate::journal::store::JournalStore;

const SCHEDULE_COLUMNS: &str = "name, flow, tools, cron, time_zone, inputs, overlap, catch_up, \
     notify, paused, active_since_ms, created_at_ms";
const FIRING_COLUMNS: &str =
    "schedule, slot_ms, run_id, state, worker, claimed_at_ms, updated_at_ms, detail, manual";

/// Whether the journal has the schedule tables (a read-only journal of version 4 or older
/// has not).
fn has_schedules(conn: &Connection) -> rusqlite::Result<bool> {
    conn.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schedules'")?
        .exists([])
}

impl SqliteJournal {
    fn unknown_schedule(&self, name: &str) -> JournalError {
        JournalError::UnknownSchedule {
            journal: self.describe(),
            name: name.to_owned(),
        }
    }

    fn schedule_row(&self, row: &Row<'_>) -> rusqlite::Result<Result<ScheduleRecord, String>> {
        let name: String = row.get(0)?;
        let list = |text: String, what: &str| {
            serde_json::from_str::<Vec<String>>(&text)
                .map_err(|e| format!("schedule `{name}`: its {what} do not read back: {e}"))
        };
        let tools = list(row.get(2)?, "tool folders");
        let inputs = list(row.get(5)?, "inputs");
        Ok((|| {
            Ok(ScheduleRecord {
                name: name.clone(),
                flow: row.get(1).map_err(|e| e.to_string())?,
                tools: tools?,
                cron: row.get(3).map_err(|e| e.to_string())?,
                time_zone: row.get(4).map_err(|e| e.to_string())?,
                inputs: inputs?,
                overlap: row.get(6).map_err(|e| e.to_string())?,
                catch_up: row.get(7).map_err(|e| e.to_string())?,
                notify: row.get(8).map_err(|e| e.to_string())?,
                paused: row.get::<_, i64>(9).map_err(|e| e.to_string())? != 0,
                active_since_ms: row.get(10).map_err(|e| e.to_string())?,
                created_at_ms: row.get(11).map_err(|e| e.to_string())?,
            })
        })())
    }

    fn firing_row(row: &Row<'_>) -> rusqlite::Result<Result<FiringRecord, String>> {
        let state: String = row.get(3)?;
        let Some(state) = FiringState::parse(&state) else {
            return Ok(Err(format!("a firing has the unknown state `{state}`")));
        };
        Ok(Ok(FiringRecord {
            schedule: row.get(0)?,
            slot_ms: row.get(1)?,
            run_id: row.get(2)?,
            state,
            worker: row.get(4)?,
            claimed_at_ms: row.get(5)?,
            updated_at_ms: row.get(6)?,
            detail: row.get(7)?,
            manual: row.get::<_, i64>(8)? != 0,
        }))
    }

    fn read_schedules(&self, name: Option<&str>) -> Result<Vec<ScheduleRecord>, JournalError> {
        let conn = self.lock();
        let read = self.sqlite_error("cannot read the schedules");
        if !has_schedules(&conn).map_err(&read)? {
            return Ok(Vec::new());
        }
        let mut statement = conn
            .prepare(&format!(
                "SELECT {SCHEDULE_COLUMNS} FROM schedules WHERE ?1 IS NULL OR name = ?1 ORDER BY name"
            ))
            .map_err(&read)?;
        let rows = statement
            .query_map([name], |row| self.schedule_row(row))
            .map_err(&read)?;
        let mut schedules = Vec::new();
        for row in rows {
            schedules.push(row.map_err(&read)?.map_err(|m| self.corrupt(m))?);
        }
        Ok(schedules)
    }

    fn read_firings(
        &self,
        filter: &str,
        schedule: Option<&str>,
        limit: usize,
    ) -> Result<Vec<FiringRecord>, JournalError> {
        let conn = self.lock();
        let read = self.sqlite_error("cannot read the schedule firings");
        if !has_schedules(&conn).map_err(&read)? {
            return Ok(Vec::new());
        }
        let mut statement = conn
            .prepare(&format!(
                "SELECT {FIRING_COLUMNS} FROM schedule_firings WHERE {filter} \
                 ORDER BY slot_ms DESC LIMIT ?2"
            ))
            .map_err(&read)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = statement
            .query_map(params![schedule, limit], Self::firing_row)
            .map_err(&read)?;
        let mut firings = Vec::new();
        for row in rows {
            firings.push(row.map_err(&read)?.map_err(|m| self.corrupt(m))?);
        }
        Ok(firings)
    }
}

impl ScheduleBook for SqliteJournal {
    fn add_schedule(&self, s: &ScheduleRecord) -> Result<(), JournalError> {
        let conn = self.lock();
        let tools = serde_json::to_string(&s.tools).unwrap_or_else(|_| "[]".to_owned());
        let inputs = self.text(&serde_json::to_string(&s.inputs).unwrap_or_else(|_| "[]".into()));
        conn.execute(
            &format!(
                "INSERT INTO schedules ({SCHEDULE_COLUMNS}) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
            ),
            params![
                s.name,
                s.flow,
                tools,
                s.cron,
                s.time_zone,
                inputs,
                s.overlap,
                s.catch_up,
                s.notify,
                i64::from(s.paused),
                s.active_since_ms,
                s.created_at_ms
            ],
        )
        .map_err(|e| match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::ConstraintViolation) => JournalError::ScheduleExists {
                journal: self.describe(),
                name: s.name.clone(),
            },
            _ => self.sqlite_error("cannot record the schedule")(e),
        })?;
        Ok(())
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
        let conn = self.lock();
        let changed = if paused {
            conn.execute(
                "UPDATE schedules SET paused = 1 WHERE name = ?1",
                params![name],
            )
        } else {
            // Resuming a running schedule changes nothing: its slots since it was last
            // resumed stay due.
            conn.execute(
                "UPDATE schedules SET paused = 0, \
                 active_since_ms = CASE WHEN paused = 1 THEN ?2 ELSE active_since_ms END \
                 WHERE name = ?1",
                params![name, now_ms],
            )
        }
        .map_err(self.sqlite_error("cannot change the schedule"))?;
        if changed == 0 {
            return Err(self.unknown_schedule(name));
        }
        Ok(())
    }

    fn remove_schedule(&self, name: &str) -> Result<(), JournalError> {
        let mut conn = self.lock();
        let write = self.sqlite_error("cannot remove the schedule");
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&write)?;
        let removed = tx
            .execute("DELETE FROM schedules WHERE name = ?1", [name])
            .map_err(&write)?;
        if removed == 0 {
            return Err(self.unknown_schedule(name));
        }
        tx.execute("DELETE FROM schedule_firings WHERE schedule = ?1", [name])
            .map_err(&write)?;
        tx.commit().map_err(&write)
    }

    fn claim_firing(&self, f: &FiringRecord) -> Result<bool, JournalError> {
        let conn = self.lock();
        let inserted = conn
            .execute(
                &format!(
                    "INSERT OR IGNORE INTO schedule_firings ({FIRING_COLUMNS}) \
                     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 \
                     WHERE EXISTS (SELECT 1 FROM schedules WHERE name = ?1)"
                ),
                params![
                    f.schedule,
                    f.slot_ms,
                    f.run_id,
                    f.state.as_str(),
                    f.worker,
                    f.claimed_at_ms,
                    f.updated_at_ms,
                    f.detail.as_deref().map(|d| self.text(d)),
                    i64::from(f.manual)
                ],
            )
            .map_err(self.sqlite_error("cannot claim the schedule's slot"))?;
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
        let conn = self.lock();
        conn.execute(
            "UPDATE schedule_firings SET state = ?3, detail = ?4, updated_at_ms = ?5 \
             WHERE schedule = ?1 AND slot_ms = ?2",
            params![
                schedule,
                slot_ms,
                state.as_str(),
                detail.map(|d| self.text(d)),
                now_ms
            ],
        )
        .map_err(self.sqlite_error("cannot record what became of the firing"))?;
        Ok(())
    }

    fn last_slot(&self, schedule: &str) -> Result<Option<i64>, JournalError> {
        let conn = self.lock();
        let read = self.sqlite_error("cannot read the schedule firings");
        if !has_schedules(&conn).map_err(&read)? {
            return Ok(None);
        }
        conn.query_row(
            "SELECT MAX(slot_ms) FROM schedule_firings WHERE schedule = ?1 AND manual = 0",
            [schedule],
            |r| r.get::<_, Option<i64>>(0),
        )
        .optional()
        .map(Option::flatten)
        .map_err(read)
    }

    fn firings(&self, schedule: &str, limit: usize) -> Result<Vec<FiringRecord>, JournalError> {
        self.read_firings("schedule = ?1", Some(schedule), limit)
    }

    fn running_firings(&self) -> Result<Vec<FiringRecord>, JournalError> {
        self.read_firings("state = 'running' AND ?1 IS NULL", None, usize::MAX)
    }
}
