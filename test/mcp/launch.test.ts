import { describe, expect, it } from 'vitest';
import { BASE_ENV_NAMES, childEnvironment, passedEnvNames } from '../../src/mcp/index.js';

const parent = { PATH: '/bin', HOME: '/root', USER: 'u', SHELL: '/bin/sh', TERM: 'xterm', LANG: 'C.UTF-8', AWS_SECRET_ACCESS_KEY: 'leak', GITHUB_TOKEN: 'leak2' };

describe('childEnvironment', () => {
  it('gives the server only the minimal base plus what the caller passes', () => {
    const env = childEnvironment({ env: { API_KEY: 'k' } }, parent);
    expect(Object.keys(env).sort()).toEqual([...BASE_ENV_NAMES, 'API_KEY'].sort());
    expect(env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(env.GITHUB_TOKEN).toBeUndefined();
  });

  it('passes the whole environment only when asked', () => {
    expect(childEnvironment({ inheritEnv: true }, parent).GITHUB_TOKEN).toBe('leak2');
  });

  it('lets passed variables override the base', () => {
    expect(childEnvironment({ env: { PATH: '/opt/bin' } }, parent).PATH).toBe('/opt/bin');
  });

  it('records names, sorted, never values', () => {
    expect(passedEnvNames({ env: { B: 'secret-b', A: 'secret-a' } })).toEqual(['A', 'B']);
  });
});
