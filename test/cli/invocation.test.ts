// The words mcpctx prints before a command it tells someone to run, from how it was started.
import { describe, expect, it } from 'vitest';
import { invocationAnywhere, invocationFrom } from '../../src/cli/_invocation.js';

describe('how mcpctx was started', () => {
  it('from a clone: node and the script, relative below the working directory, absolute elsewhere', () => {
    expect(invocationFrom('/home/ada/mcpctx/dist/cli/main.js', '/home/ada/mcpctx')).toBe('node dist/cli/main.js');
    expect(invocationFrom('/home/ada/mcpctx/dist/cli/main.js', '/tmp/work')).toBe('node /home/ada/mcpctx/dist/cli/main.js');
    expect(invocationAnywhere('/home/ada/mcpctx/dist/cli/main.js', '/home/ada/mcpctx')).toBe('node /home/ada/mcpctx/dist/cli/main.js');
  });

  it("installed in a project: npx mcpctx there, the bin's absolute path from anywhere", () => {
    expect(invocationFrom('/work/app/node_modules/.bin/mcpctx', '/work/app')).toBe('npx mcpctx');
    expect(invocationAnywhere('/work/app/node_modules/.bin/mcpctx', '/work/app')).toBe('/work/app/node_modules/.bin/mcpctx');
  });

  it('installed globally: mcpctx', () => {
    expect(invocationFrom('/usr/local/bin/mcpctx', '/tmp')).toBe('mcpctx');
    expect(invocationAnywhere('/usr/local/bin/mcpctx', '/tmp')).toBe('mcpctx');
  });

  it('quotes a path a shell would split or expand', () => {
    expect(invocationFrom("/home/ada/my tools/it's/dist/cli/main.js", '/tmp')).toBe("node '/home/ada/my tools/it'\\''s/dist/cli/main.js'");
    expect(invocationFrom('/home/ada/$HOME/dist/cli/main.js', '/tmp')).toBe("node '/home/ada/$HOME/dist/cli/main.js'");
  });
});
