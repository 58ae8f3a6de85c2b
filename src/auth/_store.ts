// TEMPORARY stub until the authstore branch lands.
import type { StoredLogin } from './_types.js';
export interface TokenStore {
  readonly kind: 'file' | 'keyring';
  readonly file: string;
  readonly note?: string;
  get(resource: string): Promise<StoredLogin | undefined>;
  put(login: StoredLogin): Promise<void>;
  update(resource: string, change: (current: StoredLogin | undefined) => Promise<StoredLogin | undefined>): Promise<StoredLogin | undefined>;
  delete(resource: string): Promise<boolean>;
  list(): Promise<StoredLogin[]>;
}
export async function openTokenStore(options?: { env?: NodeJS.ProcessEnv; mode?: 'auto' | 'file' | 'keyring' }): Promise<TokenStore> {
  void options;
  const logins = new Map<string, StoredLogin>();
  return {
    kind: 'file',
    file: '(stub)',
    get: async (resource) => logins.get(resource),
    put: async (login) => void logins.set(login.resource, login),
    update: async (resource, change) => {
      const next = await change(logins.get(resource));
      if (next) logins.set(resource, next);
      return next;
    },
    delete: async (resource) => logins.delete(resource),
    list: async () => [...logins.values()],
  };
}
