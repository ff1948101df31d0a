// A score per document for one query, kept in a dense array with the list of documents touched,
// so a query costs what it touches and resetting costs the same. One instance per retriever per
// index; searches run one at a time (the index is synchronous), so reuse is safe.

export class ScoreBoard {
  scores = new Float32Array(1024);
  private marks = new Uint8Array(1024);
  /** The documents touched since the last clear: list[0] to list[count - 1]. */
  list = new Int32Array(1024);
  count = 0;

  /** Makes room for documents 0 to size-1; call before a search, not per document. */
  reserve(size: number): void {
    if (size <= this.scores.length) return;
    this.clear();
    size = Math.max(size, this.scores.length * 2);
    this.scores = new Float32Array(size);
    this.marks = new Uint8Array(size);
  }

  private touch(doc: number): void {
    this.marks[doc] = 1;
    if (this.count === this.list.length) {
      const list = new Int32Array(this.list.length * 2);
      list.set(this.list);
      this.list = list;
    }
    this.list[this.count++] = doc;
  }

  add(doc: number, value: number): void {
    if (this.marks[doc] === 0) this.touch(doc);
    this.scores[doc] = (this.scores[doc] ?? 0) + value;
  }

  /** Raises the document's score to `value` if that is higher. */
  max(doc: number, value: number): void {
    if (this.marks[doc] === 0) {
      this.touch(doc);
      this.scores[doc] = value;
    } else if (value > (this.scores[doc] ?? 0)) this.scores[doc] = value;
  }

  has(doc: number): boolean {
    return this.marks[doc] === 1;
  }

  /**
   * The k-th highest score touched, or -Infinity with fewer than k: what a document must beat
   * to enter the top k. A heap of k floats, so it costs O(touched · log k) and no sorting.
   */
  kthScore(k: number): number {
    if (this.count < k || k <= 0) return Number.NEGATIVE_INFINITY;
    const heap = new Float32Array(k);
    let size = 0;
    for (let i = 0; i < this.count; i++) {
      const value = this.scores[this.list[i] ?? 0] ?? 0;
      if (size < k) {
        let j = size++;
        heap[j] = value;
        while (j > 0) {
          const parent = (j - 1) >> 1;
          if ((heap[parent] ?? 0) <= (heap[j] ?? 0)) break;
          const x = heap[j] ?? 0;
          heap[j] = heap[parent] ?? 0;
          heap[parent] = x;
          j = parent;
        }
      } else if (value > (heap[0] ?? 0)) {
        heap[0] = value;
        for (let j = 0; ;) {
          const l = 2 * j + 1;
          const r = l + 1;
          let least = j;
          if (l < k && (heap[l] ?? 0) < (heap[least] ?? 0)) least = l;
          if (r < k && (heap[r] ?? 0) < (heap[least] ?? 0)) least = r;
          if (least === j) break;
          const x = heap[j] ?? 0;
          heap[j] = heap[least] ?? 0;
          heap[least] = x;
          j = least;
        }
      }
    }
    return heap[0] ?? Number.NEGATIVE_INFINITY;
  }

  get(doc: number): number {
    return doc < this.scores.length ? (this.scores[doc] ?? 0) : 0;
  }

  clear(): void {
    for (let i = 0; i < this.count; i++) {
      const doc = this.list[i] ?? 0;
      this.scores[doc] = 0;
      this.marks[doc] = 0;
    }
    this.count = 0;
  }
}

export interface TieBreak {
  quality: Float32Array;
  /** A hash of the domain: orders the many exact ties without comparing strings. */
  hash: Int32Array;
  domains: readonly string[];
}

/**
 * The `k` best touched documents by score, then by name quality, then by a hash of the domain,
 * then by the domain: equal scores always come out in the same order, whatever order the
 * documents were added in.
 */
export function topK(board: ScoreBoard, ties: TieBreak, k: number): number[] {
  const { scores } = board;
  const { quality, hash, domains } = ties;
  const better = (a: number, b: number): boolean => {
    const sa = scores[a] ?? 0;
    const sb = scores[b] ?? 0;
    if (sa !== sb) return sa > sb;
    const qa = quality[a] ?? 0;
    const qb = quality[b] ?? 0;
    if (qa !== qb) return qa > qb;
    const ha = hash[a] ?? 0;
    const hb = hash[b] ?? 0;
    if (ha !== hb) return ha < hb;
    return (domains[a] ?? '') < (domains[b] ?? '');
  };
  // A min-heap of the best k seen so far: its root is the one to beat.
  const heap: number[] = [];
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < heap.length && better(heap[worst] ?? 0, heap[l] ?? 0)) worst = l;
      if (r < heap.length && better(heap[worst] ?? 0, heap[r] ?? 0)) worst = r;
      if (worst === i) return;
      const x = heap[i] ?? 0;
      heap[i] = heap[worst] ?? 0;
      heap[worst] = x;
      i = worst;
    }
  };
  if (k <= 0) return [];
  let floor = Number.NEGATIVE_INFINITY;
  for (let c = 0; c < board.count; c++) {
    const doc = board.list[c] ?? 0;
    if (heap.length < k) {
      heap.push(doc);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!better(heap[parent] ?? 0, heap[i] ?? 0)) break;
        const x = heap[i] ?? 0;
        heap[i] = heap[parent] ?? 0;
        heap[parent] = x;
        i = parent;
      }
      if (heap.length === k) floor = scores[heap[0] ?? 0] ?? 0;
      continue;
    }
    // Most candidates lose on score alone; only they and ties pay for the full comparison.
    const score = scores[doc] ?? 0;
    if (score < floor) continue;
    if (better(doc, heap[0] ?? 0)) {
      heap[0] = doc;
      siftDown(0);
      floor = scores[heap[0] ?? 0] ?? 0;
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
}
