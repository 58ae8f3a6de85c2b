// The five causes found on blind real-session sets, each reproduced with two records in several
// ecosystems: the optimizer must follow the failure, follow error locations into the file they
// name, give the fragments of one record diminishing returns, read "ignore that", and keep only
// the task's own constraints and decisions mandatory.
import { describe, expect, it } from 'vitest';
import { ContextOptimizer, type ContextResult, type OptimizerInput } from '../../src/optimizer/index.js';

const optimizer = new ContextOptimizer();

function at(minutes: number, day = 0): string {
  return new Date(Date.UTC(2026, 9, 12, 9) + day * 86_400_000 + minutes * 60_000).toISOString();
}

function kept(result: ContextResult, recordId: string): boolean {
  return result.sources.some((source) => source.recordId === recordId);
}

/** A source file of `lines` lines, each distinct, with `marker` as line `markerLine` (1-based). */
function sourceFile(lines: number, markerLine: number, marker: string, line: (i: number) => string): string {
  return Array.from({ length: lines }, (_, i) => (i + 1 === markerLine ? marker : line(i + 1))).join('\n');
}

describe('cause 1: a task about making something pass follows the newest failure', () => {
  it('rust: "the build is broken, fix it" keeps the failing cargo build and the file it names', () => {
    const input: OptimizerInput = {
      task: 'the build is broken, fix it',
      tokenBudget: 3_000,
      toolOutputs: [
        {
          id: 'cargo-build',
          command: 'cargo build',
          exitCode: 101,
          timestamp: at(10),
          output: [
            '   Compiling shelf v0.3.1 (/home/dev/shelf)',
            'error[E0502]: cannot borrow `self.loans` as mutable because it is also borrowed as immutable',
            '  --> src/loans.rs:27:13',
            '   |',
            '26 |         let due = self.loans.iter().filter(|l| l.overdue()).collect::<Vec<_>>();',
            '27 |             self.loans.retain(|l| !l.returned);',
            '   |             ^^^^^^^^^^ mutable borrow occurs here',
            'error: could not compile `shelf` (lib) due to 1 previous error',
          ].join('\n'),
        },
      ],
      files: [
        {
          id: 'loans-rs',
          path: 'src/loans.rs',
          timestamp: at(12),
          content: 'impl Ledger {\n    pub fn sweep(&mut self) {\n        let due = self.loans.iter().filter(|l| l.overdue()).collect::<Vec<_>>();\n        self.loans.retain(|l| !l.returned);\n        self.notify(due);\n    }\n}\n',
        },
      ],
    };
    const result = optimizer.buildContext(input);
    expect(kept(result, 'cargo-build')).toBe(true);
    expect(kept(result, 'loans-rs')).toBe(true);
    expect(result.context).toContain('error[E0502]: cannot borrow `self.loans` as mutable');
  });

  it('terraform: "terraform plan fails" keeps the failing plan and the module it names', () => {
    const input: OptimizerInput = {
      task: 'terraform plan fails, please sort it out',
      tokenBudget: 3_000,
      toolOutputs: [
        {
          id: 'plan',
          command: 'terraform -chdir=envs/prod plan',
          exitCode: 1,
          timestamp: at(5),
          output: [
            'module.network.aws_vpc.main: Refreshing state... [id=vpc-0a1b2c3d]',
            '',
            'Error: Reference to undeclared resource',
            '',
            '  on ../../modules/network/outputs.tf line 7, in output "private_subnet_ids":',
            '   7:   value = aws_subnet.privat[*].id',
            '',
            'A managed resource "aws_subnet" "privat" has not been declared in module.network.',
          ].join('\n'),
        },
      ],
      files: [
        {
          id: 'outputs-tf',
          path: 'modules/network/outputs.tf',
          timestamp: at(6),
          content: 'output "vpc_id" {\n  value = aws_vpc.main.id\n}\n\noutput "private_subnet_ids" {\n  value = aws_subnet.privat[*].id\n}\n',
        },
      ],
    };
    const result = optimizer.buildContext(input);
    expect(kept(result, 'plan')).toBe(true);
    expect(kept(result, 'outputs-tf')).toBe(true);
  });

  it('python: "CI is red" keeps the failing pytest run', () => {
    const input: OptimizerInput = {
      task: 'CI is red again, can you get it green',
      tokenBudget: 1_500,
      messages: [{ id: 'chat', role: 'assistant', timestamp: at(1), text: 'I will look at the pipeline configuration and the recent commits first.' }],
      toolOutputs: [
        {
          id: 'pytest',
          command: 'python -m pytest -q',
          exitCode: 1,
          timestamp: at(3),
          output: [
            '....F..',
            'FAILED tests/test_rates.py::test_weekend_rate - assert 1.25 == 1.5',
            '1 failed, 6 passed in 0.41s',
          ].join('\n'),
        },
      ],
    };
    const result = optimizer.buildContext(input);
    expect(kept(result, 'pytest')).toBe(true);
  });
});

/** One failing output naming `location`, and a long file whose line `line` is the culprit. */
function locationCase(failure: string, path: string, line: number, command: string) {
  const marker = `        THE_CULPRIT_LINE_${line} = compute(total, rate) // reached from the failure`;
  const content = sourceFile(400, line, marker, (i) => `        step_${i}(ledger, "entry ${i} of the nightly batch, nothing to see here");`);
  const input: OptimizerInput = {
    task: 'fix the failing build',
    tokenBudget: 1_500,
    toolOutputs: [{ id: 'failing-run', command, exitCode: 1, timestamp: at(1), output: failure }],
    files: [{ id: 'culprit', path, timestamp: at(2), content }],
  };
  return { input, marker };
}

describe('cause 2: error locations reach the file, and the named line is in its excerpt', () => {
  const cases: Array<{ name: string; path: string; line: number; command: string; failure: string }> = [
    { name: 'rustc', path: 'src/book.rs', line: 241, command: 'cargo build', failure: 'error[E0308]: mismatched types\n   --> src/book.rs:241:9\n    |\n    = note: expected `u32`, found `i64`' },
    {
      name: 'JVM',
      path: 'src/main/java/com/shop/OrderService.java',
      line: 242,
      command: './gradlew test',
      failure: 'java.lang.IllegalStateException: order has no lines\n\tat com.shop.OrderService.place(OrderService.java:242)\n\tat com.shop.OrderController.create(OrderController.java:31)',
    },
    { name: '.NET', path: 'src/Inventory/StockService.cs', line: 258, command: 'dotnet test', failure: 'System.InvalidOperationException: Sequence contains no elements\n   at Inventory.StockService.Reserve(Int32 sku) in /src/Inventory/StockService.cs:line 258' },
    { name: 'tsc parentheses', path: 'src/UserCard.tsx', line: 214, command: 'npx tsc --noEmit', failure: "src/UserCard.tsx(214,5): error TS2322: Type 'string' is not assignable to type 'number'." },
    { name: 'tsc colons', path: 'src/UserCard.tsx', line: 214, command: 'npx tsc --noEmit --pretty', failure: "src/UserCard.tsx:214:5 - error TS2322: Type 'string' is not assignable to type 'number'." },
    { name: 'Terraform', path: 'modules/network/main.tf', line: 242, command: 'terraform plan', failure: 'Error: Unsupported argument\n\n  on ../../modules/network/main.tf line 242, in resource "aws_subnet" "private":\n 242:   cidr = var.cidr' },
    { name: 'Go', path: 'cmd/server/main.go', line: 212, command: 'go build ./...', failure: '# example.com/server/cmd/server\ncmd/server/main.go:212:3: undefined: handleHealth' },
    {
      name: 'Python',
      path: 'app/billing/rates.py',
      line: 233,
      command: 'python -m pytest',
      failure: 'Traceback (most recent call last):\n  File "/srv/app/app/billing/rates.py", line 233, in weekend_rate\n    return base * factor\nTypeError: can\'t multiply sequence by non-int of type \'float\'',
    },
    { name: 'Node', path: 'src/jobs/queue.js', line: 227, command: 'node src/jobs/run.js', failure: 'TypeError: Cannot read properties of undefined (reading \'id\')\n    at drain (/srv/app/src/jobs/queue.js:227:18)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)' },
    { name: 'eslint', path: 'src/api/client.ts', line: 219, command: 'npx eslint src', failure: '/home/dev/app/src/api/client.ts\n  219:7  error  \'retry\' is assigned a value but never used  @typescript-eslint/no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)' },
    { name: 'pytest', path: 'tests/test_rates.py', line: 231, command: 'pytest -x', failure: '    def test_weekend_rate():\n>       assert weekend_rate(2) == 1.5\nE       assert 1.25 == 1.5\n\ntests/test_rates.py:231: AssertionError\nFAILED tests/test_rates.py::test_weekend_rate' },
    { name: 'vitest', path: 'src/cart/total.test.ts', line: 244, command: 'npx vitest run', failure: ' FAIL  src/cart/total.test.ts > total > applies the coupon once\nAssertionError: expected 90 to be 81\n ❯ src/cart/total.test.ts:244:23' },
    { name: 'C++ (gcc)', path: 'src/geometry/polygon.cpp', line: 238, command: 'cmake --build build', failure: "/home/dev/geo/src/geometry/polygon.cpp:238:12: error: no matching function for call to 'area(const Ring&)'" },
    { name: 'Ruby', path: 'app/models/invoice.rb', line: 223, command: 'bundle exec rspec', failure: "NoMethodError:\n  undefined method `total' for nil\n# ./app/models/invoice.rb:223:in `due_amount'" },
    { name: 'PHP', path: 'app/Jobs/SendInvoice.php', line: 236, command: 'php artisan test', failure: 'ErrorException: Undefined array key "email" in /var/www/app/Jobs/SendInvoice.php:236' },
    { name: 'Elixir', path: 'lib/shop/cart.ex', line: 218, command: 'mix test', failure: '** (FunctionClauseError) no function clause matching in Shop.Cart.add/2\n    (shop 0.1.0) lib/shop/cart.ex:218: Shop.Cart.add/2' },
  ];

  for (const entry of cases) {
    it(`${entry.name}: the failure's location reaches ${entry.path} and its line ${entry.line} is shown`, () => {
      const { input, marker } = locationCase(entry.failure, entry.path, entry.line, entry.command);
      const result = optimizer.buildContext(input);
      expect(result.stats.withinBudget).toBe(true);
      expect(kept(result, 'failing-run')).toBe(true);
      expect(kept(result, 'culprit')).toBe(true);
      expect(result.context).toContain(marker);
    });
  }
});

describe('cause 3: the fragments of one record show diminishing returns', () => {
  it('rust: a task word naming Cargo.lock does not hand the budget to its fragments', () => {
    const lock = Array.from({ length: 900 }, (_, i) => `[[package]]\nname = "crate-${i}"\nversion = "0.${i % 17}.${i % 9}"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "${(i * 2654435761).toString(16).padStart(8, '0')}${'ab'.repeat(28)}"\n`).join('\n');
    const input: OptimizerInput = {
      task: 'cargo test fails after the dependency bump, fix it',
      tokenBudget: 6_000,
      files: [{ id: 'lock', path: 'Cargo.lock', timestamp: at(1), content: lock }],
      toolOutputs: [
        {
          id: 'cargo-test',
          command: 'cargo test',
          exitCode: 101,
          timestamp: at(2),
          output: "running 12 tests\ntest parser::reads_isbn ... FAILED\n\nfailures:\n\n---- parser::reads_isbn stdout ----\nthread 'parser::reads_isbn' panicked at src/parser.rs:88:5:\nassertion `left == right` failed\n  left: Some(\"978-0\")\n right: None\n\ntest result: FAILED. 11 passed; 1 failed",
        },
      ],
    };
    const result = optimizer.buildContext(input);
    expect(kept(result, 'cargo-test')).toBe(true);
    const lockTokens = result.sources.filter((source) => source.recordId === 'lock').reduce((sum, source) => sum + source.tokens, 0);
    expect(lockTokens).toBeLessThan(1_500);
  });

  it('terraform: a word naming the staging plan does not make every fragment of it worth the same', () => {
    const plan = Array.from({ length: 260 }, (_, i) =>
      `  # aws_route53_record.staging_${i} will be updated in-place\n  ~ resource "aws_route53_record" "staging_${i}" {\n      ~ ttl  = 300 -> 60\n        name = "svc${i}.staging.example.com"\n    }\n`,
    ).join('\n');
    const input: OptimizerInput = {
      task: 'the staging apply fails, fix the security group rule',
      tokenBudget: 6_000,
      toolOutputs: [
        { id: 'staging-plan', command: 'terraform show -no-color tfplan > plans/staging.txt && cat plans/staging.txt', exitCode: 0, timestamp: at(1), output: plan },
        {
          id: 'staging-apply',
          command: 'terraform apply -var-file=staging.tfvars',
          exitCode: 1,
          timestamp: at(3),
          output: 'aws_security_group_rule.ingress_https: Creating...\n\nError: creating Security Group Rule: InvalidParameterValue: CIDR block 10.0.0.0/33 is malformed\n\n  with aws_security_group_rule.ingress_https,\n  on security.tf line 14, in resource "aws_security_group_rule" "ingress_https":\n  14:   cidr_blocks = [var.office_cidr]',
        },
      ],
    };
    const result = optimizer.buildContext(input);
    expect(result.context).toContain('CIDR block 10.0.0.0/33 is malformed');
    const planFragments = result.sources.filter((source) => source.recordId === 'staging-plan');
    expect(planFragments.length).toBeLessThanOrEqual(3);
  });
});

describe('cause 4: output the user said to ignore is not what the context is spent on', () => {
  it('typescript: "ignore the lint output" leaves the lint run out', () => {
    const lint = Array.from({ length: 30 }, (_, i) => `/app/src/checkout/step${i}.tsx\n  ${i + 3}:9  warning  Unexpected any. Specify a different type  @typescript-eslint/no-explicit-any  checkout total coupon`).join('\n');
    const input: OptimizerInput = {
      task: 'the checkout total is wrong when a coupon is applied, fix it',
      tokenBudget: 3_000,
      messages: [{ id: 'user-ignore', role: 'user', timestamp: at(2), text: 'Ignore the lint output, those warnings are old and unrelated to the checkout bug.' }],
      toolOutputs: [{ id: 'lint', command: 'npm run lint', exitCode: 1, timestamp: at(1), output: lint }],
    };
    const result = optimizer.buildContext(input);
    expect(kept(result, 'lint')).toBe(false);
  });

  it('terraform: "don\'t worry about the checkov findings" leaves the checkov run out', () => {
    const checkov = Array.from({ length: 25 }, (_, i) => `Check: CKV_AWS_${100 + i}: "Ensure the staging network resource ${i} is encrypted"\n\tFAILED for resource: aws_subnet.staging_${i}\n\tFile: /network.tf:${10 + i}-${14 + i}`).join('\n\n');
    const input: OptimizerInput = {
      task: 'terraform apply fails on network.tf, fix it',
      tokenBudget: 3_000,
      messages: [{ id: 'user-ignore', role: 'user', timestamp: at(2), text: "Don't worry about the checkov findings, security signs those off separately." }],
      toolOutputs: [{ id: 'checkov', command: 'checkov -d .', exitCode: 1, timestamp: at(1), output: checkov }],
    };
    const result = optimizer.buildContext(input);
    expect(kept(result, 'checkov')).toBe(false);
  });
});

describe('cause 5: only the task\'s own constraints and decisions are mandatory', () => {
  it('a constraint from an older session of another project is not mandatory for this task', () => {
    const input: OptimizerInput = {
      task: 'terraform plan fails on the vpc module',
      tokenBudget: 1_500,
      messages: [{ id: 'old-rule', role: 'user', timestamp: at(0, -30), text: 'You must never use unsafe blocks in the parser crate; we audited it without them.' }],
      decisions: [{ id: 'new-decision', status: 'accepted', timestamp: at(5), text: 'Keep the vpc module on the 5.x AWS provider until the upgrade ticket lands.' }],
    };
    const result = optimizer.buildContext(input);
    const oldRule = result.sources.find((source) => source.recordId === 'old-rule');
    expect(oldRule?.mandatory ?? false).toBe(false);
    expect(result.sources.find((source) => source.recordId === 'new-decision')?.mandatory).toBe(true);
  });

  it('records of another session are out of scope: their constraints are optional unless they touch the task', () => {
    const input: OptimizerInput = {
      task: 'the helm upgrade times out, fix the readiness probe',
      session: 'helm-2',
      tokenBudget: 1_500,
      messages: [
        { id: 'rust-rule', session: 'rust-1', role: 'user', timestamp: at(0), text: 'Do not add new crates to the workspace without asking me first.' },
        { id: 'probe-rule', session: 'rust-1', role: 'user', timestamp: at(1), text: 'Never lower the readiness probe period below 5 seconds.' },
        { id: 'helm-rule', session: 'helm-2', role: 'user', timestamp: at(2), text: "Don't change the service port." },
      ],
    };
    const result = optimizer.buildContext(input);
    const mandatory = (id: string): boolean => result.sources.find((source) => source.recordId === id)?.mandatory ?? false;
    expect(mandatory('rust-rule')).toBe(false);
    expect(mandatory('probe-rule')).toBe(true);
    expect(mandatory('helm-rule')).toBe(true);
    expect(result.report.mandatory.scope).toEqual({ rule: 'session', session: 'helm-2' });
    expect(result.report.mandatory.demoted.map((entry) => entry.recordId)).toEqual(['rust-rule']);
    expect(result.report.mandatory.demoted[0]?.reason).toContain('not the task\'s session "helm-2"');
  });

  it('an accepted decision of a session weeks old does not crowd a small budget out', () => {
    const input: OptimizerInput = {
      task: 'the rails migration for invoices fails, fix it',
      tokenBudget: 400,
      decisions: [
        { id: 'old-decision', status: 'accepted', timestamp: at(0, -40), text: `Use the legacy Swift charting module for every dashboard screen; ${'keep the legacy chart palette and axes as they are. '.repeat(30)}` },
      ],
      toolOutputs: [
        { id: 'migrate', command: 'bin/rails db:migrate', exitCode: 1, timestamp: at(3), output: 'ActiveRecord::StatementInvalid: PG::UndefinedColumn: ERROR:  column "due_on" does not exist\n/app/db/migrate/20261012_add_due_index.rb:4:in `change\'' },
      ],
    };
    const result = optimizer.buildContext(input);
    expect(result.report.selection.conflict).toBeUndefined();
    expect(result.stats.withinBudget).toBe(true);
    expect(kept(result, 'migrate')).toBe(true);
  });
});

describe('what an accepted decision names bears on the task', () => {
  // The task names nothing; the accepted decision names the symbol to change. The file holding it
  // and a file of the same size that nothing names: only the named one bears on the task.
  const membership = sourceFile(40, 22, '    |> unique_constraint([:org_id, :user_id], message: "is already a member")', (i) => `    # membership step ${i}`);
  const billing = sourceFile(40, 22, '    |> validate_required([:plan, :seats])', (i) => `    # billing step ${i}`);
  const input = (status: 'accepted' | 'rejected'): OptimizerInput => ({
    task: 'finish the memberships work so the duplicate member case is handled',
    tokenBudget: 3_000,
    decisions: [{ id: 'plan', timestamp: at(1), text: 'Give unique_constraint the existing index name: name: :memberships_org_user_index', status }],
    files: [
      { id: 'membership', path: 'lib/trellis/orgs/membership.ex', timestamp: at(2), content: membership },
      { id: 'billing', path: 'lib/trellis/billing/plan.ex', timestamp: at(3), content: billing },
    ],
  });

  it('elixir: the file holding the symbol the accepted decision names is kept; one nothing names is not', () => {
    const result = optimizer.buildContext(input('accepted'));
    expect(kept(result, 'membership')).toBe(true);
    expect(result.context).toContain('|> unique_constraint([:org_id, :user_id], message: "is already a member")');
    expect(kept(result, 'billing')).toBe(false);
  });

  it('a rejected decision names nothing to change', () => {
    expect(kept(optimizer.buildContext(input('rejected')), 'membership')).toBe(false);
  });
});
