// A score per document for one query, kept in a dense array with the list of documents touched,
// so a query costs what it touches and resetting costs the same. One instance per retriever per
// index; searches run one at a time (the index is synchronous), so reuse is safe.

export class ScoreBoard {
  scores = new Float32Array(1024);
  private marks = new Uint8Array(1024);
  touched: number[] = [];

  private ensure(doc: number): void {
    if (doc < this.scores.length) return;
    let size = this.scores.length;
    while (size <= doc) size *= 2;
    const scores = new Float32Array(size);
    scores.set(this.scores);
    const marks = new Uint8Array(size);
    marks.set(this.marks);
    this.scores = scores;
    this.marks = marks;
  }

  add(doc: number, value: number): void {
    this.ensure(doc);
    if (this.marks[doc] === 0) {
      this.marks[doc] = 1;
      this.touched.push(doc);
    }
    this.scores[doc] = (this.scores[doc] ?? 0) + value;
  }

  /** Raises the document's score to `value` if that is higher. */
  max(doc: number, value: number): void {
    this.ensure(doc);
    if (this.marks[doc] === 0) {
      this.marks[doc] = 1;
      this.touched.push(doc);
      this.scores[doc] = value;
    } else if (value > (this.scores[doc] ?? 0)) this.scores[doc] = value;
  }

  get(doc: number): number {
    return doc < this.scores.length ? (this.scores[doc] ?? 0) : 0;
  }

  clear(): void {
    for (const doc of this.touched) {
      this.scores[doc] = 0;
      this.marks[doc] = 0;
    }
    this.touched = [];
  }
}

/**
 * The `k` best documents by score, then by name quality, then by domain, so equal scores always
 * come out in the same order whatever order the documents were added in.
 */
export function topK(
  candidates: readonly number[],
  score: (doc: number) => number,
  quality: (doc: number) => number,
  domain: (doc: number) => string,
  k: number,
): number[] {
  const better = (a: number, b: number): boolean => {
    const sa = score(a);
    const sb = score(b);
    if (sa !== sb) return sa > sb;
    const qa = quality(a);
    const qb = quality(b);
    if (qa !== qb) return qa > qb;
    return domain(a) < domain(b);
  };
  // A min-heap of the best k seen so far: its root is the one to beat.
  const heap: number[] = [];
  const siftUp = (i: number) => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const x = heap[i] ?? 0;
      const p = heap[parent] ?? 0;
      if (!better(p, x)) break;
      heap[i] = p;
      heap[parent] = x;
      i = parent;
    }
  };
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
  for (const doc of candidates) {
    if (heap.length < k) {
      heap.push(doc);
      siftUp(heap.length - 1);
    } else if (k > 0 && better(doc, heap[0] ?? 0)) {
      heap[0] = doc;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
}
