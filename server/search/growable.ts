// Append-only typed arrays that double when full: a million postings cost a few megabytes and no
// per-entry objects, and an append never copies more than amortised O(1).

export class GrowableInt32 {
  data: Int32Array;
  length = 0;

  constructor(capacity = 4) {
    this.data = new Int32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

export class GrowableFloat32 {
  data: Float32Array;
  length = 0;

  constructor(capacity = 4) {
    this.data = new Float32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Float32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

export class GrowableUint8 {
  data: Uint8Array;
  length = 0;

  constructor(capacity = 4) {
    this.data = new Uint8Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Uint8Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}
