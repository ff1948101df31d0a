/** RFC 3339 UTC text of a moment in ms, without a fraction when it is whole seconds (as the examples of the spec). */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
}
