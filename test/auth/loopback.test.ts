// The redirect listener of `auth login`: only the state this login sent is accepted; a forged or
// replayed redirect, or the authorization server's refusal, ends the login with a clear error.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listenForRedirect } from '../../src/auth/login/_loopback.js';

describe('listenForRedirect', () => {
  it('hands back the code and iss of a redirect carrying the state that was sent', async () => {
    const listener = await listenForRedirect('state-123');
    try {
      expect(listener.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const page = await fetch(`${listener.redirectUri}?code=the-code&state=state-123&iss=${encodeURIComponent('http://127.0.0.1:9/')}`);
      expect(page.status).toBe(200);
      await expect(listener.response).resolves.toEqual({ code: 'the-code', iss: 'http://127.0.0.1:9/' });
    } finally {
      await listener.close();
    }
  });

  it('refuses a redirect with another state and ends the login, even if the right one follows', async () => {
    const listener = await listenForRedirect('state-123');
    try {
      const forged = await fetch(`${listener.redirectUri}?code=attacker-code&state=state-999`);
      expect(forged.status).toBe(400);
      expect(await forged.text()).toContain('not completed');
      await expect(listener.response).rejects.toMatchObject({ code: 'AUTH_FLOW', data: { step: 'redirect' } });
      await expect(listener.response).rejects.toThrow(/state that is not the one this login sent/);
      // A later, correct redirect does not revive it.
      await fetch(`${listener.redirectUri}?code=good&state=state-123`);
      await expect(listener.response).rejects.toThrow(/state/);
    } finally {
      await listener.close();
    }
  });

  it('refuses a redirect without a state', async () => {
    const listener = await listenForRedirect('state-123');
    try {
      expect((await fetch(`${listener.redirectUri}?code=x`)).status).toBe(400);
      await expect(listener.response).rejects.toThrow(/state/);
    } finally {
      await listener.close();
    }
  });

  it("says the authorization server's refusal (access_denied)", async () => {
    const listener = await listenForRedirect('s');
    try {
      await fetch(`${listener.redirectUri}?error=access_denied&error_description=${encodeURIComponent('the user said no')}&state=s`);
      await expect(listener.response).rejects.toMatchObject({ code: 'AUTH_FLOW', data: { oauthError: 'access_denied' } });
      await expect(listener.response).rejects.toThrow(/access_denied: the user said no/);
    } finally {
      await listener.close();
    }
  });

  it('answers 404 to other paths and methods, which do not end the login', async () => {
    const listener = await listenForRedirect('s');
    try {
      const base = new URL(listener.redirectUri);
      expect((await fetch(`${base.origin}/favicon.ico`)).status).toBe(404);
      expect((await fetch(`${listener.redirectUri}?code=c&state=s`, { method: 'POST' })).status).toBe(404);
      await fetch(`${listener.redirectUri}?code=c&state=s`);
      await expect(listener.response).resolves.toEqual({ code: 'c' });
    } finally {
      await listener.close();
    }
  });

  it('listens on the preferred port when it is free, and on another when it is taken', async () => {
    const first = await listenForRedirect('s');
    const port = Number(new URL(first.redirectUri).port);
    await first.close();
    const again = await listenForRedirect('s', port);
    expect(Number(new URL(again.redirectUri).port)).toBe(port);
    const busy = await listenForRedirect('s', port);
    expect(Number(new URL(busy.redirectUri).port)).not.toBe(port);
    await again.close();
    await busy.close();
  });

  it('a close before the browser came back rejects the login', async () => {
    const listener = await listenForRedirect('s');
    await listener.close();
    await expect(listener.response).rejects.toThrow(/stopped before the browser came back/);
    // Nothing listens any more.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(Number(new URL(listener.redirectUri).port), '127.0.0.1', resolve));
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });
});
