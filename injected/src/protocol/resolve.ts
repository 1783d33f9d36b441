// The resolver's protocol: what the replayer sends (`Spec` in browserflow-replay's
// `resolve/protocol.rs`, with the selector candidates of browserflow-steps' `selector.rs`) and
// what the resolver answers. Written by hand from the Rust types, which are the source of truth;
// the replayer's and recorder's tests cross this boundary in real Chromium.

// The structure candidate's parts are browserflow-steps' own types, whose mirror ts-rs generates
// (with the recorder's protocol, which sends them): a role with its name (`RoleRef`), the anchor
// (`Anchor`, one key), the pick among the elements of the candidate's role there
// (`StructurePick`).
export type {
  Anchor as Within, CellPlace, ItemPlace, RoleRef as Region, Structure, StructurePick as Pick,
} from './generated';
import type { SelectorKind, Structure } from './generated';

/// One selector candidate (`SelectorCandidate`).
export interface Candidate {
  kind: SelectorKind;
  value: string;
  name?: string | null;
  shadow?: string[];
  structure?: Structure;
  unstable?: boolean;
}

/// The text shapes a read is checked against (`ReadShape`).
export type Shape = 'empty' | 'symbols' | 'text' | 'number' | 'amount' | 'date' | 'digits';
/// What identifies the element a read recorded (`ElementIdentity`).
export interface Identity { tag: string; role?: string; label?: string; heading?: string }
export interface Read {
  from: 'text' | 'value' | 'attribute' | string;
  attribute?: string | null;
  nonEmpty: boolean;
  shape?: Shape;
  identity?: Identity;
}
export interface Requirements {
  visible: boolean; enabled: boolean; editable: boolean; stable: boolean; hitTest: boolean; scroll: boolean;
}
export interface Offset { x: number; y: number; box?: { width: number; height: number } | null }
export type Act =
  | { kind: 'fill'; value: string }
  | { kind: 'focus' }
  | { kind: 'scroll'; x: number; y: number }
  | { kind: 'upload'; count: number };
export interface CountCondition { op: '>=' | '<=' | '==' | string; value: number }

interface SpecBase {
  candidates: Candidate[];
  timeoutMs: number;
  /// What a step in a repeating structure relies on (`Repeat`).
  reliesOn?: 'content' | 'position';
}
export interface ActionSpec extends SpecBase {
  mode: 'action';
  watch?: boolean;
  require: Requirements;
  offset?: Offset | null;
  read?: Read | null;
  expect?: { equals?: string; contains?: string } | null;
  act?: Act | null;
}
export interface WaitSpec extends SpecBase {
  mode: 'wait';
  count?: CountCondition | null;
  visible?: boolean | null;
  properties?: Record<string, unknown> | null;
  /// Waits have no requirements; the recorder sends an empty object.
  require?: Partial<Requirements>;
}
export type Spec = ActionSpec | WaitSpec;

/// What an action did in the page (`InPage`).
export type InPage = string | { type: boolean } | { fileInput: boolean } | { done: boolean };
export type Answer =
  | { ok: true; winner: number; count?: number; point?: { x: number; y: number }; result?: InPage }
  | { ok: false; states: string[]; lastRead?: { candidate: number; value: string } | null; fatal?: string; winner?: number };

// The list reader's protocol (`ListSpec` and `ListAnswer` in browserflow-replay's
// `resolve/protocol.rs`): an `extract_list` step's items and fields, and the rows read.

/// One field of each item (`ListFieldSpec`).
export interface ListField {
  name: string;
  /// Ranked, searched inside the item; empty: the item itself.
  candidates: Candidate[];
  /// For a table's or grid's row: the cell under the column of this name (`table.ts`).
  column?: string | null;
  from: 'text' | 'value' | 'attribute';
  attribute?: string | null;
  /// Resolve the value against the document's URL (an `href`, a `src`).
  url: boolean;
  /// Wait until the value holds a digit (a number, an integer, a date).
  digits: boolean;
  optional: boolean;
}
export interface ListSpec {
  /// Ranked; each matches every item.
  items: Candidate[];
  fields: ListField[];
  limit?: number | null;
  /// Wait until at least this many items are found (the recording saw items: 1).
  atLeast: number;
  /// How long the rows must stay the same before they are taken.
  quietMs: number;
  timeoutMs: number;
  /// A page's signature (the answer's `signature`): rows with this one are the page before,
  /// not the next one yet (a paginated list's next page).
  unlike?: string | null;
  /// A pagination control's candidates: its state is answered with the rows.
  control?: Candidate[] | null;
  /// Once the rows are taken, bring the last item into view (an infinite list's next items).
  scrollLast?: boolean;
}
/// A pagination control's state (`ControlState`), and the candidate that found it.
export interface ControlState { state: 'absent' | 'disabled' | 'ready'; candidate: number | null }
/// Why the rows the winning candidate found were not taken (`ListProblem`).
export interface ListProblem {
  /// `missing`: no candidate of a required field found exactly one element in the item;
  /// `unready`: the value read is not one yet (no digit, a busy item, not a URL).
  kind: 'missing' | 'unready';
  /// 1-based.
  item: number;
  field: string;
  /// The item's text, shortened.
  itemText: string;
  value?: string | null;
}
export type ListAnswer =
  | { ok: true; winner: number | null; total: number; rows: (string | null)[][]; signature: string; control?: ControlState }
  | { ok: false; states: string[]; problem?: ListProblem | null; unchanged?: boolean; control?: ControlState | null };
