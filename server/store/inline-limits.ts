// SQLite: a LIMIT given as a whole number is written into the SQL text instead of being bound.
// SQLite runs `... order by expires_at desc limit 1` several times faster than the same statement
// with `limit ?` bound to 1 (bench/README.md, "Figures behind design choices"); every hot read and every
// page of a listing has a LIMIT. Limits are few distinct numbers (page sizes), so the prepared
// statement cache (database.ts) holds them all; OFFSET stays bound (unbounded values).
import { LimitNode, OperationNodeTransformer, ValueNode, type KyselyPlugin, type RootOperationNode } from 'kysely';

/** Larger limits stay bound: no page is that large, and each inlined value is its own statement. */
const MAX_INLINED = 1000;

class InlineLimits extends OperationNodeTransformer {
  protected override transformLimit(node: LimitNode): LimitNode {
    const limit = node.limit;
    if (
      ValueNode.is(limit) &&
      !limit.immediate &&
      Number.isSafeInteger(limit.value) &&
      (limit.value as number) >= 0 &&
      (limit.value as number) <= MAX_INLINED
    ) {
      return LimitNode.create(ValueNode.createImmediate(limit.value));
    }
    return super.transformLimit(node);
  }
}

const transformer = new InlineLimits();

export const inlineLimits: KyselyPlugin = {
  transformQuery: (args) => transformer.transformNode<RootOperationNode>(args.node),
  transformResult: async (args) => args.result,
};
