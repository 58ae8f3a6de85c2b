import { foldName } from '../../text/index.js';
import type { Catalog } from '../catalog/index.js';
import { type GatewayConfig, isToolNameTooLong, visibleToolName } from '../config/index.js';
import type { HeldBack } from './_call.js';

/** A tool of the catalog that another name folds onto, and how the catalog has it. */
export type FoldedTool =
  | { readonly kind: 'listed' | 'denied'; readonly visibleName: string }
  | { readonly kind: 'held'; readonly visibleName: string; readonly held: HeldBack };

// When several tools share a fold, the strictest answers for a name that is none of them.
const STRICTNESS = { listed: 0, held: 1, denied: 2 } as const;

/**
 * The catalog's tool names by their fold (`foldName`: case, separators, look-alike letters), so a
 * call of `DELETE_REPO` or `dеlete_repo` (Cyrillic е) is answered as the tool it passes for: an
 * upstream may itself match names loosely, and relaying the look-alike would reach a tool the
 * config denies, a trust gate holds back, or whose rules and checks are keyed by its exact name.
 */
export class FoldedNames {
  private readonly byFold = new Map<string, FoldedTool>();

  constructor(config: Pick<GatewayConfig, 'upstreams' | 'separator'>, catalog: Catalog, held: ReadonlyMap<string, ReadonlyMap<string, HeldBack>>) {
    for (const tool of catalog.tools) this.add({ kind: 'listed', visibleName: tool.visibleName });
    for (const visibleName of catalog.denied.keys()) this.add({ kind: 'denied', visibleName });
    for (const [upstream, tools] of held) {
      for (const [ownName, why] of tools) this.add({ kind: 'held', visibleName: visibleToolName(config, upstream, ownName), held: why });
    }
  }

  /** The tool `name` folds onto, or undefined (also for a name too long for any rule: it is denied before this is asked). */
  find(name: string): FoldedTool | undefined {
    return isToolNameTooLong(name) ? undefined : this.byFold.get(foldName(name));
  }

  private add(tool: FoldedTool): void {
    // A name too long for any rule is denied by its exact name; folding it would only cost time.
    if (isToolNameTooLong(tool.visibleName)) return;
    const fold = foldName(tool.visibleName);
    const known = this.byFold.get(fold);
    if (known === undefined || STRICTNESS[tool.kind] > STRICTNESS[known.kind]) this.byFold.set(fold, tool);
  }
}
