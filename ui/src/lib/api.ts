// Typed calls to the Rust commands. Every type comes from ./../bindings (generated from the
// Rust types by the `bindings` test of src-tauri); only the command names are written here.
import { invoke } from '@tauri-apps/api/core';
import { listen, type UnlistenFn } from '@tauri-apps/api/event';
import type { AppError } from '../bindings/AppError';
import type { AppPaths } from '../bindings/AppPaths';
import type { BatchRequest } from '../bindings/BatchRequest';
import type { BatchResultView } from '../bindings/BatchResultView';
import type { BatchRowView } from '../bindings/BatchRowView';
import type { DraftSuggestions } from '../bindings/DraftSuggestions';
import type { DraftView } from '../bindings/DraftView';
import type { ExportChoice } from '../bindings/ExportChoice';
import type { FieldProblem } from '../bindings/FieldProblem';
import type { FlowView } from '../bindings/FlowView';
import type { LibraryItem } from '../bindings/LibraryItem';
import type { ManifestView } from '../bindings/ManifestView';
import type { ModelStatus } from '../bindings/ModelStatus';
import type { RelianceName } from '../bindings/RelianceName';
import type { OutputKindName } from '../bindings/OutputKindName';
import type { OnConflict } from '../bindings/OnConflict';
import type { PickedView } from '../bindings/PickedView';
import type { PreviewRequest } from '../bindings/PreviewRequest';
import type { PreviewResult } from '../bindings/PreviewResult';
import type { RecordEventView } from '../bindings/RecordEventView';
import type { RecordStart } from '../bindings/RecordStart';
import type { RecordStatusView } from '../bindings/RecordStatusView';
import type { SelectorSuggestionView } from '../bindings/SelectorSuggestionView';
import type { ShopView } from '../bindings/ShopView';
import type { StepView } from '../bindings/StepView';
import type { VerifyView } from '../bindings/VerifyView';

export type {
  AppError, BatchResultView, BatchRowView, DraftSuggestions, DraftView, FieldProblem, FlowView, LibraryItem, ManifestView, ModelStatus, OnConflict, PickedView, PreviewResult,
  RecordEventView, RecordStatusView, SelectorSuggestionView, ShopView, StepView, VerifyView,
};

/** The `{code, message}` a command rejects with (anything else is wrapped as `internal`). */
export function asAppError(e: unknown): AppError {
  if (e && typeof e === 'object' && 'code' in e && 'message' in e) return e as AppError;
  return { code: 'internal', message: String(e) };
}

async function call<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(cmd, args);
  } catch (e) {
    throw asAppError(e);
  }
}

export const api = {
  libraryList: () => call<LibraryItem[]>('library_list'),
  appPaths: () => call<AppPaths>('app_paths'),
  flowCheck: (path: string) => call<FlowView>('flow_check', { path }),
  packPreview: (choice: ExportChoice) => call<ManifestView>('pack_preview', { choice }),
  packExport: (choice: ExportChoice, out: string | null) => call<[string, ManifestView]>('pack_export', { choice, out }),
  packVerify: (path: string) => call<VerifyView>('pack_verify', { path }),
  packImport: (path: string, onConflict: OnConflict = 'refuse') => call<VerifyView>('pack_import', { path, onConflict }),
  packRemove: (pack: string) => call<string>('pack_remove', { pack }),
  previewPlan: (tool: string) => call<StepView[]>('preview_plan', { tool }),
  previewRun: (request: PreviewRequest) => call<PreviewResult>('preview_run', { request }),
  previewBatch: (request: BatchRequest) => call<BatchResultView>('preview_batch', { request }),
  shopServe: () => call<ShopView>('shop_serve'),
  recordStart: (start: RecordStart) => call<void>('record_start', { start }),
  recordPick: () => call<PickedView>('record_pick'),
  recordCancelPick: () => call<void>('record_cancel_pick'),
  recordStop: () => call<DraftView>('record_stop'),
  recordStatus: () => call<RecordStatusView>('record_status'),
  draftUndo: () => call<DraftView>('draft_undo'),
  draftMarkRequiredInput: (index: number, name: string, kind: string) => call<DraftView>('draft_mark_required_input', { index, name, kind }),
  draftRemoveOutput: (name: string) => call<DraftView>('draft_remove_output', { name }),
  draftRenameOutput: (from: string, to: string) => call<DraftView>('draft_rename_output', { from, to }),
  draftCheckNames: (name: string, version: string) => call<FieldProblem[]>('draft_check_names', { name, version }),
  draftRemoveStep: (index: number) => call<DraftView>('draft_remove_step', { index }),
  draftRemoveCheck: (index: number, check: number) => call<DraftView>('draft_remove_check', { index, check }),
  draftRelyOn: (index: number, reliesOn: RelianceName) => call<DraftView>('draft_rely_on', { index, reliesOn }),
  draftMoveStep: (from: number, to: number) => call<DraftView>('draft_move_step', { from, to }),
  draftMarkInput: (index: number, name: string, kind: string) => call<DraftView>('draft_mark_input', { index, name, kind }),
  draftMarkOutput: (pick: number, name: string, kind: OutputKindName) => call<DraftView>('draft_mark_output', { pick, name, kind }),
  draftSave: (name: string, version: string, description: string | null) => call<LibraryItem>('draft_save', { name, version, description }),
  recordDiscard: () => call<void>('record_discard'),
  recordRestoreKept: () => call<DraftView>('record_restore_kept'),
  recordDiscardKept: () => call<void>('record_discard_kept'),
  appClose: (discard: boolean) => call<void>('app_close', { discard }),
  recordAnswerFileChooser: (paths: string[]) => call<number | null>('record_answer_file_chooser', { paths }),
  modelStatus: () => call<ModelStatus>('model_status'),
  draftSuggest: () => call<DraftSuggestions>('draft_suggest'),
  recordSuggestSelector: (index: number) => call<SelectorSuggestionView>('record_suggest_selector', { index }),
};

export const events = {
  previewStep: (f: (s: StepView) => void): Promise<UnlistenFn> => listen<StepView>('preview://step', (e) => f(e.payload)),
  record: (f: (e: RecordEventView) => void): Promise<UnlistenFn> => listen<RecordEventView>('record://event', (e) => f(e.payload)),
  batchRow: (f: (r: BatchRowView) => void): Promise<UnlistenFn> => listen<BatchRowView>('batch://row', (e) => f(e.payload)),
  /** The window is asked to close while a recording or an unsaved draft is open. */
  closeRequested: (f: () => void): Promise<UnlistenFn> => listen<null>('app://close-requested', () => f()),
};

/** `1 step`, `2 steps`: a count with its noun agreeing. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function shortDigest(d: string): string {
  const hex = d.replace(/^sha256[:-]/, '');
  return hex ? `sha256:${hex.slice(0, 12)}…` : '';
}

export function ago(epochSeconds: number): string {
  const s = Math.max(0, Date.now() / 1000 - epochSeconds);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}
