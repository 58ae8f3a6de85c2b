// The check after every splice: when a format's editor gives text that does not read as the
// intended document (here a stand-in editor that also drops an unrelated key, or breaks the
// syntax), the edit is refused and nothing is written.
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../src/wrap/_edit-json.js', () => ({
  editJsonText: (text: string) => {
    if (text.includes('"broken"')) return { text: '{' };
    if (text.includes('"trailing"')) return { text: '{"trailing": 1, "mcpServers": {"gw": {"command": "c", "args": []},}}' };
    return { text: '{"mcpServers": {"gw": {"command": "c", "args": []}}}' };
  },
}));

const { editClientText } = await import('../../src/wrap/_client-edit.js');

describe('the check after the splice', () => {
  const edit = { client: 'cursor' as const, format: 'json' as const, serversAt: ['mcpServers'], remove: ['a'], add: { name: 'gw', command: 'c', args: [] } };

  it('refuses a result whose text outside the map reads differently', () => {
    const result = editClientText('{"theme": "dark", "mcpServers": {"a": {}}}', edit);
    expect(result).toEqual({ refused: 'the edited file would not read as intended (mcpServers or the rest of the file came out different); nothing was changed: edit it by hand' });
  });

  it('refuses a result that does not parse', () => {
    const result = editClientText('{"broken": 1, "mcpServers": {"a": {}}}', edit);
    expect('refused' in result && result.refused).toMatch(/^the edited file would not read as intended \(.* at line 1, column 2\)/);
  });

  it('refuses a result that reads right but is no longer strict JSON, for a strict JSON file', () => {
    expect(editClientText('{"trailing": 1, "mcpServers": {"a": {}}}', edit)).toEqual({ refused: 'the edited file would not read as intended (the result is no longer strict JSON); nothing was changed: edit it by hand' });
    // A JSONC file may have trailing commas.
    expect(editClientText('{"trailing": 1, "mcpServers": {"a": {}}}', { ...edit, format: 'jsonc' })).toEqual({ text: '{"trailing": 1, "mcpServers": {"gw": {"command": "c", "args": []},}}' });
  });

  it('passes a result that is what was intended', () => {
    expect(editClientText('{"mcpServers": {"a": {}}}', edit)).toEqual({ text: '{"mcpServers": {"gw": {"command": "c", "args": []}}}' });
  });
});
