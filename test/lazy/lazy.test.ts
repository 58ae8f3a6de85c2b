// lazyRequire: a package loaded at its first use, once; a package that cannot load says what to do.
import { describe, expect, it } from 'vitest';
import { isMcpctxError } from '../../src/errors/index.js';
import { importPeer, lazyImport, lazyRequire, missingDependency } from '../../src/lazy/index.js';

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

  it('an optional package that is not installed is MISSING_DEPENDENCY, naming the package (not the subpath), its use and npm install', () => {
    const missing = lazyRequire<unknown>('@mcpctx-no-such/package/sub', { neededFor: 'the test store' });
    let thrown: unknown;
    try {
      missing();
    } catch (error) {
      thrown = error;
    }
    expect(isMcpctxError(thrown, 'MISSING_DEPENDENCY')).toBe(true);
    expect(thrown).toMatchObject({ data: { package: '@mcpctx-no-such/package', install: 'npm install @mcpctx-no-such/package', neededFor: 'the test store' } });
    expect((thrown as Error).message).toBe(
      '@mcpctx-no-such/package is not installed, and the test store needs it: run npm install @mcpctx-no-such/package where mcpctx is installed (it is optional, so a default install may leave it out)',
    );
  });

  it('an optional package that is installed and fails to load says to rebuild it', () => {
    const error = missingDependency('better-sqlite3', { neededFor: "the gateway's --store", native: true }, new Error('Could not locate the bindings file.\n tried: ...'));
    expect(error.data).toEqual({ package: 'better-sqlite3', install: 'npm rebuild better-sqlite3', neededFor: "the gateway's --store" });
    expect(error.message).toMatch(/^better-sqlite3 is installed but did not load \(Could not locate the bindings file\.\), .* run npm rebuild better-sqlite3 .*python3, make and a C\+\+ compiler\)$/);
  });

  it('without a remedy the error is the loader own', () => {
    const missing = lazyRequire<unknown>('mcpctx-no-such-package');
    expect(() => missing()).toThrow(expect.objectContaining({ code: 'MODULE_NOT_FOUND' }));
  });
});

describe('importPeer and an optional lazyImport', () => {
  it('turn a failed import into MISSING_DEPENDENCY, and a lazyImport tries again at the next load', async () => {
    await expect(importPeer('mcpctx-no-such-peer', 'mcpctx/host/test', () => import('mcpctx-no-such-peer' as string))).rejects.toMatchObject({
      code: 'MISSING_DEPENDENCY',
      data: { package: 'mcpctx-no-such-peer', install: 'npm install mcpctx-no-such-peer', neededFor: 'mcpctx/host/test' },
    });
    let attempts = 0;
    const sdk = lazyImport(
      async () => {
        attempts += 1;
        return import('mcpctx-no-such-sdk' as string);
      },
      { name: 'mcpctx-no-such-sdk', neededFor: 'the test provider' },
    );
    await expect(sdk.load()).rejects.toMatchObject({ code: 'MISSING_DEPENDENCY', data: { install: 'npm install mcpctx-no-such-sdk' } });
    await expect(sdk.load()).rejects.toMatchObject({ code: 'MISSING_DEPENDENCY' });
    expect(attempts).toBe(2);
    expect(sdk.loaded()).toBeUndefined();
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
