import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { McpctxError } from '../../src/errors/index.js';
import { fieldsParameter, toolErrorFrom } from '../../src/shape/index.js';

const ALLOWED = ['id', 'title', 'state', 'author'];
const fields = fieldsParameter(ALLOWED, { defaults: ['id', 'title'], always: ['id'], known: [...ALLOWED, 'body'] });

function thrown(run: () => unknown): McpctxError {
  try {
    run();
  } catch (error) {
    if (error instanceof McpctxError) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

describe('fieldsParameter', () => {
  it('refuses an unknown field with UNKNOWN_FIELD and the allowed list', () => {
    const error = thrown(() => fields.choose(['title', 'colour']));
    expect(error.code).toBe('UNKNOWN_FIELD');
    expect(error.message).toBe(
      'Unknown field "colour": no record has a field of that name (names are case-sensitive). Allowed fields: id, title, state, author. Pass only those in "fields".',
    );
    expect(error.data).toMatchObject({ field: 'colour', allowed: ALLOWED, rpcCode: -32602 });
    // Case matters: "Title" is not "title".
    expect(thrown(() => fields.choose(['Title'])).code).toBe('UNKNOWN_FIELD');
  });

  it('repeats at most 100 characters of a huge unknown name, in the message and the data', () => {
    const error = thrown(() => fields.choose(['x'.repeat(1_000_000)]));
    expect(error.code).toBe('UNKNOWN_FIELD');
    expect(error.message.length).toBeLessThan(400);
    expect(error.message).toContain(`"${'x'.repeat(100)}…"`);
    expect(String((error.data as { field: string }).field)).toHaveLength(101);
  });

  it('refuses a field that exists but is not allowed with FIELD_NOT_ALLOWED and the allowed list', () => {
    const error = thrown(() => fields.choose(['body']));
    expect(error.code).toBe('FIELD_NOT_ALLOWED');
    expect(error.message).toMatch(/^Field "body" exists in the records but is not in this server's field allowlist/);
    expect(error.message).toContain('Allowed fields: id, title, state, author.');
    // As a tool error the handler returns: the code first, then the remedy.
    expect(toolErrorFrom(error)).toEqual({ content: [{ type: 'text', text: `FIELD_NOT_ALLOWED: ${error.message}` }], isError: true });
    // Without `known`, anything outside the allowlist is unknown.
    expect(thrown(() => fieldsParameter(ALLOWED).choose(['body'])).message).toMatch(/^Unknown field "body": this tool returns no field of that name/);
  });

  it('chooses in allowlist order with the always fields, and projects own properties only', () => {
    expect(fields.choose(undefined)).toEqual(['id', 'title']);
    expect(fields.choose(['author', 'state', 'author'])).toEqual(['id', 'state', 'author']);
    const record = Object.assign(Object.create({ state: 'inherited' }) as object, { id: 7, title: 'Fix', author: 'ana', body: 'long' });
    expect(fields.project(record, fields.choose(['state', 'author']))).toEqual({ id: 7, state: null, author: 'ana' });
  });

  it('treats __proto__ and constructor from a peer as unknown fields and never as keys', () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      expect(thrown(() => fields.choose([name])).code).toBe('UNKNOWN_FIELD');
    }
    expect(() => fieldsParameter(['id', '__proto__'])).toThrow(/__proto__/);
    const odd = fieldsParameter(['id', 'constructor']);
    const projected = odd.project({ id: 1, constructor: 'data' }, odd.choose(['id', 'constructor']));
    expect(projected).toEqual({ id: 1, constructor: 'data' });
    expect(Object.getPrototypeOf(projected)).toBe(Object.prototype);
  });

  it('refuses a value that is not a short list of strings', () => {
    for (const value of ['title', [1], null, { 0: 'id', length: 1 }, ['id', 'id', 'id', 'id', 'id']]) {
      expect(thrown(() => fields.choose(value)).code).toBe('INVALID_ARGUMENT');
    }
  });

  it('gives a schema the real SDK server accepts (zod and JSON Schema) and lists to the real client', async () => {
    const server = new McpServer({ name: 'fields', version: '1.0.0' });
    server.registerTool('with_zod', { inputSchema: z.object({ fields: fields.zod(z) }) }, ({ fields: requested }) => {
      try {
        return { content: [{ type: 'text', text: JSON.stringify(fields.project({ id: 1, title: 'A', state: 'open' }, fields.choose(requested))) }] };
      } catch (error) {
        return toolErrorFrom(error);
      }
    });
    server.registerTool(
      'with_json_schema',
      { inputSchema: fromJsonSchema({ type: 'object', properties: { fields: fields.jsonSchema }, additionalProperties: false }) },
      () => ({ content: [{ type: 'text', text: 'ok' }] }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'fields-test', version: '1.0.0' });
    try {
      await client.connect(clientSide);
      const { tools } = await client.listTools();
      const expected = {
        type: 'array',
        items: { type: 'string', enum: ALLOWED },
        maxItems: 4,
        uniqueItems: true,
        description: 'Fields to return (id always comes back). Default: id, title.',
      };
      for (const name of ['with_zod', 'with_json_schema']) {
        const listed = tools.find((tool) => tool.name === name)?.inputSchema as { properties?: Record<string, unknown> };
        expect(listed.properties?.fields, name).toEqual(expected);
      }
      const chosen = await client.callTool({ name: 'with_zod', arguments: { fields: ['state'] } });
      expect(chosen.content).toEqual([{ type: 'text', text: '{"id":1,"state":"open"}' }]);
      // The zod form leaves the refusal to choose(), whose message lists the allowed fields.
      const refused = await client.callTool({ name: 'with_zod', arguments: { fields: ['body'] } });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]?.text).toMatch(/^FIELD_NOT_ALLOWED: .*Allowed fields: id, title, state, author\./);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
