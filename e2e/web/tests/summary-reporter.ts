// Prints one closing line that CI tooling can read: "web: N passed, N failed, N skipped".
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export default class SummaryReporter implements Reporter {
  private passed = 0;
  private failed = 0;
  private skipped = 0;

  onTestEnd(test: TestCase, result: TestResult): void {
    if (result.status === 'skipped') this.skipped++;
    else if (result.status === test.expectedStatus) this.passed++;
    else this.failed++;
  }

  onEnd(result: FullResult): void {
    if (result.status !== 'passed' && this.failed === 0) this.failed = 1; // a run that died (timeout, setup error)
    process.stdout.write(`\nweb: ${this.passed} passed, ${this.failed} failed, ${this.skipped} skipped\n`);
  }

  printsToStdio(): boolean {
    return false;
  }
}
