// The items a read_result walk gives back, page by page: an item page's items as they are, and an
// item too large for a page joined from its parts (the text of a string, or JSON text parsed).
// Throws when the parts do not follow one another, so a test sees a gap or an overlap.

/** A read_result page as the gateway sends it: whole items, or one part of an item. */
export interface WalkedPage {
  readonly items?: unknown[];
  readonly part?: { readonly item: number; readonly from: number; readonly to: number; readonly length: number; readonly of: 'text' | 'json' };
  readonly text?: string;
  readonly truncated?: boolean;
  readonly next_cursor: string | null;
  readonly note: string;
}

export class WalkedItems {
  readonly items: unknown[] = [];
  #partial: { item: number; text: string; of: 'text' | 'json' } | undefined;

  /** Adds one page's items (the text of the page); gives the page back, parsed. */
  add(pageText: string): WalkedPage {
    const page = JSON.parse(pageText) as WalkedPage;
    if (page.part === undefined) {
      if (this.#partial !== undefined) throw new Error(`item ${this.#partial.item} stopped at character ${this.#partial.text.length}`);
      this.items.push(...(page.items ?? []));
      return page;
    }
    const { item, from, to, length, of } = page.part;
    if (this.#partial === undefined && from === 0) this.#partial = { item, text: '', of };
    if (this.#partial?.item !== item || this.#partial.text.length !== from) throw new Error(`part ${item}:${from}-${to} does not follow what came before`);
    this.#partial.text += page.text ?? '';
    if (this.#partial.text.length !== to) throw new Error(`part ${item}:${from}-${to} holds ${(page.text ?? '').length} characters`);
    if (to === length) {
      this.items.push(of === 'json' ? (JSON.parse(this.#partial.text) as unknown) : this.#partial.text);
      this.#partial = undefined;
    }
    return page;
  }

  /** Whether an item is still being joined (the walk is inside it). */
  get inside(): boolean {
    return this.#partial !== undefined;
  }
}
