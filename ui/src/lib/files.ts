// The native file picker (tauri-plugin-dialog). A typed path keeps working beside it: the
// Rust side expands `~` (crates/catalog/src/typed_path.rs).
import { open as openDialog, save as saveDialog, type OpenDialogOptions } from '@tauri-apps/plugin-dialog';
import { asAppError } from './api';

/** The picker; its failure is an `AppError` like a command's, for the screens' banners. */
async function open(options: OpenDialogOptions): Promise<string | string[] | null> {
  try {
    return await openDialog(options);
  } catch (e) {
    throw asAppError(e);
  }
}

/** Asks for one pack file; `null` when the person cancels. */
export async function choosePack(): Promise<string | null> {
  const path = await open({
    title: 'Choose a pack',
    multiple: false,
    directory: false,
    filters: [{ name: 'browserflow pack', extensions: ['bfpack'] }],
  });
  return typeof path === 'string' ? path : null;
}

/** Asks for the files a page's file chooser wants (several when `multiple`); `[]` when the person cancels. */
export async function chooseFiles(multiple: boolean): Promise<string[]> {
  const chosen = await open({ title: multiple ? 'Choose files to upload' : 'Choose a file to upload', multiple, directory: false });
  if (chosen == null) return [];
  return Array.isArray(chosen) ? chosen : [chosen];
}

/** Asks where to write a pack, starting from `fileName`; `null` when the person cancels. */
export async function choosePackDestination(fileName: string): Promise<string | null> {
  try {
    return await saveDialog({ title: 'Write the pack to', defaultPath: fileName, filters: [{ name: 'browserflow pack', extensions: ['bfpack'] }] });
  } catch (e) {
    throw asAppError(e);
  }
}

/** Asks for a file of rows to run a tool on (CSV with a header naming the inputs, or JSONL); `null` when the person cancels. */
export async function chooseRows(): Promise<string | null> {
  const path = await open({
    title: 'Run on a file of rows',
    multiple: false,
    directory: false,
    filters: [{ name: 'Rows (CSV, JSON lines)', extensions: ['csv', 'jsonl', 'ndjson'] }],
  });
  return typeof path === 'string' ? path : null;
}
