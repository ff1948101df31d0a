// A vitest reporter that prints each failure the moment it happens (stderr), beside the default
// reporter, which prints failure details only in its summary at the end: a run killed before
// its end (a 45-minute run on a busy machine, a CI time limit) kept none. Each failed test, each
// failed hook and each file that failed to load, with its errors' messages, diffs and stacks.
import { relative } from 'node:path';
import type { ReportedHookContext, Reporter, TestCase, TestModule } from 'vitest/node';

interface ErrorLike {
  message?: string;
  name?: string;
  diff?: string;
  stack?: string;
  cause?: ErrorLike;
}

function formatError(error: ErrorLike, depth = 0): string {
  const lines = [`${error.name ?? 'Error'}: ${error.message ?? ''}`];
  if (error.diff) lines.push(error.diff);
  if (error.stack)
    lines.push(
      ...error.stack
        .split('\n')
        .filter((l) => /^\s+at /.test(l) && !l.includes('node_modules'))
        .slice(0, 8),
    );
  if (error.cause && depth < 3) lines.push(`Caused by: ${formatError(error.cause, depth + 1)}`);
  return lines.join('\n');
}

export default class FailuresNow implements Reporter {
  private report(where: string, errors: readonly ErrorLike[]): void {
    const body = errors.map((e) => formatError(e)).join('\n\n');
    process.stderr.write(`\n--- FAILED (now): ${where}\n${body}\n---\n`);
  }

  private fileOf(moduleId: string): string {
    return relative(process.cwd(), moduleId);
  }

  onTestCaseResult(testCase: TestCase): void {
    const result = testCase.result();
    if (result.state !== 'failed') return;
    this.report(`${this.fileOf(testCase.module.moduleId)} > ${testCase.fullName}`, result.errors ?? []);
  }

  onHookEnd(hook: ReportedHookContext): void {
    // A suite's beforeAll/afterAll (its tests are then skipped); a file's own hooks are among its
    // errors, reported when the file ends.
    if (hook.entity.type !== 'suite' || (hook.name !== 'beforeAll' && hook.name !== 'afterAll')) return;
    const errors = hook.entity.errors();
    if (errors.length > 0)
      this.report(`${hook.name} of ${this.fileOf(hook.entity.module.moduleId)} > ${hook.entity.fullName}`, errors);
  }

  onTestModuleEnd(testModule: TestModule): void {
    // Errors of the file itself (an import that throws, a syntax error); its tests report their own.
    const errors = testModule.errors();
    if (errors.length > 0) this.report(this.fileOf(testModule.moduleId), errors);
  }
}
