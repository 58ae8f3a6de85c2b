// lazyRequire: a package loaded at its first use, once; a package that cannot load says what to do.
import { describe, expect, it } from 'vitest';
import { lazyImport, lazyRequire } from '../../src/lazy/index.js';

describe('lazyRequire', () => {
  it('loads nothing until called, then the same module every time', () => {
    const yaml = lazyRequire<{ parse: (text: string) => unknown }>('yaml');
    const first = yaml();
    expect(first.parse('a: 1')).toEqual({ a: 1 });
    expect(yaml()).toBe(first);
  });

  it('a package that cannot load fails with its first line and the remedy, the original as the cause', () => {
    const missing = lazyRequire<unknown>('mcpctx-no-such-package', 'install it with npm i mcpctx-no-such-package');
    let thrown: unknown;
    try {
      missing();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    const error = thrown as Error & { cause?: { code?: string } };
    expect(error.message).toMatch(/^Cannot find module 'mcpctx-no-such-package'.* \(install it with npm i mcpctx-no-such-package\)$/);
    expect(error.message).not.toContain('\n');
    expect(error.cause?.code).toBe('MODULE_NOT_FOUND');
  });

  it('without a remedy the error is the loader own', () => {
    const missing = lazyRequire<unknown>('mcpctx-no-such-package');
    expect(() => missing()).toThrow(expect.objectContaining({ code: 'MODULE_NOT_FOUND' }));
  });
});

describe('lazyImport', () => {
  it('imports at the first load, once, and says what is loaded so far', async () => {
    let imports = 0;
    const toon = lazyImport(async () => {
      imports += 1;
      return import('@toon-format/toon');
    });
    expect(toon.loaded()).toBeUndefined();
    expect(imports).toBe(0);
    const [first, second] = await Promise.all([toon.load(), toon.load()]);
    expect(first).toBe(second);
    expect(imports).toBe(1);
    expect(toon.loaded()).toBe(first);
  });
});
