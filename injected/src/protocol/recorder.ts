// The recorder's messages to Rust (through the `__bflow_record` binding, as JSON): one type,
// tagged by `type`. Written here by hand from what recorder.ts sends and browserflow-record's
// `capture.rs` / `event_loop.rs` read; to be replaced by the TypeScript mirror generated from
// the Rust enum (ts-rs) once the Rust side types them.

import type { Candidate, Identity, Pick, Shape, Within } from './resolve';

/// A point inside an element's box, with the box's size then (`Offset` in browserflow-steps).
export interface Offset { x: number; y: number; box?: { width: number; height: number } }

/// A candidate as the recorder checked it in the live page.
export interface CheckedCandidate extends Candidate {
  count: number;
  target: boolean;
  place?: boolean;
}

/// An element's place in a repeating structure and the fills that re-rendered it
/// (`RawRepeat`).
export interface RepeatInfo { place: string; content: string; changedBy: string[] }

/// A described element (`Target` in capture.rs).
export interface Target {
  token: string;
  candidates: CheckedCandidate[];
  description: string;
  tag: string;
  inputType: string | null;
  name: string;
  label: string;
  password: boolean;
  appeared: boolean;
  appearedAt: number;
  text: string;
  repeat: RepeatInfo | null;
  value?: string;
}

/// What a read of a picked element sees (`RecordedRead`).
export interface ReadInfo { shape: Exclude<Shape, 'digits'>; element: Identity }

/// The frame a message comes from, added by `send`.
export interface FrameInfo {
  top: boolean;
  url: string;
  name: string;
  viewport?: { width: number; height: number };
  path?: number[] | null;
}

/// A post-state check as recorded (`CheckedState`).
export interface StateCheck { state: string; equals?: string; of?: 'focused'; changes?: true }
export interface PressOwner { target: Target; offset: Offset }

/// Fields every action report carries, added by `emit`: the `acting` number it belongs to, the
/// document, and when it happened on the page's clock.
export interface Sequenced { seq?: number; doc?: string; at?: number }

export type ClickButton = 'left' | 'middle' | 'right' | 'back' | 'forward';

/// Every message the recorder sends.
export type RecorderMessage = (
  | { type: 'ready' }
  | { type: 'acting'; seq: number; doc: string; secrets: boolean; at: number }
  | { type: 'pick_cancelled' }
  | { type: 'clicking' }
  | { type: 'pick'; target: Target; read: ReadInfo }
  | { type: 'click'; target: Target; gesture: string; offset?: Offset; holdMs?: number; hover?: Target; button?: ClickButton }
  | { type: 'dblclick'; target: Target }
  | { type: 'drag'; target: Target; offset: Offset; by: { x: number; y: number }; gesture: string; drop?: Target; dropOffset?: Offset }
  | { type: 'input'; target: Target; value?: string }
  | { type: 'select'; target: Target; value: string }
  | { type: 'key'; key: string; modifiers: string[]; target: Target | null; gesture: string }
  | { type: 'scroll'; since: number; x: number; y: number; target: Target | null }
  | { type: 'files'; names: string[]; target: Target }
  | { type: 'state'; gesture: string; checks: StateCheck[]; owner?: PressOwner }
  | { type: 'owner'; gesture: string; owner: PressOwner }
) & Sequenced & { frame?: FrameInfo };

/// A structure candidate's anchor and pick, as recorded.
/// `of`: how many elements of the role were at the anchor, with an `nth` pick.
export interface RecordedStructure { within: Within; pick?: Pick; of?: number }
