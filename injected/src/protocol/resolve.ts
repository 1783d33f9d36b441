// The resolver's protocol: what the replayer sends (`Spec` in browserflow-replay's
// `resolve/protocol.rs`, with the selector candidates of browserflow-steps' `selector.rs`) and
// what the resolver answers. Written by hand from the Rust types, which are the source of truth;
// the replayer's and recorder's tests cross this boundary in real Chromium.

/// A role, optionally with its accessible name (`RoleRef`).
export interface Region { role: string; name?: string }
/// The anchor of a `structure` candidate (`Anchor`): one key.
export interface Within {
  form_with_field?: { label?: string; name?: string };
  region?: Region;
  controlled_by?: Region;
  beside_label?: string;
  under_heading?: string;
}
export interface CellPlace { row: number; column: string; nth?: number }
export interface ItemPlace { item: number; nth?: number }
/// Which of the elements of the candidate's role at the anchor (`Pick`).
export type Pick = 'only' | 'default_button' | { nth: number } | { cell: CellPlace } | { item: ItemPlace };
/// `of`: how many elements of the role the recording saw at the anchor, with an `nth` pick.
export interface Structure { within: Within; pick?: Pick; of?: number }

export type CandidateKind = 'css' | 'id' | 'test_id' | 'placeholder' | 'xpath' | 'role' | 'accessible_name'
  | 'label' | 'text' | 'structure';
/// One selector candidate (`SelectorCandidate`).
export interface Candidate {
  kind: CandidateKind | string;
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
