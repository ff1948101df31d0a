// A Map that forgets its oldest entries past a size: the caches keyed by what buyers type must
// not grow with every misspelling ever searched.
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  set(key: K, value: V): void {
    if (this.map.size >= this.capacity && !this.map.has(key)) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    this.map.set(key, value);
  }
}
