// Which screen shows, and what it was opened with.
import type { ShopView } from '../bindings/ShopView';
export type Screen = 'library' | 'record' | 'preview' | 'export' | 'flows';

export const nav = $state({
  screen: 'library' as Screen,
  /** The tool file the preview opens with. */
  previewTool: null as string | null,
  /** The flow file the Flows screen opens with. */
  flowPath: null as string | null,
  /** Bumped when the library changed (a save, an import). */
  libraryVersion: 0,
  /** The demo shop once served: it stays served while the app runs, whichever screen shows. */
  shop: null as ShopView | null,
});

export function go(screen: Screen) {
  nav.screen = screen;
}
