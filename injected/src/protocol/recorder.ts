// The recorder's messages to Rust (through the `__bflow_record` binding, as JSON): one type,
// tagged by `type`. The Rust types are the source of truth (browserflow-record's `protocol.rs`,
// read with `deny_unknown_fields`); their TypeScript mirror is generated from them with ts-rs
// into `generated/` (browserflow-record's `protocol::bindings` test fails when it is stale), so
// `tsc --strict` holds the recorder to exactly what Rust reads. This module only names the
// shapes the recorder builds before `send` and `emit` complete them.

import type { CheckedCandidate, RecorderMessage } from './generated';

export type {
  CheckedCandidate, CheckedState, DescribeAnswer, DescribedElement, ListAnswer, ListLookup, TableAnswer, TableLookup, FieldRef, FrameInfo, Modifier, MouseButton, Offset, PressOwner,
  RecordedRead, RecorderMessage, RepeatInfo, SelectorKind, StateCheck, Structure, TargetInfo,
} from './generated';

/// `Omit` over each member of a union (the built-in one merges the members first).
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/// What the recorder hands `send`: a message without its `frame`, which `send` adds.
export type Outgoing = OmitEach<RecorderMessage, 'frame'>;

/// The fields `emit` adds to a report it makes asynchronously: the document, the number of its
/// last announced action, and when the event happened on the page's clock.
type Sequenced = 'doc' | 'seq' | 'at';

/// What the recorder hands `emit`: a report (every message that carries `doc`, `seq` and `at`,
/// but `acting`, which is sent at once with its own), without them and without its `frame`.
export type Report = OmitEach<
  Exclude<Extract<RecorderMessage, { doc: string }>, { type: 'acting' }>,
  'frame' | Sequenced
>;

/// A selector candidate before the recorder checked it in the page: one it made, or one Rust
/// asks it to check (`checkFor`, a `SelectorCandidate`).
export type UncheckedCandidate = Omit<CheckedCandidate, 'count' | 'target'>;

/// The report of one `type`.
export type ReportOf<T extends Report['type']> = Extract<Report, { type: T }>;
