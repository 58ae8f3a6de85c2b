// Small configs and tool sets for the routing tests, built in code.
import type { RoutingConfig } from '../../src/routing/index.js';
import { parseRoutingConfig } from '../../src/routing/config/index.js';

export function tool(name: string, description: string, parameters: string[] = []): Record<string, unknown> {
  return { name, description, inputSchema: { type: 'object', properties: Object.fromEntries(parameters.map((parameter) => [parameter, { type: 'string' }])) } };
}

export const DOMAIN = [
  tool('stock_level', 'Current stock of one product at the shop, in tubs.', ['product']),
  tool('word_count', 'Count the words in a short text.', ['text']),
  tool('send_message_to_lucy', 'Send a short text message to Lucy, the owner.', ['message']),
  tool('sales_today', 'Sales since opening today, per product.', ['product']),
];
export const CONFUSABLE = [
  tool('character_count', 'Count the characters in a text.', ['text']),
  tool('warehouse_inventory_count', 'Units held in the central warehouse.', ['sku']),
  tool('send_email_to_customer', 'Send an email to a customer.', ['to', 'body']),
];
export const UNRELATED = Array.from({ length: 12 }, (_, index) =>
  tool(`weather_tool_${index}`, `Weather forecast number ${index} for a city.`, ['city']),
);

export function smallConfig(overrides: Record<string, unknown> = {}): RoutingConfig {
  return parseRoutingConfig(
    JSON.stringify({
      seed: 14,
      domain: { tools: DOMAIN },
      distractors: { unrelated: { tools: UNRELATED }, confusable: { tools: CONFUSABLE } },
      sizes: [4, 8, 12],
      requests: [
        { id: 'stock', text: 'How many tubs of vanilla are in stock?', tool: 'stock_level' },
        { id: 'words', text: 'Count the words in this sign', tool: 'word_count' },
        { id: 'lucy', text: 'Tell Lucy the freezer is broken', tool: 'send_message_to_lucy' },
        { id: 'thanks', text: 'thank you!', tool: 'none' },
      ],
      ...overrides,
    }),
    { cwd: '/tmp' },
  );
}
