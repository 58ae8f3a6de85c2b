import { NearDuplicateIndex, containment, wordShingles, type ShingleSet } from './_shingles.js';
import type { RedundancyIndex } from './_select.js';

/** Candidates checked exactly per query; the LSH index returns the most similar first. */
const CANDIDATES_CHECKED = 8;

/** The fragments selected so far, indexed so that each overlap check costs about the same however many there are. */
export class SelectedTextIndex implements RedundancyIndex {
  private readonly index = new NearDuplicateIndex();
  private readonly shingles: ShingleSet[] = [];
  private lastText: string | undefined;
  private lastShingles: ShingleSet | undefined;

  similarity(text: string): number {
    if (this.shingles.length === 0) return 0;
    const own = this.shinglesOf(text);
    let best = 0;
    for (const key of this.index.candidates(own, CANDIDATES_CHECKED)) {
      const other = this.shingles[Number(key)];
      if (other !== undefined) best = Math.max(best, containment(own, other));
    }
    return best;
  }

  add(text: string): void {
    const own = this.shinglesOf(text);
    this.index.add(String(this.shingles.length), own);
    this.shingles.push(own);
  }

  // similarity() then add() on the same text is the common sequence: shingle it once.
  private shinglesOf(text: string): ShingleSet {
    if (text !== this.lastText || this.lastShingles === undefined) {
      this.lastText = text;
      this.lastShingles = wordShingles(text);
    }
    return this.lastShingles;
  }
}
